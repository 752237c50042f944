"""Chat over an index: the chat modes, their engines, and the reply object they share.

Every engine (and agent) answers ``chat(message, memory, *, trace=None) -> ChatResponse``; the
caller owns the ``ChatMemory`` and passes it in, so engines are stateless and shareable.

    simple                  SimpleChatEngine              the model and the conversation
    condense_question       CondenseQuestionChatEngine    standalone question -> query engine
    context                 ContextChatEngine             retrieve with the message -> chat
    condense_plus_context   CondensePlusContextChatEngine standalone question -> retrieve -> chat
    react                   ragcore.agent.ReActAgent      agent with the index as a tool
    best                    chosen for the LLM (see ``modes``)

``ragcore.engines.from_index.chat_engine_from_index`` builds the engine of a mode over an index.
``ChatSession`` wraps any of them with a memory of its own (LlamaIndex's stateful shape:
``chat(message)``, ``stream_chat``, ``reset``, ``chat_history``). ``progress`` says what a
person is told while a reply is made: the passages' reading, the draft, its check
(``turn_states``); ``agent_progress``, the step an agent is on and its seconds, from the
start (``agent_states``). ``refers_back`` says whether a message leans on an earlier turn: only
such a follow-up is rewritten before the search (``follow_up``).
"""

from .agent_progress import FIRST_STEP, AgentProgress, StepTaken, agent_states
from .condense import CondenseQuestionChatEngine, condense_question
from .context import CondensePlusContextChatEngine, ContextChatEngine
from .follow_up import refers_back
from .modes import (
    CHAT_MODE_DESCRIPTIONS,
    ChatMode,
    best_chat_mode,
    parse_chat_mode,
)
from .progress import (
    CHECKING_LABEL,
    DRAFT_LABEL,
    FOLLOW_UP_LABEL,
    SEARCHING_LABEL,
    TICK_SECONDS,
    WORDS_PER_TOKEN,
    Checked,
    Checking,
    Draft,
    Reading,
    pulled,
    reading_rate,
    turn_states,
)
from .response import ChatEngine, ChatResponse
from .session import ChatSession
from .simple import SimpleChatEngine

__all__ = [
    "FIRST_STEP",
    "AgentProgress",
    "StepTaken",
    "agent_states",
    "CHAT_MODE_DESCRIPTIONS",
    "CHECKING_LABEL",
    "DRAFT_LABEL",
    "FOLLOW_UP_LABEL",
    "SEARCHING_LABEL",
    "TICK_SECONDS",
    "WORDS_PER_TOKEN",
    "Checked",
    "Checking",
    "Draft",
    "Reading",
    "pulled",
    "reading_rate",
    "turn_states",
    "ChatEngine",
    "ChatMode",
    "ChatResponse",
    "ChatSession",
    "CondensePlusContextChatEngine",
    "CondenseQuestionChatEngine",
    "ContextChatEngine",
    "SimpleChatEngine",
    "best_chat_mode",
    "condense_question",
    "parse_chat_mode",
    "refers_back",
]
