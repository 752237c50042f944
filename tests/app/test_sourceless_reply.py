"""A chat reply that read no passage says so first; an agent's answer no tool backed says that;
a summary's reply and the model-alone mode (whose caption says so) stand as written."""

from __future__ import annotations

from ragcore.present.grounded import UNOBSERVED, UNREAD
from webapp.chat.chat_turns import sourceless_reply


def test_a_reply_from_the_conversation_alone_says_it_was_not_checked():
    shown = sourceless_reply("You asked about owls.", {"chat_mode": "condense_plus_context"})
    assert shown.startswith(UNREAD) and shown.endswith("You asked about owls.")


def test_an_agent_answer_no_tool_backed_says_so():
    trace = {"chat_mode": "react", "notes": {"agent_verdict": {"label": "unobserved"}}}
    assert sourceless_reply("42.", trace).startswith(UNOBSERVED)


def test_summaries_and_the_model_alone_stand_as_written():
    assert sourceless_reply("A summary.", {"notes": {"route": {"kind": "summary"}}}) == "A summary."
    assert sourceless_reply("Hi.", {"chat_mode": "simple"}) == "Hi."
    assert sourceless_reply("", {"chat_mode": "context"}) == ""


def test_a_follow_up_is_checked_as_the_question_it_was_rewritten_to():
    from ragcore.workspace.chats import SavedChat
    from webapp.chat.chat_turns import asked_before, checked_against, condensed_question

    rewritten = "How many blocks are needed if q is 0.40?"
    chat = SavedChat(index="docs", chat_mode="condense_plus_context")
    chat.add_message("user", "How many blocks for q = 0.45?")
    chat.add_message("assistant", "**340**.")
    chat.add_message("user", "And if q is 0.40?")
    chat.add_message("assistant", "**89**.", trace={"notes": {"condensed_question": rewritten}})
    assert checked_against(chat, 3) == rewritten  # what the verdict reads
    assert asked_before(chat, 3) == "And if q is 0.40?"  # what Ask again asks
    assert checked_against(chat, 1) == "How many blocks for q = 0.45?"  # not rewritten
    assert condensed_question({"notes": {}}) == "" and condensed_question(None) == ""
