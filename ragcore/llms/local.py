"""The local backend: a packaged GGUF model run in this process on the CPU by llama.cpp.

``LocalLLM`` speaks to llama.cpp's own server engine through the ``xllamacpp`` bindings
(prebuilt CPU wheels; no compiler, no server process, no network): the request is an OpenAI
chat body, the chat template is the one inside the GGUF file, and the reply streams token by
token. Like the HTTP backends it caps every reply (``num_output``), accepts stop strings
(``with_stop``) and says what to do when something fails.

The engine (weights, KV cache, threads) is heavy, so it loads once per process and is shared:
every ``LocalLLM`` with the same file, window, threads and slots uses one ``LocalEngine`` from
``shared_engine``, whichever browser session built it. The engine has ``parallel`` slots (two by
default): two questions at once are decoded together; a third waits for a free slot. A slot
keeps the prompt it last read, so a prompt that starts like the previous one (the same system
prompt) only reads what is new. Stopping a reply (closing its stream) ends its decoding at the
next token.
"""

from __future__ import annotations

import atexit
import logging
import os
import queue
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from ..errors import ConfigError, LLMError, LLMResponseError
from ..types import Message
from .gguf_info import read_gguf_info
from .local_models import PackagedModel, default_model, model_file, packaged_model
from .local_tools import fresh_ids, repeats_calls, tool_calls_in_text

logger = logging.getLogger(__name__)

# Tokens per slot: a query's prompt is ~400 tokens (``DEFAULT_READING_TOKENS`` of passages),
# its reply at most ``DEFAULT_LOCAL_OUTPUT``; a chat keeps what history fits (the budget rule).
DEFAULT_LOCAL_WINDOW = 2048
DEFAULT_LOCAL_OUTPUT = 384
DEFAULT_PARALLEL = 2
# The passages' tokens a query gives the model (``engines.from_index`` keeps the question's closest
# sentences up to it): on 2 cores the model reads ~50 tokens a second, and a first token within
# ~4 s leaves it a few hundred tokens to read. None: every passage whole.
DEFAULT_READING_TOKENS = 200


