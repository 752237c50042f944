"""AutoMergingRetriever over HierarchicalNodeParser output: leaves indexed, parents looked up."""

from __future__ import annotations

import pytest

from ragcore import Document, HierarchicalNodeParser, VectorStoreIndex, get_leaf_nodes
from ragcore.retrieval.auto_merging import (
    AutoMergingRetriever,
    NodeStore,
    fill_in,
    merge_into_parents,
)
from ragcore.errors import ConfigError
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode


class FixedRetriever:
    def __init__(self, found):
        self.found = found

    def retrieve(self, query, *, trace=None):
        return [ScoredNode(n.node, n.score) for n in self.found]


def family():
    parent = Node("p", node_id="p", child_ids=["a", "b", "c"])
    a = Node("a", node_id="a", parent_id="p", next_id="b")
    b = Node("b", node_id="b", parent_id="p", prev_id="a", next_id="c")
    c = Node("c", node_id="c", parent_id="p", prev_id="b")
    store = NodeStore()
    store.add_documents([parent, a, b, c])
    return store, a, b, c


def test_two_of_three_children_merge_into_the_parent_scored_as_their_average():
    store, a, b, c = family()
    found = AutoMergingRetriever(FixedRetriever([ScoredNode(a, 0.9), ScoredNode(b, 0.5)]),
                                 store).retrieve("q")
    assert [(n.node.node_id, n.score) for n in found] == [("p", pytest.approx(0.7))]


def test_one_child_of_three_stays_and_a_gap_between_siblings_is_filled_in():
    store, a, b, c = family()
    kept, changed = merge_into_parents([ScoredNode(a, 0.9)], store, 0.5)[:2]
    assert [n.node.node_id for n in kept] == ["a"] and changed == 0
    filled, added = fill_in([ScoredNode(a, 0.8), ScoredNode(c, 0.4)], store)
    assert [n.node.node_id for n in filled] == ["a", "b", "c"] and added == 1
    assert filled[1].score == pytest.approx(0.6)
    # a then c fills b in, and three of three children then merge
    trace = Trace()
    found = AutoMergingRetriever(FixedRetriever([ScoredNode(a, 0.8), ScoredNode(c, 0.4)]),
                                 store).retrieve("q", trace=trace)
    assert [n.node.node_id for n in found] == ["p"]
    stage = trace.stages[-1]
    assert stage.name == "auto-merge" and stage.detail["filled_in"] == 1
    assert stage.detail["parents"] == 1


def test_bad_options_are_refused():
    with pytest.raises(ConfigError, match="simple_ratio_thresh"):
        AutoMergingRetriever(FixedRetriever([]), NodeStore(), simple_ratio_thresh=1.5)
    with pytest.raises(ConfigError, match="get_node"):
        AutoMergingRetriever(FixedRetriever([]), {})


@pytest.mark.slow
def test_on_a_real_chapter_it_answers_with_bigger_passages_than_plain_retrieval(
    corpus_dir, real_embedder
):
    text = (corpus_dir / "rust_book" / "src" / "ch04-01-what-is-ownership.md").read_text()
    nodes = HierarchicalNodeParser.from_defaults().get_nodes_from_documents(
        [Document(text, doc_id="ownership")]
    )
    store = NodeStore()
    store.add_documents(nodes)
    index = VectorStoreIndex(get_leaf_nodes(nodes), embedder=real_embedder)
    plain = index.as_retriever(similarity_top_k=12, mode="similarity")
    merging = AutoMergingRetriever(plain, store)

    question = "What are the ownership rules in Rust?"
    leaves = plain.retrieve(question)
    merged = merging.retrieve(question)

    assert all(not n.node.child_ids for n in leaves)
    assert any(n.node.child_ids for n in merged)  # some leaves became their parent
    assert len(merged) < len(leaves)
    assert sum(len(n.node.text) for n in merged) >= sum(len(n.node.text) for n in leaves)
    assert any("### Ownership Rules" in n.node.text for n in merged)
