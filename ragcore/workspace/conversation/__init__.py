"""A chat turn, as the app's Chat page and ``ragcore chat`` both run it: route, answer, record.

``Conversation`` holds one saved chat (``chats.SavedChat``, the history of record) over a loaded
index, with the engine memory rebuilt from it. A turn is three steps:

- **route**: a question asking for a summary ("summarise the relocation memo") is answered
  with the file's or the index's summary (``summary_reply``: at once from what is kept, or
  written fresh part by part when asked) instead of a top-k search
  (``ragcore.summaries.router`` decides; the choice goes into the trace);
- **answer** (``ask``): the summary as a reply, or the chat engine's streamed reply;
- **record**: once the reply has streamed to the end, the question and the reply, with its
  sources, a compact trace and the settings used, are appended to the saved chat (and a first
  exchange titles it). Saving the chat to disk is the caller's: the app saves it as the person
  signed in, the CLI with ``--save``.

A question asked again (``at``: Regenerate, as written; Edit, changed) is answered with the
history before it, and recorded as the newest version from there on: the turns it replaces
are kept (``versions``). Titles tell chats apart (``titles.distinct_title``) and follow an
edit of the first question, unless the person named the chat.

A failed turn leaves nothing half-finished: the memory is rebuilt from the saved chat
(``forget_unrecorded``). How the pages show a saved turn is ``webapp.chat.chat_turns``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Sequence

from ...chat.response import ChatResponse
from ...chat.titles import chat_title, distinct_title, key_phrase_title
from ...engines.by_name import build_retriever
from ...engines.from_index import chat_engine_from_index, llm_with_index_embedder
from ...llms.extractive import answer as extractive_answer
from ...llms.resolve import describe_llm
from ...memory import ChatMemory
from ...summaries.router import INDEX_SUMMARY, RETRIEVAL, SUMMARY, Route, route_question
from ...trace import Trace
from ...types import Message
from ..chats import ChatMessage, SavedChat
from ..ingest.index_files import files_of
from ..summaries import EXTRACTIVE_NOTE, document_names, how_made  # noqa: F401 - theirs too
from ...chat.sourceless import NO_SEARCH_MODES, ROUTE_NOTE, sourceless_reply  # noqa: F401
from .summary_reply import OFFER_NOTE, summary_reply, summary_text  # noqa: F401
from .versions import add_turn, before, edited_at, show_version, versions_at  # noqa: F401

SCORE_KEY = extractive_answer.SCORE_NOTE  # a saved reply keeps its stated score as the notes do
THRESHOLD_KEY = extractive_answer.THRESHOLD_NOTE  # beside it: where "not found" begins
DEFAULT_RETRIEVAL_MODE = "similarity"  # how chats saved before the choice were searched


@dataclass(frozen=True, slots=True)
class TurnSettings:
    """How a turn is answered: the chat mode, the search, and the files it may use."""

    chat_mode: str = "condense_plus_context"
    similarity_top_k: int = 4
    retrieval_mode: str = "hybrid"
    response_mode: str = "compact"  # for condense_question and the agents' query tool
    retriever: str = "standard"  # or an advanced one of ``engines.by_name``
    cross_encoder: str = ""
    files: tuple[str, ...] = ()  # file keys (``files_of`` id bases); none: every file

    def __post_init__(self) -> None:
        if self.similarity_top_k < 1:
            raise ValueError(f"similarity_top_k ({self.similarity_top_k}) must be at least 1")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "files": list(self.files)}


def start_chat(index: str, chat_mode: str, *, llm_label: str = "",
               settings: dict[str, Any] | None = None) -> SavedChat:
    """A new, empty chat over ``index`` (saved once its first turn is answered)."""
    return SavedChat(index=index, chat_mode=chat_mode, llm=llm_label, settings=dict(settings or {}))


def memory_for_chat(chat: SavedChat, llm: Any, *, upto: int | None = None) -> ChatMemory:
    """A fresh engine memory holding the chat's user and assistant messages, in order (those
    before position ``upto`` only, when given)."""
    memory = ChatMemory.from_llm(llm)
    for message in before(chat, upto):
        if message.role in ("user", "assistant"):
            memory.put(Message(message.role, message.content))
    return memory


def clear_chat(chat: SavedChat) -> SavedChat:
    """The same chat (id, index, settings) with its history emptied."""
    chat.messages.clear()
    chat.title = ""
    return chat


class Conversation:
    """One saved chat over a loaded index: ask a question, stream the reply, record the turn."""

    def __init__(self, workspace: Any, chat: SavedChat, index: Any, llm: Any, *,
                 memory: ChatMemory | None = None) -> None:
        self.workspace, self.chat, self.index, self.llm = workspace, chat, index, llm
        self.memory = memory if memory is not None else memory_for_chat(chat, llm)
        self.to_title = False  # set by ``record``: the chat wants a (new) title

    def ask(self, question: str, settings: TurnSettings, *, search: Any = None,
            trace: Trace | None = None, at: int | None = None) -> ChatResponse:
        """The reply to ``question``, not yet streamed: a summary if it asks for one, else the
        chat engine's; ``search``: the index to search (default the conversation's); ``at``:
        the position of a question asked again, answered with only the history before it."""
        if at is not None:
            self.memory = memory_for_chat(self.chat, self.llm, upto=at)
        trace = trace if trace is not None else Trace()
        summary = summary_reply(self.workspace, self.chat.index, self.index, self.llm, question,
                                trace, _routed(self.index, question, trace, settings.files))
        if summary is None:
            engine = chat_engine(search if search is not None else self.index, settings, self.llm)
            return engine.chat(question, self.memory, trace=trace)
        self.memory.put_user_message(question)
        # A kept summary is one chunk, at once; a fresh one streams part by part, and closing
        # the reply (Stop) runs none of its remaining model calls.
        return ChatResponse(
            lambda: summary.chunks, trace=trace, mode="summary",
            on_complete=lambda whole: self.memory.put(Message("assistant", whole)))

    def record(self, question: str, response: ChatResponse, settings: TurnSettings, *,
               marks: dict[str, Any] | None = None, title: bool = True,
               at: int | None = None) -> ChatMessage:
        """Append the question and the finished reply, with its sources, a compact trace (and
        ``marks``: notes of the caller's) and the settings (``at``: as the newest version of the
        conversation from that question on); a first exchange, or an edited first question,
        titles the chat (``title`` False: the caller does it later, with ``title_chat``, when
        ``to_title`` says so)."""
        if not getattr(response, "done", True):
            raise ValueError("record needs a reply that has streamed to the end: read it first")
        label = describe_llm(self.llm)
        trace = {**saved_trace(response.trace), **self._stated_score(response.trace, settings),
                 "chat_mode": settings.chat_mode, **(marks or {})}
        # The search that found this turn's sources: its scores decide which are shown.
        trace["retrieval_mode"] = settings.retrieval_mode
        chat = self.chat
        self.to_title = needs_title(chat, question, at)
        chat.chat_mode, chat.llm = settings.chat_mode, label
        chat.settings = {**chat.settings, **settings.to_dict(), "llm": label,  # dropped files stay
                         "embed_model": self.index.embed_model_name}
        message = add_turn(chat, question, response.text, sources=response.source_nodes,
                           trace=trace, at=at)
        if self.to_title and title:
            self.title_chat(question, message.content)
        return message

    def title_chat(self, question: str, answer: str) -> None:
        """Name the chat after its first exchange: its key phrases, or the model's words (a
        model call of seconds: the app makes it once the reply is on screen), told apart from
        the titles of the workspace's other chats."""
        self.chat.title = distinct_title(chat_title(question, answer, self.llm),
                                         titles_taken(self.workspace, self.chat.id),
                                         question, answer)
        self.to_title = False

    def forget_unrecorded(self) -> None:
        """After a failed turn: the memory holds the saved chat's messages again, and no more."""
        self.memory = memory_for_chat(self.chat, self.llm)

    def _stated_score(self, trace: Trace, settings: TurnSettings) -> dict[str, float]:
        """The extractive answerer's score and its "not found" threshold (nothing if none)."""
        score = trace.notes.get(SCORE_KEY)
        if score is None:
            return {}
        # A keyword search loads no model: the answerer then ranks by words alone.
        model = None if settings.retrieval_mode == "keyword" else self.index.embed_model_name
        threshold = extractive_answer.not_found_threshold(_Named(model) if model else None)
        return {SCORE_KEY: float(score), THRESHOLD_KEY: float(threshold)}


