"""One browser session's memory: every ``st.session_state`` key the app uses, named once here.

``session`` reads and writes the running session's ``st.session_state`` (Streamlit's proxy, so
one module-level object serves every browser session). Each key the app owns is a ``Slot``: a
typed attribute of ``Session`` whose name is its key, with a default returned while it is unset
(a mutable default is stored on first read, so changing it in place sticks). ``del`` forgets a
key and ``take`` reads and forgets it (a message told once after a rerun). ``Session`` has no
other attributes, so a misspelt key is an ``AttributeError``, never a new key.

Widgets keep their own values, under their ``key=``. The few that the app reads or presets
outside the widget call are named in ``Widget`` and go through ``Session.widget`` and
``Session.preset``, which refuse a key not named there and the keys of slots. Widget keys read
only by the widget itself stay beside it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Generic, MutableMapping, TypeVar, overload

import streamlit as st

if TYPE_CHECKING:
    from ragcore import ChatMemory
    from ragcore.evaluation import EvaluationJob
    from ragcore.workspace.chats import SavedChat
    from ragcore.workspace.team import Team, User

T = TypeVar("T")


class Slot(Generic[T]):
    """One session key the app owns: its type, its default (or a factory for a mutable one)."""

    def __init__(self, default: T, *, factory: Callable[[], T] | None = None) -> None:
        self.default = default
        self.factory = factory
        self.key = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = name

    @overload
    def __get__(self, session: None, owner: type) -> Slot[T]: ...

    @overload
    def __get__(self, session: Session, owner: type) -> T: ...

    def __get__(self, session: Session | None, owner: type) -> Slot[T] | T:
        if session is None:
            return self
        store = session.store
        if self.key not in store:
            if self.factory is None:
                return self.default
            store[self.key] = self.factory()
        return store[self.key]

    def __set__(self, session: Session, value: T) -> None:
        session.store[self.key] = value

    def __delete__(self, session: Session) -> None:
        session.store.pop(self.key, None)


def _made(factory: Callable[[], T]) -> Slot[T]:
    """A slot whose default is made anew for each session (a list, a dict), kept once read."""
    return Slot(factory(), factory=factory)


class Session:
    """This session's state: one typed attribute per key (see the module docstring)."""

    __slots__ = ("_store",)

    # -- workspace, settings, index (webapp.state) --------------------------------------------
    workspace_root: Slot[str | None] = Slot(None)  # the folder chosen on the Settings page
    session_api_key: Slot[dict[str, str] | None] = Slot(None)  # API keys given, not saved
    current_index: Slot[str | None] = Slot(None)  # the index this session works on
    session_jobs: Slot[list[str]] = _made(list)  # ids of the jobs it started, oldest first

    # -- the open chat (webapp.state, webapp.chat.chat_controls, pages/chat.py) ---------------------
    open_chat: Slot[SavedChat | None] = Slot(None)
    chat_memory: Slot[ChatMemory | None] = Slot(None)  # None: rebuilt from the chat's turns
    failed_turn: Slot[dict[str, Any] | None] = Slot(None)  # {"question", "error"} to retry
    queued_question: Slot[str | None] = Slot(None)  # asked on the next run (Retry, Edit)
    queued_at: Slot[int | None] = Slot(None)  # where it is asked again (Regenerate, Edit)
    streaming_reply: Slot[dict[str, Any] | None] = Slot(None)  # chat, question, text so far
    editing_question: Slot[int | None] = Slot(None)  # the position of the question edited
    confirm_chat_delete: Slot[str | None] = Slot(None)  # "open", "all" or "clear" (asks first)
    chat_elsewhere: Slot[str | None] = Slot(None)  # a chat asked for, open in another tab
    viewing_chat: Slot[str | None] = Slot(None)  # that chat, shown read-only instead

    # -- the Query page ------------------------------------------------------------------------
    query_answer: Slot[dict[str, Any] | None] = Slot(None)  # the last answer, drawn again
    query_compare: Slot[dict[str, Any] | None] = Slot(None)  # the last comparison of modes
    query_compare_retrievers: Slot[dict[str, Any] | None] = Slot(None)
    query_entered: Slot[bool] = Slot(False)  # Enter was pressed in the question box

    # -- the Indexes page ----------------------------------------------------------------------
    confirm_delete_doc: Slot[str | None] = Slot(None)  # the file whose Delete asks "sure?"
    index_job_error: Slot[str | None] = Slot(None)  # a quick job's failure, told after rerun
    index_change_done: Slot[str | None] = Slot(None)  # what a rename or delete did, told once
    shown_summaries: Slot[dict[tuple[str, str | None], Any]] = _made(dict)  # (index, file)

    # -- the Upload page -----------------------------------------------------------------------
    upload_forecast: Slot[tuple[Any, Any] | None] = Slot(None)  # (files and chunking, Forecast)
    upload_confirm: Slot[Any] = Slot(None)  # the files and chunking waiting for "Start anyway"
    uploader_round: Slot[int] = Slot(0)  # bumped after each upload: a new, empty file picker
    new_index_store: Slot[str] = Slot("")  # where a new index keeps its vectors

    # -- the Settings page ---------------------------------------------------------------------
    listed_models: Slot[dict[str, list[str]]] = _made(dict)  # form prefix -> models listed
    server_models: Slot[dict[str, Any]] = _made(dict)  # "backend url" -> models, or why none
    ollama_pulling: Slot[str | None] = Slot(None)  # a download running (left set if stopped)
    ollama_downloaded: Slot[str | None] = Slot(None)  # the model just downloaded, told once
    packaged_model_told: Slot[str | None] = Slot(None)  # what a click did, told after rerun
    packaged_model_measured: Slot[tuple[str, str] | None] = Slot(None)  # (model, its speed)

    # -- evaluation ----------------------------------------------------------------------------
    evaluate_job: Slot[EvaluationJob | None] = Slot(None)  # running or last run
    evaluate_set: Slot[tuple[str, Any] | None] = Slot(None)  # (name, dataset) for the next run
    evaluate_followed: Slot[str | None] = Slot(None)  # the finished run last shown

    # -- the frame: navigation, Advanced, the fallback note ------------------------------------
    navigation_ready: Slot[bool] = Slot(False)  # app.py's navigation is registered
    advanced_choice: Slot[bool | None] = Slot(None)  # None: read the workspace's preference
    fallback_said: Slot[bool] = Slot(False)  # the packaged model's failure to load was told

    # -- team mode -----------------------------------------------------------------------------
    team_current: Slot[tuple[Team | None, User] | None] = Slot(None)  # of this script run
    team_session_token: Slot[str | None] = Slot(None)
    session_cookie_pending: Slot[str | None] = Slot(None)  # token to write, "" to clear
    oidc_account: Slot[tuple[str, str] | None] = Slot(None)  # (issuer#subject, account id)

    def __init__(self, store: MutableMapping[str, Any] | None = None) -> None:
        self._store = store  # None: Streamlit's session state (a plain dict in tests)

    @property
    def store(self) -> MutableMapping[str, Any]:
        return st.session_state if self._store is None else self._store

    def take(self, slot: Slot[T]) -> T:
        """``slot``'s value, forgotten: ``session.take(Session.index_change_done)``."""
        value = slot.__get__(self, Session)
        slot.__delete__(self)
        return value

    def forget(self, *slots: Slot[Any]) -> None:
        for slot in slots:
            slot.__delete__(self)

    def clear(self, *, keep: Slot[Any]) -> None:
        """Forget every key, the widgets' too, but ``keep``'s (a new person signs in here)."""
        for key in list(self.store):
            if key != keep.key:
                del self.store[key]

    # -- widgets -------------------------------------------------------------------------------

    def widget(self, key: str, default: Any = None) -> Any:
        """The value of the widget keyed ``key`` (``default`` before it is drawn or preset)."""
        return self.store.get(_widget_key(key), default)

    def has_widget(self, key: str) -> bool:
        return _widget_key(key) in self.store

    def preset(self, key: str, value: Any) -> None:
        """Set the widget keyed ``key`` to ``value`` (before it is drawn in this run)."""
        self.store[_widget_key(key)] = value

    def reset(self, key: str) -> None:
        """Forget the widget's value: it is drawn with its default again."""
        self.store.pop(_widget_key(key), None)


