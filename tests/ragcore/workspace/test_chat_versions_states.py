"""Saved chats under random use (issue 66): a hypothesis state machine asks, regenerates, edits,
switches versions, renames, deletes and restarts over a real chat store (files, then Postgres
when the test database is there), and checks after every step that no reply ever recorded is
lost or doubled, that each version is a conversation of whole turns, that a question asked again
keeps the history before it, that what is saved is what is shown, that titles are distinct and
follow an edited first question unless renamed.

The workspace machine (``test_workspace_states``) covers chats against indexes; this one covers
what happens inside a chat, which that machine's ingest jobs would make too slow to explore.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ragcore.chat.titles import key_phrase_title
from ragcore.llms.fake import FakeLLM
from ragcore.trace import Trace
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.chats_pg import open_chats
from ragcore.workspace.conversation import Conversation, TurnSettings, record_stopped_turn
from ragcore.workspace.conversation.versions import every_message, show_version, versions_at
from support.team_backends import team_backend  # noqa: F401 - the fixture

QUESTIONS = ("What is the Chubby cell?", "How many replicas does a Chubby cell have?",
             "Who elects the master?", "What is a lock?")
PICK = st.integers(0, 99)
SETTINGS = TurnSettings(chat_mode="context")
RUN = {"steps": 0, "forks": 0}


def _pick(items, number: int):
    return items[number % len(items)]


class Reply:
    """A finished reply as ``Conversation.record`` reads it."""

    def __init__(self, text: str) -> None:
        self.text, self.source_nodes, self.trace, self.done = text, [], Trace(), True


class ChatVersionsMachine(RuleBasedStateMachine):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root
        for old in (root / "chats").glob("*.json"):
            old.unlink()
        self.store = open_chats(root)
        self.store.delete_all()
        self.chats: dict[str, SavedChat] = {}
        self.replies: dict[str, set[str]] = {}  # every reply recorded in each live chat
        self.named: dict[str, str] = {}  # titles given by rename
        self.count = 0
        self.llm = FakeLLM(model="extractive")  # titles from key phrases, as offline

    def _talk(self, chat: SavedChat) -> Conversation:
        index = SimpleNamespace(embed_model_name="fake")
        return Conversation(SimpleNamespace(chats=self.store), chat, index, self.llm)

    def _reply(self) -> str:
        self.count += 1
        return f"Reply {self.count}: the cell has five replicas."

    def _record(self, chat: SavedChat, question: str, at: int | None, stop: bool) -> None:
        text, before = self._reply(), list(chat.messages[:at] if at is not None else [])
        shown, total = versions_at(chat, at) if at is not None else (1, 1)
        if stop:  # Stop pressed: the part written is kept, as the newest version too
            message = record_stopped_turn(chat, question, text, None, settings={}, at=at)
        else:
            talk = self._talk(chat)
            message = talk.record(question, Reply(text), SETTINGS, at=at)
        self.store.save(chat)
        self.replies[chat.id].add(message.content)
        if at is not None:
            assert chat.messages[:at] == before  # the history before it is untouched
            assert len(chat.messages) == at + 2 and chat.messages[at].content == question
            assert versions_at(chat, at) == (total + 1, total + 1)
            RUN["forks"] += 1

    # -- rules ---------------------------------------------------------------------------------

    @rule(question=st.sampled_from(QUESTIONS))
    def new_chat(self, question: str) -> None:
        chat = SavedChat(index="docs", chat_mode="context")
        self.chats[chat.id] = chat
        self.replies[chat.id] = set()
        self._record(chat, question, None, stop=False)

    @precondition(lambda self: self.chats)
    @rule(pick=PICK, question=st.sampled_from(QUESTIONS), stop=st.booleans())
    def ask(self, pick: int, question: str, stop: bool) -> None:
        self._record(self.chats[_pick(sorted(self.chats), pick)], question, None, stop)

    @precondition(lambda self: self.chats)
    @rule(pick=PICK, turn=PICK, stop=st.booleans())
    def regenerate(self, pick: int, turn: int, stop: bool) -> None:
        chat = self.chats[_pick(sorted(self.chats), pick)]
        at = 2 * (turn % (len(chat.messages) // 2))
        self._record(chat, chat.messages[at].content, at, stop)  # asked as written

    @precondition(lambda self: self.chats)
    @rule(pick=PICK, turn=PICK, question=st.sampled_from(QUESTIONS))
    def edit(self, pick: int, turn: int, question: str) -> None:
        chat = self.chats[_pick(sorted(self.chats), pick)]
        at = 2 * (turn % (len(chat.messages) // 2))
        title, old = chat.title, chat.messages[0].content
        self._record(chat, question, at, stop=False)
        if chat.id in self.named:
            assert chat.title == self.named[chat.id]  # a name given by its person stays
        elif at == 0 and question != old:  # the title follows the new first question
            wanted = key_phrase_title(question, chat.messages[1].content).casefold()
            assert chat.title.casefold().startswith(wanted), (title, chat.title)
        else:
            assert chat.title == title

    @precondition(lambda self: self.chats)
    @rule(pick=PICK, position=PICK, version=PICK)
    def switch(self, pick: int, position: int, version: int) -> None:
        chat = self.chats[_pick(sorted(self.chats), pick)]
        at = 2 * (position % (len(chat.messages) // 2))
        shown, total = versions_at(chat, at)
        was = [m.content for m in chat.messages]
        show_version(chat, at, version % total + 1)
        assert versions_at(chat, at) == (version % total + 1, total)
        self.store.save(chat)
        show_version(chat, at, shown)  # and back: the same conversation
        assert [m.content for m in chat.messages] == was
        show_version(chat, at, version % total + 1)
        self.store.save(chat)

    @precondition(lambda self: self.chats)
    @rule(pick=PICK, title=st.sampled_from(("Chubby notes", "  Locks   and leases ")))
    def rename(self, pick: int, title: str) -> None:
        chat_id = _pick(sorted(self.chats), pick)
        self.chats[chat_id] = self.store.rename(chat_id, title)
        self.named[chat_id] = " ".join(title.split())

    @precondition(lambda self: self.chats)
    @rule(pick=PICK)
    def delete(self, pick: int) -> None:
        chat_id = _pick(sorted(self.chats), pick)
        self.store.delete(chat_id)
        del self.chats[chat_id], self.replies[chat_id]
        self.named.pop(chat_id, None)

    @rule()
    def restart(self) -> None:
        self.store = open_chats(self.root)
        self.chats = {chat_id: self.store.load(chat_id) for chat_id in self.chats}

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def no_reply_is_lost_or_doubled(self) -> None:
        RUN["steps"] += 1
        for chat_id, chat in self.chats.items():
            kept = [m.content for m in every_message(chat.messages) if m.role == "assistant"]
            assert sorted(kept) == sorted(self.replies[chat_id])

    @invariant()
    def every_version_is_whole_turns(self) -> None:
        def whole(messages) -> None:
            assert [m.role for m in messages] == ["user", "assistant"] * (len(messages) // 2)
            for position, message in enumerate(messages):
                assert not message.versions or position % 2 == 0  # forks are at questions
                for tail in message.versions:
                    assert not tail[0].versions  # the fork's versions live on the shown one
                    whole(tail)
        for chat in self.chats.values():
            whole(chat.messages)

    @invariant()
    def what_is_saved_is_what_is_shown(self) -> None:
        listed = {s.id: s for s in self.store.list()}
        assert set(listed) == set(self.chats)
        for chat_id, chat in self.chats.items():
            assert self.store.load(chat_id) == chat
            assert listed[chat_id].messages == len(chat.messages)

    @invariant()
    def titles_are_distinct(self) -> None:
        made = [c.title for c in self.chats.values() if c.id not in self.named]
        assert len({t.casefold() for t in made}) == len(made), made


def test_regenerate_edit_switch_rename_delete_and_restart_lose_nothing(tmp_path,
                                                                       team_backend):  # noqa: F811
    run_state_machine_as_test(
        lambda: ChatVersionsMachine(tmp_path),
        settings=settings(max_examples=40, stateful_step_count=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow]))
    assert RUN["forks"] > 20 and RUN["steps"] > 200  # the forks were explored


def test_a_chat_saved_before_versions_reads_and_is_written_as_it_was(tmp_path):
    old = {"format": "ragcore-chat", "version": 1, "index": "docs", "chat_mode": "context",
           "id": "20260101-000000-abcdef", "title": "Old",
           "messages": [{"role": "user", "content": "Q?"},
                        {"role": "assistant", "content": "A.", "sources": []}]}
    (tmp_path / "chats").mkdir()
    (tmp_path / "chats" / f"{old['id']}.json").write_text(json.dumps(old))
    store = open_chats(tmp_path)
    chat = store.load(old["id"])
    assert versions_at(chat, 0) == (1, 1) and not chat.renamed
    assert chat.to_dict()["version"] == 1  # nothing forked: still readable by older servers
    Conversation(SimpleNamespace(chats=store), chat, SimpleNamespace(embed_model_name="f"),
                 FakeLLM(model="extractive")).record("Q?", Reply("B."), SETTINGS, at=0)
    saved = chat.to_dict()
    assert saved["version"] == 2 and saved["messages"][0]["versions"][0][1]["content"] == "A."
    assert SavedChat.from_dict(json.loads(json.dumps(saved))) == chat
