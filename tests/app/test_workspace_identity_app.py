"""An index's identity in the app (issue 18, defects 1, 2, 5, 6): a renamed index keeps its
chats, the Indexes page names the index as typed in its confirmations and says what a rename or
delete did, and Resume of a job whose index was deleted says so and makes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.jobs.journal import Job, JobJournal
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.names import delete_index, rename_index, set_display_name

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90


@pytest.fixture
def root(monkeypatch, tmp_path) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


def _index_with_a_chat(root: Path, folder: str = "docs", typed: str = "") -> Workspace:
    ws = Workspace(root, embedder=FakeEmbedder())
    upload = ws.save_upload(folder, "owls.txt", b"Owls hunt at night and see in the dark.")
    ws.ingest(folder, [upload])
    if typed:
        set_display_name(ws, folder, typed)
    chat = SavedChat(index=folder, chat_mode="simple")
    chat.add_message("user", "What do owls do?")
    chat.add_message("assistant", "Owls hunt at night.")
    ws.save_chat(chat)
    return ws


def _open(page: str, chat_id: str = "") -> AppTest:
    """A new browser session on ``page`` (its URL naming the saved chat ``chat_id``)."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    if chat_id:
        at.query_params["chat"] = chat_id
    at.run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_a_renamed_index_keeps_its_chats(root):
    ws = _index_with_a_chat(root)
    rename_index(ws, "docs", "Contrats été")
    at = _open("chat", ws.list_chats()[0].id)
    assert not [w.value for w in at.warning if "no longer exists" in w.value]
    shown = " ".join(str(m.value) for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "Contrats été" in shown and "What do owls do?" in shown


def test_the_indexes_page_names_the_index_as_typed_and_says_what_it_did(root):
    ws = _index_with_a_chat(root, "Contrats-ete", "Contrats été")
    summaries = root / "summaries" / f"{ws.record('Contrats-ete').uid}.json"
    summaries.parent.mkdir()
    summaries.write_text("{}")
    at = _open("indexes")
    _button(at, "Delete…").click().run()
    assert "from “Contrats été”?" in at.warning[0].value  # not the folder "Contrats-ete"
    _button(at, "Yes, delete it").click().run()
    assert [s.value for s in at.success] == ["Deleted owls.txt from “Contrats été”."]

    box = next(c for c in at.checkbox if c.label.startswith("I understand"))
    assert "and 1 saved chat for good" in box.label
    box.check().run()
    _button(at, "Delete this index").click().run()
    assert not at.exception
    assert [s.value for s in at.success] == [
        "Deleted the index “Contrats été” and its 1 saved chat."]
    assert ws.index_names() == [] and ws.list_chats() == [] and not summaries.exists()


def test_resume_of_a_job_whose_index_was_deleted_is_refused_and_makes_nothing(root):
    ws = _index_with_a_chat(root)
    upload = ws.upload_dir("docs") / "owls.txt"
    job = Job("ingest", "docs", files=[str(upload)], state="cancelled", summary="0 indexed",
              index_uid=ws.record("docs").uid)
    JobJournal(root / "jobs").save(job)
    delete_index(ws, "docs")
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    captions = " ".join(c.value for c in at.sidebar.caption)
    assert "Index owls.txt into the deleted index “docs”" in captions
    assert "Its index was deleted: nothing to resume." in captions
    assert not [b for b in at.sidebar.button if b.label == "Resume"]
    assert ws.index_names() == []

    # A process that had not heard of the delete left a job of the old index; a new index
    # has been made in the same folder since: its Resume is refused and changes nothing.
    _index_with_a_chat(root)
    uid = ws.record("docs").uid
    JobJournal(root / "jobs").delete(job.id)
    JobJournal(root / "jobs").save(Job("ingest", "docs", files=[str(upload)],
                                       state="cancelled", index_uid=job.index_uid))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    next(b for b in at.sidebar.button if b.label == "Resume").click().run()
    assert [w.value for w in at.sidebar.warning] == [
        "the index “docs” was deleted (“docs” is a newer index): nothing to resume; upload "
        "the files into an index again"]
    assert ws.index_names() == ["docs"] and ws.record("docs").uid == uid


def test_a_resumed_job_is_titled_with_the_typed_name_and_continues_on_the_same_index(root):
    ws = _index_with_a_chat(root, "Contrats-ete", "Contrats été")
    upload = ws.save_upload("Contrats-ete", "bats.txt", b"Bats find insects by echolocation.")
    old = Job("ingest", "Contrats-ete", files=[str(upload)], state="interrupted")
    JobJournal(root / "jobs").save(old)
    runner = JobRunner(root)
    job = runner.wait(runner.resume(ws, old.id).id, TIMEOUT)
    assert job.title() == "Index bats.txt into “Contrats été”" and job.state == "done"
    assert job.index_uid == ws.record("Contrats-ete").uid
    assert sorted(r["file"] for r in ws.documents("Contrats-ete")) == ["bats.txt", "owls.txt"]


def test_a_workspace_from_before_uids_keeps_working(root):
    """Chats and jobs saved before they carried the index uid, an index record without one."""
    import json

    ws = _index_with_a_chat(root)
    record = json.loads(ws.record_path("docs").read_text())
    ws.record_path("docs").write_text(json.dumps({**record, "uid": ""}))
    [chat_file] = (root / "chats").glob("*.json")
    chat = json.loads(chat_file.read_text())
    chat_file.write_text(json.dumps({k: v for k, v in chat.items() if k != "index_uid"}))
    upload = ws.upload_dir("docs") / "owls.txt"
    old = Job("ingest", "docs", files=[str(upload)], state="interrupted")
    JobJournal(root / "jobs").save(old)

    at = _open("chat", ws.list_chats()[0].id)  # the old chat opens on its index
    assert not at.warning and "What do owls do?" in " ".join(str(m.value) for m in at.markdown)
    rename_index(ws, "docs", "Old docs")
    assert [c.index for c in ws.list_chats()] == ["docs"]
    assert delete_index(ws, "docs") == 1 and ws.list_chats() == []
    assert JobJournal(root / "jobs").load(old.id).index_deleted
    with pytest.raises(WorkspaceError, match="was deleted: nothing to resume"):
        JobRunner(root).resume(ws, old.id)
    assert ws.index_names() == []


def test_a_chat_of_a_deleted_index_is_not_reopened_on_a_new_index_in_its_folder(root):
    ws = _index_with_a_chat(root)
    stale = SavedChat(index="docs", chat_mode="simple", index_uid="an-index-deleted-before")
    stale.add_message("user", "A question about the deleted index")
    stale.updated = "2099-01-01T00:00:00+00:00"  # the latest chat
    ws.save_chat(stale)  # left by a process that had not heard of the delete
    at = _open("chat", stale.id)  # a link to it, kept from before the delete
    shown = " ".join(str(m.value) for m in at.markdown)
    assert "A question about the deleted index" not in shown
    assert any("since been deleted" in w.value for w in at.warning)
