"""End to end with the packaged model on real corpus files (slow: loads the model)."""

from __future__ import annotations

import pytest

from ragcore.chunking import SentenceSplitter
from ragcore.index import VectorStoreIndex
from ragcore.readers import load_file
from ragcore.trace import Trace

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def corpus_index(corpus_dir, real_embedder):
    documents = load_file(corpus_dir / "state_of_the_union" / "state_of_the_union.txt")
    pdf = load_file(corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf")
    documents += pdf[:25]  # the first pages keep the test quick on two cores
    return VectorStoreIndex.from_documents(
        documents, embedder=real_embedder, splitter=SentenceSplitter()
    )


def test_speech_question_finds_the_speech(corpus_index):
    results = corpus_index.as_retriever(similarity_top_k=3).retrieve(
        "What did the president say about Ukraine and Russia?"
    )
    assert results[0].file_name == "state_of_the_union.txt"
    assert any("Ukrain" in r.node.text for r in results)


def test_zero_trust_question_finds_the_nist_pages(corpus_index):
    trace = Trace()
    results = corpus_index.as_retriever(similarity_top_k=3).retrieve(
        "What is a zero trust architecture?", trace=trace
    )
    assert all(r.file_name == "NIST.SP.800-207-ZeroTrustArchitecture.pdf" for r in results)
    assert results[0].page is not None
    assert "zero trust" in " ".join(r.node.text.lower() for r in results)
    assert [s.name for s in trace.stages] == ["embed query", "retrieve", "keyword search", "fuse"]


def test_persisted_index_answers_the_same_after_reload(corpus_index, real_embedder, tmp_path):
    corpus_index.persist(tmp_path / "corpus")
    loaded = VectorStoreIndex.load(tmp_path / "corpus", embedder=real_embedder)
    question = "policy enforcement point and policy decision point"
    def top_ids(index):
        return [r.node.node_id for r in index.as_retriever(similarity_top_k=4).retrieve(question)]

    before, after = top_ids(corpus_index), top_ids(loaded)
    assert before == after
    assert loaded.stats()["model"] == real_embedder.model_name and loaded.stats()["dim"] == 384
