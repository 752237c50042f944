"""Reranking: the retrieved passages reordered by a judge that reads each one with the
question, postprocessors like those in ``ragcore.postprocess``: an LLM (``LLMRerank``), a
cross-encoder model on disk (``SentenceTransformerRerank``), or the packaged reader
(``ReaderRerank``: each passage by its sentence most likely to state the answer).

For ``LLMRerank`` the LLM reads the passages and scores each one's relevance.

The plan is written without I/O: ``rerank_messages`` numbers a batch of passages beside the
question (``ragcore.prompts.retrieval.RERANK``), ``parse_relevance`` reads lines such as
``Doc: 2, Relevance: 8`` (any order, extra text ignored, numbers out of range dropped);
``LLMRerank.postprocess`` asks once per batch of ``choice_batch_size`` and keeps the ``top_n`` most relevant, scored by relevance (1-10) so a
later similarity cutoff does not mix scales unknowingly. Passages the model leaves out are
dropped, as in LlamaIndex. The offline extractive backend cannot judge relevance: with it the
retrieval order is kept (cut to ``top_n``) and a log line says so.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import re
from pathlib import Path
from typing import Any, Sequence

from ..errors import ConfigError
from ..llms.base import LLM, complete_traced, writes_free_text
from ..postprocess import Postprocessor
from ..prompts.retrieval import RERANK
from ..synthesis.passages import prompt_text
from ..trace import Trace
from ..types import Message, MetadataMode, ScoredNode

logger = logging.getLogger(__name__)

_LINE = re.compile(r"doc(?:ument)?\s*:?\s*#?(\d+)\s*[,;]?\s*relevance\s*:?\s*(\d+(?:\.\d+)?)",
                   re.IGNORECASE)


def rerank_messages(query: str, nodes: Sequence[ScoredNode]) -> list[Message]:
    """The prompt: the numbered passages (1-based), then the question."""
    docs = "\n\n".join(f"Document {i}:\n{prompt_text(n.node)}"
                       for i, n in enumerate(nodes, start=1))
    return RERANK.format(documents=docs, query=query)


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
        return self.postprocess_traced(nodes, query, None)

    def postprocess_traced(
        self, nodes: list[ScoredNode], query: str, trace: Trace | None
    ) -> list[ScoredNode]:
        """``postprocess``, recording each batch's LLM call and the relevance it gave each
        passage (``trace.notes["rerank"]``)."""
        if not writes_free_text(self.llm):
            logger.info("LLMRerank: the extractive backend cannot judge relevance; "
                        "keeping the retrieval order")
            if trace is not None:
                trace.notes["rerank"] = ("the extractive backend cannot judge relevance: the "
                                         "retrieval order was kept")
            return list(nodes)[: self.top_n]
        judged: list[tuple[float, int, ScoredNode]] = []
        for start in range(0, len(nodes), self.choice_batch_size):
            batch = nodes[start: start + self.choice_batch_size]
            purpose = f"rerank {start + 1}-{start + len(batch)}"
            reply = complete_traced(self.llm, rerank_messages(query, batch), trace, purpose)
            for index, relevance in parse_relevance(reply, len(batch)):
                judged.append((relevance, start + index, batch[index]))
        judged.sort(key=lambda item: (-item[0], item[1]))
        if trace is not None:
            trace.notes["rerank"] = [
                {"passage": position + 1, "relevance": relevance, "text": n.node.text[:80]}
                for relevance, position, n in judged]
        return [ScoredNode(n.node, relevance) for relevance, _, n in judged[: self.top_n]]


class SentenceTransformerRerank(Postprocessor):
    """Reorders nodes by a cross-encoder's relevance score for (question, passage) pairs
    (LlamaIndex's ``SentenceTransformerRerank``), keeping the ``top_n`` best.

    A cross-encoder reads the question and the passage together, so it judges relevance better
    than comparing two separate embeddings, at the price of one model pass per passage. The
    model is a folder on disk (``save_pretrained`` output, e.g. a downloaded
    ``cross-encoder/ms-marco-MiniLM-L-6-v2``) or a name already in the Hugging Face cache:
    ragcore downloads nothing. It is loaded on first use, once per process.
    """

    def __init__(self, *, model: str | Path, top_n: int = 2, keep_retrieval_score: bool = False,
                 batch_size: int = 32) -> None:
        for name, value in (("top_n", top_n), ("batch_size", batch_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} ({value!r}) must be a whole number of at least 1")
        if not isinstance(model, (str, Path)) or not str(model).strip():
            raise ConfigError(f"model ({model!r}) must be a cross-encoder's folder or name")
        self.model = str(model)
        self.top_n = top_n
        self.keep_retrieval_score = bool(keep_retrieval_score)
        self.batch_size = batch_size

    def scores(self, query: str, nodes: Sequence[ScoredNode]) -> list[float]:
        """The cross-encoder's score of each passage for ``query``."""
        if not nodes:
            return []
        pairs = [(query, n.node.content(MetadataMode.EMBED)) for n in nodes]
        encoder = load_cross_encoder(self.model)
        return [float(s) for s in encoder.predict(pairs, batch_size=self.batch_size,
                                                  show_progress_bar=False)]

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return self.postprocess_traced(nodes, query, None)

    def postprocess_traced(
        self, nodes: list[ScoredNode], query: str, trace: Trace | None
    ) -> list[ScoredNode]:
        """``postprocess``, with each passage's score in ``trace.notes["rerank"]``."""
        scores = self.scores(query, nodes)
        order = _by_score(nodes, scores, trace)
        kept = []
        for i in order[: self.top_n]:
            node = nodes[i].node
            if self.keep_retrieval_score:
                node = dataclasses.replace(node, metadata={**node.metadata,
                                                           "retrieval_score": nodes[i].score})
            kept.append(ScoredNode(node, scores[i]))
        return kept


class ReaderRerank(Postprocessor):
    """Reorders nodes by the packaged reader (``ragcore.reading``, trained here): a passage
    scores the chance of its prose sentence most likely to state the answer to the question
    (``grounding.stating``, the same reading the answer check does), ties in retrieval order;
    the ``top_n`` best are kept. Without the reader's weights the retrieval order is kept."""

    def __init__(self, *, top_n: int = 4) -> None:
        if isinstance(top_n, bool) or not isinstance(top_n, int) or top_n < 1:
            raise ConfigError(f"top_n ({top_n!r}) must be a whole number of at least 1")
        self.top_n = top_n

    def scores(self, query: str, nodes: Sequence[ScoredNode]) -> list[float]:
        """Each passage's best sentence's chance of stating the answer to ``query``."""
        from ..grounding import stating

        best = [0.0] * len(nodes)
        for found in stating.stated(query, [n.node.text for n in nodes]):
            best[found.passage] = max(best[found.passage], found.chance)
        return best

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return self.postprocess_traced(nodes, query, None)

    def postprocess_traced(
        self, nodes: list[ScoredNode], query: str, trace: Trace | None
    ) -> list[ScoredNode]:
        """``postprocess``, with each passage's chance in ``trace.notes["rerank"]``."""
        scores = self.scores(query, nodes)
        order = _by_score(nodes, scores, trace)
        return [ScoredNode(nodes[i].node, scores[i]) for i in order[: self.top_n]]


def _by_score(nodes: Sequence[ScoredNode], scores: Sequence[float], trace: Trace | None
              ) -> list[int]:
    """The nodes' positions, highest score first (ties in retrieval order), each passage's
    score noted in ``trace.notes["rerank"]``."""
    order = sorted(range(len(nodes)), key=lambda i: (-scores[i], i))
    if trace is not None:
        trace.notes["rerank"] = [{"passage": i + 1, "relevance": round(scores[i], 4),
                                  "text": nodes[i].node.text[:80]} for i in order]
    return order


@functools.lru_cache(maxsize=4)
def load_cross_encoder(model: str) -> Any:
    """A sentence-transformers ``CrossEncoder`` from a folder or the local cache, once."""
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as exc:
        raise ConfigError("a cross-encoder needs sentence-transformers: "
                          "pip install 'ragcore[local]'") from exc
    local = Path(model).expanduser()
    if not local.is_dir() and ("/" not in model or local.is_absolute() or model.startswith(".")):
        raise ConfigError(f"cross-encoder {model!r} is not a folder on this machine: give the "
                          "folder of a saved cross-encoder (ragcore downloads no models)")
    try:
        return CrossEncoder(str(local) if local.is_dir() else model, device="cpu",
                            local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"could not load the cross-encoder {model!r}: {exc}. Give the folder "
                          "of a saved sentence-transformers cross-encoder") from exc
