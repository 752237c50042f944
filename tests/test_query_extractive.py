"""Our prompts and the offline extractive backend work together, in every response mode.

Fast: passages from the real corpus, ranked by the fake embedder in a tiny in-test retriever.
(The end-to-end test with the real model and the real index is in test_query_e2e.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.extractive import ExtractiveLLM
from ragcore.query import QueryEngine, compare_modes
from ragcore.synthesis import NO_CONTEXT_ANSWER, ResponseMode, Synthesizer
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

QUESTION = "Which Circuit Court of Appeals judge did the President nominate?"
ANSWER = "Ketanji Brown Jackson"


class BagOfWordsRetriever:
    """Top-k paragraphs by fake-embedder cosine similarity."""

    def __init__(self, nodes: list[Node], *, top_k: int = 4) -> None:
        self.nodes = nodes
        self.top_k = top_k
        self.embedder = FakeEmbedder(dim=512)
        self.matrix = self.embedder.embed_batch([n.text for n in nodes])

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        scores = self.matrix @ self.embedder.embed_batch([query])[0]
        best = np.argsort(-scores)[: self.top_k]
        return [ScoredNode(self.nodes[i], float(scores[i])) for i in best]


def paragraphs(path, limit: int) -> list[Node]:
    text = path.read_text(encoding="utf-8")
    nodes, start = [], 0
    for block in text.split("\n\n"):
        begin = text.index(block, start)
        start = begin + len(block)
        if block.strip():
            nodes.append(
                Node(
                    block,
                    ref_doc_id=path.name,
                    start_char=begin,
                    end_char=start,
                    metadata={"file_name": path.name},
                )
            )
    return nodes[:limit]


@pytest.fixture(scope="module")
def retriever(corpus_dir):
    nodes = paragraphs(corpus_dir / "state_of_the_union" / "state_of_the_union.txt", 400)
    for pep in ("pep-0008.rst", "pep-0020.rst"):
        nodes += paragraphs(corpus_dir / "python_peps" / pep, 120)
    return BagOfWordsRetriever(nodes)


ANSWERING_MODES = [
    m for m in ResponseMode if m not in (ResponseMode.NO_TEXT, ResponseMode.GENERATION)
]


@pytest.mark.parametrize("mode", ANSWERING_MODES)
def test_every_mode_quotes_the_right_passage(retriever, mode):
    engine = QueryEngine(retriever, Synthesizer(ExtractiveLLM(), response_mode=mode))
    response = engine.query(QUESTION)
    streamed = "".join(response)
    assert ANSWER in streamed and streamed == response.text
    assert any("Ketanji" in s.text for s in response.sources())


def test_a_small_window_still_answers_through_refine_steps(retriever):
    llm = ExtractiveLLM(context_window=400, num_output=60)
    response = QueryEngine(retriever, Synthesizer(llm, response_mode="refine")).query(QUESTION)
    assert ANSWER in response.text
    assert any(c.purpose.startswith("refine") for c in response.trace.llm_calls)


def test_generation_says_it_needs_documents_and_no_text_lists_them(retriever):
    results = compare_modes(
        QUESTION,
        retriever=retriever,
        llm=ExtractiveLLM(),
        modes=["generation", "no_text", "compact"],
    )
    generation, no_text, compact = results
    assert "documents" in generation.answer and ANSWER not in generation.answer
    assert no_text.answer == "" and no_text.llm_calls == 0
    assert ANSWER in compact.answer and compact.llm_calls == 1


def test_nothing_retrieved_is_said_plainly():
    engine = QueryEngine(BagOfWordsRetriever([Node("x")], top_k=0), Synthesizer(ExtractiveLLM()))
    assert engine.query(QUESTION).text == NO_CONTEXT_ANSWER
