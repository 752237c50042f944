"""The grounded set asked in the Chat page's way (``benchmarks.llm.grounded_chat``): its
halves are fixed by the question's number, and its table counts what a person was shown."""

from __future__ import annotations

from benchmarks.llm.grounded_chat import half_of, table
from benchmarks.answers.grounded_set import load_questions


def test_the_halves_are_fixed_by_number_and_split_the_set():
    assert half_of("g59") == "held-out" and half_of("g110") == "tuning"
    halves = [half_of(q.id) for q in load_questions()]
    assert 0.4 < halves.count("held-out") / len(halves) < 0.6


def test_the_table_counts_right_answers_refusals_and_second_drafts():
    rows = [
        {"kind": "factoid", "found": [True], "refused_first": False, "seconds": 5.0,
         "written": 4, "redrafted": None},
        {"kind": "factoid", "found": [True], "refused_first": True, "seconds": 9.0,
         "written": 30, "redrafted": "the short answer ..."},
        {"kind": "unanswerable", "found": [], "refused_first": True, "seconds": 7.0,
         "written": 3, "redrafted": None},
    ]
    text = table(rows)
    assert "not refused: 1/2" in text and "unanswerable refused first: 1/1" in text
    assert "median 7.0" in text and "written 37" in text and "written again 1" in text


def test_rows_are_written_one_json_object_a_line_unescaped(tmp_path):
    import json

    from benchmarks.harness import write_jsonl

    path = write_jsonl(tmp_path / "made" / "rows.jsonl", [{"shown": "“King”"}, {"n": 2}])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [{"shown": "“King”"}, {"n": 2}]
    assert "“King”" in lines[0]
