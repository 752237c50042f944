"""Stop stops the work: the packaged model's reading of a prompt ends soon after its question is
stopped, its CPU falls idle, and the next question starts; whole replies come from the stream."""

from __future__ import annotations

import queue
import random
import threading
import time

import pytest

from ragcore.errors import LLMError, LLMResponseError
from ragcore.llms import local_models, one_turn
from ragcore.llms.local.chunks import chunk_text, is_last, whole_reply
from ragcore.types import Message

needs_model = pytest.mark.skipif(
    not (local_models.default_model().installed and local_models.SMOLLM2_135M.installed),
    reason="the packaged models are installed by `make install`")


# -- whole replies from streamed chunks (pure) --------------------------------------------------

def _delta(**delta):
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}


def test_a_streamed_reply_reads_back_whole_with_its_calls_and_chances():
    chunks = [
        {**_delta(role="assistant", content=None), "prompt_progress": {"processed": 64}},
        {"choices": [{"delta": {"content": "Par"},
                      "logprobs": {"content": [{"token": "Par", "logprob": -0.1}]}}]},
        {"choices": [{"delta": {"content": "is"},
                      "logprobs": {"content": [{"token": "is", "logprob": -0.2}]}}]},
        _delta(tool_calls=[{"index": 0, "id": "c1", "type": "function",
                            "function": {"name": "weather", "arguments": '{"ci'}}]),
        _delta(tool_calls=[{"index": 0, "function": {"arguments": 'ty": "Paris"}'}}]),
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}],
         "timings": {"prompt_n": 3, "cache_n": 2, "predicted_n": 4}},
    ]
    reply = whole_reply(chunks)
    choice = reply["choices"][0]
    assert choice["message"]["content"] == "Paris"
    assert choice["message"]["tool_calls"] == [{"id": "c1", "type": "function", "function": {
        "name": "weather", "arguments": '{"city": "Paris"}'}}]
    assert [t["token"] for t in choice["logprobs"]["content"]] == ["Par", "is"]
    assert choice["finish_reason"] == "tool_calls"
    assert reply["usage"]["prompt_tokens"] == 5 and reply["usage"]["completion_tokens"] == 4
    assert [chunk_text(c) for c in chunks[:3]] == ["", "Par", "is"]
    assert [is_last(c) for c in chunks] == [False] * 5 + [True]


def test_an_error_chunk_raises_with_the_fix():
    error = {"error": {"type": "exceed_context_size_error", "message": "4000 > 2048"}}
    with pytest.raises(LLMResponseError, match="raise context_window"):
        whole_reply([_delta(content="a"), error])


# -- the real packaged model --------------------------------------------------------------------

def _long_prompt(words: int) -> list[Message]:
    """A prompt no slot has read before (so nothing of it is cached)."""
    rng = random.Random(time.time_ns())
    vocabulary = "river stone lamp orbit cedar signal harbour quartz meadow ledger".split()
    text = " ".join(rng.choice(vocabulary) + str(rng.randrange(1000)) for _ in range(words))
    return [Message("user", f"{text}\n\nWhich word above comes first?")]


@pytest.mark.slow
@needs_model
def test_a_question_stopped_while_the_model_reads_frees_the_cpu_and_the_next_starts():
    """Before the prompt was read in batches, a stopped question's prompt was read to its end
    (a 1,800-token prompt: 20-90 s on these cores) while the next question waited behind it."""
    from ragcore.llms.local import LocalLLM

    llm = LocalLLM(num_output=8)
    engine = llm._engine
    turns: queue.Queue = queue.Queue()
    outcome: queue.Queue = queue.Queue()

    def question() -> None:
        with one_turn() as turn:
            turns.put(turn)
            try:
                outcome.put("".join(llm.stream(_long_prompt(450))))
            except LLMError as exc:
                outcome.put(exc)

    threading.Thread(target=question, daemon=True).start()
    turn = turns.get(timeout=60)
    time.sleep(3.0)  # reading: the first batches are in
    assert engine.queue_state().running == 1 and outcome.empty(), outcome.get(timeout=1)
    reading = _cpu_used(1.0)
    stopped_at = time.perf_counter()
    turn.close()  # Stop: what the page's run ending does
    assert isinstance(outcome.get(timeout=30), LLMError)  # never a short reply taken as whole
    assert engine.queue_state().running == 0  # the slot is free at once
    # llama.cpp finishes the batch it is reading, then nothing of this process computes.
    while _cpu_used(0.5) > 0.05 and time.perf_counter() - stopped_at < 60:
        pass
    idle_in = time.perf_counter() - stopped_at
    idle_cpu = _cpu_used(2.0)
    asked = time.perf_counter()
    first = next(iter(llm.stream([Message("user", "Say yes.")])))
    first_in = time.perf_counter() - asked
    print(f"reading used {reading:.2f} CPU s a second; after Stop the CPU fell idle in "
          f"{idle_in:.1f} s, then used {idle_cpu:.2f} s in 2 s; the next question's first "
          f"token came {first_in:.2f} s after it was asked")
    assert idle_in < 15.0  # one batch of 64 tokens: ~1 s idle, ~4 s on one busy core
    assert idle_cpu < 0.2  # nothing computes for the stopped question
    assert first and first_in < 30.0


