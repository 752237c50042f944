"""The eight response modes against the fake LLM: calls, prompt contents, streaming, limits."""

from __future__ import annotations

import re

import pytest

from ragcore import prompts
from ragcore.errors import ConfigError
from ragcore.llms import FakeLLM
from ragcore.synthesis import NO_CONTEXT_ANSWER, ResponseMode, Synthesizer
from ragcore.tokens import count_tokens
from ragcore.trace import Trace
from ragcore.types import MetadataMode, Node, ScoredNode

ALL_MODES = list(ResponseMode)
QUESTION = "What does the report say about tides?"


def make_nodes(count: int, words: int = 30) -> list[ScoredNode]:
    return [
        ScoredNode(
            Node(
                f"Passage{i} begins. " + "tide " * words + f"Passage{i} ends.",
                node_id=f"n{i}",
                metadata={"file_name": f"doc{i}.txt"},
            ),
            score=1.0 - i / 100,
        )
        for i in range(count)
    ]


def user_text(call) -> str:
    return call[-1].content


def prompt_tokens(messages) -> int:
    return sum(count_tokens(m.content) for m in messages) + prompts.MESSAGE_OVERHEAD_TOKENS * len(
        messages
    )


def synthesize(mode, nodes, llm=None, **options):
    llm = llm or FakeLLM()
    response = Synthesizer(llm, response_mode=mode, **options).synthesize(QUESTION, nodes)
    return llm, response


def test_refine_makes_one_call_per_chunk_carrying_the_previous_answer():
    llm, response = synthesize("refine", make_nodes(3), FakeLLM(["first", "second", "third"]))
    assert response.text == "third"
    assert len(llm.calls) == 3
    assert "Passage0 begins" in user_text(
        llm.calls[0]
    ) and prompts.EXISTING_ANSWER not in user_text(llm.calls[0])
    for number, previous in ((1, "first"), (2, "second")):
        sections = prompts.read_sections(user_text(llm.calls[number]))
        assert sections[prompts.EXISTING_ANSWER] == previous
        assert f"Passage{number} begins" in sections[prompts.NEW_CONTEXT]
        assert sections[prompts.QUESTION] == QUESTION
    assert [c.purpose for c in response.trace.llm_calls] == ["qa 1/3", "refine 2/3", "refine 3/3"]


def test_compact_packs_chunks_into_fewer_calls_than_chunks():
    llm, response = synthesize("compact", make_nodes(6))
    assert response.text == "fake answer"
    assert len(llm.calls) == 1
    context = prompts.read_sections(user_text(llm.calls[0]))[prompts.CONTEXT]
    assert all(f"Passage{i} begins" in context for i in range(6))
    assert [c.purpose for c in response.trace.llm_calls] == ["qa"]

    small = FakeLLM(context_window=400, num_output=40)
    small_llm, small_response = synthesize("compact", make_nodes(6), small)
    small_response.text
    assert 1 < len(small_llm.calls) < 6
    everything = "\n".join(user_text(c) for c in small_llm.calls)
    for i in range(6):  # every passage arrives whole, exactly once
        assert (
            everything.count(f"Passage{i} begins") == 1
            and everything.count(f"Passage{i} ends") == 1
        )


def test_tree_summarize_reduces_level_by_level_to_one_root():
    llm = FakeLLM(
        default=lambda m: "summary of " + m[-1].content[9:40], context_window=400, num_output=40
    )
    _, response = synthesize("tree_summarize", make_nodes(8), llm)
    text = response.text
    purposes = [c.purpose for c in response.trace.llm_calls]
    assert purposes[-1] == "tree root" and purposes.count("tree root") == 1
    level_one = [p for p in purposes if p.startswith("tree level 1 ")]
    assert len(level_one) >= 2
    root_context = prompts.read_sections(user_text(llm.calls[-1]))[prompts.CONTEXT]
    assert root_context.count("summary of") >= 2  # the root sees summaries, not passages
    assert "tide tide" not in root_context
    assert text.startswith("summary of")


def test_tree_summarize_with_everything_in_one_prompt_is_one_call():
    llm, response = synthesize("tree_summarize", make_nodes(4))
    assert response.text == "fake answer"
    assert [c.purpose for c in response.trace.llm_calls] == ["tree root"]


def test_tree_summarize_terminates_when_summaries_do_not_shrink():
    verbose = FakeLLM(default="blah " * 500, context_window=400, num_output=40)
    _, response = synthesize("tree_summarize", make_nodes(8), verbose)
    response.text
    assert response.trace.llm_calls[-1].purpose == "tree root"
    assert all(prompt_tokens(c) + 40 <= 400 for c in verbose.calls)
    assert response.metadata["summary_tokens_cut"] > 0


def test_accumulate_answers_each_chunk_and_joins_them_in_order():
    llm = FakeLLM(default=lambda m: "about " + re.search(r"Passage\d", m[-1].content).group())
    _, response = synthesize("accumulate", make_nodes(3), llm)
    assert response.text == (
        "Response 1 (doc0.txt): about Passage0\n\n---\n\n"
        "Response 2 (doc1.txt): about Passage1\n\n---\n\n"
        "Response 3 (doc2.txt): about Passage2"
    )
    assert sorted(c.purpose for c in response.trace.llm_calls) == [
        "accumulate 1",
        "accumulate 2",
        "accumulate 3",
    ]


