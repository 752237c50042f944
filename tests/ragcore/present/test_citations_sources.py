"""Which sources an answer lists: relevance floors per retrieval mode, used sources always shown,
none for ``generation`` mode; the CLI lists them as the app does."""

from __future__ import annotations

import io

import pytest

from ragcore import SimpleDirectoryReader, VectorStoreIndex
from ragcore.cli.render import write_sources
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.present.sources import (
    SIMILARITY_FLOOR,
    WITHOUT_SOURCES,
    answer_sources,
    list_sources,
    relevance_floor,
)
from ragcore.present.support import NOT_STATED, Citations, SourceUse
from ragcore.types import Node, ScoredNode


def scored(*scores):
    return [ScoredNode(Node(f"Passage number {i} text.", node_id=f"n{i}"), s)
            for i, s in enumerate(scores)]


def numbers(sources):
    return [s.number for s in sources]


@pytest.mark.parametrize(
    "mode, scores, shown",
    [
        # cosines: an absolute floor, and a share of the best
        ("similarity", (0.71, 0.69, 0.44, 0.40), [1, 2, 3]),
        ("similarity", (0.29, 0.25), []),
        ("mmr", (0.52, 0.31, 0.30), [1]),
        # BM25: only the ratio to the best score means something
        ("keyword", (12.3, 6.2, 4.9), [1, 2]),
        ("keyword", (0.9, 0.5, 0.44), [1, 2]),
        # fused ranks: found by both searches (2/61) vs by one (1/61)
        ("hybrid", (2 / 61, 2 / 63, 1 / 61, 1 / 62), [1, 2]),
        ("hybrid", (1 / 61, 1 / 62, 1 / 63), [1, 2, 3]),
    ],
)
def test_sources_below_the_floor_of_their_retrieval_mode_are_hidden(mode, scores, shown):
    nodes = scored(*scores)
    listing = list_sources(nodes, Citations(tuple(SourceUse(()) for _ in nodes)),
                           retrieval_mode=mode)
    assert numbers(listing.shown) == shown
    assert numbers(listing.hidden) == [n for n in range(1, len(nodes) + 1) if n not in shown]
    assert listing.total == len(nodes)


def test_a_used_source_is_shown_below_the_floor_and_context_without_score_too():
    nodes = scored(0.8, 0.1, None)
    uses = (SourceUse(()), SourceUse(((0, 7),), "quoted in the answer"), SourceUse(()))
    listing = list_sources(nodes, Citations(uses), retrieval_mode="similarity")
    assert numbers(listing.shown) == [1, 2, 3] and listing.hidden == ()


def test_floors_are_checked():
    assert relevance_floor([0.2], "similarity") == SIMILARITY_FLOOR
    with pytest.raises(ValueError, match="'vibes'.*similarity, mmr, keyword or hybrid"):
        relevance_floor([1.0], "vibes")
    with pytest.raises(ValueError, match="cover 1 passages but 2 sources"):
        list_sources(scored(0.5, 0.4), Citations((SourceUse(()),)), retrieval_mode="similarity")


@pytest.fixture(scope="module")
def index(corpus_dir):
    from ragcore.embeddings.fake import FakeEmbedder

    files = [corpus_dir / "python_peps" / "pep-0008.rst"]
    return VectorStoreIndex.from_documents(SimpleDirectoryReader(input_files=files).load_data(),
                                           embedder=FakeEmbedder())


def test_generation_mode_lists_no_sources_though_passages_were_retrieved(index):
    engine = index.as_query_engine(llm=FakeLLM(["Tabs are for consistency only."]),
                                   response_mode="generation", retrieval_mode="keyword")
    response = engine.query("When should tabs be used?")
    assert response.source_nodes  # retrieved, but never shown to the model
    listing = answer_sources(response.text, response.source_nodes, retrieval_mode="keyword",
                             extractive=False, response_mode="generation")
    assert listing.total == 0 and listing.without_sources == WITHOUT_SOURCES
    out = io.StringIO()
    write_sources(out, response, retrieval_mode="keyword")
    assert out.getvalue().strip() == f"Sources: none. {WITHOUT_SOURCES}"


def test_cli_lists_quoted_sources_first_and_weaker_ones_under_their_own_heading(index):
    engine = index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=6,
                                   retrieval_mode="keyword")
    response = engine.query("How should imports be grouped?")
    listing = answer_sources(response.text, response.source_nodes, retrieval_mode="keyword",
                             extractive=True)
    assert listing.hidden, "expected weak BM25 matches among six passages"
    out = io.StringIO()
    write_sources(out, response, retrieval_mode="keyword")
    text = out.getvalue()
    shown, _, hidden = text.partition("below the relevance floor:")
    assert f"{len(listing.hidden)} more source" in shown
    for source in listing.shown:
        assert f"[{source.number}] pep-0008.rst" in shown
    for source in listing.hidden:
        assert f"[{source.number}] pep-0008.rst" in hidden
    assert "quoted in the answer" in shown and "quoted in the answer" not in hidden


def test_cli_says_which_answer_sentence_no_passage_supports(index):
    invented = "PEP 8 was signed by the Python Software Foundation as a legal contract."
    engine = index.as_query_engine(llm=FakeLLM([invented]), retrieval_mode="keyword")
    response = engine.query("When should tabs be used?")
    out = io.StringIO()
    write_sources(out, response, retrieval_mode="keyword")
    assert f"{NOT_STATED}: {invented}" in out.getvalue()
