"""A list answer's line says each thing once (issue 66): one "(not in the documents)" after a
line two unsupported claims end, and a numbered item no bullet as well ("• 1.")."""

from __future__ import annotations

from ragcore.present.grounded import UNSUPPORTED_MARK
from ragcore.present.markers import once_marked, unbulleted_numbers
from ragcore.present.passage.plain import plain_text


def test_the_unsupported_mark_is_never_said_twice_in_a_row():
    line = f"- 1. Insulin is made in the liver. [1] {UNSUPPORTED_MARK} {UNSUPPORTED_MARK}"
    assert once_marked(line).count(UNSUPPORTED_MARK) == 1
    apart = f"A. {UNSUPPORTED_MARK} B. [1] C. {UNSUPPORTED_MARK}"
    assert once_marked(apart) == apart  # two claims apart each keep their mark


def test_a_numbered_item_is_not_also_bulleted():
    answer = "**The steps**\n- 1. Install it. [1]\n- 2. Run it. [1]\n- a plain item"
    assert unbulleted_numbers(answer) == ("**The steps**\n1. Install it. [1]\n2. Run it. [1]\n"
                                          "- a plain item")
    # "3." after a line of text would join that line in Markdown: left as it was
    assert unbulleted_numbers("Text\n- 3. Third") == "Text\n- 3. Third"
    assert plain_text("- 1. Install\n- 2. Run\n- tea") == "1. Install 2. Run \u2022 tea"
