"""LLM reranking: the LLM reads the retrieved passages and scores each one's relevance
(LlamaIndex's ``LLMRerank``), a postprocessor like those in ``ragcore.postprocess``.

The plan is written without I/O: ``rerank_messages`` numbers a batch of passages beside the
question, ``parse_relevance`` reads lines such as ``Doc: 2, Relevance: 8`` (any order, extra
text ignored, numbers out of range dropped); ``LLMRerank.postprocess`` asks once per batch of
``choice_batch_size`` and keeps the ``top_n`` most relevant, scored by relevance (1-10) so a
later similarity cutoff does not mix scales unknowingly. Passages the model leaves out are
dropped, as in LlamaIndex. The offline extractive backend cannot judge relevance: with it the
retrieval order is kept (cut to ``top_n``) and a log line says so.
"""

from __future__ import annotations

import logging
import re
from typing import Sequence

from .errors import ConfigError
from .llms.base import LLM, complete, writes_free_text
from .postprocess import Postprocessor
from .types import Message, MetadataMode, ScoredNode

logger = logging.getLogger(__name__)

_SYSTEM = (
    "You judge which documents help answer a question. For each helpful document write one "
    "line 'Doc: <number>, Relevance: <1-10>', most relevant first; leave out documents that "
    "do not help. Write nothing else."
)
_LINE = re.compile(r"doc(?:ument)?\s*:?\s*#?(\d+)\s*[,;]?\s*relevance\s*:?\s*(\d+(?:\.\d+)?)",
                   re.IGNORECASE)


def rerank_messages(query: str, nodes: Sequence[ScoredNode]) -> list[Message]:
    """The prompt: the numbered passages (1-based), then the question."""
    docs = "\n\n".join(f"Document {i}:\n{n.node.content(MetadataMode.LLM)}"
                       for i, n in enumerate(nodes, start=1))
    return [Message("system", _SYSTEM), Message("user", f"{docs}\n\nQuestion: {query}\nAnswer:")]


def parse_relevance(reply: str, count: int) -> list[tuple[int, float]]:
    """(0-based document index, relevance) pairs from the reply, first mention of each kept."""
    seen: set[int] = set()
    pairs = []
    for number, relevance in _LINE.findall(reply):
        index = int(number) - 1
        if 0 <= index < count and index not in seen:
            seen.add(index)
            pairs.append((index, float(relevance)))
    return pairs


class LLMRerank(Postprocessor):
    """Reorders (and filters) nodes by the relevance the LLM gives each one."""

    def __init__(self, *, llm: LLM, choice_batch_size: int = 10, top_n: int = 10) -> None:
        for name, value in (("choice_batch_size", choice_batch_size), ("top_n", top_n)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} ({value!r}) must be a whole number of at least 1")
        self.llm = llm
        self.choice_batch_size = choice_batch_size
        self.top_n = top_n

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        if not writes_free_text(self.llm):
            logger.info("LLMRerank: the extractive backend cannot judge relevance; "
                        "keeping the retrieval order")
            return list(nodes)[: self.top_n]
        judged: list[tuple[float, int, ScoredNode]] = []
        for start in range(0, len(nodes), self.choice_batch_size):
            batch = nodes[start: start + self.choice_batch_size]
            reply = complete(self.llm, rerank_messages(query, batch))
            for index, relevance in parse_relevance(reply, len(batch)):
                judged.append((relevance, start + index, batch[index]))
        judged.sort(key=lambda item: (-item[0], item[1]))
        return [ScoredNode(n.node, relevance) for relevance, _, n in judged[: self.top_n]]
