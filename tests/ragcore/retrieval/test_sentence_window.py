"""SentenceWindowNodeParser + MetadataReplacementPostProcessor, on real text."""

from __future__ import annotations

import pytest

from ragcore import Document, FakeLLM, MetadataReplacementPostProcessor, VectorStoreIndex
from ragcore.errors import ConfigError
from ragcore.retrieval.sentence_window import SentenceWindowNodeParser
from ragcore.types import MetadataMode


def speech(corpus_dir) -> Document:
    text = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    return Document(text, doc_id="sotu", metadata={"file_name": "state_of_the_union.txt"})


def test_one_node_per_sentence_with_its_window(corpus_dir):
    doc = speech(corpus_dir)
    nodes = SentenceWindowNodeParser(window_size=2).get_nodes_from_documents([doc])

    assert len(nodes) > 300
    for node in nodes[:50]:
        assert doc.text[node.start_char:node.end_char] == node.text == (
            node.metadata["original_text"])
    middle = nodes[10]
    assert middle.metadata["window"] == " ".join(n.text for n in nodes[8:13])
    assert nodes[0].metadata["window"] == " ".join(n.text for n in nodes[0:3])
    # the window is for the LLM after replacement, never embedded or shown as a header
    assert "window" not in middle.content(MetadataMode.EMBED)
    assert "window" not in middle.content(MetadataMode.LLM)
    assert middle.prev_id == nodes[9].node_id and middle.next_id == nodes[11].node_id
    again = SentenceWindowNodeParser(window_size=2).get_nodes_from_documents([doc])
    assert [n.node_id for n in again] == [n.node_id for n in nodes]  # stable ids


def test_bad_window_size_is_refused():
    with pytest.raises(ConfigError, match="window_size"):
        SentenceWindowNodeParser(window_size=-1)


def test_the_llm_reads_the_window_of_the_sentence_that_was_found(corpus_dir, fake_embedder):
    index = VectorStoreIndex.from_documents(
        [speech(corpus_dir)], embedder=fake_embedder,
        splitter=SentenceWindowNodeParser(window_size=3),
    )
    llm = FakeLLM(default="answer")
    engine = index.as_query_engine(
        llm=llm, similarity_top_k=1, retrieval_mode="keyword",
        node_postprocessors=[MetadataReplacementPostProcessor(target_metadata_key="window")],
    )
    response = engine.query("NATO Alliance was created to secure peace")
    response.text

    found = response.source_nodes[0].node
    assert "NATO Alliance was created" in found.text
    assert len(found.text) > len(found.metadata["original_text"])  # the window, not the sentence
    prompt = "\n".join(m.content for m in llm.calls[0])
    assert found.text in prompt
