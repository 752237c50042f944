"""Answers that cite their sources by number: LlamaIndex's ``CitationQueryEngine``.

The retrieved passages are split again into citation chunks of ``citation_chunk_size`` tokens,
and each chunk becomes a numbered source whose text reads ``"Source N:\\n<chunk>\\n"``, as
LlamaIndex's do. The synthesizer reads them with prompts that ask for ``[N]`` after each claim
(``CITATION_PROMPTS``: ``CITATION_RULES`` before each of ragcore's own system messages, so the
answer modes keep their behaviour; both in ``ragcore.prompts.answer``). A language model writes
the numbers itself. The offline extractive answerer cannot follow instructions; it quotes whole
sentences, so each quoted line is given the number of every source it was quoted from
(``cite_quotes``): an extractive answer cites too. Either way the answer streams through
``prompts.citation_marks.normalised_citations``, so "Source 1.", "(Sources 1, 3)" or "[1][2]"
reach the reader as ``[1]``, ``[1] [3]``, ``[1] [2]``, and a number above the sources is dropped.

It differs from the plain ``QueryEngine`` in its sources only: the same retrieval and
postprocessors run first, then the citation split, then the usual synthesis.
"""

from __future__ import annotations

import re
from typing import Iterable, Iterator, Sequence

from ..chunking import SentenceSplitter
from ..errors import ConfigError
from ..llms.base import LLM
from ..llms.extractive.backend import LABEL, ExtractiveLLM
from ..postprocess import NodePostprocessor
from ..prompts.answer import CITATION_PROMPTS, SynthesisPrompts
from ..prompts.citation_marks import normalised_citations
from ..query import QueryEngine
from ..retrieval import Retriever
from ..synthesis import Response, ResponseMode, Synthesizer
from ..trace import Trace
from ..types import Node, ScoredNode

DEFAULT_CITATION_CHUNK_SIZE = 512  # LlamaIndex's defaults
DEFAULT_CITATION_CHUNK_OVERLAP = 20

_WORD = re.compile(r"\w+")
_MARKER = re.compile(r"\[\d+\]")
# A quoted line: its bullet, the "Source N:" label a quote may start with (the sentence went on
# after the label's line break; "[N]" once citation marks were normalised), the quote, its final
# punctuation.
_LABEL = r"(?:Source \d+:|\[\d+\])"
_QUOTE_LINE = re.compile(
    rf"^(?P<lead>\s*(?:[-*]\s+)?)(?:{_LABEL}\s*)?(?P<quote>.*?)(?P<end>[.!?:;]?)\s*$")
_LABELLED = re.compile(rf"^(\s*(?:[-*]\s+)?){_LABEL}", re.MULTILINE)
MIN_QUOTE_WORDS = 3  # shorter lines ("Summary:") appear in many sources by chance


class CitationSplitter:
    """The postprocessor that turns passages into numbered citation sources."""

    def __init__(
        self, *, chunk_size: int = DEFAULT_CITATION_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CITATION_CHUNK_OVERLAP,
    ) -> None:
        self.splitter = SentenceSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)

    def postprocess(self, nodes: Sequence[ScoredNode], query: str = "") -> list[ScoredNode]:
        """Each passage split at the citation size, numbered from 1 in the order given."""
        sources: list[ScoredNode] = []
        for scored in nodes:
            node = scored.node
            for part, chunk in enumerate(self.splitter.split_text(node.text)):
                # No offsets: "Source N:" makes the text differ from the document's.
                source = Node(
                    text=f"Source {len(sources) + 1}:\n{chunk}\n",
                    node_id=f"{node.node_id}#citation-{part}", ref_doc_id=node.ref_doc_id,
                    metadata=dict(node.metadata),
                    excluded_embed_metadata_keys=list(node.excluded_embed_metadata_keys),
                    excluded_llm_metadata_keys=list(node.excluded_llm_metadata_keys),
                )
                sources.append(ScoredNode(source, scored.score))
        return sources


class CitationQueryEngine(QueryEngine):
    """A query engine whose answers cite numbered sources, split at ``citation_chunk_size``."""

    def __init__(
        self,
        retriever: Retriever,
        llm: LLM,
        *,
        citation_chunk_size: int = DEFAULT_CITATION_CHUNK_SIZE,
        citation_chunk_overlap: int = DEFAULT_CITATION_CHUNK_OVERLAP,
        response_mode: ResponseMode | str = ResponseMode.COMPACT,
        postprocessors: Sequence[NodePostprocessor] = (),
        prompts: SynthesisPrompts = CITATION_PROMPTS,
    ) -> None:
        if not isinstance(citation_chunk_size, int) or citation_chunk_size < 16:
            raise ConfigError(f"citation_chunk_size ({citation_chunk_size!r}) must be a whole "
                              "number of tokens, at least 16 (LlamaIndex's default is 512)")
        splitter = CitationSplitter(chunk_size=citation_chunk_size,
                                    chunk_overlap=citation_chunk_overlap)
        synthesizer = Synthesizer(llm, response_mode=response_mode, prompts=prompts)
        super().__init__(retriever, synthesizer, postprocessors=[*postprocessors, splitter])

    def query(self, question: str, *, trace: Trace | None = None) -> Response:
        """The answer with ``[N]`` citations, however the model wrote them ("Source 1",
        "(1)", "[1, 2]": ``normalised_citations``); ``source_nodes`` are the numbered sources."""
        response = super().query(question, trace=trace)
        nodes = response.source_nodes
        quoting = getattr(self.synthesizer.llm, "model", "") == ExtractiveLLM.model

        def produce() -> Iterator[str]:
            answer: Iterable[str] = response
            if quoting:  # the offline answerer quotes whole lines: cite each one's sources
                answer = (cite_quotes(response.text, [s.node.text for s in nodes]),)
            return normalised_citations(answer, sources=len(nodes))

        return Response(produce, source_nodes=nodes, trace=response.trace,
                        mode=response.mode, metadata=response.metadata)


def cite_quotes(answer: str, sources: Sequence[str]) -> str:
    """``answer`` with ``[N]`` after each quoted line, N every source that holds the quote.

    For answers that only quote (the extractive answerer's). A "Source N:" label quoted with
    a sentence (or "[N]", the label with its citation marks normalised) is dropped; an answer
    already citing after its quotes, a label line and a line of fewer than
    ``MIN_QUOTE_WORDS`` words are left as they are."""
    if _MARKER.search(_LABELLED.sub(r"\1", answer)):
        return answer
    texts = [_joined_words(s) for s in sources]
    return "\n".join(_cited_line(line, texts) for line in answer.split("\n"))


def _cited_line(line: str, texts: Sequence[str]) -> str:
    found = _QUOTE_LINE.match(line)
    if line.startswith(LABEL) or found is None:
        return line
    words = _WORD.findall(found["quote"].lower())
    if len(words) < MIN_QUOTE_WORDS:
        return line
    quote = f" {' '.join(words)} "
    numbers = [n for n, text in enumerate(texts, 1) if quote in text]
    if not numbers:
        return line
    markers = "".join(f"[{n}]" for n in numbers)
    return f"{found['lead']}{found['quote'].rstrip()} {markers}{found['end']}"


def _joined_words(text: str) -> str:
    return f" {' '.join(_WORD.findall(text.lower()))} "
