"""The foundation commands through ``main([...])``: ingest, retrieve, indexes, delete-doc."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ragcore.cli import main

QUESTION = "What is a zero trust architecture?"


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "trust.txt").write_text(
        "Zero trust architecture assumes no implicit trust in assets or accounts.\n\n"
        "A policy engine grants access per session.", encoding="utf-8")
    (folder / "garden.md").write_text("# Garden\n\nTomatoes need sun and water.", encoding="utf-8")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a pdf")
    return folder


@pytest.fixture
def run(tmp_path, fake_embedder, capsys):
    """Run ragcore with a tmp workspace and the fake embedder; returns (code, stdout, stderr)."""

    def call(*argv: str):
        code = main(["--workspace", str(tmp_path / "ws"), *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


def test_ingest_prints_a_report_and_progress(run, docs):
    code, out, err = run("ingest", str(docs), "--index", "notes")
    assert code == 0
    assert "trust.txt: indexed: 1 passage" in out
    assert "garden.md: indexed: " in out
    assert "broken.pdf: failed:" in out
    assert "3 files: 2 indexed" in out and "1 failed" in out
    assert "100%" in err and "saving" in err  # the progress bar went to stderr


def test_ingest_again_reports_unchanged(run, docs):
    run("ingest", str(docs / "trust.txt"))
    code, out, _ = run("ingest", str(docs / "trust.txt"))
    assert code == 0 and "unchanged, skipped" in out and "1 unchanged" in out


def test_ingest_of_only_broken_files_exits_1(run, docs):
    code, out, _ = run("ingest", str(docs / "broken.pdf"))
    assert code == 1 and "failed" in out


def test_retrieve_names_file_and_score(run, docs):
    run("ingest", str(docs), "--index", "notes")
    code, out, _ = run("retrieve", QUESTION, "--index", "notes", "-k", "1")
    assert code == 0
    assert out.startswith("[1] trust.txt  score ")
    assert "implicit trust" in out and "Tomatoes" not in out


def test_indexes_lists_names_and_stats(run, docs):
    code, out, _ = run("indexes")
    assert code == 0 and "No indexes" in out
    run("ingest", str(docs))
    code, out, _ = run("indexes")
    assert "default" in out and "fake-embedder" in out and "chunks" in out
    row = next(line.split() for line in out.splitlines() if line.startswith("default "))
    assert row[1:4] == ["2", "2", "2"]  # files, documents, chunks (the broken PDF is not counted)
    assert row[6] == "KB" and float(row[5]) > 0 and row[7] == "fake-embedder"


def test_delete_doc_by_file_name(run, docs):
    run("ingest", str(docs))
    code, out, _ = run("delete-doc", "garden.md")
    assert code == 0 and "Removed 1 document" in out
    _, out, _ = run("retrieve", "tomatoes sun water", "-k", "5")
    assert "garden.md" not in out


def test_rename_and_delete_index(run, docs, monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    run("ingest", str(docs / "trust.txt"), "--index", "a")
    code, out, _ = run("rename-index", "a", "b")
    assert code == 0 and "Renamed index 'a' to 'b'" in out
    code, out, err = run("query", "What grants access?", "--index", "b", "--llm", "extractive")
    assert code == 0, err
    answer, _, sources = out.partition("Sources:")
    assert "policy engine grants access" in answer.lower()
    assert "[1] trust.txt" in sources
    code, out, err = run("retrieve", "policy engine", "--index", "a")  # its folder stays "a"
    assert code == 0 and "trust.txt" in out, err
    code, _, err = run("retrieve", "policy engine", "--index", "c")
    assert code == 1 and "no index named 'c'" in err and "indexes: a" in err
    code, out, _ = run("delete-index", "b", "--yes")
    assert code == 0 and "Deleted index 'b'" in out
    code, out, _ = run("indexes")
    assert "No indexes" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["retrieve", "q", "--index", "missing"], "no index named 'missing'"),
        (["ingest", "x.txt", "--index", "/?/"], "needs at least one letter or digit"),
        (["delete-doc", "ghost.txt"], "no index named 'default'"),
        (["ingest", "nowhere.txt", "--chunk-size", "100", "--chunk-overlap", "200"],
         "chunk_overlap"),
    ],
)
def test_errors_are_one_readable_line_and_exit_1(run, argv, message):
    code, out, err = run(*argv)
    assert code == 1
    assert err.startswith("error: ") and message in err
    assert "Traceback" not in err + out


def test_workspace_from_environment(monkeypatch, tmp_path, fake_embedder, docs, capsys):
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "env-ws"))
    assert main(["ingest", str(docs / "trust.txt")], embedder=fake_embedder) == 0
    assert (tmp_path / "env-ws" / "indexes" / "default" / "manifest.json").exists()


def test_fake_embedder_from_environment(monkeypatch, tmp_path, docs, capsys):
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    assert main(["--workspace", str(tmp_path / "w"), "ingest", str(docs / "trust.txt")]) == 0
    assert "fake-embedder" in (tmp_path / "w" / "indexes" / "default.json").read_text()


def test_console_script_help_runs():
    script = Path(sys.executable).with_name("ragcore")
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    for command in ("ingest", "retrieve", "indexes", "delete-doc", "query", "chat", "bench"):
        assert command in result.stdout


@pytest.mark.slow
def test_done_when_nist_zero_trust_passages_with_pages(tmp_path, real_embedder, corpus_dir,
                                                       capsys):
    pdf = corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf"
    folder = tmp_path / "nist_pdfs"
    folder.mkdir()
    shutil.copy(pdf, folder / pdf.name)
    workspace = ["--workspace", str(tmp_path / "ws")]
    assert main([*workspace, "ingest", str(folder)], embedder=real_embedder) == 0
    assert "1 indexed" in capsys.readouterr().out
    assert main([*workspace, "retrieve", QUESTION], embedder=real_embedder) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith(f"[1] {pdf.name}, page ")
    assert out.count(", page ") == 5
    assert "zero trust" in out.lower()


def test_ingest_of_a_folder_with_a_symlink_loop_reports_the_links_as_skipped(run, tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "real.txt").write_text("Zero trust needs a policy engine.", encoding="utf-8")
    (folder / "loop_a").symlink_to("loop_b")
    (folder / "loop_b").symlink_to("loop_a")
    (tmp_path / "secret.txt").write_text("outside", encoding="utf-8")
    (folder / "out.txt").symlink_to(tmp_path / "secret.txt")
    code, out, err = run("ingest", str(folder), "--index", "loops")
    assert code == 0 and "Traceback" not in err
    assert "real.txt: indexed: 1 passage" in out
    assert "loop_a: skipped: is a symbolic link in a loop" in out and "loop_b: skipped" in out
    assert "out.txt: skipped: is a symbolic link to" in out and "outside the input folder" in out
    assert "4 files: 1 indexed" in out and "3 skipped" in out


def test_a_file_nested_past_the_recursion_limit_fails_cleanly_without_a_traceback(
        run, docs, monkeypatch, caplog):
    import ragcore.readers

    def too_deep(path, **_):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(ragcore.readers, "load_file", too_deep)
    code, out, err = run("ingest", str(docs / "trust.txt"), "--index", "deep")
    assert code == 1 and "Traceback" not in err + out
    assert "trust.txt: failed: nests its structure" in out and "leave it out" in out
    assert caplog.records and not any(r.exc_info for r in caplog.records)  # no traceback logged
