"""The packaged language model: its weights are checked, its backend keeps the LLM contract, and
auto-detection reaches it after Ollama (extractive only when it cannot load)."""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time

import pytest

from ragcore.errors import ConfigError, LLMError
from ragcore.llms import local_models, resolve
from ragcore.llms.base import complete
from ragcore.llms.gguf_info import read_gguf_info
from ragcore.llms.local import LocalLLM, default_threads, local_chat_body
from ragcore.llms.local_models import PackagedModel, SMOLLM2_135M, model_file
from ragcore.testing.llm import ASK, LLMContract
from ragcore.types import Message

needs_models = pytest.mark.skipif(
    not (local_models.QWEN_CODER_1_5B.installed and SMOLLM2_135M.installed),
    reason="the packaged models are installed by `make install`")


# -- the weights --------------------------------------------------------------------------------

def _fake_model(tmp_path, monkeypatch, parts: list[bytes], digest: str | None = None
                ) -> PackagedModel:
    """A model split over packages ``fakepartN`` (each holding ``data.bin``) on sys.path."""
    root = tmp_path / "site"
    for i, data in enumerate(parts, 1):
        package = root / f"fakepart{i}"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv(local_models.CACHE_VARIABLE, str(tmp_path / "cache"))
    whole = b"".join(parts)
    return PackagedModel(
        name="fake", label="Fake", parts=tuple((f"fakepart{i}", "data.bin")
                                               for i in range(1, len(parts) + 1)),
        sha256=digest or hashlib.sha256(whole).hexdigest(), size=len(whole), licence="MIT",
        origin="a test", install="fakepart1..N")


def test_split_weights_are_assembled_once_and_checked(tmp_path, monkeypatch):
    model = _fake_model(tmp_path, monkeypatch, [b"GGUF-part-one|", b"part-two"])
    path = model_file(model)
    assert path.read_bytes() == b"GGUF-part-one|part-two"
    assert path.parent == tmp_path / "cache"
    stat = path.stat()
    assert model_file(model) == path and path.stat().st_mtime_ns == stat.st_mtime_ns  # kept
    assert not list(path.parent.glob("*.partial"))


def test_weights_whose_digest_differs_are_refused_and_nothing_is_left(tmp_path, monkeypatch):
    model = _fake_model(tmp_path, monkeypatch, [b"one", b"two"], digest="0" * 64)
    with pytest.raises(LLMError, match="SHA-256 .* not the recorded 0000"):
        model_file(model)
    assert not [p for p in (tmp_path / "cache").iterdir() if p.is_file()]


def test_a_file_changed_after_it_was_verified_is_checked_again_and_refused(tmp_path, monkeypatch):
    model = _fake_model(tmp_path, monkeypatch, [b"the whole model in one part"])
    source = model_file(model)  # one part: checked where it is installed
    assert source.parent.name == "fakepart1"
    source.write_bytes(b"the whole model in one pArt")  # same size, new mtime
    with pytest.raises(LLMError, match="changed or damaged"):
        model_file(model)


def test_a_missing_package_says_how_to_install_it(tmp_path, monkeypatch):
    model = _fake_model(tmp_path, monkeypatch, [b"x"])
    missing = PackagedModel(**{**{f: getattr(model, f) for f in model.__slots__},
                               "parts": (("no_such_part_package", "data.bin"),)})
    assert not missing.installed
    with pytest.raises(LLMError, match="not installed .* `make install`"):
        model_file(missing)


def test_an_unknown_model_name_lists_the_packaged_ones():
    with pytest.raises(ConfigError, match="local:qwen2.5-coder-1.5b"):
        LocalLLM("gpt-5")


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"<html>not a model</html>")
    with pytest.raises(LLMError, match="not a GGUF model file"):
        read_gguf_info(bad)


@needs_models
def test_the_trained_window_is_read_from_the_model_file():
    info = read_gguf_info(model_file(SMOLLM2_135M))
    assert (info.architecture, info.context_length, info.has_chat_template) == ("llama", 8192, True)
    with pytest.raises(ConfigError, match="8192 tokens smollm2-135m was trained"):
        LocalLLM("smollm2-135m", context_window=16384)


# -- the request --------------------------------------------------------------------------------

def test_the_request_caps_the_reply_and_carries_stop_strings():
    body = local_chat_body([Message("system", "s"), Message("user", "q")], max_tokens=64,
                           temperature=0.0, stop=["Observation:"])
    assert body["messages"] == [{"role": "system", "content": "s"},
                                {"role": "user", "content": "q"}]
    assert (body["max_tokens"], body["stop"], body["top_k"]) == (64, ["Observation:"], 1)
    assert body["cache_prompt"] is True
    assert "top_k" not in local_chat_body([], max_tokens=1, temperature=0.7)


# -- the backend --------------------------------------------------------------------------------

@pytest.mark.slow
@needs_models
class TestLocalLLM(LLMContract):
    """The default packaged model keeps the contract (greedy: the same messages, one reply)."""

    def make_llm(self, **options):
        return LocalLLM(**{"num_output": 48, **options})


