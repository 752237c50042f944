"""The reply to a request for a summary: at once from what is kept, or fresh from the model.

``summary_reply`` is what the Chat page, the Query page, ``ragcore chat`` and ``ragcore query``
answer "summarise X" with (``summaries.router`` decides it asks for one):

- **at once**, for a file: the summary a model wrote of it before (kept in the summary cache,
  said to be so and when), and the document's own abstract (``summaries.kept``, quoted and
  said to be its own); a file with neither gets its extractive summary (quoted sentences,
  made in a second and kept). With a model that can write, the reply offers a fresh one
  (``fresh_question``: a button in the app, a hint in the terminal);
- **fresh**, when the question asks for one ("write a fresh summary of X") and a model can
  write: ``summaries.parts`` part by part, streamed, how far it has read kept in the trace's
  ``READ_NOTE``; kept in the cache once whole (a stopped one is not);
- the whole index: a line or two per file, extractive (as offline), at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from ...llms.resolve import describe_llm
from ...summaries.index import DocumentSummary, SummaryIndex, today
from ...summaries.kept import abstract_reply, file_abstract, stored_reply
from ...summaries.parts import READ_NOTE, plan_parts, write_parts
from ...summaries.router import RETRIEVAL, SUMMARY, Route, fresh_question, wants_fresh
from ...trace import Trace
from ..ingest.index_files import files_of
from ..names import display_name
from ..summaries import (
    file_fingerprint, how_made, method_of, open_summary_cache, summarize_file,
    summarize_whole_index,
)

OFFER_NOTE = "summary_offer"  # in a reply's trace notes: the request for a fresh summary
QUOTED_NOTE = ("Sentences quoted from the document, chosen with the embedding model as the ones "
               "that best represent it; the document has no abstract. Ask for a fresh summary "
               "for one the model writes.")


@dataclass(slots=True)
class SummaryReply:
    """A summary as a reply: its text as it comes; ``offer``: the question that asks for a
    fresh one ("" when none can be written); ``fresh``: the model writes it now."""

    route: Route
    chunks: Iterator[str]
    offer: str = ""
    fresh: bool = False


def summary_reply(workspace: Any, name: str, index: Any, llm: Any, question: str,
                  trace: Trace, route: Route) -> SummaryReply | None:
    """The reply to ``question``, routed to ``route`` (None: it asks for a search)."""
    if route.kind == RETRIEVAL:
        return None
    cache, uid = open_summary_cache(workspace.root), workspace.record(name).uid
    writes = method_of(llm) != "extractive"
    if route.kind != SUMMARY or route.document is None:
        revision = workspace.index_version(name).revision
        with trace.stage("summary", route=route.kind, method="extractive"):
            summary = summarize_whole_index(cache, uid, revision, index, llm=None, trace=trace)
        heading = f"Summary of the index “{display_name(workspace, name)}” ({summary.title})"
        return SummaryReply(route, iter([_shown(heading, summary)]))
    row = next(r for r in files_of(index) if r["id_base"] == route.document)
    offer = fresh_question(row["file"]) if writes else ""
    trace.notes[OFFER_NOTE] = offer
    if writes and wants_fresh(question):
        return SummaryReply(route, fresh_summary(cache, uid, index, row, llm, trace), fresh=True)
    with trace.stage("summary", route=route.kind, method="kept") as detail:
        text, detail["method"] = _kept(cache, uid, index, row, llm, trace)
    return SummaryReply(route, iter([text]), offer=offer)


def _kept(cache: Any, uid: str, index: Any, row: dict, llm: Any, trace: Trace
          ) -> tuple[str, str]:
    """What is kept of a file, as a reply, and what it was ("abstract", a model's name ...)."""
    written = cache.get(uid, row["id_base"], file_fingerprint(index, row, llm))
    abstract = file_abstract(index, row["doc_ids"])
    title = _title(index, row)
    parts, kinds = [], []
    if abstract:
        parts.append(abstract_reply(title, abstract))
        kinds.append("abstract")
    if written is not None and written.method != "extractive":
        parts.append(stored_reply(written, written_by=_writer(written, llm)))
        kinds.append(written.method)
    if not parts:
        summary = summarize_file(cache, uid, index, row["id_base"], llm=None, trace=trace)
        note = QUOTED_NOTE if method_of(llm) != "extractive" else how_made(summary)
        return _shown(f"Summary of {summary.title}", summary, note), "extractive"
    return "\n\n".join(parts), " and ".join(kinds)


def fresh_summary(cache: Any, uid: str, index: Any, row: dict, llm: Any, trace: Trace
                  ) -> Iterator[str]:
    """A summary of the file ``row`` the model writes now, part by part (how far it has read:
    ``trace.notes[READ_NOTE]``); kept once whole, not when closed before its end."""
    nodes = SummaryIndex.from_index(index, row["doc_ids"]).nodes
    parts = plan_parts(nodes, index.get_vectors([n.node_id for n in nodes]))
    read = trace.notes.setdefault(READ_NOTE, {})
    title = _title(index, row)
    yield f"**A fresh summary of {title}**, written now by {model_words(llm)}:\n\n"
    text = ""
    with trace.stage("summary", route=SUMMARY, method="fresh", parts=len(parts)):
        for chunk in write_parts(llm, parts, title, read=read):
            text += chunk
            yield chunk
    yield (f"\n\n_Written by {model_words(llm)} on {today()}, from {read['passages_read']} "
           f"of the document's {read['passages']} passages (the most central of each part)._")
    cache.put(uid, file_fingerprint(index, row, llm), DocumentSummary(
        row["id_base"], title, text.strip(), method_of(llm), tuple(row["doc_ids"]), today()))


def _title(index: Any, row: dict) -> str:
    """The file's title as its card gives it, else its name."""
    info = index.doc_info(row["doc_ids"][0]) if row["doc_ids"] else None
    card_title = (info.metadata.get("card_title") if info is not None else "") or ""
    return f"“{card_title}” ({row['file']})" if card_title else row["file"]


def _writer(summary: DocumentSummary, llm: Any) -> str:
    if summary.method == method_of(llm):
        return model_words(llm)
    return f"the language model {summary.method}"


def _shown(heading: str, summary: DocumentSummary, note: str = "") -> str:
    body = summary.text.strip() or "There is no text to summarise."
    return f"**{heading}**\n\n{body}\n\n_{note or how_made(summary)}_"


def model_words(llm: Any) -> str:
    """The model as a sentence names it: "the packaged model qwen2.5 … on this computer"."""
    text = describe_llm(llm)
    return f"the {text[0].lower()}{text[1:]}" if text.startswith("Packaged") else text


def summary_text(workspace: Any, name: str, index: Any, llm: Any, question: str,
                 trace: Trace, route: Route) -> str | None:
    """The whole reply as text (None: a search): the kept summary at once, a fresh one when
    it has been written (the Query page and ``ragcore query`` read it whole)."""
    reply = summary_reply(workspace, name, index, llm, question, trace, route)
    return None if reply is None else "".join(reply.chunks)

