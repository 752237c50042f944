"""Backend: one entry of the LLM or embedding registry, and the helpers every entry shares.

An entry says how to offer and build one backend: its name, a label and a one-line description
for people choosing it, a pydantic settings model (the fields a person fills in: server URL,
model, API key as ``SecretStr`` ...), a factory turning validated settings into the live object,
and optionally a model listing and a connection test. The registries are
``ragcore.llms.registry`` and ``ragcore.embeddings.registry``; ``resolve_llm``, the workspace
settings, the CLI and the app's Settings page read them, so a backend written elsewhere is one
module plus one ``register`` call and appears everywhere without editing them.

Generic code relies on a few field names: ``model`` is the model name (``resolve_llm('name:MODEL')``
fills it and the Settings page offers a model picker for it), ``url`` the server address,
``api_key`` the key, ``path`` a local folder. Any ``SecretStr`` field is kept out of files unless
the user asks to save it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Callable, Generic, TypeVar, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, SecretStr, ValidationError

from .errors import ConfigError

T = TypeVar("T")


def check_server_url(value: str) -> str:
    """A server address without the trailing slash; ValueError unless it is http(s)."""
    value = value.strip().rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"{value!r} must start with http:// or https://")
    return value


ServerUrl = Annotated[str, AfterValidator(check_server_url)]


class NoSettings(BaseModel):
    """The settings of a backend with nothing to set (the packaged model, extractive answers)."""

    model_config = ConfigDict(extra="forbid")


@dataclass(slots=True, frozen=True)
class Backend(Generic[T]):
    """A named way to get an LLM or an embedder, as listed to people and built from settings.

    ``build`` takes the validated settings (an instance of ``settings``) and, for LLMs, the
    ``LLMOptions`` every backend shares. ``required`` names the settings fields that must be
    filled before building (``check_complete``). ``list_models`` and ``test_connection`` take
    the settings too; a connection test returns a sentence for people or raises a ragcore error.
    ``describe`` words a live object for the UI (default: the label and the model).
    """

    name: str
    label: str
    description: str
    settings: type[BaseModel]
    build: Callable[..., T]
    required: tuple[str, ...] = ()
    list_models: Callable[[Any], list[str]] | None = None
    test_connection: Callable[[Any], str] | None = None
    describe: Callable[[T], str] | None = None

    def __post_init__(self) -> None:
        if not self.label.strip() or not self.description.strip():
            raise ConfigError(f"backend {self.name!r} needs a label and a one-line description")
        unknown = [f for f in self.required if f not in self.settings.model_fields]
        if unknown:
            raise ConfigError(
                f"backend {self.name!r} requires {unknown}, which {self.settings.__name__} "
                f"does not have: name fields among {list(self.settings.model_fields)}"
            )

    def parse(self, data: Any = None) -> Any:
        """``data`` (a dict, or already settings) validated into this backend's settings."""
        if isinstance(data, self.settings):
            return data
        try:
            return self.settings.model_validate(data or {})
        except ValidationError as exc:
            raise ConfigError(
                f"invalid settings for the {self.label} backend ({self.name}): "
                f"{validation_problems(exc)}"
            ) from exc

    def missing(self, settings: Any) -> list[str]:
        """The required fields of ``settings`` that are still empty."""
        return [name for name in self.required if getattr(settings, name) in ("", None)]

    def check_complete(self, settings: Any, *, where: str = "") -> None:
        """ConfigError naming each required field that is still empty."""
        problems = self.missing_words(settings, where=where)
        if problems:
            raise ConfigError(f"incomplete settings: {'; '.join(problems)}")

    def missing_words(self, settings: Any, *, where: str = "") -> list[str]:
        """One phrase per empty required field, e.g. 'Ollama needs a model (llms.ollama.model)'.

        ``where`` prefixes the field name with where the settings are kept.
        """
        fields = self.settings.model_fields
        return [f"{self.label} needs a {(fields[n].title or n).lower()} ({where}{n})"
                for n in self.missing(settings)]

    def summary(self, settings: Any) -> str:
        """These settings in a few words, e.g. 'Ollama nomic-embed-text at http://...'."""
        words = [self.label]
        if getattr(settings, "model", ""):
            words.append(str(settings.model))
        where = getattr(settings, "url", "") or getattr(settings, "path", "")
        if where:
            words.append(f"at {where}")
        return " ".join(words)

    def describe_object(self, obj: T) -> str:
        """The live object in a few words, for the UI."""
        if self.describe is not None:
            return self.describe(obj)
        _, _, model = str(getattr(obj, "model", "")).partition(":")
        return f"{self.label} {model}".strip()


def secret_fields(model: type[BaseModel]) -> list[str]:
    """The fields of a settings model that hold secrets (typed ``SecretStr``)."""
    return [name for name, info in model.model_fields.items()
            if info.annotation is SecretStr or SecretStr in get_args(info.annotation)]


def public_values(settings: BaseModel) -> dict[str, Any]:
    """The settings as JSON values without their secrets (what may go into a shared file)."""
    return settings.model_dump(mode="json", exclude=set(secret_fields(type(settings))))


def secret_value(secret: SecretStr | str | None) -> str | None:
    """The text of a secret field, or None when it is not set."""
    if isinstance(secret, SecretStr):
        secret = secret.get_secret_value()
    return secret or None


def validation_problems(exc: ValidationError) -> str:
    """A pydantic error as one line: ``field: problem; other.field: problem``."""
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'value'}: {err['msg']}" for err in exc.errors()
    )


def models_found(url: str, models: list[str], *, what: str = "model", hint: str = "") -> str:
    """The sentence a connection test returns after listing a server's models."""
    if not models:
        return f"Connected to {url}, but it offers no {what} yet{': ' + hint if hint else ''}."
    shown = ", ".join(models[:20]) + (" …" if len(models) > 20 else "")
    counted = f"{len(models)} {what}{'' if len(models) == 1 else 's'}"
    return f"Connected to {url}: {counted}: {shown}."
