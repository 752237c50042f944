"""``llama_index.embeddings.huggingface.HuggingFaceEmbedding``: a local sentence-transformers
model through ragcore's ``SentenceTransformerEmbedder``.

``model_name`` is resolved on this machine only (ragcore never downloads): the name of the
packaged model (``sentence-transformers/all-MiniLM-L6-v2``) gives ragcore's shared default
embedder, loaded once per process; a folder gives that model; any other name must already be in
the Hugging Face cache, else ConfigError says how to get it or which model is packaged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...embeddings import SentenceTransformerEmbedder, default_embedder
from ...errors import ConfigError
from ..refusals import refuse

PACKAGED_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_HINTS = {
    "trust_remote_code": "ragcore loads sentence-transformers models without remote code",
    "query_instruction": "ragcore embeds questions and passages the same way",
    "text_instruction": "ragcore embeds questions and passages the same way",
    "cache_folder": "set HF_HOME to the cache folder before starting Python",
}


def HuggingFaceEmbedding(  # noqa: N802 (LlamaIndex's class name)
    model_name: str = "BAAI/bge-small-en-v1.5",
    embed_batch_size: int = 64,
    device: str | None = None,
    **options: Any,
) -> SentenceTransformerEmbedder:
    """The embedder for ``model_name`` (see the module docstring for how it is found)."""
    refuse("HuggingFaceEmbedding", options, _HINTS)
    if _is_packaged(model_name) and embed_batch_size == 64 and device in (None, "cpu"):
        return default_embedder()
    path = None if _is_packaged(model_name) else _local_model(model_name)
    return SentenceTransformerEmbedder(model_path=path, batch_size=embed_batch_size,
                                       device=device or "cpu")


def _is_packaged(name: str) -> bool:
    return name.strip().lower().rsplit("/", 1)[-1] == "all-minilm-l6-v2"


def _local_model(name: str) -> Path:
    if Path(name).is_dir():
        return Path(name)
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(name, local_files_only=True))
    except Exception as exc:  # not cached, or no huggingface_hub: one answer for both
        raise ConfigError(
            f"embedding model {name!r} is not on this machine and ragcore does not download "
            f"models: download it once (huggingface-cli download {name}) or give its folder, "
            f"or use the packaged model, {PACKAGED_MODEL!r}"
        ) from exc
