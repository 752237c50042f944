"""``ragcore eval``: a leaderboard from generated or imported questions, saved in the workspace."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from support.loopback import Reply, loopback  # noqa: F401 (fixture)

from ragcore.cli import main


@pytest.fixture
def workspace(tmp_path, corpus_dir, fake_embedder):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name in ("pep-0020.rst", "pep-0257.rst"):
        shutil.copy(corpus_dir / "python_peps" / name, folder / name)
    root = tmp_path / "ws"
    assert main(["--workspace", str(root), "ingest", str(folder), "--index", "peps"],
                embedder=fake_embedder) == 0
    return root


def run(root, fake_embedder, capsys, *argv):
    code = main(["--workspace", str(root), "eval", "--index", "peps", "--llm", "extractive",
                 *argv], embedder=fake_embedder)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_eval_generates_questions_and_prints_the_leaderboard(workspace, fake_embedder, capsys,
                                                             tmp_path):
    saved = tmp_path / "peps-4.json"
    code, out, err = run(workspace, fake_embedder, capsys, "--generate", "4", "--modes",
                         "compact", "simple_summarize", "--retrievers", "keyword", "hybrid",
                         "--save-questions", str(saved), "--csv", str(tmp_path / "rows.csv"))
    assert code == 0, err
    assert "| setup | hit_rate | mrr | ndcg | faithfulness" in out
    for setup in ("keyword / compact", "keyword / simple_summarize", "hybrid / compact"):
        assert f"| {setup} |" in out
    assert "correctness: offline proxy: gold match" in out
    assert "Evaluating 4 questions x 2 modes x 2 retrievers" in err
    evaluations = list((workspace / "evaluations").glob("*.json"))
    assert len(evaluations) == 1 and evaluations[0].stem in err
    assert len(json.loads(evaluations[0].read_text())["rows"]) == 16
    assert len(json.loads(saved.read_text())["queries"]) == 4
    with open(tmp_path / "rows.csv", newline="", encoding="utf-8") as rows:
        assert len(list(csv.reader(rows))) == 1 + 16
    code, again, _ = run(workspace, fake_embedder, capsys, "--questions", str(saved),
                         "--retrievers", "keyword")
    assert code == 0 and "| keyword / compact |" in again and "hybrid" not in again
    code, held_out, _ = run(workspace, fake_embedder, capsys, "--generate", "2", "--style",
                            "sentence", "--retrievers", "keyword")
    assert code == 0 and "(offline (sentence), seed 0)" in held_out


def test_eval_of_a_users_csv_and_its_errors(workspace, fake_embedder, capsys, tmp_path):
    mine = tmp_path / "mine.csv"
    mine.write_text("question,expected_answer,expected_source\n"
                    "Is explicit better than implicit?,Explicit is better than implicit.,"
                    "pep-0020.rst\n", encoding="utf-8")
    code, out, err = run(workspace, fake_embedder, capsys, "--questions", str(mine),
                         "--retrievers", "keyword")
    assert code == 0, err
    assert "| keyword / compact | 1.000" in out  # PEP 20 is found first by its words
    bad = tmp_path / "mine.txt"
    bad.write_text("x")
    code, _, err = run(workspace, fake_embedder, capsys, "--questions", str(bad))
    assert code == 1 and "use a .json question set, or a .csv or .jsonl" in err
    code, out, _ = run(workspace, fake_embedder, capsys, "--generate", "1", "--retrievers",
                       "hyde", "keyword")
    notes = out.split("Notes:")[1]
    assert code == 0 and "- retriever hyde skipped: it needs a language model" in notes
    code, _, err = run(workspace, fake_embedder, capsys, "--generate", "2", "--retrievers",
                       "bm99")
    assert code == 1 and "unknown retriever 'bm99'" in err


def test_eval_with_the_loopback_openai_server_as_judge(workspace, fake_embedder, capsys,
                                                       loopback):
    loopback.queue(*[Reply(text="YES\nSupported.")] * 2, Reply(text="Score: 4\nClose."),
                   *[Reply(text="I would rather not say.")] * 20)
    code, out, err = run(workspace, fake_embedder, capsys, "--generate", "1", "--retrievers",
                         "keyword", "--judge", "openai:gpt-4o-mini", "--base-url",
                         loopback.openai_url)
    assert code == 0, err
    assert "graded by" in err and "gpt-4o-mini" in err.split("graded by")[1]
    assert "faithfulness: judge: openai:gpt-4o-mini" in out
    one = "1.000 [1.00, 1.00]"
    assert f"| keyword / compact | {one} | {one} | {one} | {one} | {one} | 4.000 [4.00, 4.00] |" \
        in out
    prompts = [r.json["messages"][0]["content"] for r in loopback.requests_to(
        "/v1/chat/completions")]
    assert len(prompts) == 3 and "Reference answer" in prompts[2]


def test_eval_with_questions_written_by_a_model(workspace, fake_embedder, capsys, loopback,
                                                tmp_path):
    loopback.queue(Reply(text="1. What should a docstring's first line be?"),
                   Reply(text="Sorry, no question comes to mind."))
    saved = tmp_path / "written.json"
    code, out, err = run(workspace, fake_embedder, capsys, "--generate", "2", "--writer",
                         "openai:gpt-4o-mini", "--base-url", loopback.openai_url,
                         "--retrievers", "similarity", "--save-questions", str(saved))
    assert code == 0, err
    assert "1 questions (written by openai:gpt-4o-mini)" in out
    assert "no question in the model's reply" in err  # the second passage's reply, reported
    written = json.loads(saved.read_text())
    assert written["queries"] == {"q001": "What should a docstring's first line be?"}
    code, _, err = run(workspace, fake_embedder, capsys, "--questions", str(saved), "--writer",
                       "openai:x")
    assert code == 1 and "--writer writes the questions of --generate N" in err
