"""HierarchicalNodeParser: a consistent parent/child tree with exact offsets at every level,
and helpers that agree with LlamaIndex's (quadratic) definitions."""

from __future__ import annotations

import random

import pytest

from ragcore.chunking import (
    HierarchicalNodeParser,
    NodeParser,
    get_child_nodes,
    get_deeper_nodes,
    get_leaf_nodes,
    get_root_nodes,
)
from ragcore.errors import ConfigError
from ragcore.tokens import get_tokenizer
from ragcore.types import Document, Node


def tokens(text: str) -> int:
    return len(get_tokenizer().encode_ordinary(text))


@pytest.fixture(scope="module")
def book(corpus_dir) -> Document:
    text = (corpus_dir / "gutenberg_books" / "pg84.txt").read_text(encoding="cp1252")[:40_000]
    return Document(text=text, doc_id="frankenstein", metadata={"file_name": "pg84.txt"})


@pytest.fixture(scope="module")
def tree(book: Document) -> list[Node]:
    parser = HierarchicalNodeParser.from_defaults(chunk_sizes=[1024, 256, 64])
    other = Document(text="A second, tiny document.", doc_id="tiny")
    return parser.get_nodes_from_documents([book, other])


# LlamaIndex's definitions, kept quadratic on purpose as the reference.
def reference_children(nodes: list[Node], all_nodes: list[Node]) -> list[Node]:
    children_ids: list[str] = []
    for node in nodes:
        children_ids.extend(node.child_ids)
    return [candidate for candidate in all_nodes if candidate.node_id in children_ids]


def reference_deeper(nodes: list[Node], depth: int) -> list[Node]:
    level = [n for n in nodes if n.parent_id is None]
    for _ in range(depth):
        level = reference_children(level, nodes)
    return level


def test_every_level_has_exact_offsets_and_budget(tree: list[Node], book: Document) -> None:
    texts = {"frankenstein": book.text, "tiny": "A second, tiny document."}
    for node in tree:
        assert texts[node.ref_doc_id][node.start_char : node.end_char] == node.text
    for depth, size in enumerate([1024, 256, 64]):
        level = get_deeper_nodes(tree, depth)
        assert level and all(tokens(n.text) <= size for n in level)


def test_parents_and_children_agree(tree: list[Node]) -> None:
    by_id = {n.node_id: n for n in tree}
    assert len(by_id) == len(tree), "ids are unique across levels"
    for node in tree:
        if node.parent_id is not None:
            parent = by_id[node.parent_id]
            assert node.node_id in parent.child_ids
            assert parent.start_char <= node.start_char and node.end_char <= parent.end_char
            assert parent.ref_doc_id == node.ref_doc_id
        for child_id in node.child_ids:
            assert by_id[child_id].parent_id == node.node_id


def test_children_cover_their_parent(tree: list[Node]) -> None:
    by_id = {n.node_id: n for n in tree}
    for parent in tree:
        if not parent.child_ids:
            continue
        covered = set()
        for child in (by_id[c] for c in parent.child_ids):
            covered.update(range(child.start_char, child.end_char))
        missing = [
            i for i in range(parent.start_char, parent.end_char)
            if i not in covered and not parent.text[i - parent.start_char].isspace()
        ]
        assert not missing


def test_levels_come_roots_first(tree: list[Node]) -> None:
    depths = []
    by_id = {n.node_id: n for n in tree}
    for node in tree:
        depth, current = 0, node
        while current.parent_id is not None:
            depth, current = depth + 1, by_id[current.parent_id]
        depths.append(depth)
    assert depths == sorted(depths)


def test_prev_next_chain_each_level_of_each_document(tree: list[Node]) -> None:
    for depth in range(3):
        for doc_id in ("frankenstein", "tiny"):
            chain = [n for n in get_deeper_nodes(tree, depth) if n.ref_doc_id == doc_id]
            assert chain[0].prev_id is None and chain[-1].next_id is None
            assert all(a.next_id == b.node_id for a, b in zip(chain, chain[1:]))


def test_helpers_match_the_reference(tree: list[Node]) -> None:
    shuffled = list(tree)
    random.Random(7).shuffle(shuffled)
    for nodes in (tree, shuffled):
        assert get_root_nodes(nodes) == [n for n in nodes if n.parent_id is None]
        assert get_leaf_nodes(nodes) == [n for n in nodes if not n.child_ids]
        for depth in range(4):
            assert get_deeper_nodes(nodes, depth) == reference_deeper(nodes, depth)
        roots = get_root_nodes(nodes)
        assert get_child_nodes(roots, nodes) == reference_children(roots, nodes)
    assert get_deeper_nodes(tree, 2) == get_leaf_nodes(tree)
    assert get_deeper_nodes(tree, 3) == []


def test_ids_are_stable(book: Document) -> None:
    parser = HierarchicalNodeParser.from_defaults(chunk_sizes=[512, 128])
    first = [n.node_id for n in parser.get_nodes_from_documents([book])]
    again = [n.node_id for n in parser.get_nodes_from_documents([book])]
    assert first == again


def test_defaults_and_validation() -> None:
    assert HierarchicalNodeParser.from_defaults().chunk_sizes == [2048, 512, 128]
    assert isinstance(HierarchicalNodeParser.from_defaults(), NodeParser)
    with pytest.raises(ConfigError, match="must decrease"):
        HierarchicalNodeParser.from_defaults(chunk_sizes=[128, 512])
    with pytest.raises(ConfigError, match="at least one"):
        HierarchicalNodeParser.from_defaults(chunk_sizes=[])
    with pytest.raises(ConfigError, match="chunk_overlap"):
        HierarchicalNodeParser.from_defaults(chunk_sizes=[64, 16], chunk_overlap=20)
    with pytest.raises(ConfigError, match="depth"):
        get_deeper_nodes([], -1)
    settings = HierarchicalNodeParser.from_defaults(chunk_sizes=[256, 64]).settings()
    assert [level["chunk_size"] for level in settings["levels"]] == [256, 64]


def test_blank_document_gives_no_nodes() -> None:
    parser = HierarchicalNodeParser.from_defaults()
    assert parser.get_nodes_from_documents([Document(text=" \n ")]) == []


def test_node_ids_are_unique_when_overlapping_parents_share_a_child_span(corpus_dir):
    # With overlap, a child span can fall under two neighbouring parents; on these Markdown
    # files [512, 128, 32] gave 38 duplicate ids before the parent's id went into the salt.
    files = sorted(corpus_dir.glob("**/*.md"))[:30]
    docs = [Document(text=f.read_text(encoding="utf-8", errors="replace"), doc_id=str(f))
            for f in files]
    nodes = HierarchicalNodeParser.from_defaults(chunk_sizes=[512, 128, 32]) \
        .get_nodes_from_documents(docs)
    ids = [n.node_id for n in nodes]
    assert len(ids) == len(set(ids))
    by_id = {n.node_id: n for n in nodes}
    for node in nodes:  # every link still points at the right node
        if node.parent_id is not None:
            assert node.node_id in by_id[node.parent_id].child_ids
