"""Postprocessors: cutoff, keywords, long-context reorder, neighbours, metadata replacement."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError, StoreError
from ragcore.postprocess import (
    KeywordNodePostprocessor,
    ListContinuation,
    LongContextReorder,
    MetadataReplacementPostProcessor,
    PrevNextNodePostprocessor,
    SimilarityPostprocessor,
)
from ragcore.types import MetadataMode, Node, ScoredNode


def scored(text: str, score: float | None, node_id: str | None = None) -> ScoredNode:
    return ScoredNode(Node(text, node_id=node_id or text), score)


def ids(nodes: list[ScoredNode]) -> list[str]:
    return [n.node.node_id for n in nodes]


class ChainIndex:
    """Nodes n0 <-> n1 <-> ... <-> n{count-1} of one document, looked up by id."""

    def __init__(self, count: int) -> None:
        self.nodes = {
            f"n{i}": Node(
                f"sentence {i}.",
                node_id=f"n{i}",
                prev_id=f"n{i - 1}" if i > 0 else None,
                next_id=f"n{i + 1}" if i < count - 1 else None,
            )
            for i in range(count)
        }

    def get_node(self, node_id: str) -> Node:
        if node_id not in self.nodes:  # as VectorStoreIndex.get_node says a node is missing
            raise StoreError(f"no node with id {node_id!r} in the index")
        return self.nodes[node_id]


def test_every_postprocessor_keeps_an_empty_list_empty_and_leaves_its_input_alone():
    for processor in (
        SimilarityPostprocessor(similarity_cutoff=0.5),
        KeywordNodePostprocessor(required_keywords=["x"]),
        LongContextReorder(),
        PrevNextNodePostprocessor(ChainIndex(2)),
        MetadataReplacementPostProcessor(target_metadata_key="window"),
    ):
        assert list(processor.postprocess([], "q")) == []
        nodes = [scored("x marks it", 0.9), scored("y", 0.7)]
        before = [(n.node.node_id, n.node.text, n.score) for n in nodes]
        processor.postprocess(nodes, "q")
        assert [(n.node.node_id, n.node.text, n.score) for n in nodes] == before


def test_neighbours_stop_at_a_neighbour_deleted_from_the_index():
    index = ChainIndex(4)
    del index.nodes["n2"]  # n1 still links to it, as a stored node does after a delete
    hit = [ScoredNode(index.nodes["n0"], 0.9)]
    out = PrevNextNodePostprocessor(index, num_nodes=3, mode="next").postprocess(hit, "q")
    assert ids(out) == ["n0", "n1"]


def test_neighbours_of_a_real_index_stop_at_a_deleted_neighbour(fake_embedder):
    from ragcore.index import VectorStoreIndex

    chain = ChainIndex(4)
    index = VectorStoreIndex(list(chain.nodes.values()), embedder=fake_embedder)
    index.delete_nodes(["n2"])
    hit = [ScoredNode(index.get_node("n0"), 0.9)]
    out = PrevNextNodePostprocessor(index, num_nodes=3, mode="next").postprocess(hit, "q")
    assert ids(out) == ["n0", "n1"]


def test_similarity_cutoff_drops_weak_and_unscored_nodes():
    nodes = [scored("a", 0.9), scored("b", 0.5), scored("c", 0.49), scored("d", None)]
    kept = SimilarityPostprocessor(similarity_cutoff=0.5).postprocess(nodes, "q")
    assert ids(kept) == ["a", "b"]
    with pytest.raises(ConfigError, match="similarity_cutoff"):
        SimilarityPostprocessor(similarity_cutoff="high")


def test_keywords_require_any_one_and_exclude_all():
    nodes = [
        scored("Tides follow the Moon.", 0.9, "moon"),
        scored("The sun also pulls on the sea.", 0.8, "sun"),
        scored("Moonlight and sunlight.", 0.7, "light"),
        scored("Storm surge floods the coast.", 0.6, "storm"),
    ]
    required = KeywordNodePostprocessor(required_keywords=["moon", "sun"])
    assert ids(required.postprocess(nodes, "q")) == ["moon", "sun"]  # whole words only
    excluded = KeywordNodePostprocessor(exclude_keywords=["storm surge"])
    assert ids(excluded.postprocess(nodes, "q")) == ["moon", "sun", "light"]
    both = KeywordNodePostprocessor(required_keywords=["the"], exclude_keywords=["SUN"])
    assert ids(both.postprocess(nodes, "q")) == ["moon", "storm"]
    strict = KeywordNodePostprocessor(required_keywords=["moon"], case_sensitive=True)
    assert strict.postprocess(nodes, "q") == []


def test_keywords_with_symbols_match():
    nodes = [scored("Written in C++ today.", 1.0, "cpp"), scored("Written in C today.", 0.9, "c")]
    assert ids(KeywordNodePostprocessor(required_keywords=["C++"]).postprocess(nodes, "q")) == [
        "cpp"
    ]


def test_keyword_options_are_validated():
    with pytest.raises(ConfigError, match="list of keywords"):
        KeywordNodePostprocessor(required_keywords="moon")
    with pytest.raises(ConfigError, match="non-empty strings"):
        KeywordNodePostprocessor(exclude_keywords=["ok", " "])


def test_long_context_reorder_puts_the_best_at_both_ends():
    nodes = [scored(str(s), s) for s in (5, 4, 3, 2, 1)]
    reordered = LongContextReorder().postprocess(nodes, "q")
    assert ids(reordered) == ["5", "3", "1", "2", "4"]
    assert LongContextReorder().postprocess([], "q") == []


def test_neighbours_next_previous_and_both():
    index = ChainIndex(6)
    hit = [ScoredNode(index.nodes["n2"], 0.8)]
    after = PrevNextNodePostprocessor(index, num_nodes=2, mode="next").postprocess(hit, "q")
    assert ids(after) == ["n2", "n3", "n4"]
    before = PrevNextNodePostprocessor(index, num_nodes=2, mode="previous").postprocess(hit, "q")
    assert ids(before) == ["n0", "n1", "n2"]
    both = PrevNextNodePostprocessor(index, mode="both").postprocess(hit, "q")
    assert ids(both) == ["n1", "n2", "n3"]
    assert [n.score for n in both] == [None, 0.8, None]


def test_neighbours_stop_at_the_document_edge_and_are_not_repeated():
    index = ChainIndex(3)
    hits = [ScoredNode(index.nodes["n2"], 0.9), ScoredNode(index.nodes["n1"], 0.7)]
    out = PrevNextNodePostprocessor(index, num_nodes=3, mode="both").postprocess(hits, "q")
    assert ids(out) == ["n0", "n1", "n2"]
    assert {n.node.node_id: n.score for n in out} == {"n0": None, "n1": 0.7, "n2": 0.9}


def test_neighbour_options_are_validated():
    with pytest.raises(ConfigError, match="mode"):
        PrevNextNodePostprocessor(ChainIndex(1), mode="sideways")
    with pytest.raises(ConfigError, match="num_nodes"):
        PrevNextNodePostprocessor(ChainIndex(1), num_nodes=0)
    with pytest.raises(ConfigError, match="get_node"):
        PrevNextNodePostprocessor(object())


def test_metadata_replacement_shows_the_window_without_touching_the_original():
    original = Node(
        "one sentence.",
        node_id="s",
        start_char=5,
        end_char=18,
        metadata={"window": "before. one sentence. after.", "file_name": "f.txt"},
    )
    plain = Node("no window here", node_id="p")
    out = MetadataReplacementPostProcessor(target_metadata_key="window").postprocess(
        [ScoredNode(original, 0.9), ScoredNode(plain, 0.5)], "q"
    )
    assert out[0].node.text == "before. one sentence. after." and out[0].score == 0.9
    assert (out[0].node.start_char, out[0].node.end_char) == (None, None)
    assert "window" not in out[0].node.content(MetadataMode.LLM).split("\n\n")[0]
    assert out[1].node is plain
    assert original.text == "one sentence." and original.start_char == 5
    with pytest.raises(ConfigError, match="target_metadata_key"):
        MetadataReplacementPostProcessor(target_metadata_key="")


RULES = ("First, the ownership rules. Keep these rules in mind:\n\n"
         "- Each value in Rust has an owner.\n- There can only be one owner at a time.\n"
         "- When the owner goes out of scope, the value will be dropped.\n\n"
         "### Variable Scope\n\nA scope is the range within a program.")


class SplitIndex:
    """``RULES`` cut in two nodes at ``border``, the second starting ``overlap`` back."""

    def __init__(self, border: int, overlap: int = 0) -> None:
        start = border - overlap
        self.nodes = {"a": Node(RULES[:border], node_id="a", ref_doc_id="d", start_char=0,
                                end_char=border, next_id="b"),
                      "b": Node(RULES[start:], node_id="b", ref_doc_id="d", start_char=start,
                                end_char=len(RULES), prev_id="a")}

    def get_node(self, node_id: str) -> Node:
        return self.nodes[node_id]


@pytest.mark.parametrize("border", [
    RULES.index("\n- When"),  # after the second rule's line (the next node overlaps it)
    RULES.index("one owner at") + 3,  # inside the second rule
])
def test_a_node_cut_inside_a_list_is_completed_to_the_lists_end(border):
    index = SplitIndex(border, overlap=len("- There can only be one owner at a time."))
    hit = [ScoredNode(index.nodes["a"], 0.9)]
    out = ListContinuation(index).postprocess(hit, "What are the ownership rules?")
    node = out[0].node
    assert node.text == RULES[:RULES.index("\n\n### Variable")]
    assert RULES[node.start_char:node.end_char] == node.text and out[0].score == 0.9
    assert index.nodes["a"].text == RULES[:border]  # the index's own node is untouched


def test_a_node_that_ends_after_its_list_or_outside_one_is_left_as_it_is():
    for border in (RULES.index("\n\n### Variable"), RULES.index("Keep these")):
        index = SplitIndex(border)
        hit = [ScoredNode(index.nodes["a"], 0.9)]
        assert ListContinuation(index).postprocess(hit, "q")[0].node is index.nodes["a"]


GROUPS = ("The practices are organized into four groups:\n1. Prepare the Organization (PO): "
          "Organizations should ensure that their people,\nprocesses, and technology are "
          "prepared.\n2. Protect the Software (PS): Organizations should protect all components "
          "of their\nsoftware from tampering.\n3. Produce Well-Secured Software (PW): "
          "Organizations should produce\nsoftware with few vulnerabilities.\n4. Respond to "
          "Vulnerabilities (RV): Organizations should identify residual\nvulnerabilities.\n"
          "The Introduction explains the background of the SSDF.")


class PdfSplit(SplitIndex):
    def __init__(self, border: int) -> None:
        self.nodes = {"a": Node(GROUPS[:border], node_id="a", ref_doc_id="d", start_char=0,
                                end_char=border, next_id="b"),
                      "b": Node(GROUPS[border:], node_id="b", ref_doc_id="d",
                                start_char=border, end_char=len(GROUPS), prev_id="a")}


@pytest.mark.parametrize("border", [
    GROUPS.index("2.") + 2,  # "... 2." : the item's number ends the node, its text the next
    GROUPS.index("1.") - 1,  # "... into four groups:" : the announcement ends the node
    GROUPS.index("\n3."),  # after a wrapped item
])
def test_a_pdf_list_with_wrapped_numbered_items_is_completed_to_its_last_item(border):
    index = PdfSplit(border)
    out = ListContinuation(index).postprocess([ScoredNode(index.nodes["a"], 0.9)], "q")
    assert out[0].node.text == GROUPS[:GROUPS.index("\nThe Introduction")]


CLASSES = ("   The first digit of the Status-Code defines the class of response. There are 5\n"
           "   values for the first digit:\n\n"
           "      - 1xx: Informational - Request received, continuing process\n\n"
           "      - 2xx: Success - The action was successfully received,\n"
           "        understood, and accepted\n\n"
           "      - 4xx: Client Error - The request contains bad syntax or cannot\n"
           "        be fulfilled\n\n"
           "      - 5xx: Server Error - The server failed to fulfill an apparently\n"
           "        valid request\n\n"
           "   The individual values of the numeric status codes are presented below.")


class GapSplit(SplitIndex):
    """``CLASSES`` cut at ``border``, the blank lines and indent after it left out of both
    nodes (as the chunker strips a node's edges)."""

    def __init__(self, border: int) -> None:
        start = border + len(CLASSES[border:]) - len(CLASSES[border:].lstrip())
        self.nodes = {"a": Node(CLASSES[:border], node_id="a", ref_doc_id="d", start_char=0,
                                end_char=border, next_id="b"),
                      "b": Node(CLASSES[start:], node_id="b", ref_doc_id="d", start_char=start,
                                end_char=len(CLASSES), prev_id="a")}


def test_a_plain_text_list_is_completed_across_the_blank_lines_between_two_nodes():
    index = GapSplit(CLASSES.index("be fulfilled") + len("be fulfilled"))
    out = ListContinuation(index).postprocess([ScoredNode(index.nodes["a"], 0.9)], "q")
    text = out[0].node.text
    # the wrapped bulleted item ends the node: the next item is added, not the prose after
    assert text.endswith("- 5xx: Server Error - The server failed to fulfill an apparently\n"
                         "        valid request")
    assert "individual values" not in text and out[0].node.end_char == \
        CLASSES.index("valid request") + len("valid request")


def test_an_announcement_alone_is_not_completed_across_a_gap():
    index = GapSplit(CLASSES.index("first digit:") + len("first digit:"))
    hit = [ScoredNode(index.nodes["a"], 0.9)]
    assert ListContinuation(index).postprocess(hit, "q")[0].node is index.nodes["a"]
