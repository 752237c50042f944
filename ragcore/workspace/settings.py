"""User settings: the answering backend, the embedding backend and ingestion defaults.

Validated with pydantic because they come from outside (a JSON file, a settings form). Which
backends exist is not written here: ``llm_backend`` and ``embedding_backend`` name entries of the
registries (``ragcore.llms.registry``, ``ragcore.embeddings.registry``), and each backend's own
settings are kept by backend name in ``llms`` and ``embedders``, validated by that backend's
settings model. The settings of a backend not registered in this process (a plugin not loaded)
are kept as they are.

Secrets (``SecretStr`` fields such as an API key) stay in memory for the session: they go into
``settings.json`` only when the user sets ``save_api_key`` (the file is then private), and never
into ``model_dump_json()``. Files written before the registry existed (flat fields such as
``ollama_url``, ``openai_model``, ``embedding_kind``) are read through ``migrate_flat_settings``.
Turning settings into live objects is ``ragcore.workspace.backends``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    FieldSerializationInfo,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from ..backend import Backend, public_values, secret_fields, secret_value, validation_problems
from ..embeddings.registry import embedding_backends
from ..errors import ConfigError
from ..llms.registry import llm_backends
from ..registry import Registry
from .files import read_json, write_json_atomic

SETTINGS_FILE = "settings.json"
AUTO = "auto"
_SECTIONS = {"llms": llm_backends, "embedders": embedding_backends}
# Flat fields of settings files (and index records) written before the registry, and where
# they live now: old name -> (backend, field).
_FLAT_LLM = {
    "ollama_url": ("ollama", "url"),
    "ollama_model": ("ollama", "model"),
    "openai_base_url": ("openai", "url"),
    "openai_model": ("openai", "model"),
    "openai_api_key": ("openai", "api_key"),
}
_FLAT_EMBEDDING = ("embedding_kind", "embedding_path", "embedding_server", "embedding_url",
                   "embedding_model")


class Settings(BaseModel):
    """Everything the user can configure; defaults work offline with no configuration."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    llm_backend: str = Field(AUTO, description="auto: a local Ollama if running, else extractive")
    llms: dict[str, Any] = Field(default_factory=dict, description="settings by LLM backend")
    temperature: float = Field(0.1, ge=0.0, le=2.0)
    context_window: int | None = Field(None, ge=512, le=2_000_000)
    save_api_key: bool = False

    embedding_backend: str = "packaged"
    embedders: dict[str, Any] = Field(default_factory=dict,
                                      description="settings by embedding backend")

    chunk_size: int | None = Field(None, ge=16, le=8192)
    chunk_overlap: int | None = Field(None, ge=0, le=4096)
    max_file_mb: int = Field(1024, ge=1, le=1_000_000,
                             description="files larger than this are not ingested (MB)")
    workspace: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        return migrate_flat_settings(data)

    @field_validator("llm_backend")
    @classmethod
    def _known_llm(cls, name: str) -> str:
        if name != AUTO:
            _registered(llm_backends, name, f"{AUTO}, ")
        return name

    @field_validator("embedding_backend")
    @classmethod
    def _known_embedder(cls, name: str) -> str:
        return _registered(embedding_backends, name, "")

    @field_validator("llms", "embedders")
    @classmethod
    def _each_backend(cls, values: dict[str, Any], info: Any) -> dict[str, Any]:
        registry = _SECTIONS[info.field_name]
        checked: dict[str, Any] = {}
        for name, value in values.items():
            if name in registry:
                checked[name] = registry.get(name).parse(value)
            elif isinstance(value, Mapping):
                checked[name] = dict(value)  # a backend not registered here: kept as it is
            else:
                raise ValueError(f"{name}: expected the backend's settings, got {value!r}")
        return checked

    @field_serializer("llms", "embedders")
    def _dump_backends(self, values: dict[str, Any], info: FieldSerializationInfo) -> dict:
        if info.mode_is_json():  # secrets never leave through JSON (see to_file_dict)
            return {n: public_values(v) if isinstance(v, BaseModel) else v
                    for n, v in values.items()}
        return {n: v.model_dump() if isinstance(v, BaseModel) else v for n, v in values.items()}

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        size, overlap = self.chunk_size, self.chunk_overlap
        if size is not None and overlap is not None and overlap >= size:
            raise ValueError(f"chunk_overlap ({overlap}) must be smaller than chunk_size ({size})")
        return self

    # -- each backend's settings ----------------------------------------------------------------

    def llm_settings(self, name: str | None = None) -> Any:
        """The settings of LLM backend ``name`` (default: the chosen one), defaults if unset."""
        name = name or self.llm_backend
        return llm_backends.get(name).parse(self.llms.get(name))

    def embedder_settings(self, name: str | None = None) -> Any:
        """The settings of embedding backend ``name`` (default: the chosen one)."""
        name = name or self.embedding_backend
        return embedding_backends.get(name).parse(self.embedders.get(name))

    def check_complete(self, *, llm: bool = True, embedder: bool = True) -> None:
        """Raise ConfigError if a chosen backend misses a value it needs (a model, a folder)."""
        problems = []
        if llm and self.llm_backend != AUTO:
            problems += llm_backends.get(self.llm_backend).missing_words(
                self.llm_settings(), where=f"llms.{self.llm_backend}.")
        if embedder:
            problems += embedding_backends.get(self.embedding_backend).missing_words(
                self.embedder_settings(), where=f"embedders.{self.embedding_backend}.")
        if problems:
            raise ConfigError("incomplete settings: " + "; ".join(problems))

    def llm_spec(self) -> str | None:
        """The ``resolve_llm`` spec: None (auto), 'extractive', 'ollama:MODEL' ..."""
        if self.llm_backend == AUTO:
            return None
        model = getattr(self.llm_settings(), "model", "")
        return f"{self.llm_backend}:{model}" if model else self.llm_backend

    def llm_description(self) -> str:
        """A short human label of the answering backend, e.g. 'ollama:llama3.1 at http://...'."""
        spec = self.llm_spec()
        if spec is None:
            return "auto (a local Ollama if running, else extractive)"
        url = getattr(self.llm_settings(), "url", "")
        return f"{spec} at {url}" if url else spec

    def embedding_description(self) -> str:
        """A short label of the embedding model choice."""
        backend = embedding_backends.get(self.embedding_backend)
        return backend.summary(self.embedder_settings())

    # -- secrets --------------------------------------------------------------------------------

    def secrets(self) -> dict[str, str]:
        """Every secret that is set, by where it lives: {'llms.openai.api_key': 'sk-...'}."""
        found = {}
        for section in _SECTIONS:
            for name, values in getattr(self, section).items():
                if isinstance(values, BaseModel):
                    for field in secret_fields(type(values)):
                        if secret_value(getattr(values, field)):
                            found[f"{section}.{name}.{field}"] = secret_value(
                                getattr(values, field))
        return found

    def with_secrets(self, secrets: Mapping[str, str] | None) -> Settings:
        """A copy with ``secrets`` (as ``secrets()`` gives them) filled in where none is set."""
        if not secrets:
            return self
        data = self.model_dump()
        for path, value in secrets.items():
            section, _, rest = path.partition(".")
            name, _, field = rest.partition(".")
            if section in _SECTIONS and name and field:
                entry = data[section].setdefault(name, {})
                if not secret_value(entry.get(field)):
                    entry[field] = value
        return parse_settings(data)

    def without_secrets(self) -> Settings:
        """A copy with every secret removed."""
        return parse_settings(self.model_dump(mode="json"))

    def api_key(self) -> str | None:
        """The chosen LLM backend's API key, else (e.g. for 'auto') the first one given."""
        keys = {p: v for p, v in self.secrets().items() if p.endswith(".api_key")}
        return keys.get(f"llms.{self.llm_backend}.api_key") or next(iter(keys.values()), None)

    def to_file_dict(self) -> dict[str, Any]:
        """What goes into settings.json: everything but the secrets, unless they are to be saved."""
        data = self.model_dump(mode="json")
        if self.save_api_key:
            for path, value in self.secrets().items():
                section, name, field = path.split(".", 2)
                data[section].setdefault(name, {})[field] = value
        return data