def test_compact_accumulate_packs_first():
    llm, response = synthesize("compact_accumulate", make_nodes(6))
    assert response.text == "Response 1 (doc0.txt, doc1.txt, doc2.txt and 3 more): fake answer"
    assert len(llm.calls) == 1
    small = FakeLLM(context_window=400, num_output=40)
    _, small_response = synthesize("compact_accumulate", make_nodes(6), small)
    text = small_response.text
    assert 1 < len(small.calls) < 6
    assert text.count("Response ") == len(small.calls)


def test_generation_ignores_the_context():
    llm, response = synthesize("generation", make_nodes(3))
    assert response.text == "fake answer"
    assert len(llm.calls) == 1
    assert "Passage" not in user_text(llm.calls[0]) and QUESTION in user_text(llm.calls[0])
    assert response.source_nodes == make_nodes(3)


def test_no_text_makes_no_call_and_returns_the_nodes():
    nodes = make_nodes(3)
    llm, response = synthesize("no_text", nodes)
    assert response.text == ""
    assert llm.calls == [] and response.trace.llm_calls == []
    assert [s.node_id for s in response.sources()] == ["n0", "n1", "n2"]


def test_simple_summarize_is_one_call_and_cuts_what_does_not_fit():
    llm, response = synthesize("simple_summarize", make_nodes(4))
    response.text
    assert len(llm.calls) == 1 and "truncated_tokens" not in response.metadata
    small = FakeLLM(context_window=300, num_output=40)
    _, cut = synthesize("simple_summarize", make_nodes(8), small)
    cut.text
    assert len(small.calls) == 1
    assert cut.metadata["truncated_tokens"] > 0
    assert prompt_tokens(small.calls[0]) + 40 <= 300


@pytest.mark.parametrize("mode", ALL_MODES)
def test_no_prompt_exceeds_the_window_and_no_chunk_is_dropped(mode):
    huge = ScoredNode(
        Node("BEGINHUGE " + "enormous passage text. " * 400 + "ENDHUGE", node_id="big"), 0.5
    )
    nodes = [*make_nodes(3, words=60), huge, *make_nodes(2, words=5)]
    llm = FakeLLM(default="a short answer", context_window=350, num_output=50)
    _, response = synthesize(mode, nodes, llm)
    response.text
    assert all(prompt_tokens(c) + 50 <= 350 for c in llm.calls)
    if mode in ("refine", "compact", "accumulate", "compact_accumulate", "tree_summarize"):
        sent = "\n".join(user_text(c) for c in llm.calls)
        assert "BEGINHUGE" in sent and "ENDHUGE" in sent
        assert response.metadata["cut_chunks"] == 1


def test_refine_cuts_an_overlong_previous_answer_to_fit():
    rambling = FakeLLM(default="very long answer " * 300, context_window=400, num_output=40)
    _, response = synthesize("refine", make_nodes(3), rambling)
    response.text
    assert len(rambling.calls) == 3
    assert all(prompt_tokens(c) + 40 <= 400 for c in rambling.calls)
    assert response.metadata["answer_tokens_cut"] > 0


@pytest.mark.parametrize("mode", ALL_MODES)
def test_streaming_equals_the_whole_answer(mode):
    def reply(messages):
        return f"answer to {len(messages[-1].content)} chars of prompt"

    _, streamed = synthesize(
        mode, make_nodes(5), FakeLLM(default=reply, context_window=500, num_output=40)
    )
    _, whole = synthesize(
        mode, make_nodes(5), FakeLLM(default=reply, context_window=500, num_output=40)
    )
    chunks = list(streamed)
    assert "".join(chunks) == whole.text == str(whole)
    if mode is not ResponseMode.NO_TEXT:
        assert len(chunks) > 1  # it really streamed
    assert list(streamed) == chunks  # a second iteration replays


def test_reading_part_of_the_stream_then_text_gives_everything():
    _, response = synthesize("compact", make_nodes(2), FakeLLM(default="x" * 50, chunk_size=5))
    stream = iter(response)
    first = next(stream)
    assert first == "xxxxx"
    assert response.text == "x" * 50
    assert response.done


def test_nothing_runs_until_the_response_is_read():
    llm, response = synthesize("refine", make_nodes(3))
    assert llm.calls == [] and not response.done
    response.text
    assert len(llm.calls) == 3


@pytest.mark.parametrize("mode", [m for m in ALL_MODES if m is not ResponseMode.GENERATION])
def test_no_nodes_gives_a_clear_answer_without_calling_the_llm(mode):
    llm, response = synthesize(mode, [])
    assert response.text == NO_CONTEXT_ANSWER
    assert "Empty Response" not in response.text
    assert llm.calls == [] and response.source_nodes == []


def test_generation_answers_even_without_nodes():
    llm, response = synthesize("generation", [])
    assert response.text == "fake answer" and len(llm.calls) == 1