def default_threads() -> int:
    """The cores this process may use (the default thread cap)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass(slots=True, frozen=True)
class EngineConfig:
    """What decides whether two LocalLLMs can share one loaded engine."""

    path: Path
    window: int  # tokens per slot
    threads: int
    parallel: int


class LocalEngine:
    """One loaded model: llama.cpp's server engine, thread-safe, ``parallel`` slots."""

    def __init__(self, config: EngineConfig) -> None:
        try:
            import xllamacpp
        except ImportError as exc:
            raise LLMError("the local backend needs the llama.cpp bindings: pip install "
                           "xllamacpp (or run `make install`)") from exc
        params = xllamacpp.CommonParams()
        params.model.path = str(config.path)
        params.n_ctx = config.window * config.parallel  # llama.cpp splits it between slots
        params.n_parallel = config.parallel
        params.cpuparams.n_threads = config.threads
        params.cpuparams_batch.n_threads = config.threads
        # No host-memory copies of idle slots' prompts (llama.cpp keeps up to 8 GiB of them by
        # default: the model then added 1.9x its file to the process); each slot still reuses
        # its own last prompt (``cache_prompt``).
        params.cache_ram_mib = 0
        # Read the weights, not mapped: llama.cpp repacks them for the CPU's vector units, and
        # with a mapping the file's pages stayed resident beside the repacked copy (2.08 GB
        # added for a 1.12 GB file; read, 1.46 GB; with 2,048-token slots, about 1.3 GB).
        params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
        params.verbosity = -1  # llama.cpp's own log would go to stderr line by line
        params.use_jinja = True  # the GGUF's own chat template, tools and tool results included
        # The engine also listens on a loopback port; a random key keeps other programs out.
        params.api_keys = [secrets.token_hex(16)]
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # the bindings raise plain RuntimeError/ValueError
            raise LLMError(f"llama.cpp could not load {config.path}: {exc}. Check that the file "
                           "is a GGUF model (reinstall it with `make install`)") from exc
        self.config = config

    def stream(self, body: dict[str, Any]) -> Iterator[str]:
        """The reply to an OpenAI chat ``body``, as text chunks; closing the iterator stops it."""
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()
        done = object()

        def take(chunk: Any) -> bool:
            chunks.put(chunk)
            return stop.is_set()  # True tells llama.cpp to stop decoding this reply

        def run() -> None:
            try:
                self._server.handle_chat_completions({**body, "stream": True}, take)
            except BaseException as exc:  # handed to the reader, who raises it
                chunks.put(exc)
            finally:
                chunks.put(done)

        worker = threading.Thread(target=run, name="ragcore-local-llm", daemon=True)
        running = (stop, worker)
        with _RUNNING_LOCK:
            _RUNNING.add(running)
        worker.start()
        try:
            while (chunk := chunks.get()) is not done:
                if isinstance(chunk, BaseException):
                    raise LLMError(f"the local model failed: {chunk}") from chunk
                text = chunk_text(chunk)
                if text:
                    yield text
        finally:
            stop.set()
            with _RUNNING_LOCK:
                _RUNNING.discard(running)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole (non-streamed) reply object, e.g. with ``logprobs`` asked for."""
        reply = self._server.handle_chat_completions({**body, "stream": False})
        _raise_error(reply)
        return reply


def chunk_text(chunk: Any) -> str:
    """The text of one streamed chunk; an ``{"error": ...}`` chunk raises."""
    _raise_error(chunk)
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    if not choices:
        return ""
    delta = choices[0].get("delta") or {}
    return delta.get("content") or ""


def _raise_error(reply: Any) -> None:
    if isinstance(reply, dict) and isinstance(reply.get("error"), dict):
        error = reply["error"]
        message = error.get("message", "unknown error")
        if error.get("type") == "exceed_context_size_error":
            raise LLMResponseError(
                f"the local model's window is too small for this prompt ({message}): raise "
                "context_window (Settings, 'Context window') or retrieve fewer passages")
        raise LLMResponseError(f"the local model refused the request: {message}")


# Replies being decoded: a process that exits mid-reply stops them first (``_stop_running``);
# llama.cpp decoding while the interpreter tears the engine down crashed it (1 exit in 3).
_RUNNING: set[tuple[threading.Event, threading.Thread]] = set()
_RUNNING_LOCK = threading.Lock()
EXIT_WAIT_SECONDS = 10.0  # a reply stops at its next token; reading a long prompt takes longer


@atexit.register
def _stop_running() -> None:
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for stop, _ in running:
        stop.set()
    for _, worker in running:
        worker.join(EXIT_WAIT_SECONDS)


_ENGINES: dict[EngineConfig, LocalEngine] = {}
_ENGINES_LOCK = threading.Lock()


def shared_engine(config: EngineConfig) -> LocalEngine:
    """The process's engine for ``config``, loaded on first use (once, whoever asks first)."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(config)
        if engine is None:
            logger.info("loading %s (%d threads, %d slots of %d tokens)", config.path.name,
                        config.threads, config.parallel, config.window)
            engine = _ENGINES[config] = LocalEngine(config)
        return engine


def loaded_engines() -> list[EngineConfig]:
    """What this process has loaded (for the Settings page)."""
    with _ENGINES_LOCK:
        return list(_ENGINES)


def local_chat_body(
    messages: Sequence[Message], *, max_tokens: int, temperature: float,
    stop: Sequence[str] = (),
) -> dict[str, Any]:
    """The OpenAI-style body llama.cpp's chat endpoint takes (pure: tests read it)."""
    from .openai import openai_message  # the same wire shape, tool calls and results included

    body: dict[str, Any] = {
        "messages": [openai_message(m) for m in messages],
        "max_tokens": max_tokens,
        "temperature": temperature,
        "cache_prompt": True,  # a slot reuses the prompt it read last as far as it agrees
    }
    if temperature == 0:
        body["top_k"] = 1  # greedy: the same messages give the same reply
    if stop:
        body["stop"] = list(stop)
    return body


