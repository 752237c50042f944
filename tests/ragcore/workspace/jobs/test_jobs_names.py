"""Display names in renames and job titles (issue 13): an index is renamed by the name a person
types, its jobs are titled with that name in the journal, the app and the CLI, and the Indexes
page's Rename button waits, with the reason shown, while the typed name cannot be used."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.cli import main
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.journal import Job, JobJournal, process_started
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.names import display_name, rename_index, rename_problem, resolve_index

APP = str(Path(__file__).resolve().parents[4] / "app.py")
TIMEOUT = 90


@pytest.fixture
def owls(tmp_path) -> Path:
    path = tmp_path / "owls.txt"
    path.write_text("Owls hunt at night and see well in the dark.")
    return path


def test_rename_takes_a_typed_name_and_the_jobs_follow(tmp_path, owls):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    runner = JobRunner(ws.root)
    runner.wait(runner.ingest(ws, "docs", [owls]).id, 60)
    ws.create_index("taken")
    assert rename_problem(ws, "docs", "docs") == "That is its name already."
    assert "already exists" in rename_problem(ws, "docs", "Taken")
    assert "letter or digit" in rename_problem(ws, "docs", " -- ")

    folder = rename_index(ws, "docs", "Contrats  été 2024")
    assert folder == "docs" and ws.index_names() == ["docs", "taken"]  # the folder stays
    assert display_name(ws, folder) == "Contrats été 2024"
    assert [r["file"] for r in ws.documents(folder)] == ["owls.txt"]
    [job] = JobRunner(ws.root).jobs(folder)  # the finished job is titled with the new name
    assert job.title() == "Index owls.txt into “Contrats été 2024”"

    assert rename_index(ws, folder, "CONTRATS été 2024") == folder
    assert display_name(ws, folder) == "CONTRATS été 2024"
    assert resolve_index(ws, "contrats ÉTÉ 2024") == folder  # typed as shown, any case
    assert resolve_index(ws, "日本語").startswith("index-")  # a new index of that name
    # A new index named like the folder of the renamed one gets a free folder of its own.
    assert resolve_index(ws, "docs") == "docs"  # the folder name still finds it
    assert rename_problem(ws, "taken", "Contrats été 2024").startswith("An index named")


def test_rename_waits_for_a_job_running_on_the_index(tmp_path, owls):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("docs", [owls])
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        JobJournal(ws.root / "jobs").save(Job("ingest", "docs", state="embedding",
                                              pid=sleeper.pid,
                                              pid_started=process_started(sleeper.pid)))
        with pytest.raises(WorkspaceError, match="a job is running on index 'docs'"):
            rename_index(ws, "docs", "Contrats")
    finally:
        sleeper.kill()
        sleeper.wait()
    assert rename_index(ws, "docs", "Contrats") == "docs"  # its process is gone


def test_the_cli_ingests_and_renames_by_typed_names_and_titles_jobs_with_them(
        tmp_path, owls, capsys):
    root = tmp_path / "ws"
    code = main(["ingest", str(owls), "--index", "Contrats été", "--workspace", str(root)],
                embedder=FakeEmbedder())
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Index “Contrats été” (folder Contrats-ete)" in out
    [job] = JobJournal(root / "jobs").all()
    assert job.index == "Contrats-ete" and job.origin == "command line"

    code = main(["rename-index", "contrats été", "Dossiers 2025", "--workspace", str(root)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Renamed index 'Contrats-ete' to 'Dossiers 2025' (folder Contrats-ete)." in out
    code = main(["ingest", str(owls), "--index", "dossiers 2025", "--workspace", str(root)],
                embedder=FakeEmbedder())
    assert code == 0
    assert Workspace(root).index_names() == ["Contrats-ete"]
    out = capsys.readouterr().out
    assert "Index “Dossiers 2025” (folder Contrats-ete)" in out and "1 unchanged" in out
    assert JobJournal(root / "jobs").all()[0].title() == "Index owls.txt into “Dossiers 2025”"
    assert main(["indexes", "--workspace", str(root)]) == 0
    assert "Dossiers 2025 (folder Contrats-ete)" in capsys.readouterr().out
    assert main(["retrieve", "owls", "--index", "Dossiers 2025", "--workspace", str(root)],
                embedder=FakeEmbedder()) == 0  # every command finds it by its shown name


@pytest.fixture
def app_ws(monkeypatch, tmp_path, owls) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    ws = Workspace(root, embedder=FakeEmbedder())
    runner = JobRunner(root)
    runner.wait(runner.ingest(ws, "docs", [owls]).id, 60)
    return root


def _rename_box(at: AppTest):
    return next(t for t in at.text_input if t.label == "New name")


def _rename_button(at: AppTest):
    return next(b for b in at.button if b.label == "Rename")


def test_the_indexes_page_renames_by_typed_name_and_says_why_it_waits(app_ws):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/indexes.py").run()
    assert not at.exception
    assert _rename_button(at).disabled  # nothing typed yet
    _rename_box(at).input(" -- ").run()
    assert _rename_button(at).disabled
    assert any("letter or digit" in c.value for c in at.caption)
    _rename_box(at).input("Contrats été").run()
    assert not _rename_button(at).disabled
    _rename_button(at).click().run()
    assert not at.exception
    assert Workspace(app_ws).index_names() == ["docs"]  # the folder never moves
    assert [s.value for s in at.success] == [
        "Renamed “docs” to “Contrats été”: its chats, jobs and files stay with it."]
    shown = " ".join(str(getattr(e, "value", "")) for e in at.main.selectbox)
    assert at.selectbox[0].format_func(at.selectbox[0].value) == "Contrats été", shown
    jobs_text = "\n".join(c.value for c in at.sidebar.caption)
    assert "Index owls.txt into “Contrats été”" in jobs_text


def test_the_rename_button_waits_while_a_job_runs_on_the_index(app_ws):
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        JobJournal(app_ws / "jobs").save(Job("ingest", "docs", files=["big.txt"],
                                             state="embedding", pid=sleeper.pid,
                                             pid_started=process_started(sleeper.pid)))
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
        at.switch_page("pages/indexes.py").run()
        _rename_box(at).input("Contrats été").run()
        assert _rename_button(at).disabled
        assert any("Index big.txt into “docs” is running" in c.value for c in at.caption)
    finally:
        sleeper.kill()
        sleeper.wait()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_cli_names_the_job_by_its_display_name_and_redraws_a_bar(
        tmp_path, owls, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["ingest", str(owls), "--index", "Contrats été", "--workspace",
                 str(tmp_path / "ws")], embedder=FakeEmbedder())
    assert code == 0
    shown = terminal.getvalue()
    assert shown.startswith("Index owls.txt into “Contrats été”: Ctrl-C, or Cancel in the "
                            "app's sidebar, stops it")
    assert "\r[" in shown and "100%" in shown  # the bar redrawn in place
