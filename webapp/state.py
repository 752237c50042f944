"""The Streamlit app's state: one session's workspace, settings, LLM, indexes and open chat.

Pages call these functions instead of building objects. Heavy shared objects (loaded indexes,
LLM clients, the test embedder) come from thin ``st.cache_resource`` factories keyed by what
defines them, so pages switch instantly after the first load and every session shares them; a
loaded index and its pictures are keyed by ``Workspace.index_version`` (the index revision), the
one answer to "has this index changed". Per-user state (chosen index, open chat, chat memory, an
API key kept for the session only) lives in ``st.session_state``, every key named in
``webapp.session``. Changes to indexes (ingest, re-index, delete) run as background jobs
(``jobs()``: the process's ``JobRunner`` for this workspace, which outlives reruns and closed
tabs): a page submits one and returns at once, and the sidebar shows every job's progress.
Each index's write lock keeps its changes in order across sessions and processes. The behaviour
itself lives in the ragcore modules these call.

Environment: ``RAGCORE_WORKSPACE`` (the workspace folder), ``RAGCORE_LLM`` (see
``ragcore.llms.resolve``), ``RAGCORE_EMBEDDER=fake`` (tests and benchmarks: a deterministic
FakeEmbedder instead of the packaged model, so no model loads; ``RAGCORE_FAKE_EMBED_SECONDS`` slows
it to that many seconds per text, to try the time estimates).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import streamlit as st

from ragcore.errors import ConfigError, WorkspaceError
from ragcore.workspace import Workspace, default_root, permitted
from ragcore.workspace.team import auth_mode
from ragcore.workspace.backends import embedder_from_settings
from ragcore.workspace.names import index_gone
from ragcore.workspace.settings import Settings
from ragcore.present import explain_error, literal_markdown
from webapp import open_chats
from webapp.team import team_state
from webapp.session import Session, Widget, session

logger = logging.getLogger(__name__)

EMBEDDER_ENV = "RAGCORE_EMBEDDER"
FAKE_SECONDS_ENV = "RAGCORE_FAKE_EMBED_SECONDS"  # with the fake embedder: its seconds per text
MODEL_LOAD_MESSAGE = (
    "Loading the embedding model (all-MiniLM-L6-v2) for the first time since the app started. "
    "It turns text into vectors so passages can be found by meaning; this takes 10-20 seconds "
    "once, then stays in memory."
)

LAST_INDEX = "last_index"  # app-preferences.json: the index last used, for a new session


# -- workspace and settings ------------------------------------------------------------------


def workspace_root() -> Path:
    """The folder chosen on the Settings page this session, else $RAGCORE_WORKSPACE/./workspace
    (always that one in team mode: the team's database is the workspace's)."""
    chosen = session.workspace_root if auth_mode() == "none" else None
    return Path(chosen) if chosen else default_root()


def set_workspace_root(folder: str) -> Path:
    """Use another workspace folder for this session (created if missing)."""
    root = Path(folder).expanduser()
    if root.exists() and not root.is_dir():
        raise WorkspaceError(f"{root} is a file: choose a folder for the workspace")
    root.mkdir(parents=True, exist_ok=True)
    session.workspace_root = str(root.resolve())
    session.forget(Session.current_index, Session.open_chat, Session.chat_memory,
                   Session.failed_turn)
    return root


def current_settings() -> Settings:
    """The saved settings plus this session's API keys (those given and not saved)."""
    settings = Workspace(workspace_root()).load_settings()
    return settings.with_secrets(session.session_api_key)


def save_settings(settings: Settings) -> None:
    """Save settings to the workspace; API keys are kept for the session unless saved."""
    session.session_api_key = settings.secrets() or None
    workspace().save_settings(settings)


def settings_with(saved: Settings, changes: dict[str, Any]) -> Settings:
    """``saved`` with the form's ``changes``, validated and complete (else ConfigError)."""
    from ragcore.workspace.settings import parse_settings

    data = saved.model_dump()  # with this session's API keys, which the form may not repeat
    data.update(changes)
    settings = parse_settings(data, source="the settings form")
    settings.check_complete()
    return settings


