"""Synthesis: from a question and retrieved nodes to an answer, in eight response modes.

synthesizer.py  Synthesizer: validates options, budgets and lays out the context once
budget.py       the context budget; packing and cutting chunks to fit it
passages.py     a passage as the model reads it (a Markdown file's HTML as its text)
steps.py        Call/Batch and the driver that runs a plan against an LLM
refine.py       refine and compact (answer, then improve it chunk by chunk)
tree.py         tree_summarize (summaries of summaries down to one root)
accumulate.py   accumulate and compact_accumulate (one answer per chunk, listed)
single.py       simple_summarize and generation (one call)
not_found.py    the not-found gate: a logprob-capable LLM is asked first whether the passages
                answer, and a fixed refusal replaces the answer when they do not
modes.py        ResponseMode and a one-line description of each mode
response.py     Response (lazy, streamed or whole) and Source

The prompts the modes send are not here: their templates (``SynthesisPrompts``), the citation
rules and the not-found gate's check question and nudge are in ``ragcore.prompts.answer``.
"""

from .modes import MODE_DESCRIPTIONS, ResponseMode
from .response import Response, Source
from .synthesizer import NO_CONTEXT_ANSWER, Synthesizer

__all__ = [
    "MODE_DESCRIPTIONS",
    "NO_CONTEXT_ANSWER",
    "Response",
    "ResponseMode",
    "Source",
    "Synthesizer",
]