def _registered(registry: Registry[Backend[Any]], name: str, extra: str) -> str:
    if name not in registry:
        choices = ", ".join(registry.names())
        raise ValueError(f"unknown {registry.kind} {name!r}: choose one of {extra}{choices}")
    return name


def migrate_flat_settings(data: Any) -> Any:
    """Settings (or an index record's embedding choice) in the flat shape of older versions,
    moved to where those values live now; anything else is returned unchanged."""
    if not isinstance(data, Mapping) or not any(k in data for k in (*_FLAT_LLM, *_FLAT_EMBEDDING)):
        return data
    data = dict(data)
    api_key = data.get("openai_api_key")
    llms = _sections(data.get("llms"))
    for old, (name, field) in _FLAT_LLM.items():
        value = data.pop(old, None)
        if value is not None:
            llms.setdefault(name, {})[field] = value
    data["llms"] = llms
    kind = data.pop("embedding_kind", None)
    server = data.pop("embedding_server", None) or "ollama"
    if server not in ("ollama", "openai"):
        raise ValueError(f"embedding_server {server!r} must be 'ollama' or 'openai'")
    embedders = _sections(data.get("embedders"))
    path = data.pop("embedding_path", None)
    if path:
        embedders.setdefault("local", {})["path"] = path
    for field in ("url", "model"):
        value = data.pop(f"embedding_{field}", None)
        if value:
            embedders.setdefault(server, {})[field] = value
    if kind == "server" and server == "openai" and api_key:  # one key served both before
        embedders.setdefault("openai", {}).setdefault("api_key", api_key)
    if kind is not None:
        backend = {"packaged": "packaged", "local": "local", "server": server}.get(kind)
        if backend is None:
            raise ValueError(f"embedding_kind {kind!r} must be 'packaged', 'local' or 'server'")
        data["embedding_backend"] = backend
    data["embedders"] = embedders
    return data


def _sections(values: Any) -> dict[str, Any]:
    if not isinstance(values, Mapping):
        return {}
    return {name: v.model_dump() if isinstance(v, BaseModel)
            else dict(v) if isinstance(v, Mapping) else v for name, v in values.items()}


def parse_settings(data: Any, *, source: str = "settings") -> Settings:
    """Validate a dict into Settings, with one readable message listing every bad field."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid {source}: {validation_problems(exc)}") from exc


def load_settings(path: Path) -> Settings:
    """Settings from ``path``, or the defaults when the file does not exist yet."""
    if not path.exists():
        return Settings()
    return parse_settings(read_json(path, what="settings file"), source=f"settings in {path}")


def save_settings(path: Path, settings: Settings) -> None:
    """Write settings atomically; the file is private when it holds a secret."""
    write_json_atomic(path, settings.to_file_dict(),
                      private=settings.save_api_key and bool(settings.secrets()))
