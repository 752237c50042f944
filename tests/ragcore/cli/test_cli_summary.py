"""``ragcore query`` and ``ragcore chat`` answer "summarise X" as the Chat page does: at once
from the document's own abstract (a real corpus PEP with one), with a hint on stderr for a fresh
summary when a model can write one; offline, no hint."""

from __future__ import annotations

import io

import pytest

from ragcore.cli import main
from ragcore.llms.fake import FakeLLM

PEP = "pep-0020.rst"


@pytest.fixture
def run(tmp_path, fake_embedder, corpus_dir, capsys):
    def call(*argv: str):
        code = main(["--workspace", str(tmp_path / "ws"), *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    code, _, err = call("ingest", str(corpus_dir / "python_peps" / PEP), "--index", "peps")
    assert code == 0, err
    return call


def writing_model(monkeypatch) -> FakeLLM:
    """The packaged model's place taken by a scripted one that writes (not extractive)."""
    from ragcore.cli import query_command

    llm = FakeLLM(default="It says beautiful is better than ugly.", model="fake-writer")
    monkeypatch.setattr(query_command, "choose_llm", lambda args, context: llm)
    return llm


def test_query_answers_a_summary_request_with_the_abstract_and_hints_at_a_fresh_one(
        run, monkeypatch):
    llm = writing_model(monkeypatch)
    code, out, err = run("query", "Summarise the Zen of Python", "--index", "peps")
    assert code == 0, err
    assert out.startswith("**The abstract of “The Zen of Python” (pep-0020.rst)**")
    assert "own abstract" in out and llm.calls == []  # no model call, no search
    assert f"ask: Write a fresh summary of {PEP}" in err


def test_query_writes_a_fresh_summary_part_by_part_when_asked(run, monkeypatch):
    llm = writing_model(monkeypatch)
    code, out, err = run("query", f"Write a fresh summary of {PEP}", "--index", "peps")
    assert code == 0, err
    assert out.startswith("**A fresh summary of") and "**Part 1 of" in out
    assert "beautiful is better than ugly" in out and len(llm.calls) == out.count("**Part ")
    assert "Write a fresh summary" not in err  # it is the fresh one: nothing more to offer


def test_offline_the_summary_comes_without_a_hint(run):
    code, out, err = run("query", "Summarise the Zen of Python", "--index", "peps",
                         "--llm", "extractive")
    assert code == 0, err
    assert "own abstract" in out and "fresh summary" not in err


def test_chat_hints_at_a_fresh_summary_under_the_abstract(run, monkeypatch):
    writing_model(monkeypatch)
    from ragcore.cli import chat_command

    monkeypatch.setattr(chat_command, "choose_llm", lambda args, context: FakeLLM(
        default="A title", model="fake-writer"))
    monkeypatch.setattr("sys.stdin", io.StringIO("Summarise the Zen of Python\n/quit\n"))
    code, out, err = run("chat", "--index", "peps")
    assert code == 0, err
    assert "The abstract of “The Zen of Python”" in out
    assert f"ask: Write a fresh summary of {PEP}" in err
