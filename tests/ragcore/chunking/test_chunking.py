"""Splitting properties (hypothesis) and worked examples for SentenceSplitter/TokenTextSplitter.

Every chunk: is exactly ``text[start:end]``, stripped, within its token budget when encoded on
its own; chunks start and end in increasing order, cover every non-whitespace character, and
overlap the previous chunk by at most ``chunk_overlap`` tokens.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcore.chunking import SentenceSplitter, TokenTextSplitter, sentences
from ragcore.chunking.token_index import TokenIndex, _token_byte_lengths
from ragcore.tokens import get_tokenizer

PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tokens(text: str) -> int:
    return len(get_tokenizer().encode_ordinary(text))


def check_chunks(text: str, spans: list[tuple[int, int]], budget: int, overlap: int) -> None:
    """Assert every splitting property for ``spans`` of ``text``."""
    covered = bytearray(len(text))
    previous = (-1, -1)
    for start, end in spans:
        chunk = text[start:end]
        assert chunk, "empty chunk"
        assert chunk == chunk.strip(), f"chunk not stripped: {chunk!r}"
        assert tokens(chunk) <= budget, f"{tokens(chunk)} tokens > {budget}: {chunk!r}"
        assert start > previous[0] and end > previous[1], f"out of order: {previous} {start, end}"
        if start < previous[1]:
            assert tokens(text[start : previous[1]]) <= overlap
        covered[start:end] = b"\x01" * (end - start)
        previous = (start, end)
    missed = [i for i, ch in enumerate(text) if not covered[i] and not ch.isspace()]
    assert not missed, f"characters not in any chunk at {missed[:5]}: {text[missed[0]:][:40]!r}"


# Text built from the things splitters cut at: words, punctuation, sentence ends, line breaks,
# paragraph breaks, plus CJK, emoji, combining marks and runs of odd whitespace.
_WORDS = st.sampled_from(
    ["the", "Alice", "rabbit", "Mr.", "e.g.", "U.S.", "naïve", "東京", "。", "！", "😀", "👩‍👩‍👧",
     "e\u0301", "1234567", "...", ",", ";", ".", "?", "!", "—", "'s", "\t", "\u00a0", "\u3000",
     "supercalifragilisticexpialidocious" * 3, "=" * 40, "<|endoftext|>"]
)
_GAPS = st.sampled_from([" ", " ", " ", "  ", "\n", "\n\n", "\n\n\n", "\n\n\n\n", "", "\r\n"])
PROSE = st.lists(st.tuples(_WORDS, _GAPS), max_size=300).map(
    lambda pairs: "".join(word + gap for word, gap in pairs)
)
ANY_TEXT = st.one_of(st.text(max_size=600), PROSE)
SIZES = st.integers(min_value=4, max_value=80).flatmap(
    lambda size: st.tuples(st.just(size), st.integers(min_value=0, max_value=size - 1))
)


@PROPERTY
@given(text=ANY_TEXT, sizes=SIZES)
def test_sentence_splitter_properties(text: str, sizes: tuple[int, int]) -> None:
    size, overlap = sizes
    splitter = SentenceSplitter(chunk_size=size, chunk_overlap=overlap)
    spans = splitter.split_text_spans(text)
    check_chunks(text, spans, size, overlap)
    assert splitter.split_text(text) == [text[s:e] for s, e in spans]


@PROPERTY
@given(text=ANY_TEXT, sizes=SIZES)
def test_token_splitter_properties(text: str, sizes: tuple[int, int]) -> None:
    size, overlap = sizes
    spans = TokenTextSplitter(chunk_size=size, chunk_overlap=overlap).split_text_spans(text)
    check_chunks(text, spans, size, overlap)


@PROPERTY
@given(text=ANY_TEXT, data=st.data())
def test_token_index_exact_counts_match_encoding_the_span(text: str, data: st.DataObject) -> None:
    index = TokenIndex(text)
    for _ in range(5):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert index.exact(start, end) == tokens(text[start:end])
        assert index.estimate(start, end) >= 0


@pytest.mark.parametrize("text", ["", " ", "\n\n\n", " \t\u3000\n "])
def test_empty_and_blank_text_gives_no_chunks(text: str) -> None:
    assert SentenceSplitter().split_text(text) == []
    assert TokenTextSplitter().split_text_spans(text) == []


def test_short_text_is_one_stripped_chunk() -> None:
    text = "  Hello world.  \n"
    assert SentenceSplitter().split_text_spans(text) == [(2, 14)]


def test_words_overlap_by_about_chunk_overlap() -> None:
    text = " ".join(f"w{i}" for i in range(400))
    spans = SentenceSplitter(chunk_size=40, chunk_overlap=10).split_text_spans(text)
    assert len(spans) > 5
    for (_, end), (start, _) in zip(spans, spans[1:]):
        shared = tokens(text[start:end]) if start < end else 0
        assert 6 <= shared <= 10


def test_no_overlap_when_zero() -> None:
    text = " ".join(f"w{i}" for i in range(400))
    spans = TokenTextSplitter(chunk_size=30, chunk_overlap=0).split_text_spans(text)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))


def test_sentences_are_kept_whole_when_they_fit() -> None:
    text = " ".join(f"This is sentence number {i} of the test." for i in range(60))
    chunks = SentenceSplitter(chunk_size=50, chunk_overlap=0).split_text(text)
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.startswith("This is sentence") and chunk.endswith("of the test.")
        assert tokens(chunk) <= 50


def test_overlap_carries_whole_trailing_sentences() -> None:
    text = " ".join(f"Fact {i} is short." for i in range(50))
    chunks = SentenceSplitter(chunk_size=30, chunk_overlap=12).split_text(text)
    for before, after in zip(chunks, chunks[1:]):
        last_sentence = sentences(before)[-1].strip()
        assert after.startswith(last_sentence)


def test_paragraphs_are_preferred_cut_points() -> None:
    paragraph = "Words go here and there. " * 6
    text = "\n\n\n".join(paragraph.strip() for _ in range(4))
    chunks = SentenceSplitter(chunk_size=tokens(paragraph) + 5, chunk_overlap=0).split_text(text)
    assert chunks == [paragraph.strip()] * 4


def test_a_word_longer_than_the_chunk_is_cut_between_tokens() -> None:
    word = "antidisestablishmentarianism" * 20
    spans = SentenceSplitter(chunk_size=8, chunk_overlap=0).split_text_spans(word)
    assert "".join(word[s:e] for s, e in spans) == word
    assert all(tokens(word[s:e]) <= 8 for s, e in spans)


def test_sentence_rule() -> None:
    text = 'Mr. Smith met Dr. J. R. Tolkien. "Hello!" he said. 你好。再见！\n\nHeading\nNext line'
    assert sentences(text) == [
        "Mr. Smith met Dr. J. R. Tolkien. ",
        '"Hello!" he said. ',
        "你好。",
        "再见！\n\n",
        "Heading\nNext line",
    ]


def test_gutenberg_slice(corpus_dir) -> None:
    text = (corpus_dir / "gutenberg_books" / "pg11.txt").read_text(encoding="utf-8")[:60_000]
    splitter = SentenceSplitter(chunk_size=128, chunk_overlap=16)
    spans = splitter.split_text_spans(text)
    check_chunks(text, spans, 128, 16)
    sizes = [tokens(text[s:e]) for s, e in spans]
    assert sum(sizes) / len(sizes) > 90, "chunks should be filled, not tiny"
    assert sum(text[e - 1] in ".!?'\"" for s, e in spans) > len(spans) * 0.6


def test_rust_book_chapter(corpus_dir) -> None:
    text = (corpus_dir / "rust_book" / "src" / "ch04-01-what-is-ownership.md").read_text(
        encoding="utf-8"
    )
    for splitter in (SentenceSplitter(chunk_size=200, chunk_overlap=20),
                     TokenTextSplitter(chunk_size=200, chunk_overlap=20)):
        spans = splitter.split_text_spans(text)
        check_chunks(text, spans, 200, 20)


def test_large_text_counts() -> None:
    sentence = "The quick brown fox jumps over the lazy dog; naïve café, 東京 😀!\n"
    text = sentence * 6000
    index = TokenIndex(text)
    assert index.estimate(0, len(text)) == tokens(text)
    for start, end in [(5, 9000), (123_456, 300_001), (0, len(text))]:
        assert index.exact(start, end) == tokens(text[start:end])


def test_token_byte_lengths_match_the_public_api() -> None:
    encoding = get_tokenizer()
    lengths = _token_byte_lengths()
    for token in list(range(0, 100_000, 997)) + [100_255]:
        assert lengths[token] == len(encoding.decode_single_token_bytes(token))
