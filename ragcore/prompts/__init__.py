"""Every prompt the library sends, in one package; here the template type and its section markers.

    prompts/__init__.py  PromptTemplate, the section markers, read_sections, message_tokens and
                         the token constants the prompt budget counts with
    answer.py            the answer modes' templates (qa, refine, summary, simple_summarize,
                         generation) as SynthesisPrompts, the citation rules, the not-found
                         sentence and the not-found gate's check question and nudge
    chat.py              condense, context chat, chat titles, the index agent's system prompt
    retrieval.py         query fusion, HyDE, LLM rerank, the router's selector, sub-questions
    agent.py             the ReAct header and format hint, the function-calling system prompt
    judge.py             the evaluation judge's prompts and the question-generation prompt

The package sits in a low layer (``pyproject.toml``): it holds text and templates and imports
only ``types``, ``errors`` and ``tokens``. The code that fills a prompt in and reads the reply
stays with its stage (``retrieval.rerank`` builds the rerank prompt from ``RERANK`` and parses
the reply), so a prompt's wording is found, and can be checked, here alone.

The answer and chat templates mark their sections with fixed labels at the start of a line, so
that a human reading a trace (and a tool reading traces, such as the benchmarks) can find the
parts. No backend reads them back: the offline extractive backend (``ragcore.llms.extractive.backend``)
gets each call's ``types.AnswerRequest`` instead, so a user's own templates need none of these
markers.

    ========================  ===============================================================
    marker (line start)       what follows it
    ========================  ===============================================================
    ``Context:``              retrieved passages, up to the next marker line (qa, summary,
                              simple_summarize; in the *system* message of the context prompt)
    ``Existing answer:``      the answer so far (refine)
    ``New context:``          further passages that may improve the answer (refine)
    ``Conversation:``         the chat so far, one ``role: text`` line per message (condense)
    ``Follow-up question:``   the user's latest message (condense)
    ``Question:``             the user's question; always the last section before the cue
    ``Answer:`` / ``Refined answer:`` / ``Standalone question:``
                              the cue where the model's reply begins (always the last line)
    ========================  ===============================================================

Sections appear in the order listed in each template (``answer.py``, ``chat.py``), each marker
on its own line (the question shares its line with ``Question:``). Passages may themselves
contain words such as "Question:", so a reader should take the *last* ``Question:`` line as the
question and the text between the *first* context marker and the next section marker after the
passages as the context: ``read_sections`` does exactly that and is the reference parser (tests
round-trip it).

Which template is which: ``name`` says so (and the request's ``kind`` beside each call).
The ReAct prompt has its own format (``agent.py``), read by ``ragcore.agent.react_parser``.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..errors import ConfigError
from ..tokens import count_tokens
from ..types import Message

CONTEXT = "Context:"
EXISTING_ANSWER = "Existing answer:"
NEW_CONTEXT = "New context:"
CONVERSATION = "Conversation:"
FOLLOW_UP = "Follow-up question:"
QUESTION = "Question:"
ANSWER = "Answer:"
REFINED_ANSWER = "Refined answer:"
STANDALONE_QUESTION = "Standalone question:"

MARKERS = (
    CONTEXT,
    EXISTING_ANSWER,
    NEW_CONTEXT,
    CONVERSATION,
    FOLLOW_UP,
    QUESTION,
    ANSWER,
    REFINED_ANSWER,
    STANDALONE_QUESTION,
)

# Chat formats wrap each message in a few tokens of role markup that servers count too.
MESSAGE_OVERHEAD_TOKENS = 4
# Filling a field can change tokenization at its edges by a token or so on each side.
FIELD_MARGIN_TOKENS = 2


# LlamaIndex's field names for ours: a template written for LlamaIndex works as it is.
FIELD_ALIASES = {"context_str": "context", "query_str": "question"}
_ALIAS_RE = re.compile(r"(?<!\{)\{(" + "|".join(FIELD_ALIASES) + r")\}(?!\})")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A system message and (unless ``user`` is None) a user message with ``{field}`` slots.

    Slots use ``str.format`` syntax: write a literal brace in the template text as ``{{``.
    LlamaIndex's ``{context_str}`` and ``{query_str}`` are read as ``{context}`` and
    ``{question}``; an empty ``system`` sends no system message.
    """

    name: str
    system: str
    user: str | None = None
    # The reply's first characters, given to a model that continues them (the not-found gate's
    # packaged model): "**" makes a gated answer open with its bold short answer, as asked.
    prefill: str = ""

    def __post_init__(self) -> None:
        for part in ("system", "user"):
            text = getattr(self, part)
            if text is not None:
                object.__setattr__(self, part, _ALIAS_RE.sub(_alias, text))

    @classmethod
    def from_string(cls, template: str, *, name: str = "custom") -> PromptTemplate:
        """A one-message template (LlamaIndex's ``PromptTemplate(text)``): no system message."""
        if not isinstance(template, str) or not template.strip():
            raise ConfigError(f"a prompt template must be non-empty text, got {template!r}")
        return cls(name, "", template)

    @property
    def fields(self) -> frozenset[str]:
        """The ``{field}`` names the template needs."""
        return _fields(self.system, self.user or "")

    def format(self, **values: str) -> list[Message]:
        """The chat messages with every field filled in (LlamaIndex's field names accepted)."""
        values = {FIELD_ALIASES.get(name, name): value for name, value in values.items()}
        missing = self.fields - values.keys()
        extra = values.keys() - self.fields
        if missing or extra:
            raise ConfigError(
                f"prompt {self.name!r} takes fields {sorted(self.fields)}; "
                f"missing {sorted(missing)}, unexpected {sorted(extra)}"
            )
        messages = [Message("system", self.system.format(**values))] if self.system else []
        if self.user is not None:
            messages.append(Message("user", self.user.format(**values)))
        return messages

    def uses(self, field: str) -> int:
        """How many slots of ``field`` the template has (a question may be asked twice)."""
        return _slots(self.system, self.user or "")[FIELD_ALIASES.get(field, field)]

    @property
    def slots(self) -> int:
        """The number of ``{field}`` slots, every use counted."""
        return sum(_slots(self.system, self.user or "").values())

    def fixed_tokens(self) -> int:
        """Tokens of the template with every field empty, plus chat-format overhead (cached)."""
        return _fixed_tokens(self)

    def tokens_with(self, **values: str) -> int:
        """An upper estimate of the formatted prompt's tokens, counting only the given values.

        Fields not given count as empty: callers pass the fixed parts (the question) and
        budget the rest (the context) themselves.
        """
        counted = sum(count_tokens(v) * self.uses(k) for k, v in values.items())
        return self.fixed_tokens() + counted + FIELD_MARGIN_TOKENS * self.slots


