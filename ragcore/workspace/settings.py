"""User settings: the answering backend, the embedding model and ingestion defaults.

Validated with pydantic because they come from outside (a JSON file, a settings form). The API
key lives in memory for the session; it is written to ``settings.json`` only when the user sets
``save_api_key``. Turning settings into live objects (an LLM, an embedder) is done by
``ragcore.workspace.backends`` at the edge, so this module stays free of I/O beyond its own file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from ..errors import ConfigError
from .files import read_json, write_json_atomic

LLMBackend = Literal["auto", "extractive", "ollama", "openai"]
EmbeddingKind = Literal["packaged", "local", "server"]
EmbeddingServer = Literal["ollama", "openai"]

SETTINGS_FILE = "settings.json"
_SECRET_FIELDS = ("openai_api_key",)


class Settings(BaseModel):
    """Everything the user can configure; defaults work offline with no configuration."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    llm_backend: LLMBackend = Field(
        "auto", description="auto: a local Ollama if one answers, else extractive"
    )
    ollama_url: str = "http://127.0.0.1:11434"
    ollama_model: str = ""
    openai_base_url: str = "https://api.openai.com/v1"
    openai_model: str = ""
    openai_api_key: SecretStr | None = None
    save_api_key: bool = False
    temperature: float = Field(0.1, ge=0.0, le=2.0)
    context_window: int | None = Field(None, ge=512, le=2_000_000)

    embedding_kind: EmbeddingKind = "packaged"
    embedding_path: str = ""
    embedding_server: EmbeddingServer = "ollama"
    embedding_url: str = "http://127.0.0.1:11434"
    embedding_model: str = ""

    chunk_size: int | None = Field(None, ge=16, le=8192)
    chunk_overlap: int | None = Field(None, ge=0, le=4096)
    workspace: str | None = None

    @field_validator("ollama_url", "openai_base_url", "embedding_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} must start with http:// or https://")
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        size, overlap = self.chunk_size, self.chunk_overlap
        if size is not None and overlap is not None and overlap >= size:
            raise ValueError(f"chunk_overlap ({overlap}) must be smaller than chunk_size ({size})")
        return self

    def check_complete(self) -> None:
        """Raise ConfigError if the chosen backends miss a model name or path."""
        problems = []
        if self.llm_backend == "ollama" and not self.ollama_model:
            problems.append("choose an Ollama model (ollama_model)")
        if self.llm_backend == "openai" and not self.openai_model:
            problems.append("choose an OpenAI-compatible model (openai_model)")
        if self.embedding_kind == "local" and not self.embedding_path:
            problems.append("give the folder of the local embedding model (embedding_path)")
        if self.embedding_kind == "server" and not self.embedding_model:
            problems.append("name the server's embedding model (embedding_model)")
        if problems:
            raise ConfigError("incomplete settings: " + "; ".join(problems))

    def llm_spec(self) -> str | None:
        """The ``resolve_llm`` spec: None (auto), 'extractive', 'ollama:M' or 'openai:M'."""
        if self.llm_backend == "auto":
            return None
        if self.llm_backend == "extractive":
            return "extractive"
        model = self.ollama_model if self.llm_backend == "ollama" else self.openai_model
        return f"{self.llm_backend}:{model}"

    def llm_description(self) -> str:
        """A short human label of the answering backend, e.g. 'ollama:llama3.1 at http://...'."""
        spec = self.llm_spec()
        if spec is None:
            return "auto (a local Ollama if running, else extractive)"
        if self.llm_backend == "ollama":
            return f"{spec} at {self.ollama_url}"
        if self.llm_backend == "openai":
            return f"{spec} at {self.openai_base_url}"
        return spec

    def embedding_description(self) -> str:
        """A short label of the embedding model choice."""
        if self.embedding_kind == "packaged":
            return "packaged all-MiniLM-L6-v2"
        if self.embedding_kind == "local":
            return f"local model at {self.embedding_path}"
        return f"{self.embedding_server}:{self.embedding_model} at {self.embedding_url}"

    def api_key(self) -> str | None:
        """The OpenAI-compatible API key, if one was given."""
        return self.openai_api_key.get_secret_value() if self.openai_api_key else None

    def to_file_dict(self) -> dict[str, Any]:
        """What goes into settings.json: everything but the API key, unless it is to be saved."""
        data = self.model_dump(mode="json", exclude=set(_SECRET_FIELDS))
        if self.save_api_key and self.openai_api_key is not None:
            data["openai_api_key"] = self.openai_api_key.get_secret_value()
        return data


def parse_settings(data: Any, *, source: str = "settings") -> Settings:
    """Validate a dict into Settings, with one readable message listing every bad field."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigError(f"invalid {source}: {problems}") from exc


def load_settings(path: Path) -> Settings:
    """Settings from ``path``, or the defaults when the file does not exist yet."""
    if not path.exists():
        return Settings()
    return parse_settings(read_json(path, what="settings file"), source=f"settings in {path}")


def save_settings(path: Path, settings: Settings) -> None:
    """Write settings atomically; the file is private when it holds an API key."""
    data = settings.to_file_dict()
    write_json_atomic(path, data, private="openai_api_key" in data)
