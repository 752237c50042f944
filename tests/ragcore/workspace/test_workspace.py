"""The workspace: named indexes, safe uploads, re-ingest updates, per-file reports, chats."""

from __future__ import annotations

import os
import time
from dataclasses import replace

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.files import MAX_FILENAME_LENGTH, sanitize_filename
from ragcore.workspace.settings import Settings


@pytest.fixture
def workspace(tmp_path, fake_embedder):
    return Workspace(tmp_path / "ws", embedder=fake_embedder)


@pytest.fixture
def sources(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "trust.txt").write_text(
        "Zero trust assumes no implicit trust is granted to assets or user accounts.\n\n"
        "Access is granted per session by a policy engine.", encoding="utf-8")
    (folder / "notes.md").write_text("# Notes\n\nIdentity and access management basics.",
                                     encoding="utf-8")
    return folder


# -- names and paths --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\me\\plan.docx", "plan.docx"),
        ("a\x00b\x1fc.txt", "a_b_c.txt"),
        ("..", "upload"),
        ("...hidden.md", "hidden.md"),
        ("", "upload"),
        ("CON.txt", "_CON.txt"),
    ],
)
def test_sanitize_filename(raw, expected):
    assert sanitize_filename(raw) == expected


def test_sanitize_limits_length_and_keeps_extension():
    name = sanitize_filename("é" * 500 + ".pdf")
    assert name.endswith(".pdf") and len(name) <= MAX_FILENAME_LENGTH
    assert len(name.encode("utf-8")) < 255


def test_uploads_stay_inside_the_workspace(workspace):
    for hostile in ("../../escape.txt", "/etc/cron.d/x.txt", "..\\..\\win.txt", "sub/dir/f.txt"):
        path = workspace.save_upload("default", hostile, b"text")
        assert path.parent == workspace.upload_dir("default")
        assert workspace.root in path.parents
    assert not (workspace.root.parent / "escape.txt").exists()


def test_a_symlinked_upload_folder_pointing_outside_is_refused(workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace.root / "uploads").mkdir(parents=True)
    os.symlink(outside, workspace.root / "uploads" / "default")
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        workspace.save_upload("default", "a.txt", b"x")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "has space", "-lead", "x" * 65, "é"])
def test_index_names_are_validated_with_the_rule_in_the_message(workspace, bad):
    with pytest.raises(WorkspaceError, match="letters, digits"):
        workspace.create_index(bad)


def test_default_root_comes_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "from-env"))
    assert Workspace().root == (tmp_path / "from-env").resolve()


# -- ingesting --------------------------------------------------------------------------------


def test_ingest_reports_each_file_and_progress(workspace, sources):
    (sources / "empty.txt").write_text("")
    events = []
    report = workspace.ingest("docs", [sources], progress=events.append)
    by_name = {f.file_name: f for f in report.files}
    assert by_name["trust.txt"].status == "indexed" and by_name["trust.txt"].chunks >= 1
    assert by_name["notes.md"].status == "indexed"
    failed = by_name["empty.txt"]
    assert failed.status == "failed" and "empty" in failed.reason and failed.hint
    assert (report.indexed, report.failed) == (2, 1)
    assert events[-1].stage == "saving" and events[-1].overall == 1.0
    assert {e.file_count for e in events} == {3}
    overall = [e.overall for e in events]
    assert overall == sorted(overall)  # the bar never goes backwards


def test_ingest_lists_links_the_folder_scan_passed_over_as_skipped(workspace, sources, tmp_path):
    (sources / "loop_a").symlink_to("loop_b")
    (sources / "loop_b").symlink_to("loop_a")
    report = workspace.ingest("docs", [sources])
    skipped = [f for f in report.files if f.status == "skipped"]
    assert sorted(f.file_name for f in skipped) == ["loop_a", "loop_b"]
    assert all("symbolic link in a loop" in f.describe() for f in skipped)
    assert report.indexed == 2 and "2 skipped" in report.summary()


