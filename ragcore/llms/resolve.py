"""The one place the default LLM is chosen (for the CLI and the app; the library never guesses).

Precedence: an explicit spec, else the ``RAGCORE_LLM`` environment variable (same syntax, with
``RAGCORE_LLM_BASE_URL`` and ``OPENAI_API_KEY``), else a local Ollama if it answers within
``PROBE_SECONDS`` (its first chat model), else the offline extractive backend.
"""

from __future__ import annotations

import logging
import os

from ..errors import ConfigError, LLMError
from .base import LLM
from .extractive import ExtractiveLLM
from .ollama import DEFAULT_OLLAMA_URL, OllamaLLM, list_ollama_models
from .openai import DEFAULT_OPENAI_URL, OpenAILLM

logger = logging.getLogger(__name__)

PROBE_SECONDS = 0.3
SPEC_HELP = "use 'extractive', 'ollama:MODEL', 'openai:MODEL' or 'auto'"
# Ollama lists embedding models beside chat models; they cannot chat.
_EMBEDDING_MODEL_HINTS = ("embed", "minilm", "bge-", "e5-")


def resolve_llm(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
) -> LLM:
    """The LLM named by ``spec`` ('extractive', 'ollama:MODEL', 'openai:MODEL', 'auto'/None)."""
    source = "spec"
    if spec is None or spec.strip().lower() == "auto":
        env = os.environ.get("RAGCORE_LLM", "").strip()
        if env and env.lower() != "auto":
            spec, source = env, "RAGCORE_LLM"
            base_url = base_url or os.environ.get("RAGCORE_LLM_BASE_URL") or None
    if spec is None or spec.strip().lower() == "auto":
        return _probe_local_ollama(base_url or DEFAULT_OLLAMA_URL, timeout)
    kind, _, model = spec.strip().partition(":")
    kind, model = kind.strip().lower(), model.strip()
    options = {} if timeout is None else {"timeout": timeout}
    if kind == "extractive" and not model:
        return ExtractiveLLM()
    if kind == "ollama":
        url = base_url or DEFAULT_OLLAMA_URL
        return OllamaLLM(model=model or _first_chat_model(url, timeout), base_url=url, **options)
    if kind == "openai" and model:
        return OpenAILLM(model=model, base_url=base_url or DEFAULT_OPENAI_URL, api_key=api_key,
                         **options)
    raise ConfigError(f"unknown LLM {spec!r} (from {source}): {SPEC_HELP}")


def _probe_local_ollama(base_url: str, timeout: float | None) -> LLM:
    try:
        models = _chat_models(list_ollama_models(base_url, timeout=PROBE_SECONDS))
    except LLMError as exc:
        logger.info("no Ollama at %s (%s): using the extractive backend", base_url, exc)
        return ExtractiveLLM()
    if not models:
        logger.info("Ollama at %s has no chat model: using the extractive backend", base_url)
        return ExtractiveLLM()
    options = {} if timeout is None else {"timeout": timeout}
    logger.info("using Ollama model %s at %s", models[0], base_url)
    return OllamaLLM(model=models[0], base_url=base_url, **options)


def _first_chat_model(base_url: str, timeout: float | None) -> str:
    models = _chat_models(list_ollama_models(base_url, timeout=timeout or 5.0))
    if not models:
        raise ConfigError(
            f"Ollama at {base_url} has no chat model: pull one (`ollama pull llama3.1`) or "
            "name it as 'ollama:MODEL'"
        )
    return models[0]


def _chat_models(names: list[str]) -> list[str]:
    return [n for n in names if not any(hint in n.lower() for hint in _EMBEDDING_MODEL_HINTS)]


def describe_llm(llm: LLM) -> str:
    """A short human description for the UI: which backend, which model, where."""
    if isinstance(llm, ExtractiveLLM):
        return "Extractive (offline, no language model)"
    if isinstance(llm, OllamaLLM):
        return f"Ollama {llm.model_name} at {llm.base_url}"
    if isinstance(llm, OpenAILLM):
        if llm.base_url == DEFAULT_OPENAI_URL:
            return f"OpenAI {llm.model_name}"
        return f"OpenAI-compatible {llm.model_name} at {llm.base_url}"
    return str(getattr(llm, "model", type(llm).__name__))
