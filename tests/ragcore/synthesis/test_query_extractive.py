"""Our prompts and the offline extractive backend work together, in every response mode.

Fast: passages from the real corpus, ranked by the fake embedder in a tiny in-test retriever;
small documents showing how the modes differ; the engines handing the index's embedder to the
backend. (The end-to-end test with the real model and the real index is in test_query_e2e.py.)
"""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.embeddings.kept_vectors import KEPT
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import LABEL, ExtractiveLLM
from ragcore.llms.extractive.answer import says_not_found
from ragcore.memory import ChatMemory
from ragcore.query import QueryEngine, compare_modes
from ragcore.synthesis import NO_CONTEXT_ANSWER, ResponseMode, Synthesizer
from ragcore.synthesis.accumulate import ANSWER_SEPARATOR
from ragcore.trace import Trace
from ragcore.types import Document, Node, ScoredNode

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


# --- the response modes differ as their names say ---------------------------------------------

SOURCES = [
    ("plan.txt", "The cutover moves the database servers to the new rack. The cutover moves the "
                 "web servers after the database servers. Lunch is served at noon."),
    ("notes.txt", "The cutover moves the mail servers last."),
    ("risks.txt", "The cutover moves the backup servers only if time allows."),
]
MOVE_QUESTION = "What does the cutover move?"


def source_nodes(sources=SOURCES) -> list[ScoredNode]:
    return [ScoredNode(Node(text, node_id=name, metadata={"file_name": name}), 1 - i / 10)
            for i, (name, text) in enumerate(sources)]


def answer_in(mode: str, sources=SOURCES, question: str = MOVE_QUESTION) -> str:
    synthesizer = Synthesizer(ExtractiveLLM(), response_mode=mode)
    return synthesizer.synthesize(question, source_nodes(sources)).text


def quotes(answer: str) -> list[str]:
    return [line[2:] for line in answer.splitlines() if line.startswith("- ")]


def test_accumulate_answers_each_source_under_its_name_with_the_label_once():
    answer = answer_in("accumulate")
    assert answer.count(LABEL) == 1
    sections = answer.split(ANSWER_SEPARATOR)
    assert [s.split(":", 1)[0] for s in sections] == [
        "Response 1 (plan.txt)", "Response 2 (notes.txt)", "Response 3 (risks.txt)"]
    for (_, text), section in zip(SOURCES, sections):
        assert quotes(section) and all(q in text for q in quotes(section))


def test_accumulate_shows_the_label_once_when_the_first_source_has_no_answer():
    sources = [("lunch.txt", "Lunch is served at noon in the canteen."), *SOURCES[1:]]
    answer = answer_in("accumulate", sources)
    assert answer.count(LABEL) == 1
    first, second, _ = answer.split(ANSWER_SEPARATOR)
    assert first.startswith("Response 1 (lunch.txt): ")
    assert says_not_found(first.split(": ", 1)[1])
    assert second.startswith("Response 2 (notes.txt): ") and LABEL not in second
    assert quotes(second) == ["The cutover moves the mail servers last."]


def test_tree_summarize_merges_the_best_sentence_of_every_source():
    tree, compact = quotes(answer_in("tree_summarize")), quotes(answer_in("compact"))
    assert tree == ["The cutover moves the database servers to the new rack.",
                    "The cutover moves the mail servers last.",
                    "The cutover moves the backup servers only if time allows."]
    assert "The cutover moves the backup servers only if time allows." not in compact
    assert "The cutover moves the web servers after the database servers." in compact


def test_tree_summarize_quotes_what_two_sources_both_say_once():
    repeated = [*SOURCES, ("copy.txt", "The cutover moves the mail servers last of all.")]
    tree = quotes(answer_in("tree_summarize", repeated))
    assert len([q for q in tree if "mail servers" in q]) == 1


def test_simple_summarize_gives_the_answer_then_the_rest_in_reading_order():
    one_pass = quotes(answer_in("simple_summarize"))
    text = " ".join(t for _, t in SOURCES)
    assert one_pass[0] == "The cutover moves the database servers to the new rack."
    assert len(one_pass) == 4 and one_pass[1:] == sorted(one_pass[1:], key=text.index)


def test_refine_keeps_the_first_answer_and_adds_what_a_later_source_adds():
    sources = [("plan.txt", "The cutover of the servers starts on Friday at 22:00."),
               ("network.txt", "If the network fails, the cutover of the servers is postponed.")]
    question = "When does the cutover of the servers start?"
    refine, compact = (quotes(answer_in(m, sources, question)) for m in ("refine", "compact"))
    assert compact == ["The cutover of the servers starts on Friday at 22:00."]
    assert refine == compact + ["If the network fails, the cutover of the servers is postponed."]


def test_the_answering_modes_give_different_answers():
    modes = ["compact", "simple_summarize", "tree_summarize", "accumulate"]
    answers = {mode: answer_in(mode) for mode in modes}
    assert len(set(answers.values())) == len(modes), answers


# --- the engines hand the index's embedder to the extractive backend --------------------------

@pytest.fixture
def small_index():
    documents = [Document(text, doc_id=name, metadata={"file_name": name})
                 for name, text in SOURCES]
    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


def test_a_query_engine_over_an_index_ranks_sentences_with_its_embedder(small_index):
    embedder = small_index.embedder
    engine = small_index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=3)
    KEPT.clear()  # no sentence embedded by an earlier test is kept
    before = embedder.calls
    reply = engine.query(MOVE_QUESTION).text
    assert any(f"- {sentence}" in reply for _, text in SOURCES for sentence in
               text.split(". ")), reply  # quotes a source sentence
    # one call embeds the question for retrieval, one the candidate sentences, one the question
    assert embedder.calls - before == 3


def test_keyword_retrieval_hands_no_embedder(small_index):
    embedder = small_index.embedder
    engine = small_index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode="keyword")
    before = embedder.calls
    assert "servers" in engine.query(MOVE_QUESTION).text
    assert embedder.calls == before


def test_a_chat_engine_over_an_index_ranks_with_its_embedder(small_index):
    embedder = small_index.embedder
    engine = small_index.as_chat_engine(chat_mode="context", llm=ExtractiveLLM())
    KEPT.clear()  # no sentence embedded by an earlier test is kept
    before = embedder.calls
    assert "servers" in engine.chat(MOVE_QUESTION, ChatMemory()).text
    assert embedder.calls - before == 3


def test_an_extractive_llm_keeps_the_embedder_it_was_given(small_index):
    own = FakeEmbedder(dim=8)
    llm = ExtractiveLLM(embedder=own)
    assert llm.with_embedder(small_index.embedder) is llm
    small_index.as_query_engine(llm=llm).query(MOVE_QUESTION).text
    assert own.calls == 2