def workspace() -> Workspace:
    """This session's workspace (cheap to build; it holds paths, not models)."""
    return Workspace(
        workspace_root(), embedder=_embedder_override(), settings=current_settings()
    )


@st.cache_resource(show_spinner=False)
def _fake_embedder() -> Any:
    from ragcore.embeddings.fake import FakeEmbedder, ThrottledEmbedder

    slow = os.environ.get(FAKE_SECONDS_ENV, "").strip()
    if not slow:
        return FakeEmbedder()

    try:
        return ThrottledEmbedder(FakeEmbedder(), seconds_per_text=float(slow))
    except ValueError as exc:
        raise ConfigError(f"{FAKE_SECONDS_ENV}={slow!r}: give seconds per text, such as 0.01 "
                          f"({exc})") from exc


def _embedder_override() -> Any:
    choice = os.environ.get(EMBEDDER_ENV, "").strip().lower()
    if choice in ("", "default", "settings"):
        return None
    if choice == "fake":
        return _fake_embedder()
    raise ConfigError(f"{EMBEDDER_ENV}={choice!r} is not known: use 'fake' or leave it unset")


# -- the answering backend -------------------------------------------------------------------


# The LLMs looked for, by settings: each found once, in a background thread, so a page draws at
# once and only what needs the model waits for it (``current_llm``; ``ready_llm`` at most a
# moment).
_LLM_LOOKUPS: dict[tuple[str, str, str], Future] = {}
_LLM_LOCK = threading.Lock()
MAX_LLMS = 8
LOOKING = "Looking for a language model…"
# What resolve_llm reads besides the settings: the backend ('auto'), its address
# (``llms.resolve.BASE_URL_VARIABLE``, Ollama's own), the local model's threads. A lookup made
# under other values is another lookup (a test's loopback server on a new port, say).
LLM_ENVIRONMENT = ("RAGCORE_LLM", "RAGCORE_LLM_BASE_URL", "OLLAMA_HOST", "RAGCORE_LLM_THREADS")


def current_llm() -> Any:
    """The LLM the settings choose (auto-detection of a local Ollama is cached); waits for the
    lookup, saying so, when it is still under way."""
    lookup = _llm_lookup(retry=True)
    if lookup.done():
        return lookup.result()
    with st.spinner(LOOKING):
        return lookup.result()


def ready_llm(*, wait: float = 0.0) -> Any | None:
    """The LLM the settings choose when it has been found, else None (its lookup started in
    the background), after ``wait`` seconds at most: for what a page shows while it draws (a
    caption, a notice). A lookup that failed raises its error again."""
    lookup = _llm_lookup(retry=False)
    try:
        return lookup.result(timeout=wait)  # a quick lookup (a setting, no Ollama) is not shown
    except TimeoutError:
        return None


def llm_found() -> bool:
    """Whether the lookup of the LLM the settings choose has ended (found, or failed)."""
    return _llm_lookup(retry=False).done()


def _llm_lookup(*, retry: bool) -> Future:
    """The lookup of the LLM the settings choose, started if none is (again after a failed one
    when ``retry``: an Ollama started since may answer now)."""
    settings = current_settings()
    environment = json.dumps([os.environ.get(name, "") for name in LLM_ENVIRONMENT])
    secrets = json.dumps(settings.secrets(), sort_keys=True)  # never in model_dump_json
    key = (settings.model_dump_json(), secrets, environment)
    with _LLM_LOCK:
        lookup = _LLM_LOOKUPS.get(key)
        if lookup is None or (retry and lookup.done() and lookup.exception() is not None):
            lookup = Future()
            _LLM_LOOKUPS[key] = lookup
            while len(_LLM_LOOKUPS) > MAX_LLMS:
                del _LLM_LOOKUPS[next(iter(_LLM_LOOKUPS))]
            threading.Thread(target=_find_llm, args=(lookup, *key), daemon=True,
                             name="ragcore-llm-lookup").start()
    return lookup


