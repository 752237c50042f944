"""``Settings``: LlamaIndex's global defaults, read only by the compat adapters at their edge.

ragcore passes collaborators explicitly; ported code sets ``Settings.llm`` and
``Settings.embed_model`` once and expects every index and engine to use them. The adapters in
``ragcore.compat`` read these attributes when a call leaves the matching argument out, and
nowhere else: ragcore's own classes never see this object. An unset ``llm`` means ragcore's
default (``resolve_llm()``: ``RAGCORE_LLM``, else a local Ollama, else the offline extractive
backend); an unset ``embed_model`` the packaged all-MiniLM-L6-v2.
"""

from __future__ import annotations

from typing import Any

from ..chunking import SentenceSplitter
from ..embeddings.base import Embedder
from ..errors import ConfigError
from ..llms.base import LLM

_FIELDS = ("llm", "embed_model", "node_parser", "chunk_size", "chunk_overlap")
_REFUSED = {
    "callback_manager": "ragcore has no callback manager: pass trace=Trace() to a query or "
                        "chat call and read what it recorded",
    "tokenizer": "ragcore counts tokens with cl100k_base everywhere (ragcore.tokens)",
    "context_window": "set context_window= on the LLM (e.g. Ollama(..., context_window=8192))",
    "num_output": "set num_output= on the LLM",
    "transformations": "pass transformations= to from_documents, or use IngestionPipeline",
}


class _Settings:
    """The compat layer's defaults: ``llm``, ``embed_model``, ``node_parser`` (alias
    ``text_splitter``), ``chunk_size`` and ``chunk_overlap``."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Back to ragcore's defaults (tests call this between cases)."""
        for name in _FIELDS:
            object.__setattr__(self, name, None)

    def __setattr__(self, name: str, value: Any) -> None:
        name = "node_parser" if name == "text_splitter" else name
        if name in _REFUSED:
            raise ConfigError(f"Settings.{name} is not used by ragcore: {_REFUSED[name]}")
        if name not in _FIELDS:
            raise ConfigError(f"Settings has no {name!r}: it holds {', '.join(_FIELDS)}")
        _check(name, value)
        object.__setattr__(self, name, value)

    @property
    def text_splitter(self) -> Any:
        return self.node_parser

    def splitter(self) -> Any:
        """The splitter an index gets when none is passed: ``node_parser``, else a
        SentenceSplitter of ``chunk_size``/``chunk_overlap`` if set, else the index default."""
        if self.node_parser is not None:
            return self.node_parser
        if self.chunk_size is None and self.chunk_overlap is None:
            return None
        options = {k: v for k, v in (("chunk_size", self.chunk_size),
                                     ("chunk_overlap", self.chunk_overlap)) if v is not None}
        return SentenceSplitter(**options)


def _check(name: str, value: Any) -> None:
    if value is None:
        return
    if name == "llm" and not isinstance(value, LLM):
        raise ConfigError(
            f"Settings.llm must be an LLM (e.g. Ollama(model='llama3')), got {value!r}"
        )
    if name == "embed_model" and not isinstance(value, Embedder):
        raise ConfigError(
            f"Settings.embed_model must be an embedder (e.g. HuggingFaceEmbedding(model_name="
            f"'sentence-transformers/all-MiniLM-L6-v2')), got {value!r}"
        )
    if name in ("chunk_size", "chunk_overlap") and (
        isinstance(value, bool) or not isinstance(value, int) or value < 0
    ):
        raise ConfigError(f"Settings.{name} must be a whole number of tokens, got {value!r}")


Settings = _Settings()
