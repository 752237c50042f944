"""A figure's caption is read with the figure it captions (``retrieval.figures``): a PDF gives a
paper's figure body first and its caption after it, and a chunk border between them leaves the
caption's passage, the one a question worded like the caption finds, without the figure."""

from __future__ import annotations

import pytest

from ragcore.chunking import SentenceSplitter
from ragcore.embeddings import FakeEmbedder
from ragcore.engines.from_index import reading_postprocessors
from ragcore.index import VectorStoreIndex
from ragcore.llms.fake import FakeLLM
from ragcore.retrieval.figures import FigureBodies, opens_with_caption
from ragcore.types import Document, ScoredNode

PAGE = (
    "The server behavior is described as a set of rules. Section numbers indicate where\n"
    "particular features are discussed.\n"
    "Lamp Safety: at most one lamp can be lit in a\ngiven hour. §5.2\n"
    "Keeper Append-Only: a keeper never erases\nentries in the log. §5.3\n"
    "Log Matching: two logs holding the same entry hold\nthe same entries before it. §5.3\n"
    "Tower Completeness: a lit lamp stays in the logs\nof every later keeper. §5.4\n"
    "§5.4.3\n"
    "Figure 3: The lighthouse guarantees that each of these properties is true\n"
    "at all times. The section numbers indicate where each property is discussed.\n"
    "Keepers take requests from ships and replicate them across the towers,\n"
    "forcing the other logs to agree with their own.\n")


@pytest.fixture(scope="module")
def index():
    return VectorStoreIndex.from_documents(
        [Document(text=PAGE, doc_id="page")], embedder=FakeEmbedder(),
        splitter=SentenceSplitter(chunk_size=70, chunk_overlap=0))


def caption_node(index) -> ScoredNode:
    node = next(n for n in index.all_nodes() if "Figure 3:" in n.text)
    return ScoredNode(node, 0.9)


def test_the_chunk_border_cuts_the_figure_from_its_caption(index):
    assert "Lamp Safety" not in caption_node(index).node.text  # the case this module is for


def test_a_caption_is_read_with_the_figure_before_it(index):
    scored = caption_node(index)
    [read] = FigureBodies(index).postprocess([scored], "What properties are true at all times?")
    text = read.node.text
    assert text.index("Tower Completeness") < text.index("Figure 3:")
    assert "Log Matching" in text and text.endswith(scored.node.text)
    # it still opens in the document, where the figure starts
    assert PAGE[read.node.start_char:].startswith(text.split("\n", 1)[0])


def test_every_engine_reads_captions_with_their_figures(index):
    names = [type(p).__name__ for p in reading_postprocessors(index, [], FakeLLM())]
    assert "FigureBodies" in names


@pytest.mark.parametrize("text, opens", [
    ("§5.4.3\nFigure 3: Raft guarantees that each of these properties is true\nat all times.",
     True),
    ("Figure 3: Cyber Supply Chain Relationships\nThe parties described in Figure 3 ...", False),
    ("Figure 7: Trust Algorithm Input ........................ 18\nFigure 8: ...", False),
    ("One.\nTwo.\nThree.\nFour.\nFive.\nFigure 1: The state machines process the log.", False),
    ("As shown in Figure 1: the log is replicated across the servers.", False),
])
def test_a_caption_under_its_figure_is_told_from_a_title_or_a_contents_line(text, opens):
    assert opens_with_caption(text) is opens


def test_a_budgeted_reader_keeps_the_figure_of_a_caption_it_keeps(index):
    from ragcore.retrieval.optimizer import SentenceEmbeddingOptimizer

    [grown] = FigureBodies(index).postprocess([caption_node(index)], "")
    question = "What does the lighthouse guarantee is true at all times?"
    reader = SentenceEmbeddingOptimizer(FakeEmbedder(), token_budget=40)
    [read] = reader.postprocess([grown], question)
    assert "Figure 3:" in read.node.text and "Tower Completeness" in read.node.text