@dataclass(frozen=True, slots=True)
class _Named:
    """What the answerer reads of an embedder to pick its threshold: the model's name."""

    model_name: str


def saved_trace(trace: Trace) -> dict[str, Any]:
    """The trace without prompt messages, small enough to keep with every saved chat turn."""
    data = trace.to_dict()
    for call in data["llm_calls"]:
        call.pop("messages", None)
    return data


def needs_title(chat: SavedChat, question: str, at: int | None) -> bool:
    """Whether recording ``question`` (``at``: asked again there) should (re)title the chat: its
    first exchange, or its first question edited, unless its person named it."""
    if not chat.title:
        return True
    edited_first = at == 0 and bool(chat.messages) and chat.messages[0].content != question
    return edited_first and not chat.renamed


def titles_taken(workspace: Any, chat_id: str) -> set[str]:
    """The titles of the other saved chats of ``workspace`` (none without a chat store)."""
    store = getattr(workspace, "chats", None)
    return {s.title for s in store.list() if s.id != chat_id} if store is not None else set()


def record_stopped_turn(chat: SavedChat, question: str, text: str, response: Any, *,
                        settings: dict[str, Any], at: int | None = None) -> ChatMessage:
    """Append the question and the part of its reply written before Stop was pressed
    (``response`` None: stopped before the reply began; ``at``: a question asked again, kept
    as the newest version from there on); ``settings``: the turn's (``TurnSettings.to_dict``,
    kept in the app's session while the reply streamed)."""
    trace = saved_trace(response.trace) if response is not None else {}
    trace["chat_mode"] = settings.get("chat_mode", chat.chat_mode)
    trace["retrieval_mode"] = settings.get("retrieval_mode", DEFAULT_RETRIEVAL_MODE)
    trace["stopped_by_user"] = True
    chat.settings = {**chat.settings, **settings}
    retitle = needs_title(chat, question, at)
    sources = response.source_nodes if response is not None else []
    message = add_turn(chat, question, text.rstrip() + " …" if text.strip() else "…",
                       sources=sources, trace=trace, at=at)
    if retitle:  # as a finished first exchange is titled offline: its key phrases
        chat.title = key_phrase_title(question, text)
    return message


