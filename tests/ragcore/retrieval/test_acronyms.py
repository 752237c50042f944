""""What does SDLC stand for?" is answered from the sentence that spells the acronym out."""

from __future__ import annotations

import pytest

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.query import QueryEngine
from ragcore.retrieval.acronyms import ACRONYM_SUFFIX, AcronymExpansions, asked_acronym, expanded
from ragcore.synthesis import Synthesizer
from ragcore.types import Document


@pytest.mark.parametrize("question, acronym", [
    ("what does SDLC stand for in the SSDF document?", "SDLC"),
    ("What is NFAT short for?", "NFAT"),
    ("What does the acronym IDPS mean?", "IDPS"),
    ("What is the full form of ZTA?", "ZTA"),
    ("Expand PSIRT.", "PSIRT"),
    ("What is PSIRT an abbreviation for?", "PSIRT"),
])
def test_questions_asking_what_an_acronym_stands_for(question, acronym):
    assert asked_acronym(question) == acronym


@pytest.mark.parametrize("question", ["What is a PSIRT?", "What does the SSDF recommend?",
                                      "What does it stand for?", "What does Rust stand for?"])
def test_other_questions_ask_for_no_expansion(question):
    assert asked_acronym(question) is None


@pytest.mark.parametrize("sentence, acronym, words", [
    ("A software development life cycle (SDLC)1 is a formal methodology.", "SDLC",
     "software development life cycle"),
    ("Have a Product Security Incident Response Team (PSIRT) and processes.", "PSIRT",
     "Product Security Incident Response Team"),
    ("The Department of Defense (DoD) said so.", "DoD", "Department of Defense"),
    ("Network Forensic Analysis Tool (NFAT) software", "NFAT", "Network Forensic Analysis Tool"),
    ("SDLC (software development life cycle) models vary.", "SDLC",
     "software development life cycle"),
])
def test_the_words_an_acronym_stands_for_are_found_by_their_initials(sentence, acronym, words):
    assert expanded(sentence, acronym) == words


@pytest.mark.parametrize("sentence, acronym", [
    ("We use HTTP (a protocol) here.", "HTTP"),
    ("The team met the SDLC deadline (SDLC) twice.", "SDLC"),
    ("The SDLC is long.", "SDLC"),
])
def test_a_parenthesis_whose_words_do_not_spell_it_is_no_expansion(sentence, acronym):
    assert expanded(sentence, acronym) is None


def _index() -> VectorStoreIndex:
    filler = " ".join(f"The SDLC has step {n} and the SDLC keeps going." for n in range(40))
    documents = [
        Document(text=filler, doc_id="guide.txt", metadata={"file_name": "guide.txt"}),
        Document(text=("Notes. 1 A software development life cycle (SDLC) is a formal or "
                       "informal methodology for designing software."),
                 doc_id="notes.txt", metadata={"file_name": "notes.txt"}),
    ]
    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


def test_the_expansion_is_put_first_citing_the_node_it_comes_from():
    index = _index()
    retrieved = index.as_retriever(similarity_top_k=2).retrieve("What does SDLC stand for?")
    assert not any("life cycle" in n.node.text for n in retrieved)  # the search misses it
    passages = AcronymExpansions(index).postprocess(retrieved, "What does SDLC stand for?")
    first = passages[0].node
    assert "software development life cycle (SDLC)" in first.text
    assert first.node_id.endswith(ACRONYM_SUFFIX) and first.metadata["file_name"] == "notes.txt"
    source = index.get_node(first.node_id.removesuffix(ACRONYM_SUFFIX))
    assert source.text[first.start_char - source.start_char:][:len(first.text)] == first.text
    assert passages[1:] == retrieved
    assert AcronymExpansions(index).postprocess(retrieved, "How long is the SDLC?") == retrieved


def test_the_engines_read_the_expansion_first():
    index = _index()
    question = "What does SDLC stand for?"
    plain = QueryEngine(index.as_retriever(), Synthesizer(ExtractiveLLM())).query(question)
    assert not any("life cycle" in n.node.text for n in plain.source_nodes)
    read = index.as_query_engine(llm=ExtractiveLLM()).query(question).source_nodes
    assert "software development life cycle (SDLC)" in read[0].node.text


def test_the_keyword_search_runs_only_when_the_retrieved_nodes_do_not_spell_it_out():
    index = _index()
    searched = []

    class Counting:
        def keyword_search(self, query, *, top_k=4):
            searched.append(query)
            return index.keyword_search(query, top_k=top_k)

    question = "What does SDLC stand for?"
    spelled = [n for n in index.keyword_search("SDLC", top_k=50) if "life cycle" in n.node.text]
    passages = AcronymExpansions(Counting()).postprocess(spelled, question)
    assert "software development life cycle" in passages[0].node.text and searched == []
    missed = index.as_retriever(similarity_top_k=2).retrieve(question)
    AcronymExpansions(Counting()).postprocess(missed, question)
    assert searched == ["SDLC"]
