"""The LLM backends by name: the one list ``resolve_llm``, the settings, the CLI and the app read.

Built in: ``local`` (a packaged GGUF model run in-process on the CPU), ``extractive`` (offline,
no model: quotes), ``ollama`` and ``openai`` (any OpenAI-compatible server). Each is a ``ragcore.backend.Backend`` whose factory takes its own settings and the
``LLMOptions`` every backend shares. Factories import their backend module when called, so
importing this module costs no httpx. Another backend is one module plus one call::

    register_llm_backend(Backend(name="mine", label="My server", description="...",
                                 settings=MySettings, build=lambda s, options: MyLLM(...)))

after which ``resolve_llm("mine:MODEL")``, ``ragcore query --llm mine:MODEL`` and the app's
Settings page offer it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ..backend import Backend, NoSettings, ServerUrl, models_found, secret_value
from ..http.options import DEFAULT_REQUEST_TIMEOUT
from ..registry import Registry
from ..http.servers import DEFAULT_OPENAI_URL, list_openai_models, ollama_url
from .base import DEFAULT_NUM_OUTPUT, LLM

EXTRACTIVE_DESCRIPTION = "Extractive (offline, no language model)"


@dataclass(slots=True, frozen=True)
class LLMOptions:
    """What every LLM backend is built with besides its own settings (None: its default)."""

    temperature: float | None = None
    context_window: int | None = None  # tokens the model reads; Ollama also allocates this
    timeout: float | None = None  # seconds to wait for each read of a reply (servers only)


llm_backends: Registry[Backend[LLM]] = Registry("LLM backend")


def register_llm_backend(backend: Backend[LLM], *, replace: bool = False) -> Backend[LLM]:
    """Offer ``backend`` under its name everywhere LLM backends are listed."""
    return llm_backends.register(backend.name, backend, replace=replace)


def build_llm(name: str, settings: Any = None, options: LLMOptions | None = None) -> LLM:
    """The LLM of backend ``name`` with ``settings`` (a dict or its settings model)."""
    backend = llm_backends.get(name)
    values = backend.parse(settings)
    backend.check_complete(values)
    return backend.build(values, options or LLMOptions())


def describe_llm(llm: LLM) -> str:
    """A short human description for the UI: which backend, which model, where."""
    name = str(getattr(llm, "model", "")).partition(":")[0]
    if name in llm_backends:
        return llm_backends.get(name).describe_object(llm)
    return str(getattr(llm, "model", type(llm).__name__))


# -- the built-in backends --------------------------------------------------------------------

# A field the app's Settings page shows only under Advanced (tokens, time limits, threads).
ADVANCED = {"advanced": True}
# The two limits every server backend's reply runs under, as a person sets them.
ReplyCap = Annotated[int, Field(
    ge=1, title="Reply cap (tokens)", json_schema_extra=ADVANCED,
    description="The longest reply the model may write; this much of the context window is "
                "kept free for it. Lower it if replies run too long.")]
ReplyTimeLimit = Annotated[float, Field(
    gt=0, title="Time limit per reply (seconds)", json_schema_extra=ADVANCED,
    description="A reply still coming after this long is stopped with an error. Raise it "
                "for a slow computer or a large model.")]


class OllamaSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    url: ServerUrl = Field(default_factory=ollama_url, title="Ollama address")
    model: str = Field("", title="Model",
                       description="Leave empty to use the first chat model the server has.")
    num_output: ReplyCap = DEFAULT_NUM_OUTPUT
    request_timeout: ReplyTimeLimit = DEFAULT_REQUEST_TIMEOUT


class OpenAISettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    url: ServerUrl = Field(DEFAULT_OPENAI_URL, title="Server address (base URL)",
                           description="OpenAI's address, or your server's, usually ending in /v1.")
    model: str = Field("", title="Model")
    api_key: SecretStr | None = Field(
        None, title="API key",
        description="Kept for this session only unless you save it. Empty: $OPENAI_API_KEY.")
    num_output: ReplyCap = DEFAULT_NUM_OUTPUT
    request_timeout: ReplyTimeLimit = DEFAULT_REQUEST_TIMEOUT


class LocalSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    model: str = Field("", title="Model",
                       description="A packaged model's name; empty: the first one installed.")
    threads: int = Field(0, ge=0, title="CPU threads", json_schema_extra=ADVANCED,
                         description="How many cores the model may use; 0: fitted to the "
                                     "machine, one per core other programs leave free.")
    num_output: ReplyCap = 384
    fit_reading: bool = Field(True, title="Fit passage tokens to this machine",
                              json_schema_extra=ADVANCED,
                              description="Give the model what lets a short answer come "
                                          "whole within about 7 s at its measured speed (a "
                                          "list or summary 2.5x that); off: 'Passage tokens "
                                          "read' below.")
    reading_tokens: int = Field(200, ge=0, title="Passage tokens read", json_schema_extra=ADVANCED,
                                description="With fitting off, a query gives the model the "
                                            "question's closest sentences up to this many tokens "
                                            "(fewer: a faster first word); 0: whole passages.")


def _timeout(options: LLMOptions) -> dict[str, float]:
    return {} if options.timeout is None else {"timeout": options.timeout}


def _build_extractive(settings: NoSettings, options: LLMOptions) -> LLM:
    from .extractive.backend import ExtractiveLLM

    return ExtractiveLLM()  # no model: temperature and window do not apply


def _build_local(settings: LocalSettings, options: LLMOptions) -> LLM:
    from .local import LocalLLM

    extra: dict[str, Any] = {}
    if options.temperature is not None:
        extra["temperature"] = options.temperature
    return LocalLLM(settings.model or None, context_window=options.context_window,
                    num_output=settings.num_output, threads=settings.threads or None,
                    reading_tokens="fitted" if settings.fit_reading else (
                        settings.reading_tokens or None), **extra)


def _local_models(settings: LocalSettings) -> list[str]:
    from .local_models import installed_models

    return [model.name for model in installed_models()]


def _test_local(settings: LocalSettings) -> str:
    from .local_models import installed_models

    names = _local_models(settings)
    if not names:
        return "No packaged model is installed: run `make install`."
    sizes = ", ".join(f"{m.name} ({m.size / 1e9:.2f} GB, {m.licence})" for m in installed_models())
    return f"Installed on this computer: {sizes}."


def _describe_local(llm: Any) -> str:
    # The threads it runs with, and why, are the Settings page's and the trace's to say.
    return f"Packaged model {llm.name} on this computer"


def _build_ollama(settings: OllamaSettings, options: LLMOptions) -> LLM:
    from .ollama import OllamaLLM, first_chat_model

    model = settings.model or first_chat_model(settings.url, timeout=options.timeout or 5.0)
    window = options.context_window
    return OllamaLLM(model=model, base_url=settings.url, temperature=options.temperature,
                     num_ctx=window, context_window=window, num_output=settings.num_output,
                     request_timeout=settings.request_timeout, **_timeout(options))


def _build_openai(settings: OpenAISettings, options: LLMOptions) -> LLM:
    from .openai import OpenAILLM

    window = {} if options.context_window is None else {"context_window": options.context_window}
    return OpenAILLM(model=settings.model, base_url=settings.url,
                     api_key=secret_value(settings.api_key), temperature=options.temperature,
                     num_output=settings.num_output, request_timeout=settings.request_timeout,
                     **window, **_timeout(options))


def _ollama_chat_models(settings: OllamaSettings) -> list[str]:
    from .ollama import list_ollama_chat_models

    return list_ollama_chat_models(settings.url)


def _test_ollama(settings: OllamaSettings) -> str:
    return models_found(settings.url, _ollama_chat_models(settings), what="chat model",
                        hint="pull one with `ollama pull llama3.1`")


def _openai_models(settings: OpenAISettings) -> list[str]:
    return list_openai_models(settings.url, secret_value(settings.api_key))


def _test_openai(settings: OpenAISettings) -> str:
    return models_found(settings.url, _openai_models(settings))


def _describe_ollama(llm: Any) -> str:
    return f"Ollama {llm.model_name} at {llm.base_url}"


def _describe_openai(llm: Any) -> str:
    if llm.base_url == DEFAULT_OPENAI_URL:
        return f"OpenAI {llm.model_name}"
    return f"OpenAI-compatible {llm.model_name} at {llm.base_url}"


register_llm_backend(Backend(
    name="local", label="Packaged model (this computer)",
    description="A small language model installed with the app, run on this computer's CPU: "
                "no server, no key, nothing leaves the machine.",
    settings=LocalSettings, build=_build_local, list_models=_local_models,
    test_connection=_test_local, describe=_describe_local,
))
register_llm_backend(Backend(
    name="extractive", label="Extractive (offline)",
    description="No language model: answers quote the most relevant sentences of your documents.",
    settings=NoSettings, build=_build_extractive,
    describe=lambda llm: EXTRACTIVE_DESCRIPTION,
))
register_llm_backend(Backend(
    name="ollama", label="Ollama",
    description="A model served by Ollama on this computer or your network.",
    settings=OllamaSettings, build=_build_ollama, list_models=_ollama_chat_models,
    test_connection=_test_ollama, describe=_describe_ollama,
))
register_llm_backend(Backend(
    name="openai", label="OpenAI-compatible server",
    description="OpenAI, or any server speaking its API (vLLM, LM Studio, llama.cpp …).",
    settings=OpenAISettings, build=_build_openai, required=("model",),
    list_models=_openai_models, test_connection=_test_openai, describe=_describe_openai,
))
