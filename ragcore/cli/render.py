"""Plain-text output for the terminal: answers, passages, index stats, ingest reports, traces.

An answer is written as the app shows it (``write_reply``): streamed as it comes, or, for the
extractive answerer's (which is whole from its first word), at once with the [1] markers naming
each quote's source; then the answerer's score (from the trace notes) on a line of its own, then
the sources numbered like the markers.
"""

from __future__ import annotations

import textwrap
from itertools import chain
from typing import Any, Callable, Iterable, Iterator, TextIO

from ..llms.extractive.answer import LABEL
from ..present.answer_score import score_note, stated_score
from ..present.format import (counted, hidden_sources_label, human_size, node_cut,
                              passage_excerpt)
from ..present.markers import AnswerCheck, mark_listing
from ..present.sources import ListedSource, SourceListing
from ..present.support import NOT_STATED
from ..synthesis import ResponseMode
from ..trace import Trace
from ..types import ScoredNode
from ..workspace.ingest.report import IngestReport


def source_label(scored: ScoredNode) -> str:
    """'file.pdf, page 3' (or the document id when the node has no file name)."""
    label = scored.file_name or scored.node.ref_doc_id or scored.node.node_id
    return f"{label}, page {scored.page}" if scored.page else str(label)


def write_passages(
    out: TextIO, nodes: Iterable[ScoredNode], *, width: int = 100, max_chars: int = 600
) -> None:
    """Numbered passages with file, page and score, the text wrapped and indented, as plain
    text (its Markdown's marks dropped) cut at a word before ``max_chars``, "…" where it or
    the reading cut it."""
    for number, scored in enumerate(nodes, 1):
        score = "" if scored.score is None else f"  score {scored.score:.3f}"
        out.write(f"[{number}] {source_label(scored)}{score}\n")
        text = passage_excerpt(scored.node.text, max_chars, cut=node_cut(scored.node))
        out.write(textwrap.fill(text, width=width, initial_indent="    ",
                                subsequent_indent="    ") + "\n\n")


BOLD, PLAIN = "\033[1m", "\033[0m"


def write_reply(out: TextIO, response: Any, *, retrieval_mode: str = "similarity",
                embedder: Any = None, ranked_with: str | None = None,
                question: str = "", check: AnswerCheck | None = None) -> None:
    """The answer, its score and its sources (see the module docstring); ``response`` is a
    query ``Response`` or a ``ChatResponse``. With the ``question`` it answers, a generated
    answer is written as ragcore's grounding verdict allows (``present.grounded``): once it is
    whole and checked, never the unchecked draft. ``check`` is how: the engines' own
    (``engines.answer_check``: the index's embedder and words, the model as judge), as the
    app checks; without one, against the passages alone with ``embedder``."""
    if not getattr(response, "source_nodes", None):
        question = ""  # no passages (simple chat, generation): nothing to check against
    check = check or AnswerCheck(embedder=embedder, retrieval_mode=retrieval_mode)
    listing = write_answer(
        out, response, ranked_with=ranked_with, checked=bool(question.strip()),
        cite=lambda text: _listing(text, response, check, question))
    write_sources(out, response, retrieval_mode=retrieval_mode, embedder=embedder,
                  listing=listing)


def write_answer(out: TextIO, response: Iterable[str], *, ranked_with: str | None = None,
                 cite: Callable[[str], SourceListing] | None = None,
                 checked: bool = False) -> SourceListing | None:
    """Stream the answer as it comes (its **bold** short answer in bold on a terminal), then
    the answerer's score on a line of its own (the extractive answerer states one, ranking with
    the embedding model ``ranked_with``; the terminal is where people tune it).

    With ``cite`` (the answer's text -> its sources), an extractive answer is written whole
    with the [1] markers of those sources, and with ``checked`` so is every answer (as its
    grounding verdict allows); returns the sources numbered to match, if marked.
    """
    chunks = iter(response)
    first = _opening(chunks)
    listing = None
    if cite is not None and (checked or first.startswith(LABEL)):
        text = first + "".join(chunks)
        marked, listing = mark_listing(text, cite(text))
        chunks = iter([marked])
    else:
        chunks = chain([first], chunks)
    for chunk in terminal_bold(chunks) if out.isatty() else chunks:
        out.write(chunk)
        out.flush()
    out.write("\n")
    score = stated_score(getattr(response, "trace", None))
    if score is not None:
        out.write(f"{score_note(score, ranked_with)}\n")
    return listing


