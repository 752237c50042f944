"""The citation engine: numbered sources at the citation size, citation prompts for a model,
and citations added to extractive quotes (worked examples)."""

import pytest

from ragcore import FakeLLM, VectorStoreIndex
from ragcore.engines.citation import CitationQueryEngine, CitationSplitter, cite_quotes
from ragcore.errors import ConfigError
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.prompts.answer import CITATION_RULES
from ragcore.tokens import count_tokens
from ragcore.types import Document, Node, ScoredNode

SOURCES = ["Source 1:\nHerons hunt fish in shallow water. They stand still for a long time.\n",
           "Source 2:\nOwls hunt mice at night.\n",
           "Source 3:\nHerons hunt fish in shallow water, like egrets.\n"]


def test_each_quoted_line_cites_every_source_that_holds_it():
    answer = ("Extractive answer (no language model configured): quoted from the documents:\n"
              "- Herons hunt fish in shallow water.\n- Owls hunt mice at night.\n- Not quoted "
              "from anywhere at all.\n- Source 1: They stand still for a long time.\n- Hunt.")
    assert cite_quotes(answer, SOURCES).splitlines() == [
        "Extractive answer (no language model configured): quoted from the documents:",
        "- Herons hunt fish in shallow water [1][3].",
        "- Owls hunt mice at night [2].",
        "- Not quoted from anywhere at all.",
        "- They stand still for a long time [1].",
        "- Hunt.",
    ]


def test_an_answer_that_already_cites_is_left_alone():
    assert cite_quotes("Herons hunt fish [3].", SOURCES) == "Herons hunt fish [3]."


def test_sources_are_split_at_the_citation_size_and_numbered():
    text = " ".join(f"Sentence number {i} says something about herons." for i in range(60))
    nodes = [ScoredNode(Node(text, node_id="a", metadata={"file_name": "h.txt"}), 0.9),
             ScoredNode(Node("Owls hunt mice at night.", node_id="b"), 0.5)]
    sources = CitationSplitter(chunk_size=64, chunk_overlap=0).postprocess(nodes)

    assert len(sources) > 3
    assert [s.node.text.split("\n")[0] for s in sources] == [
        f"Source {i}:" for i in range(1, len(sources) + 1)]
    assert all(count_tokens(s.node.text.split("\n", 1)[1]) <= 64 for s in sources)
    assert sources[-1].node.text == f"Source {len(sources)}:\nOwls hunt mice at night.\n"
    assert sources[0].node.metadata == {"file_name": "h.txt"} and sources[0].score == 0.9


def _index(fake_embedder):
    return VectorStoreIndex.from_documents(
        [Document("Herons hunt fish in shallow water. They stand still for a long time."),
         Document("Owls hunt mice at night. Their hearing is very precise.")],
        embedder=fake_embedder)


def test_a_model_is_asked_to_cite_and_its_answer_is_kept(fake_embedder):
    llm = FakeLLM(["Herons hunt fish [1]."])
    engine = CitationQueryEngine(_index(fake_embedder).as_retriever(similarity_top_k=2), llm)
    response = engine.query("What do herons hunt?")

    assert response.text == "Herons hunt fish [1]."
    system, user = llm.calls[0]
    assert system.content.startswith(CITATION_RULES)
    assert "Source 1:\n" in user.content and "Source 2:\n" in user.content


def test_offline_answers_cite_too(fake_embedder):
    engine = CitationQueryEngine(_index(fake_embedder).as_retriever(similarity_top_k=2),
                                 ExtractiveLLM())
    response = engine.query("What do herons hunt?")
    number = next(i for i, s in enumerate(response.source_nodes, 1) if "Herons" in s.node.text)
    assert f"- Herons hunt fish in shallow water [{number}]." in response.text.splitlines()


def test_a_citation_size_too_small_to_hold_a_sentence_is_refused(fake_embedder):
    with pytest.raises(ConfigError, match="citation_chunk_size"):
        CitationQueryEngine(_index(fake_embedder).as_retriever(), ExtractiveLLM(),
                            citation_chunk_size=4)
