"""Language-model backends behind one protocol (see ``base``).

``ollama`` and ``openai`` talk to servers over the shared ``http`` layer; ``local`` runs a
packaged GGUF model in this process (the default when no server is configured), its requests
admitted to the engine's slots in arrival order by ``slots`` (which tells each waiter its place);
``extractive/`` is the model-free fallback; ``fake`` is for tests. ``registry`` lists the backends by name (with
their settings, factories, model listings and connection tests) and ``resolve`` picks the default
at the edge from it. The backends are imported on first use, so engines importing
``ragcore.llms.base`` do not pay for httpx.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports
from .base import (
    LLM, ToolCallingLLM, chat, complete, complete_traced, stream_chat, stream_complete,
    stream_traced,
)
from .fake import FakeLLM

_LAZY = {
    "DEFAULT_OLLAMA_URL": ".ollama",
    "ExtractiveLLM": ".extractive.backend",
    "LLMOptions": ".registry",
    "OllamaLLM": ".ollama",
    "OpenAILLM": ".openai",
    "build_llm": ".registry",
    "describe_llm": ".registry",
    "fallback_reason": ".resolve",
    "installed_models": ".local_models",
    "is_chat_model": ".ollama",
    "list_ollama_models": ".ollama",
    "list_ollama_models_detailed": ".ollama_models",
    "list_openai_models": ".openai",
    "ollama_url": ".ollama",
    "loaded_engines": ".local",
    "llm_backends": ".registry",
    "PACKAGED_MODELS": ".local_models",
    "PackagedModel": ".local_models",
    "preset_at": ".presets",
    "presets_for": ".presets",
    "pull_ollama_model": ".ollama_models",
    "register_llm_backend": ".registry",
    "resolve_llm": ".resolve",
    "try_model": ".presets",
    "waiting_reporter": ".slots",
    "one_turn": ".slots",
}

__all__ = ["LLM", "ToolCallingLLM", "FakeLLM", "chat", "complete", "complete_traced", "stream_chat",
           "stream_complete", "stream_traced",
           *sorted(_LAZY)]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), __all__)