def _cpu_used(seconds: float) -> float:
    """CPU seconds every thread of this process (llama.cpp's included) used in ``seconds``."""
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


@pytest.mark.slow
@needs_model
def test_a_whole_reply_is_the_one_llama_cpp_gives_unstreamed():
    """``complete`` streams underneath (to be stoppable): its reply is the non-streamed one."""
    from ragcore.llms.local import LocalLLM

    llm = LocalLLM("smollm2-135m", num_output=6)
    ask = [Message("user", "What is the capital of France?")]
    for extra in ({"logprobs": True, "top_logprobs": 3}, {"grammar": 'root ::= "yes" | "no"'}):
        body = {**llm._body(ask), **extra}
        ours = llm._engine.complete(body)["choices"][0]
        theirs = llm._engine._server.handle_chat_completions({**body, "stream": False})
        theirs = theirs["choices"][0]
        assert ours["message"]["content"] == theirs["message"]["content"]
        assert ours.get("logprobs") == theirs.get("logprobs")
        whole = llm._engine.complete(body)  # the token counts too (benchmarks read them)
        assert whole["usage"] == llm._engine._server.handle_chat_completions(
            {**body, "stream": False})["usage"]
    assert llm.choose(ask, ["Paris", "Rome"]) in ("Paris", "Rome")


# -- a reply capped by what the machine writes in the time a person waits -----------------------

def test_the_writing_cap_is_what_the_measured_speed_writes_in_the_wait():
    from ragcore.llms.local.pace import MIN_WRITING_TOKENS, WRITING_SECONDS, Pace

    pace = Pace()
    assert pace.writing_cap(2, ceiling=384) is None  # not timed yet: only num_output holds
    pace.record({"predicted_n": 40, "predicted_per_second": 4.0}, 2)
    assert pace.writing_cap(2, ceiling=384) == int(4.0 * WRITING_SECONDS)
    assert pace.writing_cap(2, ceiling=100) is None  # num_output is the smaller cap
    assert pace.writing_cap(1, ceiling=384) is None  # another thread count: not timed
    pace.record({"predicted_n": 40, "predicted_per_second": 0.5}, 1)
    assert pace.writing_cap(1, ceiling=384) == MIN_WRITING_TOKENS


@pytest.mark.slow
@needs_model
def test_a_reply_longer_than_the_wait_stops_early_and_says_so():
    from ragcore.llms.local import LocalLLM
    from ragcore.llms.local.pace import WRITING_SECONDS, Pace

    # An engine of its own (a window no other test uses), timed as a slow machine writes (in
    # place of its primer's timing at load).
    llm = LocalLLM("smollm2-135m", num_output=384, context_window=1536, parallel=1)
    llm._engine.pace = Pace()
    llm._engine.pace.record({"predicted_n": 40, "predicted_per_second": 2.5}, llm.threads)
    cap = int(2.5 * WRITING_SECONDS)
    assert llm.pace_note()["writing_cap"] == cap
    ask = [Message("user", "Write a long essay, in many paragraphs, on the history of the sea.")]
    started = time.perf_counter()
    reply = "".join(llm.stream(ask))
    seconds = time.perf_counter() - started
    assert reply.endswith(f"about {WRITING_SECONDS:.0f} s, {cap} tokens. Ask for less, or a "
                          "part at a time.)"), reply[-200:]
    words = len(reply.split("\n\n(Stopped early")[0].split())
    print(f"stopped early after {seconds:.1f} s, {words} words: {reply[-160:]!r}")
    assert words < cap  # the cap's tokens and the note, not num_output's 384 tokens
    short = "".join(llm.stream([Message("user", "Say yes.")]))
    assert "Stopped early" not in short  # a reply that ends by itself says nothing
