"""Long texts are chunked a block at a time, so memory stays bounded whatever their length.

A ``TokenIndex`` of a whole text keeps two 8-byte offsets per token, and encoding it builds a
Python list of every token id on the way (about 36 bytes a token): for a 200 MB text, over 2 GB
at once. A text longer than ``BLOCK_CHARS`` is therefore cut into blocks of about that size and
each block is indexed and chunked on its own, its spans shifted back to offsets into the whole
text. A block ends at the last paragraph break (blank line) in its second half, else at the last
line break there, else at the last space, else at its size; so the only difference from chunking
the text whole is that no chunk runs across a block boundary (one chunk per MB ends a little
early, and the next starts without overlap). Shorter texts are chunked exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .token_index import TokenIndex

# About 250,000 tokens of prose: ~20 MB of token offsets and temporary ids per block.
BLOCK_CHARS = 1024 * 1024

Span = tuple[int, int]
# spans_of(index, start, end) -> chunk spans of index.text[start:end]
SpansOf = Callable[[TokenIndex, int, int], list[Span]]


def text_blocks(text: str, size: int | None = None) -> Iterator[Span]:
    """(start, end) blocks covering ``text`` in order, each at most ``size`` characters
    (``BLOCK_CHARS`` unless given), cut at a paragraph break, a line break or a space in the
    second half of the block when there is one."""
    size = size or BLOCK_CHARS
    start, length = 0, len(text)
    while length - start > size:
        end = start + size
        half = start + size // 2
        for mark in ("\n\n", "\n", " "):
            at = text.rfind(mark, half, end)
            if at > 0:
                end = at + len(mark)
                break
        yield start, end
        start = end
    if start < length:
        yield start, length


def block_spans(text: str, spans_of: SpansOf, size: int | None = None) -> Iterator[Span]:
    """Chunk spans of ``text`` (offsets into it), one block's ``TokenIndex`` at a time (blocks
    of ``size`` characters, ``BLOCK_CHARS`` unless given)."""
    for spans in block_span_lists(text, spans_of, size):
        yield from spans


def block_span_lists(
    text: str, spans_of: SpansOf, size: int | None = None
) -> Iterator[list[Span]]:
    """``block_spans`` a block at a time: the chunk spans of each block, as one list."""
    size = size or BLOCK_CHARS
    if len(text) <= size:
        yield spans_of(TokenIndex(text), 0, len(text))
        return
    for start, end in text_blocks(text, size):
        block = text[start:end]
        if not block.isspace():
            yield [(first + start, last + start)
                   for first, last in spans_of(TokenIndex(block), 0, len(block))]
