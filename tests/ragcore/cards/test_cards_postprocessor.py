"""``DocumentCards``: the retrieved documents' cards first for a question about a document,
the nodes unchanged for any other question or for nodes without cards."""

from __future__ import annotations

import pytest

from ragcore.cards import DocumentCard, card_metadata
from ragcore.errors import ConfigError
from ragcore.retrieval.cards import DocumentCards
from ragcore.types import Node, ScoredNode

SSDF = DocumentCard(title="Secure Software Development Framework (SSDF) Version 1.1",
                    authors=("Murugiah Souppaya", "Karen Scarfone", "Donna Dodson"),
                    date="February 2022", kind="NIST Special Publication 800-218",
                    abstract="Few SDLC models explicitly address software security.")
ZTA = DocumentCard(title="Zero Trust Architecture", authors=("Scott Rose", "Oliver Borchert"),
                   date="August 2020", kind="NIST Special Publication 800-207")


def _hit(path: str, page: int, text: str, score: float, card: DocumentCard | None) -> ScoredNode:
    metadata = {"file_name": path.rsplit("/", 1)[-1], "file_path": path, "page": page,
                **(card_metadata(card) if card else {})}
    return ScoredNode(Node(text, node_id=f"{path}#page={page}#0", ref_doc_id=f"{path}#page={page}",
                           metadata=metadata), score)


def _hits() -> list[ScoredNode]:
    return [
        _hit("/d/zta.pdf", 40, "[12] Rose, S. and Mitchell, S. wrote the report.", 0.61, ZTA),
        _hit("/d/ssdf.pdf", 30, "References: Smith, J. and Doe, A. (2019).", 0.55, SSDF),
        _hit("/d/ssdf.pdf", 31, "Wheeler, D. wrote about reproducible builds.", 0.52, SSDF),
    ]


def test_a_question_about_the_document_gets_the_cards_first():
    nodes = _hits()
    out = DocumentCards().postprocess(nodes, "Who wrote this paper?")
    assert out[2:] == nodes
    first, second = out[0], out[1]
    # The document with the most retrieved nodes first; every card scores the best score.
    assert first.node.node_id == "/d/ssdf.pdf#card" and first.score == 0.61
    assert first.node.text == (
        "Title of NIST Special Publication 800-218: Secure Software Development Framework "
        "(SSDF) Version 1.1.\n"
        "Authors who wrote NIST Special Publication 800-218: Murugiah Souppaya, Karen Scarfone "
        "and Donna Dodson.\n"
        "Date of NIST Special Publication 800-218, when it was published: February 2022.\n"
        "Abstract of NIST Special Publication 800-218, what it is about: Few SDLC models "
        "explicitly address "
        "software security.")
    assert first.node.metadata == {"file_name": "ssdf.pdf", "file_path": "/d/ssdf.pdf"}
    assert first.node.ref_doc_id == "/d/ssdf.pdf#page=30"
    assert second.node.node_id == "/d/zta.pdf#card"


def test_the_document_the_question_names_comes_first():
    out = DocumentCards(max_cards=1).postprocess(_hits(), "Who are the authors of NIST SP 800-207?")
    assert [n.node.node_id for n in out[:1]] == ["/d/zta.pdf#card"] and len(out) == 4
    out = DocumentCards(max_cards=1).postprocess(_hits(), "Who wrote Zero Trust Architecture?")
    assert out[0].node.node_id == "/d/zta.pdf#card"  # named by its card's title


def test_a_named_document_none_retrieved_is_gets_no_other_documents_card():
    nodes = _hits()
    assert DocumentCards().postprocess(nodes, "When was RFC 2616 published?") is nodes
    assert DocumentCards().postprocess(nodes, "Who wrote NIST SP 800-2?") is nodes


def test_other_questions_pass_unchanged():
    nodes = _hits()
    assert DocumentCards().postprocess(nodes, "Who wrote about reproducible builds?") is nodes


def test_nodes_indexed_before_cards_pass_unchanged():
    nodes = [_hit("/d/old.pdf", 1, "An old page.", 0.5, None)]
    assert DocumentCards().postprocess(nodes, "Who wrote this paper?") is nodes
    assert DocumentCards().postprocess([], "Who wrote this paper?") == []


def test_a_card_already_in_the_nodes_is_not_added_again():
    once = DocumentCards().postprocess(_hits(), "Who wrote this paper?")
    assert DocumentCards().postprocess(once, "Who wrote this paper?") is once


def test_llamaindex_spelling_and_option_check():
    out = DocumentCards().postprocess_nodes(_hits(), query_str="When was this report published?")
    assert out[0].node.node_id.endswith("#card")
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ConfigError, match="max_cards"):
            DocumentCards(max_cards=bad)


CONTROLS = DocumentCard(title="Security and Privacy Controls", date="September 2020",
                        kind="NIST Special Publication 800-53")


class Keywords:
    """An index's keyword search: the nodes holding a word of the query; records queries."""

    def __init__(self, nodes: list[ScoredNode], fails: bool = False) -> None:
        self.nodes, self.fails, self.asked = nodes, fails, []

    def keyword_search(self, query: str, *, top_k: int = 4) -> list[ScoredNode]:
        from ragcore.errors import StoreError

        self.asked.append(query)
        if self.fails:
            raise StoreError("the keyword postings cannot be read")
        words = query.lower().split()
        return [n for n in self.nodes if any(w in n.node.text.lower() for w in words)][:top_k]


def test_a_named_document_none_retrieved_is_from_is_found_by_its_name():
    controls = _hit("/d/controls.pdf", 2, "NIST SP 800-53 Revision 5 begins.", 0.2, CONTROLS)
    index = Keywords([controls])
    asked = "When was NIST SP 800-53 published?"
    out = DocumentCards(index).postprocess(_hits(), asked)
    assert out[0].node.node_id == "/d/controls.pdf#card" and out[0].score == 0.61
    assert "September 2020" in out[0].node.text and out[1:] == _hits()
    assert index.asked == ["NIST SP 800-53"]  # searched: no retrieved node is from it
    # without an index, or when the search fails, the nodes pass unchanged
    assert DocumentCards().postprocess(_hits(), asked) == _hits()
    assert DocumentCards(Keywords([controls], fails=True)).postprocess(_hits(), asked) == _hits()


def test_no_search_when_a_retrieved_node_is_from_the_named_document():
    index = Keywords([])
    DocumentCards(index).postprocess(_hits(), "Who are the authors of NIST SP 800-207?")
    assert index.asked == []
