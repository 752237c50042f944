"""The reading budget follows the question's kind, and what an announcing sentence announces
reaches the model whatever the budget keeps."""

from __future__ import annotations

from ragcore.retrieval.optimizer import SentenceEmbeddingOptimizer
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

PASSAGE = ("The SSDF has many parts. Each practice has an identifier. The practices are "
           "organized into four groups: 1. Prepare the Organization (PO): people are prepared. "
           "2. Protect the Software (PS): protect all components. 3. Produce Well-Secured "
           "Software (PW): produce software. 4. Respond to Vulnerabilities (RV): respond.")


def kept(question: str, budget: int = 12) -> str:
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=budget, by_kind=True)
    return optimizer.postprocess([ScoredNode(Node(text=PASSAGE), 0.5)], question)[0].node.text


def test_a_kept_announcement_brings_its_list():
    text = kept("How are the practices organized into groups?")
    assert "four groups" in text and "Respond to Vulnerabilities" in text


def test_without_an_announcement_the_budget_holds():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=8, by_kind=True)
    text = optimizer.postprocess([ScoredNode(Node(text="An identifier names each practice. "
                                                       "Other text follows here. More text."),
                                             0.5)], "Which identifier names a practice?")
    assert text[0].node.text == "An identifier names each practice."


def test_a_list_question_reads_more_than_a_factoid_and_the_trace_says_so():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=200, by_kind=True)
    assert optimizer.budget_for("What are the groups of practices?") > optimizer.budget_for(
        "When was it published?") == 200
    trace = Trace()
    optimizer.postprocess_traced([ScoredNode(Node(text=PASSAGE), 0.5)], "List the groups.",
                                 trace)
    assert trace.notes["question_kind"] == "list" and trace.notes["reading_budget"] == 500