def _alias(match: re.Match[str]) -> str:
    return "{" + FIELD_ALIASES[match.group(1)] + "}"


def _fields(*texts: str) -> frozenset[str]:
    return frozenset(_slots(*texts))


def _slots(*texts: str) -> Counter[str]:
    return Counter(f for text in texts for _, f, _, _ in string.Formatter().parse(text) if f)


def message_tokens(message: Message) -> int:
    """Tokens ``message`` costs in a chat prompt: its text, its tool calls and the role markup."""
    calls = sum(count_tokens(c.name) + count_tokens(c.arguments) for c in message.tool_calls)
    return count_tokens(message.content) + calls + MESSAGE_OVERHEAD_TOKENS


@lru_cache(maxsize=64)
def _fixed_tokens(template: PromptTemplate) -> int:
    empty = {name: "" for name in template.fields}
    messages = template.format(**empty)
    if template.prefill:  # given to the model as the start of its reply (a message of its own)
        messages.append(Message("assistant", template.prefill))
    return sum(map(message_tokens, messages))


_MARKER_LINE = re.compile(
    r"^(" + "|".join(re.escape(m) for m in MARKERS) + r")[ \t]*", re.MULTILINE
)


def read_sections(text: str) -> dict[str, str]:
    """Split a formatted prompt into ``{marker: content}`` (the reference parser for markers).

    A context section (``Context:`` or ``New context:``) runs to the last ``Question:`` line
    after it, or to the end of the text when there is none, so marker-like lines inside the
    passages stay part of the passages. Every other section runs to the next marker line.
    """
    hits = list(_MARKER_LINE.finditer(text))
    questions = [i for i, h in enumerate(hits) if h.group(1) == QUESTION]
    sections: dict[str, str] = {}
    i = 0
    while i < len(hits):
        marker = hits[i].group(1)
        nxt = i + 1
        if marker in (CONTEXT, NEW_CONTEXT):
            nxt = questions[-1] if questions and questions[-1] > i else len(hits)
        end = hits[nxt].start() if nxt < len(hits) else len(text)
        sections.setdefault(marker, text[hits[i].end() : end].strip())
        i = nxt
    return sections