def chat_engine(index: Any, settings: TurnSettings, llm: Any) -> Any:
    """The chat engine of the chosen mode over ``index``, searching with the chosen retriever."""
    retriever = None
    if settings.retriever != "standard":
        retriever = build_retriever(
            settings.retriever, index,
            llm=llm_with_index_embedder(llm, index, settings.retrieval_mode),
            top_k=settings.similarity_top_k, mode=settings.retrieval_mode,
            cross_encoder=settings.cross_encoder)
    return chat_engine_from_index(
        index, chat_mode=settings.chat_mode, llm=llm, similarity_top_k=settings.similarity_top_k,
        response_mode=settings.response_mode, retrieval_mode=settings.retrieval_mode,
        retriever=retriever)


# -- route: summary requests ------------------------------------------------------------------


def route_for(index: Any, question: str, files: Sequence[str] = ()) -> Route:
    """Where ``question`` goes; with ``files`` chosen, only those files can be named, and a
    summary of "the documents" is the summary of the one chosen file (else a search)."""
    names, titles = document_names(index), document_titles(index)
    route = route_question(question, names, titles)
    if not files:
        return route
    if route.kind == SUMMARY and route.document not in files and len(names) > 1:
        return Route(RETRIEVAL, f"names “{names[route.document]}”, which this chat does not "
                                "use (Documents to use): searching the chosen files")
    names = {key: name for key, name in names.items() if key in files}
    route = route_question(question, names, titles)
    if route.kind == INDEX_SUMMARY:
        if len(names) != 1:
            return Route(RETRIEVAL, "asks for a summary of the chosen files: searching them")
        return Route(SUMMARY, "asks for a summary; the chat uses one file", next(iter(names)))
    return route


def document_titles(index: Any) -> dict[str, str]:
    """The titles the index's files carry (an HTML page's, a Word file's ...; else the title
    printed at its head, its card's: "The Zen of Python" for pep-0020.rst), by file key."""
    titles = {}
    for row in files_of(index):
        found = (index.doc_info(d).metadata.get(key) for d in row["doc_ids"]
                 for key in ("title", "card_title"))
        title = next((str(t) for t in found if t), "")
        if title:
            titles[row["id_base"]] = title
    return titles


def summary_answer(workspace: Any, name: str, index: Any, llm: Any, question: str,
                   trace: Trace, files: Sequence[str] = ()) -> str | None:
    """The summary ``question`` asks for, as Markdown, whole (None: it asks for a search);
    where it was routed goes into ``trace.notes[ROUTE_NOTE]``."""
    return summary_text(workspace, name, index, llm, question, trace,
                        _routed(index, question, trace, files))


def _routed(index: Any, question: str, trace: Trace, files: Sequence[str]) -> Route:
    route = route_for(index, question, files)
    trace.notes[ROUTE_NOTE] = route.to_dict()
    return route
