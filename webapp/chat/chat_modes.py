"""The chat modes as people choose them: named for what they do, each with its one line.

The modes themselves (and their internal names, kept in the API, the trace and the docs) are
``ragcore.chat.ChatMode``; this module only words them and draws the choice. Four are shown to
everyone; ``context`` and ``best`` differ from those in ways only Advanced explains.
"""

from __future__ import annotations

import streamlit as st

from ragcore.chat import CHAT_MODE_DESCRIPTIONS, ChatMode

# Shown to everyone, in this order; the first is the default.
PEOPLE_MODES = (ChatMode.CONDENSE_PLUS_CONTEXT, ChatMode.CONDENSE_QUESTION, ChatMode.REACT,
                ChatMode.SIMPLE)
MODE_NAMES: dict[ChatMode, str] = {
    ChatMode.CONDENSE_PLUS_CONTEXT: "Answer from the documents",
    ChatMode.CONDENSE_QUESTION: "Follow the conversation",
    ChatMode.REACT: "Let an agent search step by step",
    ChatMode.SIMPLE: "Just the model, no documents",
    ChatMode.CONTEXT: "Search with my exact words",
    ChatMode.BEST: "Let the app choose for the model",
}
DEFAULT_MODE = PEOPLE_MODES[0].value
# Each line says what its mode does that the others do not: the first two both reword only a
# follow-up that refers back (``ragcore.chat.refers_back``), and differ in what the answer reads.
MODE_LINES: dict[ChatMode, str] = {
    ChatMode.CONDENSE_PLUS_CONTEXT: "Answers each question from the passages found in your "
                                    "documents, reading the conversation too; only a follow-up "
                                    "that refers back is reworded for the search.",
    ChatMode.CONDENSE_QUESTION: "Uses the conversation only to turn a follow-up that refers "
                                "back into a full question; the answer reads the passages "
                                "alone, without the conversation.",
    ChatMode.REACT: "An assistant decides whether to search your documents, and for what; it "
                    "may answer without searching, and shows its steps when it searches. Slower.",
    ChatMode.SIMPLE: "Chats with the language model alone: your documents are not searched.",
    ChatMode.CONTEXT: "Searches with your message exactly as written, never reworded; the "
                      "answer reads the conversation too.",
    ChatMode.BEST: "An agent for models that call tools themselves, else “Answer from the "
                   "documents”.",
}


def mode_name(mode: str) -> str:
    """The people's name of a chat mode's internal name (the name itself when unknown)."""
    try:
        return MODE_NAMES[ChatMode(mode)]
    except ValueError:
        return mode


def mode_caption(chat, message) -> str | None:
    """Which chat mode wrote ``message``, when another wrote the reply before it in ``chat``
    ("Ask again with ... to compare", a mode changed mid-chat): "Written by “Follow the
    conversation”."; None for a chat's first reply and one in the mode before it."""
    replies = [m for m in chat.messages if m.role == "assistant"]
    at = next((i for i, m in enumerate(replies) if m is message), None)
    made = (message.trace or {}).get("chat_mode")
    before = (replies[at - 1].trace or {}).get("chat_mode") if at else None
    if not made or not before or before == made:
        return None
    return f"Written by \u201c{mode_name(made)}\u201d."


def mode_choices(current: str, *, advanced: bool) -> list[str]:
    """The internal names offered: every mode under ``advanced``, else the four people's
    modes (and the ``current`` one, so an opened chat keeps its mode)."""
    if advanced:
        return [m.value for m in ChatMode]
    shown = [m.value for m in PEOPLE_MODES]
    return shown + ([current] if current not in shown and current in MODE_NAMES else [])


def mode_select(current: str, *, advanced: bool, key: str) -> str:
    """The chat mode choice, named for people (the internal name too under ``advanced``), its
    one line below it (the technical one under ``advanced``); returns the internal name."""
    def label(mode: str) -> str:
        return f"{mode_name(mode)} ({mode})" if advanced else mode_name(mode)

    mode = st.selectbox("Chat mode", mode_choices(current, advanced=advanced), key=key,
                        format_func=label)
    # one line, not both: the people's line and the technical one say the same thing twice
    line = (CHAT_MODE_DESCRIPTIONS if advanced else MODE_LINES)[ChatMode(mode)]
    st.caption(line)
    return mode