def test_reingesting_skips_unchanged_and_updates_changed_without_duplicates(workspace, sources):
    first = workspace.ingest("docs", [sources])
    nodes_before = workspace.index_info("docs").nodes
    again = workspace.ingest("docs", [sources])
    assert again.unchanged == 2 and again.indexed == 0
    (sources / "trust.txt").write_text("A single changed sentence about trust.")
    changed = workspace.ingest("docs", [sources / "trust.txt"])
    assert changed.indexed == 1
    info = workspace.index_info("docs")
    assert info.documents == 2 and info.files == 2
    assert info.nodes <= nodes_before
    index = workspace.load_index("docs")
    texts = [n.text for n in index.all_nodes()]
    assert not any("policy engine" in t for t in texts)
    assert first.chunks >= 2


def test_reuploading_the_same_name_updates_the_document(workspace):
    path = workspace.save_upload("up", "plan.txt", b"first version about budgets")
    workspace.ingest("up", [path])
    path = workspace.save_upload("up", "plan.txt", b"second version about schedules")
    report = workspace.ingest("up", [path])
    assert report.indexed == 1
    [row] = workspace.documents("up")
    assert row["id_base"] == "upload:plan.txt" and row["documents"] == 1
    index = workspace.load_index("up")
    assert [n.text for n in index.all_nodes()] == ["second version about schedules"]


def test_missing_path_fails_alone(workspace, sources):
    report = workspace.ingest("docs", [sources / "trust.txt", sources / "nope.txt"])
    statuses = {f.file_name: f.status for f in report.files}
    assert statuses == {"trust.txt": "indexed", "nope.txt": "failed"}


def test_nothing_to_ingest_is_explained(workspace, tmp_path):
    (tmp_path / "empty-folder").mkdir()
    with pytest.raises(WorkspaceError, match="nothing to ingest"):
        workspace.ingest("docs", [tmp_path / "empty-folder"])


def test_chunking_options_are_used_and_recorded(workspace, sources):
    long_text = " ".join(f"Sentence number {i} talks about trust." for i in range(200))
    (sources / "long.txt").write_text(long_text)
    report = workspace.ingest("small", [sources / "long.txt"], chunk_size=64, chunk_overlap=8)
    assert report.files[0].chunks > 10
    info = workspace.index_info("small")
    assert (info.chunk_size, info.chunk_overlap) == (64, 8)


# -- documents and indexes --------------------------------------------------------------------


def test_delete_document_by_file_name_path_or_id(workspace, sources):
    workspace.ingest("docs", [sources])
    removed = workspace.delete_document("docs", "notes.md")
    assert len(removed) == 1
    assert [r["file"] for r in workspace.documents("docs")] == ["trust.txt"]
    doc_id = workspace.documents("docs")[0]["doc_ids"][0]
    assert workspace.delete_document("docs", doc_id) == [doc_id]
    assert workspace.index_info("docs").nodes == 0
    with pytest.raises(WorkspaceError, match="no document 'ghost.txt'"):
        workspace.delete_document("docs", "ghost.txt")


def test_deleting_an_uploaded_document_removes_the_original(workspace):
    path = workspace.save_upload("up", "plan.txt", b"text about plans")
    workspace.ingest("up", [path])
    workspace.delete_document("up", "plan.txt")
    assert not path.exists()


def test_reindex_document_re_embeds_it(workspace, sources):
    workspace.ingest("docs", [sources])
    calls = workspace.embedder_override.calls
    report = workspace.reindex_document("docs", "trust.txt")
    assert report.indexed == 1 and report.files[0].file_name == "trust.txt"
    assert workspace.embedder_override.calls > calls
    assert workspace.index_info("docs").files == 2


def test_rename_keeps_the_folder_and_delete_removes_everything(workspace, sources):
    from ragcore.workspace.names import display_name, rename_index

    upload = workspace.save_upload("docs", "up.txt", b"uploaded words")
    workspace.ingest("docs", [sources, upload])
    assert rename_index(workspace, "docs", "Renamed docs") == "docs"  # the folder stays
    assert workspace.index_names() == ["docs"]
    assert display_name(workspace, "docs") == "Renamed docs"
    # the upload stays where it was: uploading it again is recognised as unchanged
    again = workspace.save_upload("docs", "up.txt", b"uploaded words")
    assert workspace.ingest("docs", [again]).unchanged == 1
    workspace.create_index("taken")
    with pytest.raises(WorkspaceError, match="already exists"):
        rename_index(workspace, "docs", "TAKEN")
    workspace.delete_index("docs")
    assert workspace.index_names() == ["taken"]
    assert not workspace.upload_dir("docs").exists()
    with pytest.raises(WorkspaceError, match="no index named 'docs'.*taken"):
        workspace.load_index("docs")


