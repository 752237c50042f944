"""A draft drawn mid-stream never shows a literal "**": the bold short answer being written
("The grace period is **45 sec") is drawn bold, a marker with nothing after it yet is held
back, and what is not emphasis (a bullet, "2 * 3", snake_case, code) is left as written."""

from __future__ import annotations

import html
import re

import pytest

from ragcore.present.format import draft_markdown
from ragcore.present.passage.markup import render_markdown


def _shown(markdown: str) -> str:
    """The text a reader sees once ``markdown`` is drawn."""
    return html.unescape(re.sub(r"<[^>]+>", "", render_markdown(markdown)))


def test_a_bold_short_answer_being_written_is_drawn_bold():
    drawn = draft_markdown("The grace period is **45 sec")
    assert "**" not in _shown(drawn)
    assert "<strong>45 sec</strong>" in render_markdown(drawn)


@pytest.mark.parametrize("partial, seen", [
    ("**", ""),
    ("The grace period is **", "The grace period is"),
    ("The grace period is *", "The grace period is"),
    ("The grace period is **45 seconds** [1]. Use `time", "Use time"),
    ("Run `", "Run"),
    ("It is **45 seconds** and *not ", "and not"),
    ("**45 *seconds", "45 seconds"),
])
def test_a_marker_still_open_is_closed_or_held_back(partial: str, seen: str):
    shown = _shown(draft_markdown(partial))
    assert "*" not in shown and "`" not in shown
    assert seen in shown


@pytest.mark.parametrize("written", [
    "- one\n- two\n* three",
    "2 * 3 is 6, and 5*3 is 15",
    "call snake_case_name now",
    "**45 seconds** [1]",
    "```python\nf(**kwargs",
    "Use `a*b` here",
])
def test_what_is_no_open_marker_is_left_as_written(written: str):
    assert draft_markdown(written) == written


def test_every_prefix_of_an_answer_draws_without_a_marker():
    answer = ("**45 seconds** [1]. The *grace period* is set by `grace_period_s` in the "
              "**server** section:\n\n- **default**: `45`\n- *maximum*: 300")
    for end in range(len(answer) + 1):
        shown = _shown(draft_markdown(answer[:end]))
        assert "*" not in shown and "`" not in shown, answer[:end]


def test_a_closer_run_longer_than_its_opener_keeps_its_closing_part():
    assert "<strong>a</strong>" in render_markdown(draft_markdown("**a***"))


def test_a_span_opened_after_a_closed_code_block_is_closed():
    drawn = draft_markdown("```toml\ngrace = 45\n```\n\nThe **grace")
    assert drawn.endswith("The **grace**") and drawn.startswith("```toml\ngrace = 45\n```")
