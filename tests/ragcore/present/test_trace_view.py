"""The trace view's notices: what the engines trimmed, replaced or did not use, in plain words.

The notes are made by the real engines (a chat prompt trimmed to fit a small window, an empty
reply, a condensed question refused), so a change to what the engines write shows up here.
"""

from __future__ import annotations

from support.loopback import Reply, loopback  # noqa: F401 (fixture)

from ragcore.chat import SimpleChatEngine
from ragcore.chat.condense import condense_question
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.present.trace_view import notices, turn_details
from ragcore.streaming import EMPTY_REPLY
from ragcore.trace import Trace
from ragcore.types import Message


def long_conversation(turns: int, *, token_limit: int | None = None) -> ChatMemory:
    memory = ChatMemory(token_limit=token_limit)
    for i in range(turns):
        memory.put(Message("user", f"question {i} " + "word " * 40))
        memory.put(Message("assistant", f"answer {i} " + "word " * 40))
    return memory


def test_trimmed_prompts_unused_rewrites_and_empty_replies_are_told_in_plain_words():
    # A memory that would carry the whole conversation (a caller's longer token_limit), a
    # window too small for it, and a model that says nothing.
    memory = long_conversation(12, token_limit=3000)
    trace = Trace()
    small = FakeLLM([""], context_window=700, num_output=100)
    assert SimpleChatEngine(small).chat("And now?", memory, trace=trace).text == EMPTY_REPLY
    # The rewrite reads the latest turn by design (issue 65): not told as a trimmed prompt.
    assert condense_question(FakeLLM([""]), memory, "and then?", trace=trace) == "and then?"

    for form in (trace, trace.to_dict()):  # a live answer and a saved chat read alike
        said = notices(form)
        assert len(said) == 3, said
        assert said[0].startswith("The chat prompt was trimmed to fit the model's context "
                                  "window: earlier conversation: ")
        assert "of 24 messages kept" in said[0] and said[0].endswith(").")
        assert said[1] == ("The model's rewrite of your question was not used: the model's "
                           "rewrite was empty; the message was used as written.")
        assert said[2] == "The model sent back an empty reply, so the answer says so instead."
        assert turn_details(form)["notices"] == said


def test_an_answer_made_as_asked_has_no_notices():
    trace = Trace()
    memory = long_conversation(1)
    assert SimpleChatEngine(FakeLLM(["Fine."])).chat("Hi", memory, trace=trace).text == "Fine."
    assert notices(trace) == [] and "notices" not in turn_details(trace)
    assert notices(None) == []


def test_a_long_chat_read_within_its_memory_bound_has_no_notices():
    # The default memory carries the latest turn or so (issue 65): by design, not a trim, so
    # the twelfth reply is not told its prompt was cut to fit the window.
    trace, llm = Trace(), FakeLLM(["Fine."])
    memory = long_conversation(12)
    assert SimpleChatEngine(llm).chat("Hi", memory, trace=trace).text == "Fine."
    assert len(llm.calls[-1]) < 24  # the prompt carried only the latest turns
    assert notices(trace) == []


def test_the_chat_page_shows_the_notices_of_an_answer(monkeypatch, tmp_path, loopback):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace

    notes = tmp_path / "owls.txt"
    notes.write_text("Owls hunt at night. Their feathers are silent.", encoding="utf-8")
    Workspace(tmp_path / "ws", embedder=FakeEmbedder()).ingest("docs", [notes])
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "ws"))
    # The chat mode is chosen under Advanced (the app is simple by default).
    (tmp_path / "ws" / "app-preferences.json").write_text('{"advanced": true}')
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_LLM", "ollama:llama3.1")
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", loopback.ollama_url)
    loopback.queue(Reply(text="", chunks=[]))  # the model says nothing

    app = str(Path(__file__).resolve().parents[3] / "app.py")
    at = AppTest.from_file(app, default_timeout=60).run()
    at.switch_page("pages/chat.py").run()
    at.sidebar.selectbox[1].set_value("simple").run()
    at.chat_input[0].set_value("How do owls hunt?").run()
    assert not at.exception, [e.value for e in at.exception]
    assert [i.value for i in at.info] == [
        "The model sent back an empty reply, so the answer says so instead."]


def owl_nodes():
    from ragcore.types import Node, ScoredNode

    return [ScoredNode(Node("Owls hunt at night. Their feathers are silent."), 0.9),
            ScoredNode(Node("Bats use echolocation to find insects."), 0.5)]


def test_offline_the_trace_counts_extractive_steps_not_llm_calls_or_tokens():
    from ragcore.llms.extractive.backend import ExtractiveLLM
    from ragcore.present.trace_view import call_titles, work_metrics, work_summary
    from ragcore.query import compare_modes

    results = compare_modes("How do owls hunt?", llm=ExtractiveLLM(), nodes=owl_nodes(),
                            modes=["compact", "refine"])
    for result in results:
        assert result.llm_calls >= 1 and result.tokens_in > 0  # the engine did count tokens
        for form in (result.trace, result.trace.to_dict()):  # live, and from a saved chat
            said = work_summary(form)
            step = "step" if result.llm_calls == 1 else "steps"
            assert said.startswith(f"{result.llm_calls} extractive {step} ("), said
            assert said.endswith(" s in all") and "token" not in said and "LLM" not in said
            assert list(work_metrics(form)) == ["Extractive steps", "Seconds"]
            titles = call_titles(form)
            assert len(titles) == result.llm_calls
            assert titles[0].startswith("Extractive step 1: ") and "token" not in titles[0]


def test_with_a_model_the_trace_counts_its_calls_and_tokens():
    from ragcore.present.trace_view import call_titles, work_metrics, work_summary
    from ragcore.synthesis import Synthesizer

    trace = Trace()
    answer = Synthesizer(FakeLLM(["Owls hunt at night."])).synthesize(
        "How do owls hunt?", owl_nodes(), trace=trace)
    assert answer.text == "Owls hunt at night."
    said = work_summary(trace)
    assert said.startswith(f"1 LLM call ({trace.llm_calls[0].seconds:.2f} s) · "
                           f"{trace.total_tokens_in:,} tokens in, {trace.total_tokens_out:,} out · ")
    assert said.endswith(" s in all")
    assert work_metrics(trace)["Tokens in"] == trace.total_tokens_in
    [title] = call_titles(trace)
    assert title.startswith(f"LLM call 1: qa ({trace.total_tokens_in:,} → ")
    assert work_summary(Trace()) == "no model calls · 0.00 s in all"
