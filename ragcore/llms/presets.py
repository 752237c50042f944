"""Where local model servers usually listen, and a tiny test of a chosen model.

A ``ServerPreset`` names a server people run on their own computer (Ollama, LM Studio, the
llama.cpp server, vLLM) with the backend that speaks to it and its usual address, so the Settings
page can fill the address in one click. ``try_model`` sends one short chat request through the
registered backend (``build_llm``), its reply capped at a few tokens, and says how long the model
took: the step between choosing a model and making it the default. Listing a server's models is
``ragcore.http.servers`` (names) and ``ollama_models`` (Ollama, with sizes, and downloads).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Mapping

from ..errors import LLMResponseError
from ..http.servers import DEFAULT_OLLAMA_URL
from ..types import Message
from .base import complete
from .registry import build_llm, describe_llm


@dataclass(slots=True, frozen=True)
class ServerPreset:
    """A local server: its name for people, the backend that speaks to it, its usual address."""

    name: str
    label: str
    backend: str  # a name in ``llm_backends``
    url: str
    start: str  # how to start it, for when nothing answers there


PRESETS = (
    ServerPreset("ollama", "Ollama", "ollama", DEFAULT_OLLAMA_URL,
                 "Install Ollama from https://ollama.com and open it (or run `ollama serve`)."),
    ServerPreset("lmstudio", "LM Studio", "openai", "http://127.0.0.1:1234/v1",
                 "In LM Studio, load a model and start the local server (Developer tab)."),
    ServerPreset("llamacpp", "llama.cpp server", "openai", "http://127.0.0.1:8080/v1",
                 "Start it with `llama-server -m MODEL.gguf --port 8080`."),
    ServerPreset("vllm", "vLLM", "openai", "http://127.0.0.1:8000/v1",
                 "Start it with `vllm serve MODEL` (it listens on port 8000)."),
)
# The test: a reply a small model writes in a second or two, capped so it cannot run on.
TEST_MESSAGES = (Message("user", "Say hello in five words or fewer."),)
TEST_REPLY_TOKENS = 16


@dataclass(slots=True, frozen=True)
class ModelCheck:
    """What a model answered to the test, who answered, and in how many seconds."""

    reply: str
    model: str  # as people read it: "Ollama llama3.2:1b at http://127.0.0.1:11434"
    seconds: float


def presets_for(backend: str) -> list[ServerPreset]:
    """The presets a backend's settings can be filled from."""
    return [preset for preset in PRESETS if preset.backend == backend]


def preset_at(url: str) -> ServerPreset | None:
    """The preset whose usual address is ``url`` (trailing slash ignored), if any."""
    wanted = url.strip().rstrip("/")
    return next((preset for preset in PRESETS if preset.url == wanted), None)


def try_model(backend: str, settings: Mapping[str, Any]) -> ModelCheck:
    """Send the test message to the model ``settings`` choose, through backend ``backend``.

    Raises the backend's error (connection, HTTP status, time limit), or ``LLMResponseError``
    for an empty reply.
    """
    llm = build_llm(backend, {**settings, "num_output": TEST_REPLY_TOKENS})
    start = time.perf_counter()
    reply = complete(llm, list(TEST_MESSAGES)).strip()
    seconds = time.perf_counter() - start
    if not reply:
        raise LLMResponseError(
            f"{describe_llm(llm)} answered the test with nothing: try another model, or check "
            "the server's logs.")
    return ModelCheck(reply, describe_llm(llm), seconds)
