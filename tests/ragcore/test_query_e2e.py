"""End to end: real files, the packaged embedding model, the real index, the extractive backend.

A factual question about the corpus gets an answer quoting the right document, with the right
source first, in the default mode and through ``index.as_query_engine`` with postprocessors.
"""

from __future__ import annotations

import pytest

from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.postprocess import PrevNextNodePostprocessor, SimilarityPostprocessor
from ragcore.query import compare_modes
from ragcore.synthesis import ResponseMode

pytestmark = pytest.mark.slow

QUESTION = "Which judge did the President nominate to the Supreme Court?"
PEPS = ("pep-0020.rst", "pep-0257.rst")


@pytest.fixture(scope="module")
def index(corpus_dir, real_embedder):
    from ragcore.index import VectorStoreIndex
    from ragcore.readers import SimpleDirectoryReader

    files = [corpus_dir / "state_of_the_union" / "state_of_the_union.txt"]
    files += [
        corpus_dir / "python_peps" / p for p in PEPS if (corpus_dir / "python_peps" / p).exists()
    ]
    documents = SimpleDirectoryReader(input_files=files).load_data()
    return VectorStoreIndex.from_documents(documents, embedder=real_embedder)


def test_a_factual_question_quotes_the_right_document_first(index):
    engine = index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=4)
    response = engine.query(QUESTION)
    assert "Ketanji Brown Jackson" in response.text
    first = response.sources()[0]
    assert first.file == "state_of_the_union.txt"
    assert "Ketanji" in first.text
    assert first.score is not None and first.start_char is not None
    stages = [s.name for s in response.trace.stages]
    assert stages[:2] == ["embed query", "retrieve"] and stages[-1] == "llm: qa"


def test_the_zen_of_python_is_found_in_pep_20(index):
    engine = index.as_query_engine(
        llm=ExtractiveLLM(),
        response_mode="tree_summarize",
        node_postprocessors=[
            SimilarityPostprocessor(similarity_cutoff=0.2),
            PrevNextNodePostprocessor(index, mode="next"),
        ],
    )
    response = engine.query("Is explicit better than implicit in the Zen of Python?")
    assert "Explicit is better than implicit" in response.text
    assert response.sources()[0].file == "pep-0020.rst"
    assert any(s.name == "postprocess: PrevNextNodePostprocessor" for s in response.trace.stages)


def test_compare_modes_on_the_real_index(index):
    retriever = index.as_retriever(similarity_top_k=3)
    results = compare_modes(
        QUESTION, retriever=retriever, llm=ExtractiveLLM(context_window=600, num_output=100)
    )
    assert [r.mode for r in results] == list(ResponseMode)
    answered = [r for r in results if r.mode not in (ResponseMode.NO_TEXT, ResponseMode.GENERATION)]
    assert all("Ketanji Brown Jackson" in r.answer for r in answered)
    by_mode = {r.mode: r for r in results}
    assert by_mode[ResponseMode.REFINE].llm_calls >= by_mode[ResponseMode.COMPACT].llm_calls
