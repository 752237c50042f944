"""The one place the default LLM is chosen (for the CLI and the app; the library never guesses).

A spec names a registered backend (``ragcore.llms.registry``), optionally with a model:
'extractive', 'ollama:llama3.1', 'openai:gpt-4o-mini', or any backend registered since.
Precedence: an explicit spec, else the ``RAGCORE_LLM`` environment variable (same syntax, with
``OPENAI_API_KEY``), else a local Ollama if it answers within ``PROBE_SECONDS`` (its first chat
model), else the packaged model (``local``: installed with ragcore, run on the CPU), and only when
that cannot load, the extractive backend, whose reason ``fallback_reason`` keeps so the app and
CLI can say it once.

Where a backend's server is follows one rule for every backend and every way it is chosen
(``server_url``): the flag (``--base-url``, ``base_url=``), else ``RAGCORE_LLM_BASE_URL``, else
the address saved in the workspace settings for that backend, else the backend's default. (An
``openai:MODEL`` spec once ignored the environment and sent documents and key to api.openai.com.)
"""

from __future__ import annotations

import logging
import os
from typing import Any, Mapping

from ..errors import ConfigError, LLMError
from .base import LLM
from .registry import LLMOptions, build_llm, describe_llm, llm_backends

__all__ = ["BASE_URL_VARIABLE", "PROBE_SECONDS", "describe_llm", "fallback_reason", "parse_spec",
           "resolve_llm", "server_url", "spec_forms", "spec_help"]

logger = logging.getLogger(__name__)

PROBE_SECONDS = 0.3
BASE_URL_VARIABLE = "RAGCORE_LLM_BASE_URL"


def server_url(backend: str, *, flag: str | None = None, saved: str | None = None) -> str | None:
    """Where backend ``backend``'s server is, by the one rule: ``flag`` (``--base-url``,
    ``base_url=``), else $RAGCORE_LLM_BASE_URL, else ``saved`` (the workspace settings' address
    for this backend), else the backend's default; None for a backend without a server."""
    fields = llm_backends.get(backend).settings.model_fields
    if "url" not in fields:
        return None
    for value in (flag, os.environ.get(BASE_URL_VARIABLE), saved):
        if value and value.strip():
            return value.strip()
    return fields["url"].get_default(call_default_factory=True)


def spec_forms() -> list[str]:
    """How each registered backend is named in a spec: 'extractive', 'ollama:MODEL' ..."""
    return [name + (":MODEL" if "model" in backend.settings.model_fields else "")
            for name, backend in zip(llm_backends.names(), llm_backends)]


def spec_help() -> str:
    forms = ", ".join(f"'{form}'" for form in spec_forms())
    return f"use {forms} or 'auto'"


def resolve_llm(
    spec: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float | None = None,
    temperature: float | None = None,
    context_window: int | None = None,
    saved_urls: Mapping[str, str] | None = None,
) -> LLM:
    """The LLM named by ``spec`` ('BACKEND' or 'BACKEND:MODEL', or 'auto'/None to detect one).

    ``saved_urls`` (backend name -> address, from the workspace settings) take the third place
    in ``server_url``'s rule, after ``base_url`` and $RAGCORE_LLM_BASE_URL."""
    source = "spec"
    if _is_auto(spec):
        env = os.environ.get("RAGCORE_LLM", "").strip()
        if env and env.lower() != "auto":
            spec, source = env, "RAGCORE_LLM"
    options = LLMOptions(temperature=temperature, context_window=context_window, timeout=timeout)
    saved = saved_urls or {}
    if spec is None or _is_auto(spec):
        url = server_url("ollama", flag=base_url, saved=saved.get("ollama"))
        return _probe_local_ollama(url, options)
    name, settings = parse_spec(spec, base_url=base_url, api_key=api_key, source=source,
                                saved_urls=saved)
    return build_llm(name, settings, options)


def parse_spec(
    spec: str, *, base_url: str | None = None, api_key: str | None = None, source: str = "spec",
    saved_urls: Mapping[str, str] | None = None,
) -> tuple[str, Any]:
    """The backend name and its validated settings for ``spec`` ('ollama:qwen2.5:7b' ...).

    The backend's ``url`` comes from ``server_url`` (``base_url``, the environment, then
    ``saved_urls``); ``api_key`` fills its ``api_key`` field when it has one. A model for a
    backend without one, or no model for a backend that needs one, is refused with the
    accepted forms.
    """
    name, _, model = spec.strip().partition(":")
    name, model = name.strip().lower(), model.strip()
    if name not in llm_backends:
        raise ConfigError(f"unknown LLM {spec!r} (from {source}): {spec_help()}")
    backend = llm_backends.get(name)
    fields = backend.settings.model_fields
    if model and "model" not in fields:
        raise ConfigError(f"the {name} backend takes no model, got {spec!r} (from {source}): "
                          f"{spec_help()}")
    url = server_url(name, flag=base_url, saved=(saved_urls or {}).get(name))
    given = {"model": model or None, "url": url, "api_key": api_key}
    settings = backend.parse({k: v for k, v in given.items() if v is not None and k in fields})
    if backend.missing(settings):
        raise ConfigError(f"LLM {spec!r} (from {source}) needs a model: {spec_help()}")
    return name, settings


def _is_auto(spec: str | None) -> bool:
    return spec is None or spec.strip().lower() == "auto"


_fallback: list[str] = []  # why the packaged model could not load, once it failed


def fallback_reason() -> str | None:
    """Why auto-detection fell back to extractive answers in this process (None: it did not)."""
    return _fallback[0] if _fallback else None


def _probe_local_ollama(url: str, options: LLMOptions) -> LLM:
    from .ollama import list_ollama_chat_models

    try:
        models = list_ollama_chat_models(url, timeout=PROBE_SECONDS)
    except LLMError as exc:
        logger.info("no Ollama at %s (%s): using the packaged model", url, exc)
        return _packaged_model(options)
    if not models:
        logger.info("Ollama at %s has no chat model: using the packaged model", url)
        return _packaged_model(options)
    logger.info("using Ollama model %s at %s", models[0], url)
    return build_llm("ollama", {"url": url, "model": models[0]}, options)


def _packaged_model(options: LLMOptions) -> LLM:
    """The packaged model, or extractive answers with the reason kept (``fallback_reason``:
    the app and the CLI say it to the user once; the log has it at info level)."""
    try:
        return build_llm("local", None, options)
    except (LLMError, ConfigError) as exc:
        reason = (f"The packaged language model could not load ({exc}); answers are quoted "
                  "from your documents (extractive) instead.")
        if not _fallback:
            _fallback.append(reason)
            logger.info("%s", reason)
        return build_llm("extractive", None, options)