class LocalLLM:
    """A packaged (or any GGUF) model run on this machine's CPU."""

    native_tool_calls = False  # small models write their calls as text (``local_tools``)
    embedder: Any = None  # the index's embedding model, for the not-found gate (``with_embedder``)

    def __init__(
        self,
        model: str | PackagedModel | None = None,
        *,
        path: str | Path | None = None,
        context_window: int | None = None,
        num_output: int = DEFAULT_LOCAL_OUTPUT,
        threads: int | None = None,
        parallel: int = DEFAULT_PARALLEL,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        reading_tokens: int | None = DEFAULT_READING_TOKENS,
    ) -> None:
        entry = _entry(model) if path is None else None
        self.path = Path(path) if path is not None else model_file(entry)
        self.name = entry.name if entry is not None else self.path.stem
        self.model = f"local:{self.name}"
        info = read_gguf_info(self.path)
        trained = info.context_length or DEFAULT_LOCAL_WINDOW
        window = min(DEFAULT_LOCAL_WINDOW, trained) if context_window is None else context_window
        if not 0 < window <= trained:
            raise ConfigError(f"context_window ({window}) must be between 1 and the "
                              f"{trained} tokens {self.name} was trained to read")
        if not 0 < num_output < window:
            raise ConfigError(f"num_output ({num_output}) must be positive and smaller than the "
                              f"context window ({window})")
        threads = default_threads() if threads is None else threads
        if threads < 1 or parallel < 1:
            raise ConfigError(f"threads ({threads}) and parallel ({parallel}) must be at least 1")
        if not 0 <= temperature <= 2:
            raise ConfigError(f"temperature ({temperature}) must be between 0 and 2")
        if reading_tokens is not None and not 0 < reading_tokens < window - num_output:
            raise ConfigError(f"reading_tokens ({reading_tokens}) must be positive and leave "
                              f"room for the reply in the {window}-token window (or None)")
        self.reading_tokens = reading_tokens
        self.context_window, self.num_output = window, num_output
        self.temperature, self.stop = temperature, tuple(stop)
        self.trained_window = trained
        self._config = EngineConfig(self.path.resolve(), window, threads, parallel)
        self._engine = shared_engine(self._config)

    @property
    def threads(self) -> int:
        return self._config.threads

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        return self._engine.stream(self._body(messages))

    def with_stop(self, stop: Sequence[str]) -> LocalLLM:
        """The same model (same engine) ending its replies at any of ``stop``."""
        copy = self._copy()
        copy.stop = tuple(stop)
        return copy

    def with_embedder(self, embedder: Any) -> LocalLLM:
        """The same model keeping ``embedder`` (the index's, as the engines hand it): the
        not-found gate measures with it whether the passages answer; the model never uses it."""
        copy = self._copy()
        copy.embedder = embedder
        return copy

    def _copy(self) -> LocalLLM:
        copy = object.__new__(LocalLLM)
        for name in ("path", "name", "model", "context_window", "num_output", "temperature",
                     "stop", "trained_window", "reading_tokens", "embedder", "_config",
                     "_engine"):
            setattr(copy, name, getattr(self, name))
        return copy

    def chat_with_tools(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> Message:
        """The assistant's reply to ``messages`` offering ``tools`` (OpenAI tool dicts): text,
        or tool calls, including those the model spelled as JSON text (``local_tools``)."""
        from .openai import parse_tool_reply

        reply = parse_tool_reply(self._engine.complete({**self._body(messages),
                                                        "tools": list(tools)}))
        names = [tool.get("function", {}).get("name", "") for tool in tools]
        calls = reply.tool_calls or tool_calls_in_text(reply.content, names)
        if (calls and repeats_calls(calls, messages)) or not (calls or reply.content.strip()):
            # A small model asks again for what it was just given, or says nothing after
            # reading it: answer from the conversation as it stands, with no tools offered.
            return Message("assistant", "".join(self.stream(messages)))
        content = "" if calls and not reply.tool_calls else reply.content
        return Message("assistant", content, tool_calls=fresh_ids(calls, messages))

    def first_token_logprobs(self, messages: Sequence[Message], *, top: int = 10
                             ) -> dict[str, float]:
        """The log-probabilities of the likeliest first tokens of the reply (a confidence
        signal: how sure the model is that it begins with "Not found", say)."""
        body = {**self._body(messages), "max_tokens": 1, "logprobs": True, "top_logprobs": top}
        reply = self._engine.complete(body)
        try:
            first = reply["choices"][0]["logprobs"]["content"][0]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMResponseError(f"the local model gave no log-probabilities: {exc}") from exc
        return {item["token"]: float(item["logprob"]) for item in first.get("top_logprobs", [])}

    def _body(self, messages: Sequence[Message]) -> dict[str, Any]:
        return local_chat_body(messages, max_tokens=self.num_output,
                               temperature=self.temperature, stop=self.stop)

    def __repr__(self) -> str:
        return (f"LocalLLM(model={self.name!r}, context_window={self.context_window}, "
                f"threads={self.threads})")


def _entry(model: str | PackagedModel | None) -> PackagedModel:
    if isinstance(model, PackagedModel):
        return model
    if model is None or not model.strip():
        return default_model()
    return packaged_model(model)