def test_the_trace_records_packing_and_every_call():
    trace = Trace()
    llm = FakeLLM(context_window=400, num_output=40)
    response = Synthesizer(llm, response_mode="compact").synthesize(
        QUESTION, make_nodes(6), trace=trace
    )
    response.text
    assert response.trace is trace
    names = [s.name for s in trace.stages]
    assert names[0] == "pack context"
    assert trace.stages[0].detail["prompts"] == len(llm.calls)
    assert names[1:] == [f"llm: {c.purpose}" for c in trace.llm_calls]
    assert all(c.tokens_in > 0 and c.model == "fake" for c in trace.llm_calls)
    # Each call records the prompt that was sent, counted like a chat prompt, and its reply.
    assert [c.messages for c in trace.llm_calls] == llm.calls
    assert [c.tokens_in for c in trace.llm_calls] == [prompt_tokens(m) for m in llm.calls]
    assert all(c.reply == "fake answer" for c in trace.llm_calls)
    assert all(c.tokens_out == count_tokens("fake answer") for c in trace.llm_calls)


def test_bad_options_are_refused_with_the_fix():
    with pytest.raises(ConfigError, match="choose one of refine, compact"):
        Synthesizer(FakeLLM(), response_mode="summarize")
    with pytest.raises(ConfigError, match="max_concurrency"):
        Synthesizer(FakeLLM(), max_concurrency=0)
    with pytest.raises(ConfigError, match="num_output"):
        Synthesizer(FakeLLM(context_window=100, num_output=100))
    with pytest.raises(ConfigError, match="not an LLM"):
        Synthesizer(object())


def test_a_window_too_small_for_the_empty_prompt_fails_at_the_call():
    synthesizer = Synthesizer(FakeLLM(context_window=120, num_output=60))
    with pytest.raises(ConfigError, match=r"context_window \(120\)"):
        synthesizer.synthesize(QUESTION, make_nodes(2))


def test_sources_give_file_page_score_offsets_and_text():
    node = Node(
        "the text",
        node_id="a",
        ref_doc_id="doc.pdf#page=2",
        start_char=10,
        end_char=18,
        metadata={"file_name": "doc.pdf", "page_label": "2"},
    )
    _, response = synthesize("no_text", [ScoredNode(node, 0.75)])
    (source,) = response.sources()
    assert (source.file, source.page, source.score) == ("doc.pdf", "2", 0.75)
    assert (source.start_char, source.end_char, source.text) == (10, 18, "the text")
    assert source.doc_id == "doc.pdf#page=2"


@pytest.mark.parametrize("mode", ["compact", "refine", "tree_summarize", "compact_accumulate"])
def test_each_chunk_is_counted_once_and_packed_once_per_call(monkeypatch, mode):
    from ragcore.synthesis import budget, synthesizer

    counted: list[str] = []
    packings: list[int] = []
    real_count, real_pack = budget.count_tokens, budget.pack_chunks

    def counting(text):
        counted.append(text)
        return real_count(text)

    def packing(*args, **kwargs):
        packings.append(1)
        return real_pack(*args, **kwargs)

    monkeypatch.setattr(budget, "count_tokens", counting)
    monkeypatch.setattr(synthesizer, "pack_chunks", packing)
    nodes = make_nodes(5)
    _, response = synthesize(mode, nodes, FakeLLM(default="ok", context_window=2048, num_output=64))
    response.text
    contents = [n.node.content(MetadataMode.LLM) for n in nodes]
    assert [t for t in counted if t in contents] == contents
    assert len(packings) <= 1


def test_a_failing_model_raises_through_the_stream_and_the_trace_keeps_the_call():
    from ragcore.errors import LLMConnectionError

    def down(messages):
        raise LLMConnectionError(
            "could not reach http://127.0.0.1:11434 (model llama3): is it running?"
        )

    _, response = synthesize("compact", make_nodes(2), FakeLLM(default=down))
    with pytest.raises(LLMConnectionError, match="is it running"):
        response.text
    assert [c.purpose for c in response.trace.llm_calls] == ["qa"]
    assert response.done


def test_custom_prompts_are_used_and_checked():
    from ragcore.prompts import PromptTemplate
    from ragcore.prompts.answer import SynthesisPrompts

    terse = PromptTemplate(
        "terse qa", "Be brief.", "Context:\n{context}\n\nQuestion: {question}\nAnswer:"
    )
    llm, response = synthesize("compact", make_nodes(1), prompts=SynthesisPrompts(qa=terse))
    response.text
    assert llm.calls[0][0].content == "Be brief."
    with pytest.raises(ConfigError, match=r"the refine prompt must have the fields"):
        SynthesisPrompts(refine=terse)


def test_a_failed_answer_fails_again_on_every_later_read():
    from ragcore.errors import LLMConnectionError

    def broken(messages):
        raise LLMConnectionError("server went away")

    response = Synthesizer(FakeLLM([broken])).synthesize(
        "q", [ScoredNode(Node("some context"), 0.9)]
    )
    with pytest.raises(LLMConnectionError):
        response.text
    with pytest.raises(LLMConnectionError):  # never looks complete afterwards
        response.text
