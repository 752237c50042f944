"""The context budget: packing keeps every word, in order, and never overfills a prompt."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragcore.errors import PromptTooLongError
from ragcore.prompt_budget import truncate_to_tokens
from ragcore.synthesis.budget import (
    SEPARATOR,
    context_budget,
    count_each,
    fit_each,
    pack_chunks,
    split_by_tokens,
)
from ragcore.tokens import count_tokens

WORDS = ["alpha", "beta.", "gamma,", "delta\n", "epsilon", "Über", "数据", "C++", "x" * 12, "a\n\n"]

texts_strategy = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=120).map(" ".join),
    min_size=1,
    max_size=8,
)


def words_of(texts):
    return " ".join(texts).split()


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(texts=texts_strategy, budget=st.integers(min_value=16, max_value=200))
def test_pack_chunks_keeps_every_word_in_order_within_budget(texts, budget):
    packing = pack_chunks(texts, count_each(texts), budget)
    assert words_of(packing.texts) == words_of(texts)
    for text, tokens in zip(packing.texts, packing.tokens):
        assert count_tokens(text) <= tokens <= budget


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(texts=texts_strategy, budget=st.integers(min_value=16, max_value=200))
def test_fit_each_cuts_only_oversized_chunks(texts, budget):
    counts = count_each(texts)
    packing = fit_each(texts, counts, budget)
    assert words_of(packing.texts) == words_of(texts)
    assert all(count_tokens(t) <= budget for t in packing.texts)
    assert packing.cut_chunks == sum(1 for c in counts if c > budget)
    assert len(packing.texts) >= len(texts)


def test_chunks_that_fit_stay_whole_and_are_packed_together():
    texts = [f"Passage {i} " + "word " * 40 for i in range(6)]
    counts = count_each(texts)
    packing = pack_chunks(texts, counts, budget=sum(counts[:3]) + 10)
    assert len(packing.texts) == 2
    assert packing.cut_chunks == 0
    assert packing.texts[0] == SEPARATOR.join(t.strip() for t in texts[:3])


def test_an_oversized_chunk_is_cut_and_first_fills_the_room_left():
    small, huge = "small passage " * 20, "huge passage text " * 200
    packing = pack_chunks([small, huge], count_each([small, huge]), budget=200)
    assert packing.cut_chunks == 1
    assert packing.texts[0].startswith(small.strip()) and "huge" in packing.texts[0]
    assert words_of(packing.texts) == words_of([small, huge])


def test_split_prefers_word_boundaries():
    text = "internationalization " * 100
    pieces = split_by_tokens(text, 30)
    assert all(p.split() == ["internationalization"] * len(p.split()) for p, _ in pieces)
    assert sum(len(p.split()) for p, _ in pieces) == 100


def test_truncate_reports_what_was_cut():
    text = "one two three four five six seven eight nine ten " * 20
    head, cut = truncate_to_tokens(text, 25)
    assert count_tokens(head) <= 25 and text.startswith(head)
    assert cut == count_tokens(text) - count_tokens(head)
    assert truncate_to_tokens("short", 25) == ("short", 0)


def test_budget_too_small_says_what_to_do():
    assert (
        context_budget(
            context_window=1000, num_output=100, prompt_tokens=50, prompt_name="the 'qa' prompt"
        )
        == 850
    )
    with pytest.raises(PromptTooLongError, match=r"context_window \(200\).*leaves 50.*larger"):
        context_budget(
            context_window=200, num_output=150, prompt_tokens=60, prompt_name="the 'qa' prompt"
        )


def test_a_repeated_header_is_read_once_per_prompt():
    """Passages of one file in one prompt carry its header once; another file's passage, or the
    first passage of the next prompt, keeps its own."""
    a, b = "file_name: a.txt", "file_name: b.txt"
    headers = [a, a, b, a, a]
    texts = [f"{h}{SEPARATOR}passage {i} " + "word " * 20 for i, h in enumerate(headers)]
    packing = pack_chunks(texts, count_each(texts), budget=200, headers=headers)
    assert len(packing.texts) == 1
    assert [line for line in packing.texts[0].split(SEPARATOR) if line.startswith("file_")] \
        == [a, b, a]
    small = pack_chunks(texts, count_each(texts), budget=60, headers=headers)
    assert len(small.texts) > 1 and all(t.startswith("file_name: ") for t in small.texts)
    assert words_of(pack_chunks(texts, count_each(texts), 200).texts) == words_of(texts)
