"""An answer quoting a Markdown passage as the model read it (its HTML tags gone: "the user
types 5 and presses enter") is found quoting the passage as stored ("types <kbd>5</kbd> and
presses <kbd>enter</kbd>"): a tag's words ("kbd", "span class filename") are no words of the
passage, as they are none of what its reader sees."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.grounding.stating import reader_available
from ragcore.present.quotes import quoted_spans, words_of
from ragcore.present.support import QUOTED, cite
from ragcore.readers.markdown import read_as

CHAPTER = "rust_book/src/ch02-00-guessing-game-tutorial.md"


def test_a_quote_of_the_passage_as_read_is_found_in_the_passage_as_stored(corpus_dir: Path):
    text = (corpus_dir / CHAPTER).read_text(encoding="utf-8")
    start = text.index("The user must press\n<kbd>enter</kbd>")
    passage = text[start:text.index("in just `5`.", start) + len("in just `5`.")]
    read = read_as(passage, "ch02-00-guessing-game-tutorial.md")
    sentence = read[read.index("For example"):read.index("The `\\n` represents")].strip()
    assert "<kbd>" not in sentence  # what the model read, and quotes
    answer = f"**5\\n** [1]. {sentence}"
    spans = quoted_spans(passage, answer, whole=True)
    assert any(passage[a:b].startswith("For example, if the user types <kbd>5</kbd>")
               for a, b in spans)
    used = cite(answer, [passage], extractive=True).sources[0]
    assert used.note == QUOTED


def test_a_tag_holds_no_words_but_code_and_prose_keep_theirs():
    assert words_of('<span class="filename">Filename: src/main.rs</span>') == [
        "filename", "src", "main", "rs"]
    assert words_of("Use a Vec<T> of <kbd>Ctrl</kbd>") == ["use", "a", "vec", "t", "of", "ctrl"]


def test_a_sentence_quoted_in_an_answer_shows_no_tag():
    from ragcore.present.answer_quotes import quoted
    sentence = ('<span class="filename">Filename: src/main.rs</span>\n\nIf the user types '
                '<kbd>5</kbd> and presses <kbd>enter</kbd>, `guess` holds `5\\n`.')
    assert quoted(sentence) == ("Filename: src/main.rs If the user types 5 and presses enter, "
                                "`guess` holds `5\\n`.")


@pytest.mark.skipif(not reader_available(), reason="the reader's weights choose the sentence")
def test_the_nearest_sentence_of_a_refusal_shows_no_tag():
    from ragcore.present.grounded import NEAREST_LEAD
    from ragcore.present.markers import mark_listing
    from ragcore.present.sources import answer_sources
    from ragcore.types import Node, ScoredNode

    passages = ["The user must press <kbd>enter</kbd> to satisfy `read_line` and input their "
                "guess, which adds a newline character to the string.",
                "Rust also has documentation comments, which we discuss in chapter 14."]
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate(passages)]
    answer, question = "**Ctrl-D** [1].", "Which key must the user press to input their guess?"
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    shown = mark_listing(answer, listing)[0]
    assert NEAREST_LEAD in shown
    assert "The user must press enter to satisfy `read_line`" in shown and "<kbd>" not in shown
