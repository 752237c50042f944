"""The chat prompts: condense, context chat, chat titles and the index agent's system prompt.

``CONDENSE`` turns a follow-up into a standalone question (``chat.condense``); ``CONTEXT_CHAT``
is the system message holding the passages for the context modes (``chat.context``), with
``NO_PASSAGES`` in their place when none was found. ``TITLE_PROMPT`` asks a writing model for a
chat's title (``chat.titles``), and ``INDEX_AGENT_PROMPT`` is the agents' default system prompt
when an index builds them (``engines.from_index``). Sibling of ``answer.py``: these templates share
its section markers; the agents' own formats are in ``agent.py``.
"""

from __future__ import annotations

from ..types import Message
from . import CONTEXT, CONVERSATION, FOLLOW_UP, STANDALONE_QUESTION, PromptTemplate

CONDENSE = PromptTemplate(
    name="condense",
    system=(
        "You rewrite the user's latest message as a question that can be understood without "
        "the conversation before it: replace pronouns and references with what they refer "
        "to. Reply with the rewritten question only."
    ),
    user=(f"{CONVERSATION}\n{{history}}\n\n{FOLLOW_UP} {{question}}\n{STANDALONE_QUESTION}"),
)

CONTEXT_CHAT = PromptTemplate(
    name="context",
    system=(
        "You are a helpful assistant chatting with a user about their documents. Ground your "
        "replies in the passages below; if they do not cover what the user asks, say so, and "
        "keep the conversation going naturally. Keep each reply short: a few sentences, or the "
        "list the user asks for.\n\n"
        f"{CONTEXT}\n{{context}}"
    ),
)
# In the prompt when no passage was found or none fits; counted as fixed, so it always fits.
NO_PASSAGES = "(no passages were found)"

# Filled with the first exchange, cut to 600 and 900 characters (``chat.titles``).
TITLE_PROMPT = (
    "Write a title of at most six words for a conversation that starts with this question and "
    "answer. Reply with the title only, no quotes.\n\nQuestion: {question}\n\nAnswer: {answer}"
)

# The system prompt of an agent over an index (its search tool is named search_documents).
INDEX_AGENT_PROMPT = (
    "You are a careful assistant for the user's documents. To answer questions about them, "
    "search with the search_documents tool instead of relying on memory, and answer from what "
    "it returns."
)


def format_history(messages: list[Message]) -> str:
    """A conversation as ``role: text`` lines, for the condense prompt's ``history`` field."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages if m.content)