class Widget:
    """Widget keys the app reads or presets outside the widget call (see the module docstring)."""

    ADVANCED = "advanced_mode"  # the sidebar's Advanced toggle
    CHAT_MODE = "chat_mode_choice"  # the Chat page's mode (an opened chat presets its own)
    CHAT_SEARCH_BY = "chat_search_by"  # the Chat page's "Search by"
    QUERY_QUESTION = "query_question"
    QUERY_MORE_SOURCES = "query_more_sources"  # the toggle showing an answer's weak sources
    QUERY_ANSWER_BOX = "query_answer_box"  # the Query page's answer (the browser tests find it)
    COMPARE_MODES_BUTTON = "query_compare_button"
    COMPARE_RETRIEVERS_BUTTON = "query_compare_retrievers_button"
    NEW_INDEX_NAME = "new_index_typed_name"  # the Upload page's name of a new index
    EVALUATION_SHOWN = "evaluate_shown"  # the evaluation shown in the results
    LLM_BACKEND = "llm_backend"  # the Settings page's answering backend

    @staticmethod
    def setting(section: str, backend: str, field: str) -> str:
        """A settings form field: ``setting("llms", "ollama", "url")`` is "llms.ollama.url"."""
        return f"{section}.{backend}.{field}"

    @staticmethod
    def model_pick(section: str, backend: str) -> str:
        """The picker of the models a backend listed."""
        return f"{section}.{backend}.model.pick"

    @staticmethod
    def retriever(page: str) -> str:
        return f"{page}_retriever"

    @staticmethod
    def cross_encoder(page: str) -> str:
        return f"{page}_cross_encoder"

    @staticmethod
    def chat_scope(chat_id: str) -> str:
        """The files a chat may use."""
        return f"scope_{chat_id}"

    @staticmethod
    def chat_title(chat_id: str) -> str:
        return f"title_{chat_id}"

    @staticmethod
    def edited_question(position: int) -> str:
        return f"edit_text_{position}"


SLOTS: dict[str, Slot[Any]] = {
    name: value for name, value in vars(Session).items() if isinstance(value, Slot)
}
WIDGETS = frozenset(value for name, value in vars(Widget).items()
                    if name.isupper() and isinstance(value, str))
_WIDGET_FAMILIES = re.compile(  # the keys Widget's functions make
    r"[a-z_]+\.[\w-]+\.(model\.pick|\w+)|[a-z]+_(retriever|cross_encoder)"
    r"|(scope|title)_.+|edit_text_[0-9]+"
)


def _widget_key(key: str) -> str:
    if key in SLOTS:
        raise KeyError(f"{key!r} is a slot of webapp.session.Session, not a widget key: use "
                       f"session.{key}")
    if key not in WIDGETS and not _WIDGET_FAMILIES.fullmatch(key):
        raise KeyError(f"{key!r} is not a widget key named in webapp.session.Widget: name it "
                       "there before reading or presetting it")
    return key


session = Session()
