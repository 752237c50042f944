"""LlamaIndex's documented ``CitationQueryEngine`` and ``SummaryIndex`` examples, offline."""

import re

from ragcore import FakeLLM
from ragcore.compat.core import (
    PromptTemplate,
    Settings,
    SimpleDirectoryReader,
    SummaryIndex,
    VectorStoreIndex,
)
from ragcore.compat.core.query_engine import CitationQueryEngine


def test_citation_query_engine(in_data_folder, fake_embedder, capsys):
    Settings.embed_model = fake_embedder
    documents = SimpleDirectoryReader("./data").load_data()
    index = VectorStoreIndex.from_documents(documents)
    query_engine = CitationQueryEngine.from_args(
        index,
        similarity_top_k=3,
        # here we can control how granular citation sources are, the default is 512
        citation_chunk_size=512,
    )
    response = query_engine.query("What did the president say about Ukraine?")
    print(response)
    print(len(response.source_nodes))
    print(response.source_nodes[0].node.get_text())

    # Adjusting settings: smaller citation chunks, more (and finer) sources.
    finer = CitationQueryEngine.from_args(index, similarity_top_k=3, citation_chunk_size=64)
    fine_response = finer.query("What did the president say about Ukraine?")

    texts = [n.node.get_text() for n in response.source_nodes]
    assert [t.split("\n", 1)[0] for t in texts] == [f"Source {i}:" for i in
                                                    range(1, len(texts) + 1)]
    assert len(fine_response.source_nodes) > len(response.source_nodes) >= 3
    for answer, sources in ((response, texts),
                            (fine_response, [n.node.text for n in fine_response.source_nodes])):
        cited = [int(n) for n in re.findall(r"\[(\d+)\]", str(answer))]
        assert cited and max(cited) <= len(sources)
        for line in str(answer).splitlines()[1:]:  # each quote is in every source it cites
            quote = re.sub(r"(\[\d+\])+\.?$", "", line.removeprefix("- ")).strip()
            for number in re.findall(r"\[(\d+)\]", line):
                assert quote.split()[-1] in sources[int(number) - 1]
    assert "Source 1:" in capsys.readouterr().out


def test_citation_query_engine_with_a_model_and_its_own_template(in_data_folder, fake_embedder):
    Settings.embed_model = fake_embedder
    Settings.llm = FakeLLM(["Beautiful is better than ugly [1]."])  # was OpenAI(model=...)
    index = VectorStoreIndex.from_documents(
        SimpleDirectoryReader(input_files=["data/pep-0020.rst"]).load_data())
    citation_qa_template = PromptTemplate(
        "Please provide an answer based solely on the provided sources, citing them as [N].\n"
        "------\n{context_str}\n------\nQuery: {query_str}\nAnswer: ")
    query_engine = CitationQueryEngine.from_args(
        index, similarity_top_k=2, citation_chunk_size=128,
        citation_qa_template=citation_qa_template)
    response = query_engine.query("What is better than ugly?")

    assert str(response) == "Beautiful is better than ugly [1]."  # a model's citations as written
    (prompt,) = Settings.llm.calls[0]
    assert prompt.content.startswith("Please provide an answer based solely on the provided")
    assert "Source 1:\n" in prompt.content and "Query: What is better than ugly?" in prompt.content


def test_summary_index_answers_from_every_node(in_data_folder):
    documents = SimpleDirectoryReader(input_files=["data/pep-0020.rst"]).load_data()
    index = SummaryIndex.from_documents(documents)
    query_engine = index.as_query_engine(response_mode="tree_summarize")
    response = query_engine.query("Should errors pass silently?")

    assert len(response.source_nodes) == len(index.nodes) > 1
    assert "Errors should never pass silently" in str(response)
    assert len(index.as_retriever().retrieve("anything")) == len(index.nodes)