def test_list_indexes_shows_stats(workspace, sources):
    workspace.ingest("docs", [sources])
    [info] = workspace.list_indexes()
    assert info.name == "docs" and info.files == 2 and info.documents == 2
    assert info.nodes >= 2 and info.bytes_on_disk > 0
    assert info.embed_model == "fake-embedder" and info.created and info.updated
    assert info.tokens > 10
    assert workspace.record("docs").tokens == info.tokens  # cached until the index changes


def test_two_ingestions_within_one_second_both_show_in_the_stats(workspace, tmp_path):
    # Stats cached by a one-second "updated" stamp once showed 11 tokens instead of 1,532 here.
    short = tmp_path / "short.txt"
    short.write_text("A short note about owls.")
    long = tmp_path / "long.txt"
    long.write_text(" ".join(f"Sentence {i} is about bats and echolocation." for i in range(150)))
    time.sleep(1 - time.time() % 1)  # start at a fresh second, so both ingestions share it
    workspace.ingest("docs", [short])
    first = workspace.index_info("docs")
    workspace.ingest("docs", [long])
    both = workspace.index_info("docs")
    assert first.files == 1 and both.files == 2
    assert both.documents == 2 and both.nodes > first.nodes
    assert both.tokens > first.tokens + 1000
    assert both.revision != first.revision
    assert Workspace(workspace.root).index_info("docs") == both  # as another process sees it


def test_listing_reads_the_manifest_and_record_not_the_index(workspace, sources):
    workspace.ingest("docs", [sources])
    counted = workspace.index_info("docs")
    # once counted, the stats need neither the vectors nor the node texts
    for name in ("vectors.npy", "nodes.jsonl"):
        next(workspace.index_path("docs").glob("gen-*")).joinpath(name).unlink()
    after = workspace.index_info("docs")
    assert replace(after, bytes_on_disk=0) == replace(counted, bytes_on_disk=0)


def test_listing_does_not_wait_for_a_change_under_way(workspace, sources):
    import threading

    workspace.ingest("docs", [sources])
    listed = []
    with workspace.writing():  # an ingestion holds the lock
        lister = threading.Thread(target=lambda: listed.append(workspace.list_indexes()))
        lister.start()
        lister.join(timeout=20)
        assert listed and listed[0][0].files == 2
        with workspace.writing(wait=False) as held:
            assert held is False
    with workspace.writing(wait=False) as held:
        assert held is True


def test_a_record_written_before_revisions_is_read_and_counted_again(workspace, sources):
    import json

    workspace.ingest("docs", [sources])
    fresh = workspace.index_info("docs")
    path = workspace.record_path("docs")
    old = json.loads(path.read_text())
    for key in ("uid", "files", "counted_revision"):
        del old[key]
    old.update(tokens=11, tokens_at=old["updated"])  # the stale count of the old format
    path.write_text(json.dumps(old))
    assert workspace.index_info("docs") == fresh
    assert workspace.record("docs").counts_at(fresh.revision) == (fresh.files, fresh.tokens)


def test_a_new_empty_index_is_listed(workspace):
    workspace.create_index("empty")
    [info] = workspace.list_indexes()
    assert (info.name, info.nodes, info.files) == ("empty", 0, 0)
    assert len(workspace.load_index("empty")) == 0


# -- embedding model changes ------------------------------------------------------------------


def test_changing_the_embedding_model_of_a_filled_index_is_refused(tmp_path, sources):
    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder(model_name="model-a")).ingest("docs", [sources])
    other = Workspace(root, embedder=FakeEmbedder(model_name="model-b"))
    with pytest.raises(WorkspaceError, match="model-a.*re-index"):
        other.load_index("docs")
    with pytest.raises(WorkspaceError, match="re-index"):
        other.ingest("docs", [sources])
    with pytest.raises(WorkspaceError, match="needs re-indexing"):
        Workspace(root, embedder=FakeEmbedder(model_name="model-a")).change_embedding(
            "docs", Settings(embedding_kind="local", embedding_path=str(tmp_path)))