@pytest.mark.slow
@needs_models
def test_every_instance_shares_one_loaded_engine():
    first, second = LocalLLM("smollm2-135m"), LocalLLM("smollm2-135m", num_output=32)
    assert first._engine is second._engine
    assert LocalLLM("smollm2-135m", threads=1)._engine is not first._engine


@pytest.mark.slow
@needs_models
def test_the_model_says_what_it_fitted_to_this_machine_and_why(monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM_THREADS", raising=False)  # the suite fixes them (conftest)
    llm = LocalLLM("smollm2-135m", num_output=24)
    complete(llm, "Write three sentences about the sea, the sky and the wind, one each.")
    note = llm.pace_note()
    assert 1 <= note["threads"]["threads"] <= default_threads()
    assert not note["threads"]["fixed"] and "free" in note["threads"]["reason"]
    assert note["reads_per_second"] and note["writes_per_second"]
    # The reading budget is what the measured speed reads in the aimed seconds.
    assert "tokens/s" in note["reading_budget"]["reason"]
    assert note["reading_budget"]["tokens"] == llm.reading_tokens
    assert LocalLLM("smollm2-135m", reading_tokens=180).reading_tokens == 180
    assert LocalLLM("smollm2-135m", reading_tokens=None).reading_tokens is None


@pytest.mark.slow
@needs_models
def test_stop_strings_end_the_reply():
    llm = LocalLLM("qwen2.5-coder-1.5b", num_output=48)
    reply = complete(llm.with_stop(["PELICAN"]), ASK)
    assert "PELICAN" not in reply and complete(llm, ASK).count("PELICAN") == 1


@pytest.mark.slow
@needs_models
def test_a_last_assistant_message_is_continued_not_answered():
    # The not-found gate begins an answer it lets through with "**" (``Call.prefilled``): the
    # model must go on from there, not start a reply of its own after it.
    llm = LocalLLM("qwen2.5-coder-1.5b", num_output=16)
    asked = [Message("user", "Reply with the name of the capital of France in bold.")]
    reply = complete(llm, [*asked, Message("assistant", "The capital of France is **")])
    assert reply.startswith("Paris**"), reply  # a reply of its own is "Paris" or "**Paris**"


@pytest.mark.slow
@needs_models
def test_two_callers_at_once_are_both_answered():
    llm = LocalLLM("smollm2-135m", num_output=24)
    replies: dict[int, str] = {}

    def ask(i: int) -> None:
        replies[i] = complete(llm, [Message("user", f"Say the number {i}.")])

    threads = [threading.Thread(target=ask, args=(i,)) for i in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert sorted(replies) == [1, 2] and all(r.strip() for r in replies.values())


@pytest.mark.slow
@needs_models
def test_closing_the_stream_stops_the_decoding():
    """A reply told to ignore its end token runs 1,500 tokens (many seconds); a stopped one
    ends at the next token."""
    llm = LocalLLM("smollm2-135m", num_output=1500)
    body = {**llm._body([Message("user", "Count from 1 to 2000.")]), "ignore_eos": True}
    stream = llm._engine.stream(body)
    first = [next(stream) for _ in range(3)]
    workers = [t for t in threading.enumerate() if t.name == "ragcore-local-llm"]
    started = time.perf_counter()
    stream.close()
    for worker in workers:
        worker.join(10)
    assert first and workers and not any(worker.is_alive() for worker in workers)
    print(f"decoding stopped {time.perf_counter() - started:.3f} s after the stream closed")


@pytest.mark.slow
@needs_models
def test_a_stopped_reply_leaves_its_slot_free_with_its_tokens_for_the_next_request():
    """Closing a reply returns once llama.cpp has let its slot go, so a question asked next
    in the same prompt (the judge's, about a short answer the reply was ended after) goes to
    that slot and reads only what is new; it had gone to the other slot and read it all."""
    llm = LocalLLM("smollm2-135m", num_output=200)
    prompt = " ".join(f"Line {n} of the passages says nothing new." for n in range(60))
    messages = [Message("user", f"{prompt}\nWrite a long story about it.")]
    stream = llm.stream(messages)
    first = [next(stream) for _ in range(3)]
    stream.close()
    reads = []
    record = llm._engine.pace.record
    llm._engine.pace.record = lambda timings, threads: reads.append(timings)
    try:
        llm.first_token_logprobs([Message("user", f"{prompt}\nIs this true? Yes or No.")])
    finally:
        llm._engine.pace.record = record
    assert first and reads and reads[-1]["cache_n"] > 300 and reads[-1]["prompt_n"] < 40


_LEAVE_MID_REPLY = """
from ragcore.llms.local import LocalLLM
from ragcore.types import Message
stream = LocalLLM("smollm2-135m", num_output=1500).stream(
    [Message("user", "Count from 1 to 2000, one number a line.")])
for _ in range(3):
    next(stream)
"""


@pytest.mark.slow
@needs_models
def test_a_process_leaving_mid_reply_exits_cleanly():
    """Before replies were stopped at exit, 1 process in 3 crashed (segmentation fault) while
    the interpreter tore the engine down under a running decode."""
    import subprocess
    import sys

    for _ in range(6):
        done = subprocess.run([sys.executable, "-c", _LEAVE_MID_REPLY], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0 and "FATAL" not in done.stderr, done.stderr[-2000:]


# -- choosing it --------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.local_llm
@needs_models
def test_auto_detection_takes_the_packaged_model_when_no_ollama_answers(monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://127.0.0.1:9")  # nothing listens there
    llm = resolve.resolve_llm()
    assert llm.model == "local:qwen2.5-coder-1.5b"
    assert resolve.resolve_llm("local:smollm2-135m").model == "local:smollm2-135m"


@pytest.mark.local_llm
def test_extractive_answers_only_when_the_packaged_model_cannot_load(monkeypatch, tmp_path):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setattr(local_models, "PACKAGED_MODELS", ())  # nothing installed
    monkeypatch.setattr(resolve, "_fallback", [])
    llm = resolve.resolve_llm()
    assert llm.model == "extractive"
    reason = resolve.fallback_reason()
    assert reason and "no packaged language model is installed" in reason
    resolve.resolve_llm()
    assert resolve._fallback == [reason]  # said once


def test_the_suite_ends_auto_detection_at_extractive_unless_a_test_asks(monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://127.0.0.1:9")
    assert resolve.resolve_llm().model == "extractive"


@needs_models
def test_the_recorded_digests_are_those_of_the_installed_weights():
    """``make install`` put the pinned packages here: the recorded SHA-256 must match them."""
    for model in local_models.installed_models():
        path = model_file(model)
        assert path.stat().st_size == model.size, model.name
    assert os.path.getsize(model_file(SMOLLM2_135M)) == SMOLLM2_135M.size


# -- tool calls ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    '```json\n{"name": "search_documents", "arguments": {"input": "tabs"}}\n```',
    '<tool_call>\n{"name": "search_documents", "arguments": {"input": "tabs"}}\n</tool_call>',
    '{{"name": "search_documents", "arguments": {"input": "tabs"}}',
    '{"function": {"name": "search_documents", "arguments": "{\\"input\\": \\"tabs\\"}"}}',
])
def test_tool_calls_written_as_text_are_read_back(text):
    from ragcore.llms.local_tools import tool_calls_in_text

    [call] = tool_calls_in_text(text, ["search_documents"])
    assert (call.name, json.loads(call.arguments)) == ("search_documents", {"input": "tabs"})


def test_text_that_is_no_call_of_an_offered_tool_stays_text():
    from ragcore.llms.local_tools import tool_calls_in_text

    assert tool_calls_in_text('{"name": "rm_rf", "arguments": {}}', ["search_documents"]) == []
    assert tool_calls_in_text("PEP 8 prefers spaces {as a rule}.", ["search_documents"]) == []


def test_a_call_already_answered_counts_as_a_repeat():
    from ragcore.llms.local_tools import repeats_calls
    from ragcore.types import ToolCall

    asked = ToolCall("c1", "search_documents", '{"input": "tabs"}')
    history = [Message("user", "q"), Message("assistant", "", tool_calls=[asked]),
               Message("tool", "spaces", tool_call_id="c1")]
    again = ToolCall("c2", "search_documents", '{ "input":"tabs" }')
    other = ToolCall("c3", "search_documents", '{"input": "line length"}')
    assert repeats_calls([again], history) and not repeats_calls([other], history)


@pytest.mark.slow
@needs_models
def test_the_function_calling_agent_runs_on_the_packaged_model():
    from ragcore.agent import FunctionCallingAgent
    from ragcore.memory import ChatMemory
    from ragcore.tools import FunctionTool
    from ragcore.trace import Trace

    def search_documents(input: str) -> str:
        """Search the user's documents for a passage."""
        return "PEP 8: Spaces are the preferred indentation method. Tabs should be used only " \
               "to remain consistent with code that is already indented with tabs."

    agent = FunctionCallingAgent.from_tools([FunctionTool.from_defaults(search_documents)],
                                            llm=LocalLLM(num_output=96))
    trace = Trace()
    answer = agent.chat("What does PEP 8 prefer for indentation, tabs or spaces? Search first.",
                        ChatMemory(), trace=trace).text
    assert "space" in answer.lower() and "{" not in answer
    assert any("[tool call search_documents" in str(call.reply) for call in trace.llm_calls)


def test_calls_get_ids_no_earlier_call_has():
    from ragcore.llms.local_tools import fresh_ids
    from ragcore.types import ToolCall

    history = [Message("assistant", "", tool_calls=[ToolCall("call_0", "search_documents", "{}")])]
    calls = fresh_ids([ToolCall("call_0", "search_documents", '{"input": "a"}'),
                       ToolCall("call_1", "search_documents", '{"input": "b"}')], history)
    ids = [c.id for c in calls]
    assert len(set(ids) | {"call_0"}) == 3 and "call_0" not in ids