def _find_llm(lookup: Future, settings_json: str, secrets: str, environment: str) -> None:
    from ragcore.workspace.backends import llm_from_settings
    from ragcore.workspace.settings import parse_settings

    try:
        settings = parse_settings(json.loads(settings_json)).with_secrets(json.loads(secrets))
        lookup.set_result(llm_from_settings(settings))
    except BaseException as exc:  # noqa: BLE001 - raised again where the LLM is asked for
        lookup.set_exception(exc)


def forget_llm() -> None:
    """Drop cached LLMs so the next call detects or connects again."""
    with _LLM_LOCK:
        _LLM_LOOKUPS.clear()


# -- indexes ---------------------------------------------------------------------------------


def index_names() -> list[str]:
    """The indexes this person may list (every one in single-user mode)."""
    ws = Workspace(workspace_root())
    return team_state.listed(ws, ws.index_names())


def list_indexes() -> list[Any]:
    """The indexes this person may list, with their stats, read from manifests and records
    (no index is loaded)."""
    ws = Workspace(workspace_root())
    return team_state.listed_by(ws, ws.list_indexes(), lambda info: info.name)


def index_documents(name: str) -> list[dict[str, Any]]:
    """One row per file of an index (``Workspace.documents``), from the shared loaded index."""
    from ragcore.workspace.ingest import files_of

    return files_of(load_index(name))


def selected_index(names: list[str]) -> str | None:
    """The index this session works on: the last chosen one if it still exists, else the one
    last used in this workspace (a reload starts a new session), else the first."""
    from webapp import preferences

    for chosen in (session.current_index,
                   preferences.load(workspace_root()).get(LAST_INDEX)):
        if chosen in names:
            return chosen
    return names[0] if names else None


def select_index(name: str | None) -> None:
    """Work on ``name`` from now on, in this session and the next ones (a reload, a restart)."""
    from webapp import preferences

    if name and name != session.current_index:
        try:
            preferences.save(workspace_root(), **{LAST_INDEX: name})
        except OSError as exc:  # a read-only workspace: this session still remembers it
            logger.info("could not remember the index in use: %s", exc)
    session.current_index = name


def load_index(name: str) -> Any:
    """The named index, loaded once per version on disk and shared by all sessions."""
    ws = Workspace(workspace_root())  # paths only: no need to read the settings file
    override = os.environ.get(EMBEDDER_ENV, "")
    return _cached_index(str(ws.root), name, ws.index_version(name), override)


@st.cache_resource(show_spinner=False, max_entries=16)
def _cached_index(root: str, name: str, version: tuple, override: str) -> Any:
    return Workspace(root, embedder=_embedder_override()).load_index(name)


def warm_up_embedder() -> None:
    """Start loading the embedding model in a background thread, once per process.

    The model takes 10-20 s to load; loading it while a person looks at the first page makes
    their first question or upload fast. Pages still wait (with a spinner) if it is not done.
    """
    if _embedder_override() is not None:
        return
    try:
        ws = workspace()
        names = ws.index_names()
        embedder = ws.embedder_for(names[0]) if names else embedder_from_settings(ws.settings)
    except Exception as exc:  # noqa: BLE001 - the page that needs the model reports the error
        logger.info("not warming up the embedding model: %s", exc)
        return
    if not getattr(embedder, "loaded", True):
        _start_warm_up(embedder, embedder.model_name)


@st.cache_resource(show_spinner=False)
def _start_warm_up(_embedder: Any, model_name: str) -> threading.Thread:
    thread = threading.Thread(
        target=_warm, args=(_embedder,), name=f"warm-up {model_name}", daemon=True
    )
    thread.start()
    return thread


def _warm(embedder: Any) -> None:
    try:
        embedder.embed_batch(["warm up"])
    except Exception as exc:  # noqa: BLE001 - a thread has no page to show it on; pages retry
        logger.warning("warming up the embedding model failed: %s", exc)


def ensure_embedder_loaded(embedder: Any) -> None:
    """Load the embedding model now, under a spinner that says why the wait."""
    if getattr(embedder, "loaded", True):
        return
    with st.spinner(MODEL_LOAD_MESSAGE, show_time=True):
        embedder.embed_batch(["warm up"])


