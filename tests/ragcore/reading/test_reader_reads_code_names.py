"""Code's names read as names: a flag named after what it does is not the question's own words.

"--no-cache" is "no" and "cache" to the reader's word pieces, so "The --no-cache option disables
the cache." read as the question with its answer cut out (0.009 before ``masked``)."""

from __future__ import annotations

from ragcore.grounding import stating
from ragcore.reading.model import Reader
from ragcore.reading.text import masked, reader_text


def test_each_name_of_code_is_one_made_up_name_in_both_texts():
    question, text = masked("What does --text do?",
                            "Binary files are searched via the `--text` (`-a` for short) flag.")
    assert question == "What does Zerbo do?"
    assert text == "Binary files are searched via the Zerbo (Kolvan for short) flag."
    assert masked("Which call opens it?", "Use open() or os.open, and read_response.")[1] == \
        "Use Zerbo or Kolvan, and Tamsel."


def test_numbers_words_and_abbreviations_stay_as_written():
    sentence = "The default port is `6379`, i.e. the usual one, 45s or -1 at most."
    assert masked("What is the default port?", sentence) == (
        "What is the default port?", sentence.replace("`", ""))


def test_a_flag_named_after_what_it_does_is_read_as_the_answer():
    reader = Reader()
    for question, sentence in [
            ("Which option disables the cache?", "The --no-cache option disables the cache."),
            ("Which function opens a file?", "The open() function opens a file.")]:
        assert reader.score(question, [reader_text(sentence)])[0] >= stating.STATES
