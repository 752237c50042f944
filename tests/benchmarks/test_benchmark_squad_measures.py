"""Issue 19's answer measures read the answer format as the contract writes it, and the
best-word-overlap baseline picks the sentence sharing the most question words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.answers.answer_measures import (  # noqa: E402
    Record,
    answer_words,
    best_overlap_sentence,
    markdown_table,
    measures,
    says_not_found,
    sentences,
    short_answer,
)
from benchmarks.answers.answer_report import meets  # noqa: E402

LABEL = "Extractive answer (no language model configured)"
SHORT = f"{LABEL}: **Irene Adler**\n- To Sherlock Holmes she is always _the_ woman."
QUOTED = (f"{LABEL}: quoted from the documents, best match first:\n"
          "- Ownership is a set of rules.\n  - Each value has an owner.")
NOT_FOUND = f"{LABEL}: not found. None of the passages retrieved answers it."
OLD_UNKNOWN = (f"{LABEL}: the passages share no words with the question, "
               "nothing to quote as an answer.")


def test_the_short_answer_is_the_bold_phrase_else_the_first_quote_else_nothing():
    assert short_answer(SHORT) == "Irene Adler"
    assert short_answer(QUOTED) == "Ownership is a set of rules."
    assert short_answer(NOT_FOUND) == ""


@pytest.mark.parametrize(("answer", "unknown"), [
    (SHORT, False), (QUOTED, False), (NOT_FOUND, True), (OLD_UNKNOWN, True),
    ("**Not found in the documents.**", True),  # the packaged model's reply, begun with "**"
    ("**Not Found**. The 404 status code's reason phrase.", False),  # an answer
    (f"{LABEL}: quoted from the documents, best match first:\n- The server has not found "
     "anything matching the Request-URI. It does not know.", False),  # quotes are not its words
])
def test_not_found_is_read_from_the_answerers_own_first_line(answer, unknown):
    assert says_not_found(answer) is unknown


def test_answer_words_leave_out_the_label_prefix_and_list_marks():
    assert answer_words(SHORT) == 2 + 8  # "**Irene Adler**" and the quoted sentence
    assert answer_words(QUOTED) == 7 + 6 + 5  # the "quoted from ..." header counts


def test_the_baseline_is_the_sentence_sharing_most_question_words():
    passages = ["Holmes lived in London. He admired Irene Adler, the woman.",
                "The woman Holmes admires is named in A Scandal in Bohemia. Watson wrote it."]
    assert sentences(passages[0]) == ["Holmes lived in London.",
                                      "He admired Irene Adler, the woman."]
    # "woman", "holmes", "admires" (3 words) beat "admired", "woman" and "holmes", "lived"
    assert best_overlap_sentence("Who is the woman Holmes admires?", passages) == (
        "The woman Holmes admires is named in A Scandal in Bohemia.")
    assert best_overlap_sentence("Holmes?", ["Holmes sat.", "Holmes stood."]) == "Holmes sat."
    assert best_overlap_sentence("Anything?", []) == ""


def _record(answer: str, golds: list[str], *, retrieved: bool = True, baseline: str = "",
            score: float | None = None) -> Record:
    return Record("q", "question?", golds, answer, [], retrieved, 0.2, baseline=baseline,
                  score=score)


def test_measures_score_the_answerer_and_the_baseline_on_the_same_questions():
    records = [
        _record(SHORT, ["Irene Adler"], baseline="Holmes admired her."),
        _record(NOT_FOUND, ["Irene Adler"], baseline="Irene Adler sang."),
        _record(NOT_FOUND, [], baseline="Something."),
        _record(NOT_FOUND, [], retrieved=False),
    ]
    ours, base = measures(records), measures(records, baseline=True)
    assert ours["short answer exact match"] == 50.0
    assert ours["short answer token F1"] == 50.0
    assert ours["short answer lies inside a gold answer"] == 50.0
    assert ours["whole answer contains a gold answer"] == 50.0
    assert ours["false 'not found' on answerable"] == 50.0
    assert ours["'not found' on unanswerable (abstention)"] == 100.0
    assert ours["seconds per question, median"] == pytest.approx(0.2)
    assert base["whole answer contains a gold answer"] == 50.0
    assert base["false 'not found' on answerable"] == 0.0
    assert base["seconds per question, median"] is None
    table = markdown_table("t", ours, base)
    assert "| short answer token F1 | 50.0 |" in table and "same passages" in table


def test_the_phrase_row_leaves_out_questions_answered_with_sentences():
    why = Record("w", "Why did Holmes admire her?", ["she outwitted him"], SHORT, [], True, 0.2)
    who = Record("p", "Who did Holmes admire?", ["Irene Adler"], SHORT, [], True, 0.2)
    ours = measures([why, who])
    assert ours["short answer token F1"] == 50.0
    assert ours["... on questions that ask for a phrase (who, when, how many, which X)"] == 100.0


def test_targets_are_read_as_written():
    assert meets(51.0, ">= 50") and not meets(49.9, ">= 50")
    assert meets(30, "<= 30") and not meets(0.5, "< 0.5")
    assert meets(3.0, "") is None


class _Node:
    def __init__(self, text: str, doc_id: str) -> None:
        self.text, self.ref_doc_id = text, doc_id


class _Scored:
    def __init__(self, text: str, doc_id: str) -> None:
        self.node = _Node(text, doc_id)


class _Response:
    def __init__(self, text: str, sources: list[_Scored]) -> None:
        from ragcore.trace import Trace

        self.text, self.source_nodes, self.trace = text, sources, Trace()
        self.trace.notes["answer_score"] = 0.82  # where the answerer states its score


class _Engine:
    """Answers every question from the first held-out paragraph (a chunk of it: same doc id)."""

    def __init__(self, paragraph: dict) -> None:
        self.paragraph = paragraph

    def query(self, question: str) -> _Response:
        return _Response(SHORT, [_Scored(self.paragraph["text"][:300], self.paragraph["id"])])


def test_a_held_out_question_counts_as_retrieved_when_its_paragraph_is_a_passage():
    from benchmarks.answers.squad import heldout_paragraphs, heldout_questions
    from benchmarks.answers.squad_heldout import ask_all

    first = heldout_paragraphs()[0]
    asked_of_it = {q.id for q in heldout_questions() if q.paragraph == first["id"]}
    records = ask_all(_Engine(first))
    assert len(records) == 360 and asked_of_it
    assert {r.id for r in records if r.retrieved} == asked_of_it
    assert all(r.answer == SHORT and r.baseline and r.score == 0.82 for r in records)


def test_a_short_answer_taken_from_a_gold_sentence_lies_inside_it():
    inside = measures([_record(SHORT, ["Holmes admired Irene Adler, the woman."])])
    assert inside["short answer exact match"] == 0.0
    assert inside["short answer lies inside a gold answer"] == 100.0
    # a quote holding the gold is not inside it
    holding = measures([_record(QUOTED, ["Ownership"])])
    assert holding["short answer lies inside a gold answer"] == 0.0


def test_the_figures_before_are_read_back_from_a_runs_outcomes_and_shown_beside(tmp_path):
    from benchmarks.answers.answer_report import before_measures, save_before, write_outcomes

    records = [_record(SHORT, ["Irene Adler"]), _record(NOT_FOUND, [])]
    for name in ("corpus", "squad"):
        write_outcomes(name, records, tmp_path)
    save_before(tmp_path, tmp_path / "before.json")
    before = before_measures(tmp_path / "before.json")
    assert before["squad"]["short answer exact match"] == 100.0
    assert before["corpus"] == pytest.approx(measures(records))
    ours = measures([_record(NOT_FOUND, ["Irene Adler"])])
    table = markdown_table("t", ours, ours, before["squad"])
    assert "| short answer exact match | 100.0 % | 0.0 % | 0.0 % |" in table
    assert "| measure | before issue 19 | ragcore now |" in table


def test_the_score_auc_is_the_chance_an_answerable_question_outscores_an_unanswerable_one():
    scored = f"{LABEL}: **x**"
    records = [_record(scored, ["x"], score=0.9), _record(scored, ["x"], score=0.4),
               _record(scored, [], score=0.5), _record(scored, [], score=0.4)]
    # pairs (answerable, unanswerable): .9>.5, .9>.4, .4<.5, .4=.4 -> (1 + 1 + 0 + .5) / 4
    assert measures(records)["score ranks answerable over unanswerable (AUC)"] == 62.5
    unscored = [_record(QUOTED, ["x"]), _record(NOT_FOUND, [])]
    assert measures(unscored)["score ranks answerable over unanswerable (AUC)"] is None


def test_a_row_recorded_with_the_score_in_the_answer_is_read_as_now():
    old = _record(f"{LABEL} [score 0.82]: **Irene Adler**\n- To Sherlock Holmes she is always "
                  "_the_ woman.", ["Irene Adler"])  # answers recorded before issue 32
    assert old.answer == SHORT and old.score == 0.82
    assert _record(SHORT, ["x"], score=0.5).score == 0.5 and _record(SHORT, ["x"]).score is None
