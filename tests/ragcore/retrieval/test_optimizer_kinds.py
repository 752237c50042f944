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


class MeasuredReader:
    """An LLM that sets the base budget from its measured reading speed (as LocalLLM does)."""

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens

    def reading_budget(self):
        from ragcore.llms.local.pace import ReadingBudget

        return ReadingBudget(self.tokens, f"reads {self.tokens // 5} tokens/s")


def test_a_reader_that_measures_its_speed_sets_the_budget_at_each_question():
    reader = MeasuredReader(300)
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=200, by_kind=True, reader=reader)
    assert optimizer.budget_for("When was it published?") == 300
    reader.tokens = 160  # the machine got busy: the next question reads less
    trace = Trace()
    optimizer.postprocess_traced([ScoredNode(Node(text=PASSAGE), 0.5)], "List the groups.",
                                 trace)
    assert trace.notes["reading_budget"] == 400  # a list: 2.5x the measured base
    assert trace.notes["reading_budget_base"] == {"tokens": 160, "reason": "reads 32 tokens/s"}


def test_engines_give_the_optimizer_an_llm_that_measures_its_reading():
    from ragcore.engines.from_index import reading_postprocessors
    from ragcore.llms.fake import FakeLLM

    class Measuring(FakeLLM):
        reading_tokens = 250

        def reading_budget(self):
            return MeasuredReader(250).reading_budget()

    llm = Measuring()
    optimizer = [p for p in reading_postprocessors(object(), [], llm, "keyword")
                 if isinstance(p, SentenceEmbeddingOptimizer)][0]
    assert optimizer.reader is llm


SHIFT = ("Security is addressed as early as possible in the SDLC. This principle, known as "
         "shifting left, is critically important. Budgets are set yearly by the board.")


def test_a_sentence_pointing_back_is_read_with_the_one_it_points_to():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=12, by_kind=True)
    [after] = optimizer.postprocess([ScoredNode(Node(text=SHIFT), 0.5)],
                                    "When is security addressed as early as possible?")
    assert "shifting left" in after.node.text and "Budgets" not in after.node.text
    [before] = optimizer.postprocess([ScoredNode(Node(text=SHIFT), 0.5)],
                                     "What principle is known as shifting left?")
    assert before.node.text.startswith("Security is addressed")
