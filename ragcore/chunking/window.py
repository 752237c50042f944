"""Chunk sizes versus the embedder's input window: the defaults, and a truncation warning.

Chunk sizes are counted in cl100k tokens; embedders count their own word pieces and silently
drop whatever is past their window (all-MiniLM-L6-v2 reads 256 word pieces, [CLS] and [SEP]
included). LlamaIndex's default chunk_size of 1024 therefore embeds only the first quarter of
each chunk. Measured on this project's corpus (800-character windows, MiniLM's tokenizer vs
cl100k), English prose has a median of 0.95-1.05 word pieces per cl100k token and a 90th
percentile of 1.0-1.2; technical Markdown and RFCs reach 1.2-1.4 at the 90th percentile.
"""

from __future__ import annotations

import math
import warnings

# Word pieces per cl100k token assumed when converting a chunk size for the embedder: above the
# 90th percentile for prose, so a default-sized chunk is embedded whole in nearly every case.
WORDPIECES_PER_TOKEN = 1.25
# [CLS] and [SEP] take two places of a BERT-style window.
SPECIAL_TOKENS = 2

# 200 cl100k tokens ~ 250 word pieces + 2 special tokens = 252 <= MiniLM's 256.
DEFAULT_CHUNK_SIZE = 200
# 10% of the chunk, as LlamaIndex's TokenTextSplitter default of 20 tokens.
DEFAULT_CHUNK_OVERLAP = 20


class ChunkTruncationWarning(UserWarning):
    """Chunks are bigger than the embedder's input window and would be cut silently."""


def max_chunk_size(max_input_tokens: int) -> int:
    """The largest chunk_size (cl100k tokens) expected to fit a window of word pieces."""
    return max(1, math.floor((max_input_tokens - SPECIAL_TOKENS) / WORDPIECES_PER_TOKEN))


def check_embedder_window(chunk_size: int, embedder: object) -> str | None:
    """A warning text if ``chunk_size`` would overflow ``embedder.max_input_tokens``, else None."""
    window = getattr(embedder, "max_input_tokens", None)
    if not window:
        return None
    fits = max_chunk_size(window)
    if chunk_size <= fits:
        return None
    name = getattr(embedder, "model_name", type(embedder).__name__)
    pieces = math.ceil(chunk_size * WORDPIECES_PER_TOKEN) + SPECIAL_TOKENS
    kept = round(100 * min(1.0, window / pieces))
    return (
        f"chunk_size {chunk_size} is about {pieces} word pieces for {name}, which reads only "
        f"{window} and silently ignores the rest (about {kept}% of each chunk would be "
        f"embedded). Use chunk_size={fits} or less."
    )


def warn_if_truncated(chunk_size: int, embedder: object, *, stacklevel: int = 2) -> bool:
    """Issue a ``ChunkTruncationWarning`` if chunks would be truncated; return whether it did."""
    message = check_embedder_window(chunk_size, embedder)
    if message is None:
        return False
    warnings.warn(message, ChunkTruncationWarning, stacklevel=stacklevel + 1)
    return True
