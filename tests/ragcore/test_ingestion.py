"""IngestionPipeline: transformations in order, a cache, docstore semantics."""

from __future__ import annotations

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.ingestion import IngestionCache, IngestionPipeline, embed_nodes
from ragcore.types import Document, Node


def test_run_without_index_returns_nodes_and_vectors():
    embedder = FakeEmbedder()
    pipeline = IngestionPipeline(transformations=[ParagraphSplitter(), embedder])
    result = pipeline.run(animal_docs())
    assert [n.node_id for n in result] == [n.node_id for n in result.nodes]
    assert len(result) == 6 and result.vectors.shape == (6, 64)
    assert result.processed == ["cats.txt", "markets.txt", "rust.md"]
    assert np.allclose(result.vectors, embed_nodes(embedder, result.nodes))


def test_cache_skips_splitting_and_embedding_of_unchanged_input():
    splitter, embedder = ParagraphSplitter(), FakeEmbedder()
    pipeline = IngestionPipeline(transformations=[splitter, embedder])
    first = pipeline.run(animal_docs())
    calls = (splitter.calls, embedder.calls)
    second = pipeline.run(animal_docs())
    assert (splitter.calls, embedder.calls) == calls
    assert second.cached == ["cats.txt", "markets.txt", "rust.md"]
    assert [n.to_dict() for n in second.nodes] == [n.to_dict() for n in first.nodes]
    assert np.array_equal(second.vectors, first.vectors)
    changed = animal_docs()
    changed[0].text += "\n\nThey also sleep a lot."
    third = pipeline.run(changed)
    assert third.cached == ["markets.txt", "rust.md"]
    assert len(third.nodes) == 7


def test_cache_key_includes_transformation_settings():
    cache = IngestionCache()
    IngestionPipeline(transformations=[ParagraphSplitter(), FakeEmbedder()], cache=cache).run(
        animal_docs()
    )
    other = IngestionPipeline(
        transformations=[ParagraphSplitter(chunk_size=50), FakeEmbedder()], cache=cache
    )
    assert other.run(animal_docs()).cached == []
    other_model = IngestionPipeline(
        transformations=[ParagraphSplitter(), FakeEmbedder(model_name="other")], cache=cache
    )
    assert other_model.run(animal_docs()).cached == []
    assert len(cache) == 9


def test_with_an_index_unchanged_documents_are_skipped_and_changed_upserted(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    splitter = ParagraphSplitter()
    pipeline = IngestionPipeline(transformations=[splitter], index=index)
    pipeline.run(animal_docs())
    assert len(index) == 6 and index.ref_doc_ids() == ["cats.txt", "markets.txt", "rust.md"]
    docs = animal_docs()
    docs[1] = Document(text="Markets rallied.", doc_id="markets.txt")
    calls = splitter.calls
    result = pipeline.run(docs)
    assert result.unchanged == ["cats.txt", "rust.md"] and result.processed == ["markets.txt"]
    assert splitter.calls == calls + 1
    assert [n.text for n in index.nodes_for_doc("markets.txt")] == ["Markets rallied."]
    assert len(index) == 5
    hits = index.as_retriever(similarity_top_k=1).retrieve("markets rallied")
    assert hits[0].node.text == "Markets rallied."


def test_node_transforms_run_in_order():
    def shout(nodes: list[Node]) -> list[Node]:
        for node in nodes:
            node.text = node.text.upper()
        return nodes

    result = IngestionPipeline(transformations=[ParagraphSplitter(), shout]).run(animal_docs())
    assert result.nodes[0].text == "CATS PURR WHEN THEY ARE CONTENT."
    assert result.vectors is None  # no embedder, no index


def test_documents_without_text_produce_no_nodes(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    pipeline = IngestionPipeline(transformations=[ParagraphSplitter(), fake_embedder], index=index)
    result = pipeline.run([Document(text="", doc_id="empty"), *animal_docs()[:1]])
    assert len(result) == 2 and index.doc_info("empty").node_ids == []


@pytest.mark.parametrize(
    "steps, message",
    [
        ([], "start with a splitter"),
        ([FakeEmbedder()], "start with a splitter"),
        ([ParagraphSplitter(), FakeEmbedder(), lambda nodes: nodes], "middle transformation"),
        ([ParagraphSplitter(), "not callable"], "middle transformation"),
    ],
)
def test_bad_transformations_are_rejected(steps, message):
    with pytest.raises(ConfigError, match=message):
        IngestionPipeline(transformations=steps)


def test_an_embedder_other_than_the_index_model_is_refused(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    with pytest.raises(ConfigError, match="drop the embedder step"):
        IngestionPipeline(
            transformations=[ParagraphSplitter(), FakeEmbedder(model_name="other")], index=index
        )
    with pytest.raises(ConfigError, match="Document"):
        IngestionPipeline(transformations=[ParagraphSplitter()], index=index).run(["text"])
