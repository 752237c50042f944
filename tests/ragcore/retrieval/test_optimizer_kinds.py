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


CLASSES = ("The first digit of the status code defines the class of response. The last two "
           "digits have no role. There are 5 values for the first digit:\n\n"
           "- 1xx: Informational - Request received, continuing process\n\n"
           "- 2xx: Success - The action was successfully received\n\n"
           "- 3xx: Redirection - Further action must be taken\n\n"
           "- 4xx: Client Error - The request contains bad syntax\n\n"
           "- 5xx: Server Error - The server failed to fulfill a valid request\n\n"
           "Unknown codes are treated as the x00 code of their class. Caches store 200 replies.")


def test_a_list_question_reads_every_item_of_a_list_one_of_its_items_was_kept_from():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=6, by_kind=True)
    [listed] = optimizer.postprocess([ScoredNode(Node(text=CLASSES), 0.5)],
                                     "List the status classes, informational for a request "
                                     "received and the rest.")
    assert all(item in listed.node.text for item in ("There are 5 values", "Informational",
                                                     "Success", "Server Error"))
    [fact] = optimizer.postprocess([ScoredNode(Node(text=CLASSES), 0.5)],
                                   "Which status means the request was received, continuing "
                                   "process?")
    assert fact.node.text == "- 1xx: Informational - Request received, continuing process"


def test_a_sentence_held_by_two_passages_is_read_once():
    nodes = [ScoredNode(Node(text="Herons nest in tall trees. Owls hunt at night.",
                             node_id="grown"), 0.6),
             ScoredNode(Node(text="Herons nest in tall trees. Herons eat fish.", node_id="next"),
                        0.5)]
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=30)  # all four, were one not twice
    kept = optimizer.postprocess(nodes, "Where do herons nest and what do they eat?")
    text = " ".join(n.node.text for n in kept)
    assert text.count("Herons nest in tall trees.") == 1 and "Herons eat fish." in text


def test_a_sentence_pointing_back_across_a_chunk_border_is_read_with_the_one_before_it():
    before = Node(text="Teams plan releases. Security is addressed as early as possible in the "
                       "SDLC.", node_id="a", next_id="b")
    after = Node(text="Security is addressed as early as possible in the SDLC. This principle, "
                      "known as shifting left, is critically important. Budgets are set yearly.",
                 node_id="b", prev_id="a")  # starts with the sentence the two overlap on
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=14, by_kind=True)
    nodes = [ScoredNode(before, 0.6), ScoredNode(after, 0.5)]
    kept = optimizer.postprocess(nodes, "When is security addressed as early as possible?")
    text = " ".join(n.node.text for n in kept)
    assert "shifting left" in text and "Budgets" not in text and "Teams" not in text
    after = Node(text="This principle, known as shifting left, is critically important. "
                      "Budgets are set yearly.", node_id="b", prev_id="a")  # no overlap
    kept = optimizer.postprocess([ScoredNode(after, 0.6), ScoredNode(before, 0.5)],
                                 "What is shifting left known as?")
    # one passage, in the document's order, where the better ranked stood (the check's
    # windows and the model read the pointing sentence right after what it points to)
    assert [(n.node.node_id, n.node.text) for n in kept] == [
        ("b", "Security is addressed as early as possible in the SDLC. This principle, known "
              "as shifting left, is critically important.")]
    assert kept[0].node.start_char is None  # it spans a chunk border: no one offset holds it


def test_a_list_question_reads_on_to_the_announcement_a_kept_sentence_leads_into():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=5, by_kind=True)
    [listed] = optimizer.postprocess([ScoredNode(Node(text=CLASSES), 0.5)],
                                     "What are the classes of response the first digit defines?")
    assert listed.node.text.startswith("The first digit of the status code defines the class")
    assert all(item in listed.node.text for item in ("There are 5 values", "Informational",
                                                     "Server Error"))
    [fact] = optimizer.postprocess([ScoredNode(Node(text=CLASSES), 0.5)],
                                   "What does the first digit of a status code define?")
    assert "There are 5 values" not in fact.node.text


INTEGERS = ("Rust has several integer types. Table 3-1 shows the built-in integer types in "
            "Rust.\n\n| Length  | Signed  | Unsigned |\n| ------- | ------- | -------- |\n"
            "| 8-bit   | `i8`    | `u8`     |\n| 16-bit  | `i16`   | `u16`    |\n"
            "| 32-bit  | `i32`   | `u32`    |\n| 64-bit  | `i64`   | `u64`    |\n"
            "| 128-bit | `i128`  | `u128`   |\n| arch    | `isize` | `usize`  |\n\n"
            "Each variant can be either signed or unsigned and has an explicit size.")


def read_of(text: str, question: str, budget: int) -> str:
    """What the model reads of one passage ``text`` for ``question`` under ``budget``."""
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=budget, by_kind=True)
    [read] = optimizer.postprocess([ScoredNode(Node(text=text), 0.5)], question)
    return read.node.text


def test_a_sentence_naming_a_table_brings_the_table():
    read = read_of(INTEGERS, "Which table shows the built-in integer types?", 12)
    assert read.startswith("Table 3-1 shows") and "| 128-bit | `i128`" in read


def test_a_table_is_read_row_by_row_under_a_budget():
    read = read_of(INTEGERS, "Which type is a signed 128-bit integer, i128?", 30)
    assert "| 128-bit | `i128`  | `u128`   |" in read
    assert "16-bit" not in read  # the row, not its whole table


def test_a_table_split_into_rows_still_joins_to_its_passage():
    from ragcore.retrieval.rows import rows_of_tables

    table = INTEGERS[INTEGERS.index("| Length"):INTEGERS.index("Each variant")]
    spaced = "\n" + table.replace("|\n| 8-bit", "|\n\n| 8-bit")  # blank lines in and before it
    rows = rows_of_tables([spaced])
    assert len(rows) == 8 and "".join(rows) == spaced
    assert all(row.strip() for row in rows)  # a blank line is never a row of its own


def test_prose_wrapped_over_lines_is_not_read_line_by_line():
    wrapped = ("The storage engine keeps every page it writes in a journal until the\n"
               "checkpoint has flushed it, so that a crash between the write and the\n"
               "flush loses nothing that was acknowledged to the client, and recovery\n"
               "replays the journal from the last checkpoint onwards, page by page, in the\n"
               "order the pages were written. Other text.")
    read = read_of(wrapped, "What does recovery replay after a crash?", 12)
    assert read.startswith("The storage engine keeps")
    assert "were written." in read


def test_a_table_of_names_set_to_values_is_read_row_by_row():
    """Rows starting in lower case ("q=0.45 z=340", a table of a PDF) are rows, not a sentence
    wrapped over lines: the row asked about is read, not the table's first lines."""
    from ragcore.retrieval.rows import rows_of_tables

    rows = "".join(f"q={q / 100:.2f} z={z}\n" for q, z in
                   ((10, 5), (15, 8), (20, 11), (25, 15), (30, 24), (35, 41), (40, 89), (45, 340)))
    table = "Solving for P less than 0.1%...\nP < 0.001\n" + rows
    assert len(rows_of_tables([table])) >= 8
    read = read_of(table, "How many blocks z are needed when the attacker's share q is 0.45?", 12)
    assert "q=0.45 z=340" in read
