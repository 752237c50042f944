"""Texts per CPU-second of embedders on chunks of a fixed token count, measured interleaved.

The machine is shared, so wall time says little: each embedder's CPU seconds (this process,
all threads: ``time.process_time``) are summed over a few rounds, and the rounds interleave the
embedders so that a busy spell slows them alike. Chunks are cut from the corpus at a fixed
number of word pieces (the packaged model's tokenizer, no truncation): 200 (the default chunk
size in cl100k tokens is about that) and 512 (past the model's 256-token window: the embedder
truncates, as it does for a long chunk).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

COLLECTIONS = ("gutenberg_books", "python_peps", "rfcs", "rust_book")
SUFFIXES = (".txt", ".rst", ".md")


def token_chunks(corpus: Path, tokenizer_file: Path, tokens: int, count: int) -> list[str]:
    """``count`` spans of the corpus ``tokens`` word pieces long, from several collections."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(tokenizer_file))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    per_collection = -(-count // len(COLLECTIONS))
    chunks: list[str] = []
    for collection in COLLECTIONS:
        files = sorted(p for p in (corpus / collection).rglob("*") if p.suffix in SUFFIXES)
        chunks += _spans(files, tokenizer, tokens, per_collection)
    return chunks[:count]


def _spans(files: list[Path], tokenizer, tokens: int, wanted: int) -> list[str]:
    spans: list[str] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")[:60_000]
        offsets = tokenizer.encode(text, add_special_tokens=False).offsets
        for start in range(0, len(offsets) - tokens, tokens * 3):  # spread over the file
            spans.append(text[offsets[start][0] : offsets[start + tokens - 1][1]])
            if len(spans) == wanted:
                return spans
    return spans


def cpu_seconds_interleaved(
    embedders: dict[str, Callable[[Sequence[str]], np.ndarray]], texts: list[str], rounds: int,
) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """CPU seconds each embedder took for ``rounds`` passes over ``texts``, and its vectors.

    Each embedder first embeds two texts (loading its model, which is not measured).
    """
    for embed in embedders.values():
        embed(texts[:2])
    spent = dict.fromkeys(embedders, 0.0)
    vectors: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for name, embed in embedders.items():
            started = time.process_time()
            vectors[name] = embed(texts)
            spent[name] += time.process_time() - started
    return spent, vectors
