"""Cards made at ingest and kept: every node of a file carries its card through persist and
load, chunks and vectors are what they were without it, and indexes written before cards
load and answer as before (with no card)."""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragcore.cards import CARD_KEYS, card_from_metadata
from ragcore.chunking import SentenceSplitter
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.query import QueryEngine
from ragcore.synthesis import Synthesizer
from ragcore.readers import load_file
from ragcore.retrieval.cards import DocumentCards
from ragcore.types import MetadataMode

DATA = Path(__file__).resolve().parents[2] / "data"
PEP_8_AUTHORS = "Authors who wrote PEP 8: Guido van Rossum, Barry Warsaw and Alyssa Coghlan."


def _pep_8(corpus_dir):
    return load_file(corpus_dir / "python_peps" / "pep-0008.rst")


def test_a_persisted_index_keeps_each_documents_card(corpus_dir, tmp_path):
    documents = _pep_8(corpus_dir) + load_file(corpus_dir / "rfcs" / "rfc3986.txt")
    VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder()).persist(tmp_path)
    index = VectorStoreIndex.load(tmp_path, embedder=FakeEmbedder())
    pep = index.doc_info(documents[0].doc_id)
    assert card_from_metadata(pep.metadata).authors == ("Guido van Rossum", "Barry Warsaw",
                                                        "Alyssa Coghlan")
    assert all(card_from_metadata(index.get_node(i).metadata).kind == "PEP 8"
               for i in pep.node_ids)
    hits = index.as_retriever(similarity_top_k=4).retrieve("Who wrote PEP 8?")
    out = DocumentCards().postprocess(hits, "Who wrote PEP 8?")
    assert out[0].node.node_id == documents[0].doc_id + "#card"
    assert PEP_8_AUTHORS in out[0].node.text and out[1:] == hits


def test_the_card_changes_no_chunk_and_no_vector(corpus_dir):
    carded = _pep_8(corpus_dir)
    plain = copy.deepcopy(carded)
    for document in plain:
        for key in CARD_KEYS:
            document.metadata.pop(key, None)
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=20)
    with_card, without = (splitter.get_nodes_from_documents(d) for d in (carded, plain))
    assert [(n.start_char, n.end_char) for n in with_card] == \
        [(n.start_char, n.end_char) for n in without]
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        assert [n.content(mode) for n in with_card] == [n.content(mode) for n in without]
    embedder = FakeEmbedder()
    texts = [[n.content(MetadataMode.EMBED) for n in nodes] for nodes in (with_card, without)]
    assert np.array_equal(embedder.embed_batch(texts[0]), embedder.embed_batch(texts[1]))


@pytest.mark.parametrize("question, answer", [
    ("Who are the authors of PEP 8?", "Guido van Rossum, Barry Warsaw and Alyssa Coghlan"),
    ("When was PEP 8 created?", "05-Jul-2001"),
    ("What is the title of PEP 8?", "Style Guide for Python Code"),
])
def test_an_answer_about_the_document_quotes_its_card(corpus_dir, question, answer):
    index = VectorStoreIndex.from_documents(_pep_8(corpus_dir), embedder=FakeEmbedder())
    plain = QueryEngine(index.as_retriever(), Synthesizer(ExtractiveLLM()))
    assert answer not in str(plain.query(question))  # without the card the answer misses it
    engine = index.as_query_engine(llm=ExtractiveLLM())  # the engines read cards by default
    assert answer in str(engine.query(question)).split("\n")[1]  # the first quote


@pytest.mark.parametrize("question, answer", [
    ("Which RFC does RFC 2616 obsolete?", "RFC 2068"),
    ("Which RFC does RFC 3986 update?", "RFC 1738"),
])
def test_what_an_rfc_obsoletes_or_updates_is_read_from_its_own_card(corpus_dir, question, answer):
    documents = [d for name in ("rfc2616.txt", "rfc3986.txt")
                 for d in load_file(corpus_dir / "rfcs" / name)]
    index = VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())
    engine = index.as_query_engine(llm=ExtractiveLLM())
    response = engine.query(question)
    assert response.source_nodes[0].node.node_id.endswith("#card")
    assert answer in response.source_nodes[0].node.text
    assert answer in str(response)


@pytest.mark.parametrize("folder", ["index_v1", "index_v3"])
def test_an_index_written_before_cards_loads_and_answers_without_one(folder, tmp_path):
    shutil.copytree(DATA / folder, tmp_path / folder)
    index = VectorStoreIndex.load(tmp_path / folder, embedder=FakeEmbedder())
    hits = index.as_retriever(similarity_top_k=3).retrieve("Who wrote this document about owls?")
    assert hits and all(card_from_metadata(h.node.metadata) is None for h in hits)
    assert DocumentCards().postprocess(hits, "Who wrote this document about owls?") is hits


@pytest.mark.slow  # reads a 36-page PDF
def test_a_pdf_index_puts_the_ssdf_authors_first(corpus_dir, tmp_path):
    path = corpus_dir / "nist_pdfs" / "NIST.SP.800-218.pdf"
    VectorStoreIndex.from_documents(load_file(path), embedder=FakeEmbedder()).persist(tmp_path)
    index = VectorStoreIndex.load(tmp_path, embedder=FakeEmbedder())
    question = "Who are the authors of NIST SP 800-218?"
    hits = index.as_retriever(similarity_top_k=4).retrieve(question)
    first = DocumentCards().postprocess(hits, question)[0]
    assert first.node.node_id == f"{path.resolve()}#card"
    assert "Souppaya, Karen Scarfone and Donna Dodson." in first.node.text
    assert "when it was published: February 2022." in first.node.text
    assert first.score == max(h.score for h in hits)
