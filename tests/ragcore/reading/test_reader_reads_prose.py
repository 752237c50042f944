"""The reader reads prose only: it was trained on SQuAD's Wikipedia paragraphs, and its chance on
a line of code or configuration means nothing (issue 64: it gave a TOML example's date 0.5 as
the year TOML was first released). Such a line is left to the word rules."""

from __future__ import annotations

import pytest

from ragcore.grounding import UNSUPPORTED, check_answer, stating
from ragcore.reading.text import prose

MANIFEST = ("Cargo's manifest\n\nEvery package has a manifest named Cargo.toml. The edition field "
            "sets which Rust edition the package is compiled with.\n\n```toml\n[package]\n"
            "name = \"hello\"\nedition = 2021\nreleased = 2015-05-15\n```")


@pytest.mark.parametrize("sentence", [
    "The client waits a further interval called the grace period, 45s by default.",
    "Binary files can be searched via the `--text` (`-a` for short) flag.",
    "Use `pip install -e .[all]` to install it.",
    "The default opt-level for dev is therefore 0."])
def test_prose_is_read(sentence):
    assert prose(sentence)


@pytest.mark.parametrize("sentence", [
    "ldt3 = 1979-05-27T07:32", "[profile.dev] opt-level = 0", "self.max_redirect = max_redirect",
    'fn main() { println!("Hello, world!"); }', "if (x > 0) { return y; }", "Yes.", "```toml"])
def test_code_is_not(sentence):
    assert not prose(sentence)


@pytest.mark.skipif(not stating.reader_available(), reason="the reader's weights")
def test_a_line_of_code_is_not_read_by_the_reader_nor_vouches_for_a_year():
    question = "In which year was Cargo first released?"
    read = [MANIFEST[slice(*s.span)] for s in stating.stated(question, [MANIFEST])]
    assert read and all(prose(sentence) for sentence in read)
    assert not any("2015" in sentence for sentence in read)
    assert check_answer("**2015**.", [MANIFEST], question=question).label == UNSUPPORTED
