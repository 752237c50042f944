"""The local backend: a packaged GGUF model run in this process on the CPU by llama.cpp.

``LocalLLM`` speaks to llama.cpp's own server engine through the ``xllamacpp`` bindings
(prebuilt CPU wheels; no compiler, no server process, no network): the request is an OpenAI
chat body, the chat template is the one inside the GGUF file, and the reply streams token by
token; ``choose`` confines a reply to one of some texts by llama.cpp's grammar (``grammar``).
Like the HTTP backends it caps every reply (``num_output``), accepts stop strings
(``with_stop``) and says what to do when something fails.

The engine (``engine``) loads once per process and is shared by every ``LocalLLM`` of the same
file, window, thread setting and slots. Its threads follow the machine as it is (``machine``:
only the cores other programs leave free), and its measured reading speed sets how many passage
tokens a query gives the model (``pace``; ``reading_tokens="fitted"``, the default). It keeps
the prompts of its last replies (``exchanges``), so a question about an answer it wrote is asked
in that answer's prompt and reads only itself (``prompt_of``: the grounding verdict's judge).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Literal, Sequence

from ...errors import ConfigError, LLMResponseError
from ...prompts.answer import QA
from ...prompts.chat import CONTEXT_CHAT
from ...types import Message
from ..gguf_info import read_gguf_info
from ..local_models import PackagedModel, default_model, model_file, packaged_model
from ..local_tools import fresh_ids, repeats_calls, tool_calls_in_text
from .engine import EngineConfig, LocalEngine, chunk_text, default_threads, loaded_engines, \
    shared_engine
from .grammar import one_of
from .machine import ThreadChoice
from .pace import ReadingBudget, cut_short_note

__all__ = ["DEFAULT_LOCAL_OUTPUT", "DEFAULT_LOCAL_WINDOW", "DEFAULT_PARALLEL",
           "DEFAULT_READING_TOKENS", "FITTED", "EngineConfig", "LocalEngine", "LocalLLM",
           "THREADS_ENV", "chunk_text", "default_threads", "loaded_engines", "local_chat_body",
           "shared_engine", "threads_from_env"]

# Tokens per slot: a query's prompt is ~400 tokens (``DEFAULT_READING_TOKENS`` of passages),
# its reply at most ``DEFAULT_LOCAL_OUTPUT``; a chat keeps what history fits (the budget rule).
DEFAULT_LOCAL_WINDOW = 2048
DEFAULT_LOCAL_OUTPUT = 384
DEFAULT_PARALLEL = 2
# The passages' tokens a query gives the model (``engines.from_index`` keeps the question's closest
# sentences up to it): with ``FITTED`` (the default) what leaves a factoid's whole answer within
# about 7 s at the measured speeds (``pace``: the cap of 250 on these 2 idle cores, 100 on one
# busy one), and this many until a reply has been timed (the engine times its primer at load);
# a number fixes it; None: every passage whole.
DEFAULT_READING_TOKENS = 200
FITTED = "fitted"
# The openings the engine reads into its slots at load: a query's answer's instructions
# (``QA``), then a chat's (``chat.context``: its system message up to the passages).
PRIMERS = (QA.system, CONTEXT_CHAT.format(context="")[0].content)
# Fixes the threads of every LocalLLM not given them (as OMP_NUM_THREADS does for OpenMP): for a
# machine shared on purpose, or a run whose greedy replies must not vary with the load (the
# thread count changes llama.cpp's sums in their last bits, and a greedy reply may follow).
THREADS_ENV = "RAGCORE_LLM_THREADS"


def local_chat_body(
    messages: Sequence[Message], *, max_tokens: int, temperature: float,
    stop: Sequence[str] = (),
) -> dict[str, Any]:
    """The OpenAI-style body llama.cpp's chat endpoint takes (pure: tests read it)."""
    from ..openai import openai_message  # the same wire shape, tool calls and results included

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
        reading_tokens: int | Literal["fitted"] | None = FITTED,
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
        threads = threads_from_env() if threads is None else threads
        if (threads is not None and threads < 1) or parallel < 1:
            raise ConfigError(f"threads ({threads}) and parallel ({parallel}) must be at least 1 "
                              "(threads None: fitted to the machine)")
        if not 0 <= temperature <= 2:
            raise ConfigError(f"temperature ({temperature}) must be between 0 and 2")
        if reading_tokens != FITTED and reading_tokens is not None and not (
                isinstance(reading_tokens, int) and 0 < reading_tokens < window - num_output):
            raise ConfigError(f"reading_tokens ({reading_tokens!r}) must be positive and leave "
                              f"room for the reply in the {window}-token window, 'fitted' (to "
                              "the measured speed) or None (every passage whole)")
        self._reading = reading_tokens
        self.context_window, self.num_output = window, num_output
        self.temperature, self.stop = temperature, tuple(stop)
        self.trained_window = trained
        # Read into a slot each at load (``engine``): the instructions every query's answer
        # opens with (timed), and a chat answer's, before its passages
        self._config = EngineConfig(self.path.resolve(), window, threads or 0, parallel,
                                    primers=PRIMERS)
        self._engine = shared_engine(self._config)

    @property
    def threads(self) -> int:
        """The threads the model decodes with now (fitted to the machine unless set)."""
        return self._engine.threads

    def thread_choice(self) -> ThreadChoice:
        """The threads the model runs with now, and why (as last chosen: no reload here)."""
        return self._engine.choice

    @property
    def reading_tokens(self) -> int | None:
        """The passage tokens a query gives the model now (None: every passage whole)."""
        budget = self.reading_budget()
        return None if budget is None else budget.tokens

    def reading_budget(self) -> ReadingBudget | None:
        """The base reading budget and why: fitted to the measured reading speed, or set."""
        if self._reading is None:
            return None
        if self._reading != FITTED:
            return ReadingBudget(int(self._reading), "set by hand (Settings, 'Passage tokens "
                                                     "read')")
        ceiling = (self.context_window - self.num_output) // 3  # a list reads 2.5x this
        return self._engine.pace.reading_budget(self._engine.threads,
                                                default=DEFAULT_READING_TOKENS, ceiling=ceiling)

    def pace_note(self) -> dict[str, Any]:
        """What the trace says about this model's pace: threads and reading budget, and why
        (asked just before a request, so the engine fits its threads first)."""
        choice = self._engine.fit()
        budget = self.reading_budget()
        speeds = self._engine.pace.speeds(choice.threads)
        return {"threads": choice.as_dict(),
                "reading_budget": None if budget is None else budget.as_dict(),
                "writing_cap": self._engine.pace.writing_cap(choice.threads,
                                                             ceiling=self.num_output),
                "reads_per_second": _rounded(speeds.reading),
                "writes_per_second": _rounded(speeds.writing)}

    def reading_rate(self) -> float | None:
        """Prompt tokens a second a request reads now: the measured speed shared by the
        requests decoding at once (None until a reply has been timed)."""
        reading = self._engine.pace.speeds(self._engine.threads).reading
        if reading is None:
            return None
        return reading / max(1, self._engine.queue_state().running)

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        """The reply, capped by ``num_output`` and by what the model writes here in the time
        a person waits (``pace.writing_cap``); a reply that cap stopped says so at its end."""
        cap = self._engine.pace.writing_cap(self._engine.threads, ceiling=self.num_output)
        body = self._body(messages)
        ended: list[str] = []
        chunks = self._engine.stream(body if cap is None else {**body, "max_tokens": cap},
                                     finished=ended.append)
        return self._kept(messages, chunks, ended, cap)

    def _kept(self, messages: Sequence[Message], chunks: Iterator[str], ended: list[str],
              cap: int | None) -> Iterator[str]:
        """``chunks`` as they come, and the note of a reply the writing cap stopped; the reply
        is kept for ``prompt_of``, as far as it was read (a reply ended after its short answer
        is checked in its own prompt too: ``CheckedReply.settling``)."""
        parts, whole = [], False
        try:
            for chunk in chunks:
                parts.append(chunk)
                yield chunk
            whole = True
        finally:  # a reader that stops early (Stop, a closed tab) stops the decoding at once
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
            if not whole and parts:
                self._engine.exchanges.keep(messages, "".join(parts))
        if cap is not None and ended == ["length"]:
            parts.append(cut_short_note(cap))
            yield parts[-1]
        self._engine.exchanges.keep(messages, "".join(parts))

    def prompt_of(self, answer: str) -> list[Message] | None:
        """The messages this model answered with ``answer`` lately (``exchanges``): a question
        asked in them instead of their cue reads only itself; None when it did not write it."""
        return self._engine.exchanges.prompt_of(answer)

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
                     "stop", "trained_window", "_reading", "embedder", "_config",
                     "_engine"):
            setattr(copy, name, getattr(self, name))
        return copy

    def chat_with_tools(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> Message:
        """The assistant's reply to ``messages`` offering ``tools`` (OpenAI tool dicts): text,
        or tool calls, including those the model spelled as JSON text (``local_tools``)."""
        from ..openai import parse_tool_reply

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

    def choose(self, messages: Sequence[Message], options: Sequence[str]) -> str:
        """The reply to ``messages`` that llama.cpp's grammar (``grammar.one_of``) confines to
        one of ``options``: the model chooses among them, word for word. A last assistant
        message is continued, and (unlike a streamed reply) not repeated in the choice."""
        reply = self._engine.complete({**self._body(messages), "grammar": one_of(options)})
        try:
            content = reply["choices"][0]["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError) as exc:
            raise LLMResponseError(f"the local model gave no choice: {exc}") from exc
        begun = messages[-1].content if messages and messages[-1].role == "assistant" else ""
        return content.removeprefix(begun)

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


def threads_from_env() -> int | None:
    """``$RAGCORE_LLM_THREADS`` as a thread count (None: unset, fitted to the machine)."""
    value = os.environ.get(THREADS_ENV, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"${THREADS_ENV} ({value!r}) must be a whole number of threads, at "
                          "least 1; unset it to fit the threads to the machine")
    return int(value)


def _entry(model: str | PackagedModel | None) -> PackagedModel:
    if isinstance(model, PackagedModel):
        return model
    if model is None or not model.strip():
        return default_model()
    return packaged_model(model)


def _rounded(speed: float | None) -> float | None:
    return None if speed is None else round(speed, 1)
