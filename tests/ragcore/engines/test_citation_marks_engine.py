"""The citation engine answers with "[N]" markers whatever the model wrote, through ragcore's
engine and through the LlamaIndex-compatible ``CitationQueryEngine.from_args``."""

import pytest

from ragcore import FakeLLM, VectorStoreIndex
from ragcore.compat.core.query_engine import CitationQueryEngine as CompatCitationQueryEngine
from ragcore.engines.citation import CitationQueryEngine, cite_quotes
from ragcore.prompts.citation_marks import normalise_citations
from ragcore.types import Document


@pytest.fixture
def index(fake_embedder):
    return VectorStoreIndex.from_documents(
        [Document("Herons nest in Oslo, in tall trees near water."),
         Document("Owls hunt mice at night.")],
        embedder=fake_embedder)


def native(index, llm):
    return CitationQueryEngine(index.as_retriever(similarity_top_k=2), llm)


def compat(index, llm):
    return CompatCitationQueryEngine.from_args(index, llm=llm, similarity_top_k=2)


@pytest.mark.parametrize("make", [native, compat])
def test_a_model_citing_source_n_is_shown_with_brackets(index, make):
    response = make(index, FakeLLM(["**Oslo**. Source 1."])).query("Where do herons nest?")
    assert response.text == "**Oslo**. [1]"


@pytest.mark.parametrize("make", [native, compat])
def test_numbers_beyond_the_sources_are_dropped_and_lists_split(index, make):
    llm = FakeLLM(["Herons nest in trees (Sources 1, 2, 9). Owls hunt [2][7]."], chunk_size=3)
    response = make(index, llm).query("Where do herons nest?")

    assert len(response.source_nodes) == 2
    assert "".join(response) == "Herons nest in trees [1] [2]. Owls hunt [2]."
    assert response.text == "Herons nest in trees [1] [2]. Owls hunt [2]."


def test_offline_quotes_are_cited_alike_whether_or_not_their_labels_were_normalised():
    sources = ["Source 1:\nHerons hunt fish in shallow water. They stand still for a long time.\n",
               "Source 2:\nOwls hunt mice at night.\n",
               "Source 3:\nHerons hunt fish in shallow water, like egrets.\n"]
    quoted = ("Extractive answer (no language model configured): quoted from the documents:\n"
              "- Source 3: Herons hunt fish in shallow water.\n- Owls hunt mice at night.\n"
              "- Source 1: They stand still for a long time.")
    cited = ("Extractive answer (no language model configured): quoted from the documents:\n"
             "- Herons hunt fish in shallow water [1][3].\n- Owls hunt mice at night [2].\n"
             "- They stand still for a long time [1].")

    assert cite_quotes(quoted, sources) == cited
    assert cite_quotes(normalise_citations(quoted, sources=3), sources) == cited
