"""A question asked again (issue 66): answered as written with only the history before it, and
recorded as a new version beside the turns it replaces; titles told apart and following an
edited first question."""

from __future__ import annotations

from types import SimpleNamespace

from test_conversation import built, ws  # noqa: F401 - the fixtures

from ragcore.chat.titles import distinct_title
from ragcore.llms.fake import FakeLLM
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.conversation import Conversation, TurnSettings, memory_for_chat
from ragcore.workspace.conversation.versions import (
    edited_at, fork, show_version, versions_at,
)
from ragcore.workspace.chats import new_message

SIMPLE = TurnSettings(chat_mode="simple")


def _two_turns() -> SavedChat:
    chat = SavedChat(index="docs", chat_mode="simple")
    turns = (("How long is a lease?", "12 s."), ("And  the grace period?", "45 s."))
    for question, reply in turns:
        chat.add_message("user", question)
        chat.add_message("assistant", reply)
    return chat


def _asked(talk: Conversation, question: str, at: int | None):
    response = talk.ask(question, SIMPLE, at=at)
    "".join(response)
    return talk.record(question, response, SIMPLE, at=at)


def test_regenerate_asks_the_question_as_written_with_only_the_history_before_it(ws):  # noqa: F811
    chat, llm = _two_turns(), FakeLLM(default="Forty-five seconds.")
    talk = Conversation(ws, chat, ws.load_index("docs"), llm)  # memory: the whole chat
    _asked(talk, "And  the grace period?", at=2)
    sent = [(m.role, m.content) for m in llm.calls[-1] if m.role != "system"]
    assert sent == [("user", "How long is a lease?"), ("assistant", "12 s."),
                    ("user", "And  the grace period?")]  # not the reply it replaces
    assert [m.content for m in chat.messages] == ["How long is a lease?", "12 s.",
                                                  "And  the grace period?", "Forty-five seconds."]
    assert versions_at(chat, 2) == (2, 2) and not edited_at(chat, 2)
    show_version(chat, 2, 1)
    assert chat.messages[-1].content == "45 s."  # the earlier reply, back


def test_edit_keeps_the_turns_that_followed_as_the_earlier_version(ws):  # noqa: F811
    chat = _two_turns()
    chat.title = "Lease"
    talk = Conversation(ws, chat, ws.load_index("docs"), FakeLLM(model="extractive"))
    _asked(talk, "How are leases renewed?", at=0)
    assert [m.content for m in chat.messages][0] == "How are leases renewed?"
    assert len(chat.messages) == 2 and versions_at(chat, 0) == (2, 2) and edited_at(chat, 0)
    assert chat.title == "Leases renewed"  # the first question changed: titled again
    show_version(chat, 0, 1)
    assert [m.content for m in chat.messages][2:] == ["And  the grace period?", "45 s."]
    assert [m.content for m in memory_for_chat(chat, FakeLLM(), upto=2).messages] == [
        "How long is a lease?", "12 s."]


def test_a_renamed_chat_keeps_its_name_through_an_edit(ws):  # noqa: F811
    chat = _two_turns()
    chat.title, chat.renamed = "My lease notes", True
    talk = Conversation(ws, chat, ws.load_index("docs"), FakeLLM(model="extractive"))
    _asked(talk, "How are leases renewed?", at=0)
    assert not talk.to_title and chat.title == "My lease notes"


def test_versions_nest_and_switching_never_drops_one():
    chat = _two_turns()
    fork(chat, 2, [new_message("user", "B?"), new_message("assistant", "b")])
    fork(chat, 0, [new_message("user", "C?"), new_message("assistant", "c")])
    show_version(chat, 0, 1)
    assert [m.content for m in chat.messages] == ["How long is a lease?", "12 s.", "B?", "b"]
    show_version(chat, 2, 1)
    assert chat.messages[-1].content == "45 s." and versions_at(chat, 0) == (1, 2)
    again = SavedChat.from_dict(chat.to_dict())
    assert again == chat and again.to_dict()["version"] == 2


def test_titles_are_told_apart_by_a_phrase_then_a_number():
    taken = {"Chubby cell replicas"}
    question = "How many replicas does a Chubby cell have?"
    assert distinct_title("Chubby cell replicas", set(), question) == "Chubby cell replicas"
    assert distinct_title("Chubby cell replicas", taken, question,
                          "Five replicas elect a master.") == "Chubby cell replicas: many replicas"
    assert distinct_title("Chubby cell replicas", taken | {"chubby cell replicas: many replicas"},
                          question, "Five replicas elect a master."
                          ) == "Chubby cell replicas: master"  # whole: not "Five replicas elect"
    assert distinct_title("Chubby cell replicas", taken | {"chubby cell replicas: many replicas"},
                          question, "Here is what they say:\n- Five replicas elect a master."
                          ) == "Chubby cell replicas: master"  # not "Here"
    every = taken | {"chubby cell replicas: many replicas",
                     "chubby cell replicas: five replicas elect", "Chubby cell replicas: master"}
    assert distinct_title("Chubby cell replicas", every,
                          question, "Five replicas elect a master.") == "Chubby cell replicas (2)"


def test_a_chat_titled_like_another_gets_a_distinct_title():
    store = SimpleNamespace(list=lambda: [SimpleNamespace(id="other", title="Lease")])
    chat = SavedChat(index="docs", chat_mode="simple")
    talk = Conversation(SimpleNamespace(chats=store), chat, SimpleNamespace(), FakeLLM(
        model="extractive"), memory=memory_for_chat(chat, FakeLLM()))
    talk.title_chat("Lease?", "A lease lasts twelve seconds.")
    assert chat.title == "Lease: lease lasts twelve seconds"


def test_a_chat_is_found_by_the_words_of_a_version_not_shown(tmp_path):
    from ragcore.workspace.chats import ChatStore

    chat = _two_turns()
    fork(chat, 2, [new_message("user", "Who renews it?"), new_message("assistant", "Nobody.")])
    store = ChatStore(tmp_path)
    store.save(chat)
    assert [s.id for s in store.list(search="grace period")] == [chat.id]  # kept, not shown