def test_an_empty_index_may_change_its_embedding_model(tmp_path):
    workspace = Workspace(tmp_path, embedder=FakeEmbedder(model_name="model-a"))
    workspace.create_index("fresh")
    settings = Settings(embedding_kind="server", embedding_model="nomic-embed-text")
    workspace.change_embedding("fresh", settings)
    chosen = Settings(**workspace.record("fresh").embedding)
    assert (chosen.embedding_backend, chosen.embedder_settings().model) == (
        "ollama", "nomic-embed-text")


# -- settings and chats through the workspace ------------------------------------------------


def test_session_settings_keep_the_key_and_saved_settings_do_not(tmp_path):
    workspace = Workspace(tmp_path)
    workspace.use_settings(Settings(openai_api_key="sk-session"))
    assert workspace.settings.api_key() == "sk-session"
    assert workspace.load_settings().api_key() is None
    workspace.save_settings(Settings(temperature=0.3, openai_api_key="sk-session"))
    assert "sk-session" not in (tmp_path / "settings.json").read_text()
    assert Workspace(tmp_path).settings.temperature == 0.3
    assert workspace.settings.api_key() == "sk-session"  # still there for this session


def test_chats_are_saved_listed_and_reopened(workspace):
    chat = SavedChat(index="docs", chat_mode="context", llm="extractive")
    chat.add_message("user", "hello?")
    chat.add_message("assistant", "hi")
    assert not workspace.has_chat(chat.id)
    workspace.save_chat(chat)
    assert workspace.has_chat(chat.id)
    assert [c.id for c in workspace.list_chats(index="docs")] == [chat.id]
    assert workspace.list_chats(index="other") == []
    assert Workspace(workspace.root).load_chat(chat.id) == chat
    workspace.delete_chat(chat.id)
    assert workspace.list_chats() == []
    assert not workspace.has_chat(chat.id)


def test_concurrent_ingestions_into_one_index_keep_every_file(workspace, tmp_path):
    import threading

    files = []
    for number in range(6):
        path = tmp_path / f"file{number}.txt"
        path.write_text(f"Document number {number} about topic {number}.")
        files.append(path)
    errors = []

    def ingest(path):
        try:
            workspace.ingest("shared", [path])
        except Exception as exc:  # collected and asserted below, so a failure shows its cause
            errors.append(exc)

    threads = [threading.Thread(target=ingest, args=(p,)) for p in files]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert workspace.index_info("shared").files == len(files)


def test_where_the_workspace_lives_does_not_move_chunk_borders(tmp_path, fake_embedder,
                                                                corpus_dir):
    """The same file cuts into the same chunks in a workspace at a short path and at a long
    one: the upload's absolute path is no part of the header a chunk's budget counts (it was,
    and the Irene Adler answer came and went with pytest's temporary folder names)."""
    data = (corpus_dir / "sherlock_holmes_xhtml" / "a-scandal-in-bohemia.xhtml").read_bytes()
    chunks = []
    for root in (tmp_path / "w", tmp_path / ("a-much-longer-folder-name-" * 6) / "ws"):
        ws = Workspace(root, embedder=fake_embedder)
        ws.ingest("stories", [ws.save_upload("stories", "bohemia.xhtml", data)])
        chunks.append(sorted(n.text for n in ws.load_index("stories").all_nodes()))
    assert chunks[0] == chunks[1]


def test_a_big_text_read_in_parts_leaves_its_path_out_of_the_llm_header_too(tmp_path,
                                                                            monkeypatch):
    import ragcore.readers.text as text
    from ragcore.types import MetadataMode
    from ragcore.workspace.ingest.parts import read_in_parts

    monkeypatch.setattr(text, "PARTS_FROM_BYTES", 100)
    monkeypatch.setattr(text, "PART_CHARS", 200)
    big = tmp_path / "big.txt"
    big.write_text("Owls hunt at night and rest by day.\n\n" * 20, encoding="utf-8")
    docs = list(read_in_parts(big, str(big)))
    assert len(docs) > 1
    assert all("file_path" not in d.metadata_str(MetadataMode.LLM) for d in docs)
    assert all(d.metadata["file_path"] for d in docs)  # still known, only not in the header
