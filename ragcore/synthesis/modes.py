"""The eight response modes (LlamaIndex's names and meanings) and a one-line explanation of each."""

from __future__ import annotations

from enum import Enum

from ..errors import ConfigError


class ResponseMode(str, Enum):
    """How retrieved chunks become an answer."""

    REFINE = "refine"
    COMPACT = "compact"
    SIMPLE_SUMMARIZE = "simple_summarize"
    TREE_SUMMARIZE = "tree_summarize"
    GENERATION = "generation"
    NO_TEXT = "no_text"
    ACCUMULATE = "accumulate"
    COMPACT_ACCUMULATE = "compact_accumulate"

    @classmethod
    def parse(cls, value: str | ResponseMode) -> ResponseMode:
        """The mode named by ``value``, or ConfigError listing the valid names."""
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(m.value for m in cls)
            raise ConfigError(f"unknown response mode {value!r}: choose one of {names}") from None


MODE_DESCRIPTIONS: dict[ResponseMode, str] = {
    ResponseMode.REFINE: (
        "Answers from the first chunk, then asks the model to improve that answer with each "
        "further chunk in turn: one LLM call per chunk."
    ),
    ResponseMode.COMPACT: (
        "Like refine, but first packs as many chunks as fit into each prompt, so it needs "
        "fewer LLM calls (usually one). The default."
    ),
    ResponseMode.SIMPLE_SUMMARIZE: (
        "Puts all chunks into a single prompt (cutting off what does not fit) and makes one "
        "LLM call."
    ),
    ResponseMode.TREE_SUMMARIZE: (
        "Summarizes packed groups of chunks with the question in mind, then summarizes the "
        "summaries, level by level, until one answer remains."
    ),
    ResponseMode.GENERATION: (
        "Ignores the retrieved chunks and lets the model answer from its own knowledge."
    ),
    ResponseMode.NO_TEXT: (
        "Makes no LLM call: returns only the retrieved chunks, to inspect what retrieval found."
    ),
    ResponseMode.ACCUMULATE: (
        "Asks the question of each chunk separately and lists every answer, one per chunk."
    ),
    ResponseMode.COMPACT_ACCUMULATE: (
        "Like accumulate, but packs chunks into as few prompts as fit first, so fewer answers "
        "and LLM calls."
    ),
}
