"""Team mode through the whole app (app.py, every page), headless with AppTest: who sees what.

A workspace with two indexes of Ana's: "Zebra plans" (private) and "Team notes" (shared with Bob
read-only), a saved chat of Ana's on each, and a job on each index. Bob and Cem (no grant) are
signed in by a session token, as the cookie would; for every object kind (index, upload,
summary, chat, export, job) and action (list, open, query, chat, rename, delete, cancel, resume,
share) they get a refusal or no control at all, and nothing of the private objects appears
anywhere on any page (names, counts, passages, titles), also through ``?chat=`` in the URL.
Ana, the owner, sees and may do all of it: the same checks pass for the right reason.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.names import index_uid, set_display_name
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from webapp.session import Session

TOKEN_KEY = Session.team_session_token.key

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 60
SECRET = "zebracorn"  # a word only the private index, its chat and its job's file hold
PAGES = ("home", "upload", "indexes", "query", "chat", "settings")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """The workspace (built once) and the ids the tests look for."""
    root = tmp_path_factory.mktemp("team") / "ws"
    files = root.parent / "files"
    files.mkdir()
    (files / f"{SECRET}-plan.txt").write_text(
        f"The {SECRET} migration moves every herd north in spring. " * 20, encoding="utf-8")
    (files / "notes.txt").write_text("Team notes: the kitchen is cleaned on Fridays. " * 20,
                                     encoding="utf-8")
    ws = Workspace(root, embedder=FakeEmbedder())
    ws.ingest("zebra", [files / f"{SECRET}-plan.txt"])
    ws.ingest("notes", [files / "notes.txt"])
    set_display_name(ws, "zebra", f"Zebra plans {SECRET}")
    set_display_name(ws, "notes", "Team notes")
    ids = {}
    with Team.open(root, hasher=fast_hasher()) as team:
        admin = team.accounts.set_up("root", "root password")
        ana = team.accounts.create(admin, "ana", "ana password")
        team.accounts.create(admin, "bob", "bob password")
        team.accounts.create(admin, "cem", "cem password")
        for name in ("zebra", "notes"):
            team.index_created(ana, index_uid(ws, name))
            chat = SavedChat(index=name, chat_mode="condense_plus_context",
                             title=f"{name} chat {SECRET if name == 'zebra' else 'kitchen'}",
                             index_uid=index_uid(ws, name))
            chat.add_message("user", f"what about the {SECRET}?" if name == "zebra" else "hi")
            chat.add_message("assistant", "an answer")
            ws.save_chat(chat)
            team.chat_saved(ana, chat.id)
            ids[name] = chat.id
        team.share(ana, index_uid(ws, "notes"), team.accounts.require("bob"), "read")
    return {"root": root, "chats": ids}


@pytest.fixture
def root(built, tmp_path, monkeypatch) -> Path:
    copy = tmp_path / "ws"
    shutil.copytree(built["root"], copy)
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(copy))
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    (copy / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
    return copy


def signed_in(root: Path, person: str, page: str = "home", **query: str) -> AppTest:
    """The app as ``person`` (their session token in the session, as the cookie gives it)."""
    with Team.open(root, hasher=fast_hasher()) as team:
        token = team.sessions.start(team.accounts.require(person))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[TOKEN_KEY] = token
    at.query_params.update(query)
    at.run()
    if page != "home":
        at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown(node) -> str:
    """Every text, label, option and table cell the page holds (its elements' protobufs)."""
    out = [str(node.proto)] if getattr(node, "proto", None) is not None else []
    for child in getattr(node, "children", {}).values():
        out.append(shown(child))
    return "\n".join(out)


def page_text(at: AppTest) -> str:
    return shown(at._tree)


def labels(at: AppTest) -> list[str]:
    return [b.label for b in at.button]


class SlowFake(FakeEmbedder):
    """The fake embedder (same model name as the indexes') at 0.2 s a text: jobs that run."""

    def embed_batch(self, texts):
        time.sleep(0.2 * len(texts))
        return super().embed_batch(texts)


@pytest.mark.parametrize("page", PAGES)
def test_nothing_of_a_private_index_shows_on_any_page(root, built, page):
    for person in ("bob", "cem"):
        text = page_text(signed_in(root, person, page))
        assert SECRET not in text and "Zebra" not in text, (person, page)
        assert built["chats"]["zebra"] not in text and "zebra" not in text.lower(), (person, page)
    owner = page_text(signed_in(root, "ana", page))
    if page in ("home", "indexes", "query", "chat", "upload"):  # the owner sees it there
        assert SECRET in owner or "zebra" in owner.lower(), page


def test_the_shared_index_is_listed_for_its_reader_only(root):
    assert "Team notes" in page_text(signed_in(root, "bob", "indexes"))
    cem = signed_in(root, "cem", "indexes")
    assert "Team notes" not in page_text(cem) and "no index yet" in page_text(cem)


def test_a_chat_in_the_url_that_is_not_theirs_shows_the_refusal_and_nothing_of_it(root, built):
    for person, chat in (("bob", "notes"), ("bob", "zebra"), ("cem", "zebra")):
        at = signed_in(root, person, "chat", chat=built["chats"][chat])
        text = page_text(at)
        assert any("Not allowed: This chat is private to the person who wrote it" in w.value
                   and "unexpected" not in w.value for w in at.warning), person
        assert SECRET not in text and "kitchen" not in text, (person, chat)
    missing = signed_in(root, "bob", "chat", chat="no-such-chat")
    assert any("private to the person who wrote it" in w.value for w in missing.warning)
    ana = signed_in(root, "ana", "chat", chat=built["chats"]["zebra"])
    assert not ana.warning and f"zebra chat {SECRET}" in page_text(ana)


def test_saved_chats_and_their_exports_are_listed_for_their_author_only(root, built):
    bob = signed_in(root, "bob", "chat")
    assert not [b for b in bob.button if b.key and b.key.startswith("open_")]
    assert not any("Export" in b.label for b in bob.get("download_button"))
    ana = signed_in(root, "ana", "chat")
    opened = {b.key for b in ana.button if b.key and b.key.startswith("open_")}
    assert opened == {f"open_{i}" for i in built["chats"].values()}


def test_a_reader_may_not_rename_delete_share_reindex_or_remove_a_document(root):
    at = signed_in(root, "bob", "indexes")
    assert "Rename" not in labels(at) and "Delete this index" not in labels(at)
    assert "Share" not in [b.label for b in at.get("form_submit_button")]
    assert "Only the index's owner or an admin may delete it." in [c.value for c in at.caption]
    reindex = next(b for b in at.button if b.label == "Re-index")
    assert reindex.disabled and next(b for b in at.button if b.label == "Delete…").disabled
    owner = signed_in(root, "ana", "indexes")
    assert {"Rename", "Delete this index"} <= set(labels(owner))
    assert "Share" in [b.label for b in owner.get("form_submit_button")]


def test_a_reader_cannot_add_files_and_the_upload_page_offers_only_writable_indexes(root):
    bob = signed_in(root, "bob", "upload")
    assert bob.selectbox[0].options == ["New index…"]
    ana = signed_in(root, "ana", "upload")
    assert set(ana.selectbox[0].options) == {f"Zebra plans {SECRET}", "Team notes",
                                             "New index…"}


def test_query_and_chat_pickers_offer_only_readable_indexes(root):
    for page in ("query", "chat"):
        at = signed_in(root, "bob", page)
        options = [o for s in at.selectbox for o in s.options]
        assert "Team notes" in options and not any(SECRET in o for o in options), page


def test_jobs_of_an_index_show_only_to_its_readers_and_cancel_and_resume_need_write(root, monkeypatch):
    from ragcore.workspace.jobs.runner import runner_for

    runner = runner_for(root)
    slow = Workspace(root, embedder=SlowFake())
    files = [root.parent / "a.txt", root.parent / f"{SECRET}-b.txt"]
    for path in files:
        path.write_text("word " * 3000, encoding="utf-8")
    jobs = [runner.ingest(slow, "notes", [files[0]]), runner.ingest(slow, "zebra", [files[1]])]
    try:
        bob = signed_in(root, "bob")
        sidebar = shown(bob.sidebar)
        assert "Team notes" in sidebar and SECRET not in sidebar
        cancel = [b for b in bob.sidebar.button if b.label == "Cancel"]
        assert len(cancel) == 1 and cancel[0].disabled  # read-only: no cancel
        cem = signed_in(root, "cem")
        assert "**Jobs**" not in shown(cem.sidebar) and "Cancel" not in labels(cem)
        ana = signed_in(root, "ana")
        assert len([b for b in ana.sidebar.button if b.label == "Cancel"]) == 2
    finally:
        for job in jobs:
            runner.cancel(job.id)
        assert runner.wait_idle(timeout=TIMEOUT)
    assert {runner.get(job.id).state for job in jobs} == {"cancelled"}
    resume = [b for b in signed_in(root, "bob").sidebar.button if b.label == "Resume"]
    assert len(resume) == 1 and resume[0].disabled  # the shared index's job, read-only
    assert "Resume" not in labels(signed_in(root, "cem"))
    owner = [b for b in signed_in(root, "ana").sidebar.button if b.label == "Resume"]
    assert len(owner) == 2 and not any(b.disabled for b in owner)


def test_only_admins_see_the_team_page(root):
    admin = signed_in(root, "root", "team")
    assert "Create an account" in page_text(admin) and "Audit log" in page_text(admin)
    member = signed_in(root, "ana")
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        member.switch_page("pages/team.py")  # not in a member's navigation at all


def test_a_new_index_name_says_nothing_of_another_person_s_index(root):
    at = signed_in(root, "bob", "upload")
    at.text_input(key="new_index_typed_name").input(f"Zebra plans {SECRET}").run()
    said = " ".join(c.value for c in at.caption)
    assert "already exists" not in said and "folder" not in said
    ana = signed_in(root, "ana", "upload")
    ana.selectbox[0].set_value("New index…").run()
    ana.text_input(key="new_index_typed_name").input(f"Zebra plans {SECRET}").run()
    assert "already exists" in " ".join(c.value for c in ana.caption)


def test_saved_question_sets_follow_their_index(root):
    from ragcore.workspace.evaluations import EvaluationStore

    store = EvaluationStore(root)
    for name in ("zebra-key-phrase-5", "notes-sentence-5", "notes-2-sentence-5"):
        store.save_question_set(name, {"queries": {}, "corpus": {}, "relevant_docs": {}})
    for person, expected in (("bob", ["notes-sentence-5"]), ("ana", ["notes-sentence-5",
                                                                     "zebra-key-phrase-5"])):
        at = signed_in(root, person, "query")
        at.radio(key="evaluate_source").set_value("A saved question set").run()
        assert at.selectbox(key="evaluate_saved").options == expected, person