# -- chat ------------------------------------------------------------------------------------


def open_chat() -> Any:
    return session.open_chat


def set_open_chat(chat: Any, memory: Any) -> None:
    open_chats.hold(getattr(chat, "id", None))  # other tabs must not open it to write (too)
    session.open_chat = chat
    session.chat_memory = memory
    del session.failed_turn


def chat_memory() -> Any:
    return session.chat_memory


# -- jobs and uploads ------------------------------------------------------------------------

def jobs() -> Any:
    """The background job runner of this session's workspace (one per process and folder)."""
    from ragcore.workspace.jobs import runner_for

    return runner_for(workspace_root())


def note_job(job: Any) -> None:
    """Remember a job this session started (its page shows its progress and result)."""
    session.session_jobs.append(job.id)


def session_jobs() -> list[Any]:
    """The jobs this session started, newest first (those still known to the runner)."""
    runner = jobs()
    found = (runner.get(i) for i in reversed(session.session_jobs))
    return [job for job in found if job is not None]


def submit_upload(
    ws: Workspace,
    name: str,
    uploads: list[tuple[str, bytes]],
    *,
    chunk_size: int | None,
    chunk_overlap: int | None,
) -> Any:
    """Store uploaded files (sanitized names) and queue their ingestion; returns the job.

    The index is created first if new (its record names the embedding model); the job reads,
    embeds and saves in batches in the background, so the page returns at once.
    """
    from ragcore.workspace.files import validate_name

    if not uploads:
        raise WorkspaceError("no files were uploaded: choose one or more documents first")
    validate_name(name)
    team, user = team_state.current()
    if not ws.has_index(name):  # another session may race: exist_ok
        permitted.create_index(team, user, ws, name, chunk_size=chunk_size,
                               chunk_overlap=chunk_overlap, exist_ok=True)
    permitted.require_index(team, user, ws, name, "ingest")
    paths = [ws.save_upload(name, filename, data) for filename, data in uploads]
    job = permitted.start_ingest(team, user, jobs(), ws, name, paths, chunk_size=chunk_size,
                                 chunk_overlap=chunk_overlap)
    note_job(job)
    return job


# -- answers and sources ---------------------------------------------------------------------


def node_lookup(index: Any) -> Any:
    """``node_id -> Node | None`` over an index, for showing a passage's surroundings."""
    from ragcore.errors import StoreError

    def lookup(node_id: str) -> Any:
        try:
            return index.get_node(node_id)
        except StoreError:
            return None

    return lookup


def open_saved_chat(chat: Any) -> bool:
    """Make ``chat`` this session's open chat, with memory rebuilt and its id in the URL; not
    when another tab or person has it open (False: ``session.chat_elsewhere`` names it)."""
    from ragcore.workspace.conversation import memory_for_chat

    if open_chats.held_elsewhere(chat.id):
        session.chat_elsewhere = chat.id
        return False

    set_open_chat(chat, memory_for_chat(chat, current_llm()))
    select_index(chat.index)
    session.preset(Widget.CHAT_MODE, chat.chat_mode)
    if chat.messages:
        st.query_params["chat"] = chat.id
    return True


def restore_chat(ws: Workspace) -> None:
    """After a browser refresh or restart: reopen the chat named in the URL. A session without
    one starts a chat of its own (the saved chats are listed to open): opening the latest chat
    put a second person's questions into the conversation a first one had open."""
    if open_chat() is not None:
        return
    wanted = st.query_params.get("chat")
    if wanted:
        try:
            team, user = team_state.current()
            chat = permitted.open_chat(team, user, ws, wanted)
        except Exception as exc:  # noqa: BLE001 - a stale link: a new chat, and why
            st.warning("The chat in this link could not be opened: "
                       f"{literal_markdown(str(explain_error(exc)))}")
            return
        if index_gone(ws, chat.index, chat.index_uid):  # a new index now has its folder
            st.warning("The chat in this link was about an index that has since been deleted: "
                       "starting a new chat.")
            return
        open_saved_chat(chat)
