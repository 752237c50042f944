"""The answer prompts: one template per response mode, the citation rules, the not-found words.

``SynthesisPrompts`` bundles the five templates the synthesizer's modes use (qa, refine,
summary, simple_summarize, generation) and checks each one's fields, so a caller's own wording
fails at construction, not mid-answer. ``CITATION_PROMPTS`` is the same set with
``CITATION_RULES`` before each system message (the citation engine's default). The not-found
gate (``synthesis.not_found``) reuses the answer prompt itself: it swaps the cue line for
``CHECK_QUESTION`` or adds ``ANSWER_NUDGE`` before it, and writes ``NOT_FOUND_SENTENCE``.
Sibling of ``chat.py`` (the chat modes' prompts), which shares the section markers.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

from ..errors import ConfigError
from ..types import Message
from . import (
    ANSWER,
    CONTEXT,
    EXISTING_ANSWER,
    NEW_CONTEXT,
    QUESTION,
    REFINED_ANSWER,
    PromptTemplate,
)

# The first sentence of a reply whose passages do not hold the answer: the prompts ask for it
# word for word, the not-found gate (``synthesis.not_found``) writes it, and readers test for it.
NOT_FOUND_SENTENCE = "Not found in the documents."

# What every answer looks like: a short answer a reader (or a measure) can pick out, a little
# support, and a fixed refusal. Prompt tokens cost a small local model ~22 ms each: keep it short.
# The form, not a worked example: the 1.5B model copied one ("The bridge opened in 1867.") into
# 10 of 60 held-out answers; with no form at all it wrote 2 of 40 answers in bold.
_ANSWER_SHAPE = (
    "Start with the short answer in **bold** (a name, number, date or phrase from the "
    "passages), then one short sentence of support from the passages, in this form: "
    "'**<short answer>**. <support>' If the passages do not contain the answer, reply only: "
    f"{NOT_FOUND_SENTENCE}"
)
# The form's slots, and the label the model makes of one: a small model sometimes copies them
# into its answer ("**<support>**The passage states ...", "... Sigman. **Support:** Stephanie
# ..."); the synthesizer takes them out of every answer as it streams.
FORM_SLOTS = ("**<short answer>**", "**<support>**", "<short answer>", "<support>",
              "**Support:** ", "**Support:**")

# What a gated answer is opened with: the model continues "**" with its short answer, so the
# gate (not the model's first token) decides whether it answers, and the answer has its form.
ANSWER_OPENING = "**"

_GROUNDED = (
    "You answer questions about a collection of documents from the passages you are given, not "
    "from what you already know. Answer directly, without phrases such as 'according to the "
    f"context'. {_ANSWER_SHAPE}"
)

QA = PromptTemplate(
    name="qa",
    system=_GROUNDED,
    user=f"{CONTEXT}\n{{context}}\n\n{QUESTION} {{question}}\n{ANSWER}",
    prefill=ANSWER_OPENING,
)

REFINE = PromptTemplate(
    name="refine",
    system=(
        "You improve an answer to a question about a collection of documents. You are given "
        "the answer written so far and more passages. If the new passages add or correct "
        "something, return the improved answer; if they do not help, return the existing "
        "answer unchanged. Keep its shape: the short answer in **bold** first, then one short "
        f"sentence of support; '{NOT_FOUND_SENTENCE}' stays only if the new passages do not "
        "answer either. Reply with the answer only, without mentioning the passages or that it "
        "was refined."
    ),
    user=(
        f"{EXISTING_ANSWER}\n{{existing_answer}}\n\n{NEW_CONTEXT}\n{{context}}\n\n"
        f"{QUESTION} {{question}}\n{REFINED_ANSWER}"
    ),
)

SUMMARY = PromptTemplate(
    name="summary",
    system=(
        "You combine information from several sources into one answer. The passages below "
        "come from different places (they may be excerpts or earlier partial answers). "
        "Merge what is relevant to the question into a single, non-repetitive answer using "
        "only these passages: the short answer in **bold** first, then the support. If none of "
        f"them answers the question, reply only: {NOT_FOUND_SENTENCE}"
    ),
    user=f"{CONTEXT}\n{{context}}\n\n{QUESTION} {{question}}\n{ANSWER}",
    prefill=ANSWER_OPENING,
)

SIMPLE_SUMMARIZE = PromptTemplate(
    name="simple_summarize",
    system=(
        "You answer a question in one pass over all the passages you are given, using only "
        f"them. {_ANSWER_SHAPE}"
    ),
    user=f"{CONTEXT}\n{{context}}\n\n{QUESTION} {{question}}\n{ANSWER}",
    prefill=ANSWER_OPENING,
)

# One part of a document summarised on request (``summaries.parts``): the parts stream one
# after another, each headed by where it is in the document, so the reply needs no preamble.
PART_SUMMARY = PromptTemplate(
    name="part_summary",
    system=(
        "You summarise one part of a longer document for someone who has not read it: two or "
        "three plain sentences, one paragraph, on what this part says, using only the "
        "passages. Do not repeat the document's title or say what the whole document is; no "
        "preamble, no heading."
    ),
    user=f"{CONTEXT}\n{{context}}\n\nThese passages are {{part}} of “{{title}}”. Summary of "
         "this part:",
)

# The answer templates of the kinds of question that are not one fact (``grounding.kinds``): a
# list is answered item by item in the passages' words, an overview in a few sentences; neither
# is forced into the factoid's bold short answer.
LIST_QA = PromptTemplate(
    name="list_qa",
    system=(
        "You answer questions about a collection of documents from the passages you are given, "
        "not from what you already know. The question asks for a list: reply with every item "
        "the passages give, one per line, each line starting with '- ' and written in the "
        "passages' own words. No introduction and no items the passages do not state. If the "
        f"passages do not give the list, reply only: {NOT_FOUND_SENTENCE}"
    ),
    user=f"{CONTEXT}\n{{context}}\n\n{QUESTION} {{question}}\n{ANSWER}",
    prefill="- ",
)

OVERVIEW = PromptTemplate(
    name="overview",
    system=(
        "You answer questions about a collection of documents from the passages you are given, "
        "not from what you already know. Answer in two to four short sentences that say only "
        "what the passages say, in their words where you can. If the passages say nothing "
        f"about it, reply only: {NOT_FOUND_SENTENCE}"
    ),
    user=f"{CONTEXT}\n{{context}}\n\n{QUESTION} {{question}}\n{ANSWER}",
)
# Which template answers each kind of question, in place of qa, summary and simple_summarize.
KIND_TEMPLATES = {"list": LIST_QA, "summary": OVERVIEW, "comparison": OVERVIEW,
                  "document": OVERVIEW}

GENERATION = PromptTemplate(
    name="generation",
    system="You are a helpful assistant. Answer the question from your own knowledge.",
    user=f"{QUESTION} {{question}}\n{ANSWER}",
)


_CONTEXT_FIELDS = frozenset({"context", "question"})


@dataclass(frozen=True, slots=True)
class SynthesisPrompts:
    """The templates the response modes use (our defaults above)."""

    qa: PromptTemplate = QA
    refine: PromptTemplate = REFINE
    summary: PromptTemplate = SUMMARY
    simple_summarize: PromptTemplate = SIMPLE_SUMMARIZE
    generation: PromptTemplate = GENERATION

    def __post_init__(self) -> None:
        expected = {
            "qa": _CONTEXT_FIELDS,
            "refine": _CONTEXT_FIELDS | {"existing_answer"},
            "summary": _CONTEXT_FIELDS,
            "simple_summarize": _CONTEXT_FIELDS,
            "generation": frozenset({"question"}),
        }
        for role, fields in expected.items():
            template: PromptTemplate = getattr(self, role)
            if template.fields != fields:
                raise ConfigError(
                    f"the {role} prompt must have the fields {sorted(fields)}, "
                    f"but {template.name!r} has {sorted(template.fields)}"
                )

    def for_kind(self, kind: str) -> SynthesisPrompts:
        """These prompts for a question of ``kind`` (``grounding.kinds``): the kind's template in
        place of each one-answer template still at its default (a caller's own stays)."""
        template = KIND_TEMPLATES.get(kind)
        if template is None:
            return self
        defaults = {"qa": QA, "summary": SUMMARY, "simple_summarize": SIMPLE_SUMMARIZE}
        lead = _lead(self.qa, QA)
        chosen = template if lead is None else dataclasses.replace(
            template, system=f"{lead}{template.system}")
        return dataclasses.replace(self, **{
            role: chosen for role, default in defaults.items()
            if _lead(getattr(self, role), default) is not None})

    def with_system_prompt(self, system_prompt: str) -> SynthesisPrompts:
        """These prompts with ``system_prompt`` before each one's own system message."""
        lead = system_prompt.strip().replace("{", "{{").replace("}", "}}")
        if not lead:
            return self
        templates = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        return SynthesisPrompts(**{
            role: dataclasses.replace(t, system=f"{lead}\n\n{t.system}")
            for role, t in templates.items()
        })


def _lead(template: PromptTemplate, default: PromptTemplate) -> str | None:
    """What ``with_system_prompt`` put before ``default``'s system message in ``template`` ("" for
    the default itself); None when ``template`` is a caller's own."""
    if (template.user, template.prefill) != (default.user, default.prefill):
        return None
    if not template.system.endswith(default.system):
        return None
    return template.system[: len(template.system) - len(default.system)]


# Put before every answer template by the citation engine (``engines.citation``).
CITATION_RULES = (
    "The passages are numbered sources, each starting with a line 'Source N:'. Cite the "
    "sources you use: put the number of each source a statement comes from in square brackets "
    "right after the statement, like [1], or [1][3] for several. Every answer cites at least "
    "one source; cite a source only where you use it, and keep citations an earlier answer "
    "already has. If no source helps, say so and cite none.\n"
    "For example, given 'Source 1:\\nThe sky is red in the evening.' and 'Source 2:\\nWater "
    "is wet.', the question 'When is the sky red?' is answered 'In the evening [1].'"
)
CITATION_PROMPTS = SynthesisPrompts().with_system_prompt(CITATION_RULES)

def asked_instead(messages: Sequence[Message], line: str) -> list[Message]:
    """The answer prompt ``messages`` (no prefill) with its cue line ("Answer:") replaced by
    ``line``: every token before the cue is shared, so a model that caches prompts reads only
    ``line`` (the not-found gate's check, the grounding judge's question)."""
    *head, last = messages
    body, _ = _cue_split(last.content)
    return [*head, Message(last.role, f"{body}\n{line}")]


def said_before_cue(messages: Sequence[Message], line: str) -> list[Message]:
    """The answer prompt with ``line`` on the line before its cue (the gate's nudge), or last
    when it has no cue."""
    *head, last = messages
    body, cue = _cue_split(last.content)
    return [*head, Message(last.role, f"{body}\n{line}{cue}")]


def _cue_split(body: str) -> tuple[str, str]:
    """``body`` before its last line when that line is a cue ("Answer:"), and the cue with its
    line break ("" when there is none)."""
    cut = body.rfind("\n")
    if cut >= 0 and body[cut + 1:].rstrip().endswith(":"):
        return body[:cut], body[cut:]
    return body, ""


# The not-found gate's check pass: the answer prompt with its cue line replaced by this.
CHECK_QUESTION = "Do the passages contain the answer to this question? Reply Yes or No."
# Said after the question when the gate lets a prompt through that the model would refuse: the
# gate, not the model's first token, decides (the prompt's prefix is shared, so it costs little).
ANSWER_NUDGE = "The passages contain the answer."
