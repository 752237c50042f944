"""Where a text's cl100k tokens fall, in characters: token counts for any span, cheaply.

The splitters need the token count of many overlapping spans (every candidate piece, every
growing chunk). Encoding each of them, as LlamaIndex does, tokenizes the same text several times
over. A ``TokenIndex`` encodes the whole text once and maps each token to the first and last
character it touches. Then:

- ``estimate(a, b)``, the tokens overlapping [a, b) in the whole-text encoding, is two binary
  searches. It can differ from encoding ``text[a:b]`` alone at the span's edges.
- ``exact(a, b)`` is the count of ``text[a:b]`` encoded alone, computed from the whole-text
  tokens plus two tiny encodes. cl100k first cuts text into pre-tokens with a regex and encodes
  each pre-token on its own; a space that follows a non-space character always starts a
  pre-token (no alternative of the regex can run through it), whatever comes before. So between
  the first and the last such "sync" space inside a span, the span's own pre-tokens, hence its
  tokens, are exactly the whole text's, and only the two ends need encoding.

(Encoding in parallel blocks cut at sync spaces gives the same tokens, but on this project's
2-core machines shared by other work it cost more CPU than it saved wall time, so it is not done.)
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ..tokens import get_tokenizer


@lru_cache(maxsize=1)
def _token_byte_lengths() -> np.ndarray:
    """Byte length of every ordinary cl100k token id (0 for ids that are not ordinary tokens)."""
    encoding = get_tokenizer()
    lengths = np.zeros(encoding.n_vocab, dtype=np.int64)
    # tiktoken keeps {token bytes: id}; reading it takes ~10 ms where decoding each of the 100k
    # ids through the public API takes ~150 ms, so use it when it is there.
    ranks = getattr(encoding, "_mergeable_ranks", None)
    if isinstance(ranks, dict) and ranks:
        lengths[list(ranks.values())] = [len(token) for token in ranks]
        return lengths
    for token in range(encoding.n_vocab):
        try:
            lengths[token] = len(encoding.decode_single_token_bytes(token))
        except KeyError:
            continue  # a hole in the vocabulary between the ranks and the special tokens
    return lengths


def _tokenizable(text: str) -> str:
    """``text`` with lone surrogates replaced one for one, so character positions are kept."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)
    return text


def sync_after(text: str, start: int, end: int) -> int:
    """First sync space in (start, end): a space right after a non-space; -1 if none."""
    at = text.find(" ", start + 1, end)
    while at >= 0 and text[at - 1].isspace():
        at = text.find(" ", at + 1, end)
    return at


def sync_before(text: str, start: int, end: int) -> int:
    """Last sync space in (start, end); -1 if none."""
    at = text.rfind(" ", start + 1, end)
    while at >= 0 and text[at - 1].isspace():
        at = text.rfind(" ", start + 1, at)
    return at


class TokenIndex:
    """One encoding of ``text``; estimates and exact counts of tokens in its character spans."""

    __slots__ = ("text", "_encoding", "_first", "_last", "_first_np", "_last_np", "_synced")

    def __init__(self, text: str) -> None:
        self.text = text
        self._encoding = get_tokenizer()
        safe = _tokenizable(text)
        # tiktoken replaces lone surrogates its own way, so spans of such text are encoded whole.
        self._synced = safe is text
        ids = np.array(self._encoding.encode_ordinary(safe), dtype=np.int64)
        lengths = _token_byte_lengths()[ids]
        byte_ends = np.cumsum(lengths)
        byte_starts = byte_ends - lengths
        if safe.isascii():
            first, last = byte_starts, byte_ends - 1
        else:
            data = np.frombuffer(safe.encode("utf-8"), dtype=np.uint8)
            char_of_byte = np.cumsum((data & 0xC0) != 0x80) - 1
            first, last = char_of_byte[byte_starts], char_of_byte[byte_ends - 1]
        # array('q') keeps 8 bytes per token (a list would keep ~36) and bisects faster than a
        # numpy scalar search; the numpy views over the same memory serve vectorized searches.
        self._first = array("q", first.astype(np.int64).tobytes())
        self._last = array("q", last.astype(np.int64).tobytes())
        self._first_np = np.frombuffer(self._first, dtype=np.int64)
        self._last_np = np.frombuffer(self._last, dtype=np.int64)

    def before(self, end: int) -> int:
        """Number of tokens that start before character ``end``."""
        return bisect_left(self._first, end)

    def ended_before(self, start: int) -> int:
        """Number of tokens that end before character ``start``."""
        return bisect_left(self._last, start)

    def before_each(self, ends: Sequence[int]) -> np.ndarray:
        """``before`` for many positions at once."""
        return np.searchsorted(self._first_np, ends)

    def ended_before_each(self, starts: Sequence[int]) -> np.ndarray:
        """``ended_before`` for many positions at once."""
        return np.searchsorted(self._last_np, starts)

    def estimate(self, start: int, end: int) -> int:
        """Tokens overlapping characters [start, end) in the whole-text encoding."""
        if end <= start:
            return 0
        return bisect_left(self._first, end) - bisect_left(self._last, start)

    def token_starts(self, start: int, end: int) -> list[int]:
        """Distinct characters in (start, end) where a token begins: cut points between tokens."""
        lo = bisect_right(self._first, start)
        hi = bisect_left(self._first, end)
        return list(dict.fromkeys(self._first[lo:hi]))

    def exact(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]`` encoded on its own (what an embedder would be given)."""
        if end <= start:
            return 0
        encode = self._encoding.encode_ordinary
        parts = self._at_syncs(start, end)
        if parts is None:
            return len(encode(self.text[start:end]))
        head, middle, tail = parts
        return len(encode(head)) + middle + len(encode(tail))

    def fits(self, start: int, end: int, limit: int) -> bool:
        """Whether ``exact(start, end) <= limit``, encoding the span's ends only if needed.

        A piece of text has at most as many tokens as UTF-8 bytes, so when the whole-text tokens
        between the sync spaces plus the byte lengths of the two ends are within ``limit``,
        nothing needs encoding (the common case for chunks not filled to the last token).
        """
        if end <= start:
            return limit >= 0
        parts = self._at_syncs(start, end)
        if parts is None:
            return self.exact(start, end) <= limit
        head, middle, tail = parts
        if middle + len(head.encode("utf-8")) + len(tail.encode("utf-8")) <= limit:
            return True
        encode = self._encoding.encode_ordinary
        return middle + len(encode(head)) + len(encode(tail)) <= limit

    def _at_syncs(self, start: int, end: int) -> tuple[str, int, str] | None:
        """The span as (text before its first sync space, whole-text tokens between its first
        and last sync spaces, text from its last sync space), or None without a sync space."""
        text = self.text
        first_sync = sync_after(text, start, end) if self._synced else -1
        if first_sync < 0:
            return None
        last_sync = sync_before(text, first_sync - 1, end)
        middle = bisect_left(self._first, last_sync) - bisect_left(self._first, first_sync)
        return text[start:first_sync], middle, text[last_sync:end]