def _opening(chunks: Iterator[str]) -> str:
    """The first chunks, read until they are more than the start of the extractive label (that
    answer streams word by word), so an extractive answer is known from its first write."""
    first = ""
    for chunk in chunks:
        first += chunk
        if not (len(first) < len(LABEL) and LABEL.startswith(first)):
            break
    return first


def _listing(text: str, response: Any, check: AnswerCheck, question: str) -> SourceListing:
    mode = response.mode.value if isinstance(response.mode, ResponseMode) else None
    return check.listing(text, response.source_nodes, question=question,
                         trace=response.trace, response_mode=mode)


def terminal_bold(chunks: Iterable[str]) -> Iterator[str]:
    """Streamed Markdown with each "**" turned into the terminal's bold on or off; a chunk's
    trailing "*" waits for the next chunk, which may complete the "**"."""
    held, bold = "", False
    for chunk in chunks:
        text = held + chunk
        held = "*" if text.endswith("*") and not text.endswith("**") else ""
        pieces = text[: len(text) - len(held)].split("**")
        out = pieces[0]
        for piece in pieces[1:]:
            bold = not bold
            out += (BOLD if bold else PLAIN) + piece
        yield out
    yield held + (PLAIN if bold else "")


def write_sources(
    out: TextIO, response: Any, *, retrieval_mode: str = "similarity", embedder: Any = None,
    listing: SourceListing | None = None,
) -> None:
    """The 'Sources:' under an answer, listed as the app lists them (``present.sources``).

    Sources above the relevance floor or used by the answer come first, each saying whether the
    answer quoted or was supported by it; weaker ones follow under their own heading, as the
    app hides them behind one click. ``response`` is a query ``Response`` or a ``ChatResponse``;
    ``listing``: its sources already listed (and numbered like the answer's markers).
    """
    if listing is None:
        listing = _listing(response.text, response,
                           AnswerCheck(embedder=embedder, retrieval_mode=retrieval_mode), "")
    if listing.without_sources:
        out.write(f"\nSources: none. {listing.without_sources}\n")
        return
    if listing.total == 0:
        return
    out.write("\nSources:\n")
    _write_listed(out, listing.shown)
    if listing.hidden:
        out.write(f"{hidden_sources_label(len(listing.hidden)).capitalize()}, below the "
                  "relevance floor:\n")
        _write_listed(out, listing.hidden)
    if listing.verdict is not None:  # the answer's own marks say what is not in the documents
        return
    for sentence in listing.unsupported:
        out.write(f"  {NOT_STATED}: {sentence}\n")


def _write_listed(out: TextIO, sources: Iterable[ListedSource]) -> None:
    for source in sources:
        scored = source.scored
        score = "" if scored.score is None else f" (score {scored.score:.3f})"
        note = source.use.note
        out.write(f"  [{source.number}] {source_label(scored)}{score}"
                  f"{': ' + note if note else ''}\n")


def write_report(out: TextIO, report: IngestReport) -> None:
    """One line per file, then the totals."""
    for outcome in report.files:
        out.write(f"  {outcome.status:<9} {outcome.path}: {outcome.describe()}\n")
    if report.removed_documents:
        out.write(f"  removed {counted(report.removed_documents, 'document')} no longer in "
                  "their files\n")
    out.write(f"{report.summary()}\n")


human_bytes = human_size  # one wording of sizes for the terminal and the app


def write_table(out: TextIO, headers: list[str], rows: list[list[str]]) -> None:
    """A left-aligned text table."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip() + "\n")
    out.write("  ".join("-" * w for w in widths) + "\n")
    for row in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")


def write_trace(out: TextIO, trace: Trace) -> None:
    """Stages with timings, then each LLM call with its tokens and latency."""
    out.write("\nTrace:\n")
    for stage in trace.stages:
        out.write(f"  {stage.name:<32} {stage.seconds * 1000:9.1f} ms\n")
    for number, call in enumerate(trace.llm_calls, 1):
        out.write(
            f"  LLM call {number} ({call.purpose}, {call.model or 'llm'}): "
            f"{call.tokens_in} tokens in, {call.tokens_out} out, {call.seconds:.2f} s\n"
        )
    for key, value in trace.notes.items():
        text = " ".join(str(value).split())
        out.write(f"  {key}: {text[:300]}\n")
