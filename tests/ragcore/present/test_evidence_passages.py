"""Passages shown rendered, never as raw markup: Markdown and reST, with the highlight kept."""

from __future__ import annotations

from ragcore.present.citations import Segment
from ragcore.present.passage.markup import markup_of, render_segments
from ragcore.present.passage.rst_text import rst_to_markdown

RUST = [
    Segment("### Ownership Rules\n\nFirst, let's take a look at the _owner_ rules.\n\n", "passage"),
    Segment("Each value in Rust has an owner.", "cited"),
    Segment("\n\n```rust\nlet s = 1;\n```\n", "passage"),
]


def test_markdown_headings_and_emphasis_are_rendered_not_shown_as_written():
    shown = render_segments(RUST, "markdown")
    assert "###" not in shown and "_owner_" not in shown
    assert "<h3>" in shown and "<em>" in shown and "Ownership Rules" in shown
    assert '<mark style="background:#FEEBC8;font-weight:600;">Each value in Rust has an owner.' \
        in shown
    assert '<code class="language-rust">' in shown


def test_rendered_markdown_cannot_inject_markup():
    shown = render_segments([Segment("Hi <script>alert(1)</script> **there**", "cited")],
                            "markdown")
    assert "<script>" not in shown and "&lt;script&gt;" in shown and "<strong>" in shown


def test_rst_directives_roles_and_titles_read_as_text():
    text = ("Indentation\n===========\n\nUse 4 spaces, see :pep:`8` and `the docs "
            "<https://docs.python.org>`_.\n\n.. code-block:: python\n   :class: good\n\n"
            "   x = ``1``\n\n.. note:: Tabs are *discouraged*.\n\n.. _target:\n")
    markdown = rst_to_markdown(text)
    assert markdown.startswith("#### Indentation\n")
    assert "PEP 8" in markdown and "[the docs](https://docs.python.org)" in markdown
    assert "```python\nx = ``1``\n```" in markdown  # code stays as written
    assert "**Note:** Tabs are *discouraged*." in markdown
    assert ".." not in markdown.replace("docs.python", "") and ":class:" not in markdown


def test_rst_passage_keeps_its_highlight_through_the_title_underline():
    segments = [Segment("Code Lay-out\n===", "passage"), Segment("=========\n\nUse four spaces.",
                                                                  "cited")]
    shown = render_segments(segments, "rst")
    assert "===" not in shown and "<h4>" in shown
    assert '<mark style="background:#FEEBC8;font-weight:600;">Use four spaces.</mark>' in shown


def test_the_markup_follows_the_file_name():
    assert markup_of("ch04-01-what-is-ownership.md") == "markdown"
    assert markup_of("pep-0008.rst") == "rst"
    assert markup_of("zta.pdf") == "text" and markup_of(None) == "text"


def test_plain_text_is_shown_as_written():
    assert "### not a heading" in render_segments([Segment("### not a heading", "passage")],
                                                  "text")
