"""The app's pure logic: query options, trace tables, and how things are worded (chat turns are
tested in ``tests/ragcore/workspace/test_conversation.py``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webapp.chat.chat_turns import source_passage
from ragcore.present.format import (
    backend_notice,
    human_size,
    markdown_stream,
    markdown_text,
    report_rows,
    source_label,
)
from webapp.query_options import SEARCH_BY, QueryOptions, parse_keywords
from ragcore.workspace.conversation import saved_trace
from ragcore.present.trace_view import (
    format_step,
    llm_call_rows,
    prompt_text,
    stage_rows,
    totals,
    turn_details,
)
from ragcore.errors import ConfigError
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.postprocess import KeywordNodePostprocessor, SimilarityPostprocessor
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode
from ragcore.workspace.chats import ChatSource
from ragcore.workspace.ingest.report import FileOutcome, IngestReport

# --- query options -------------------------------------------------------------------------


def test_query_options_validate_with_messages_that_say_what_to_change():
    with pytest.raises(ConfigError, match="unknown response mode 'fast'"):
        QueryOptions(response_mode="fast")
    with pytest.raises(ConfigError, match="top-k"):
        QueryOptions(top_k=0)
    with pytest.raises(ConfigError, match="between -1 and 1"):
        QueryOptions(postprocessors=("similarity_cutoff",), similarity_cutoff=3.0)
    with pytest.raises(ConfigError, match="no words are given"):
        QueryOptions(postprocessors=("keywords",))
    with pytest.raises(ConfigError, match="unknown postprocessor"):
        QueryOptions(postprocessors=("magic",))


def test_search_by_choices_are_explained_and_validated():
    assert [label for label, _ in SEARCH_BY.values()] == [
        "meaning and keywords", "meaning", "keywords",
    ]
    assert QueryOptions().retrieval_mode == "hybrid"  # the first choice is the default
    assert QueryOptions(retrieval_mode="similarity").to_dict()["retrieval_mode"] == "similarity"
    with pytest.raises(ConfigError, match="search mode 'bm25' is unknown: use similarity"):
        QueryOptions(retrieval_mode="bm25")
    with pytest.raises(ConfigError, match="turn the cutoff off or search by meaning"):
        QueryOptions(retrieval_mode="keyword", postprocessors=("similarity_cutoff",))


def test_query_options_build_the_chain_in_order_and_serialize():
    options = QueryOptions(
        response_mode="refine",
        top_k=6,
        postprocessors=("keywords", "similarity_cutoff"),
        similarity_cutoff=0.5,
        required_keywords=parse_keywords("zero trust, policy"),
        retrieval_mode="similarity",  # the cutoff compares similarities
    )
    chain = options.build_postprocessors(index=None)
    assert [type(p) for p in chain] == [SimilarityPostprocessor, KeywordNodePostprocessor]
    assert options.to_dict()["required_keywords"] == ["zero trust", "policy"]
    assert "similarity_cutoff" not in QueryOptions().to_dict()
    assert parse_keywords("  owls  bats ") == ("owls", "bats")


# --- trace view ----------------------------------------------------------------------------


def _traced_answer() -> Trace:
    trace = Trace()
    with trace.stage("retrieve", top_k=2):
        pass
    llm = FakeLLM(["The answer."])
    from ragcore.llms.base import complete_traced

    complete_traced(llm, [Message("user", "Question: why?")], trace, "qa")
    trace.notes["condensed_question"] = "Why is the sky blue?"
    trace.notes["reasoning"] = [
        {"thought": "I should search", "action": "search_documents",
         "action_input": {"input": "sky"}, "observation": "Rayleigh scattering"},
        {"thought": "done", "answer": "Because of scattering."},
    ]
    return trace


def test_trace_tables_and_details_read_live_and_saved_traces_alike():
    trace = _traced_answer()
    for form in (trace, trace.to_dict()):
        assert [r["stage"] for r in stage_rows(form)][:2] == ["retrieve", "llm: qa"]
        assert stage_rows(form)[-1]["stage"] == "total"
        assert stage_rows(form)[0]["details"] == "top_k=2"
        assert llm_call_rows(form)[0]["purpose"] == "qa"
        assert totals(form)["llm_calls"] == 1 and totals(form)["tokens_out"] > 0
        assert turn_details(form)["condensed_question"] == "Why is the sky blue?"
    assert prompt_text(trace.to_dict()["llm_calls"][0]) == "[user]\nQuestion: why?"
    compact = saved_trace(trace)  # what a saved chat turn keeps
    assert "messages" not in compact["llm_calls"][0] and compact["llm_calls"][0]["reply"]
    steps = turn_details(trace)["reasoning"]
    assert format_step(1, steps[0]).splitlines() == [
        "Step 1", "Thought: I should search", "Action: search_documents",
        "Action input: {'input': 'sky'}", "Observation: Rayleigh scattering"]
    assert format_step(2, steps[1]).endswith("Answer: Because of scattering.")
    # without Advanced, the tool by what it does, never its name (issue 66)
    assert format_step(1, steps[0], advanced=False).splitlines() == [
        "Step 1", "Thought: I should search", "Searching the documents for: sky",
        "Found: Rayleigh scattering"]
    assert turn_details(None) == {} and totals(None)["llm_calls"] == 0


# --- wording -------------------------------------------------------------------------------


def test_labels_sizes_and_safe_markdown():
    scored = ScoredNode(Node("x", ref_doc_id="d", metadata={"file_name": "a.pdf", "page": 3}),
                        0.81234)
    assert source_label(1, scored) == "1. a.pdf · page 3"  # the score only under Advanced
    assert source_label(1, scored, advanced=True) == "1. a.pdf · page 3 · score 0.812"
    neighbour = ScoredNode(Node("x", ref_doc_id="doc-7"), None)
    assert source_label(2, neighbour) == "2. doc-7 · added as context"
    assert human_size(512) == "512 bytes" and human_size(3 * 1024 * 1024) == "3.0 MB"
    assert human_size(None) == "?"
    assert markdown_text("costs $5 and $10") == "costs \\$5 and \\$10"
    assert markdown_text("see ![x](http://evil/p.png)") == "see !\\[x](http://evil/p.png)"
    assert list(markdown_stream(["a $", "b"])) == ["a \\$", "b"]
    kind, text = backend_notice(ExtractiveLLM())
    assert kind == "info" and "Extractive" in text and "Settings" in text


def test_markup_split_across_streamed_chunks_is_escaped():
    streamed = "".join(markdown_stream(["see !", "[x](http://evil/p.png)"]))
    assert streamed == "see !\\[x](http://evil/p.png)"
    assert streamed == markdown_text("see ![x](http://evil/p.png)")
    assert "".join(markdown_stream(["wow!", "!", "[", "y](u)"])) == "wow!!\\[y](u)"


@given(chunks=st.lists(st.text(alphabet="![]$a\\ (x)", max_size=4), max_size=12))
def test_any_split_of_a_stream_escapes_like_the_whole_text(chunks):
    assert "".join(markdown_stream(chunks)) == markdown_text("".join(chunks))


def test_report_rows_say_what_happened_to_each_file():
    report = IngestReport(index="x", files=[
        FileOutcome("/up/a.txt", "indexed", chunks=3, seconds=0.123),
        FileOutcome("/up/b.pdf", "failed", reason="the file is empty", hint="upload it again"),
        FileOutcome("/up/c.md", "unchanged"),
    ])
    rows = report_rows(report)
    assert [r["file"] for r in rows] == ["a.txt", "b.pdf", "c.md"]
    assert [r["result"] for r in rows] == [
        "indexed: 3 passages", "failed: the file is empty (upload it again)",
        "unchanged, skipped"]


def test_a_saved_source_shows_the_live_node_else_its_saved_text():
    live = Node("The live passage.", ref_doc_id="d", metadata={"file_name": "a.pdf"})
    source = ChatSource("The saved passage.", file_name="a.pdf", page="3", score=0.5,
                        node_id=live.node_id, doc_id="d")
    found = source_passage(source, {live.node_id: live}.get)
    assert found.node is live and found.score == 0.5
    gone = source_passage(source, lambda node_id: None)
    assert gone.node.text == "The saved passage." and gone.node.ref_doc_id == "d"
    assert source_label(1, gone, advanced=True) == "1. a.pdf · page 3 · score 0.500"
