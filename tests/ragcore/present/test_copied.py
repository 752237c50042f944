"""Copy's text (issue 66): the reply as shown, plain, with its sources as numbered footnotes."""

from __future__ import annotations

from ragcore.present.format import copied_text, plain_reply
from ragcore.present.sources import ListedSource, SourceListing, SourceUse
from ragcore.types import Node, ScoredNode


def _listed(number: int, file_name: str, page: str | None) -> ListedSource:
    metadata = {"file_name": file_name, **({"page_label": page} if page else {})}
    return ListedSource(number, ScoredNode(Node("text", metadata=metadata), 0.5),
                        SourceUse(spans=()))


SHOWN = ("**Check this answer against the sources:** The lease lasts 12 s. "
         "[[1]](#20261128-110928-57c8e1_5-source-1) A grace period of 45s by default. "
         "[[2]](#20261128-110928-57c8e1_5-source-2)")


def test_markers_lose_their_link_and_sources_become_footnotes():
    listing = SourceListing(shown=(_listed(1, "chubby.pdf", "4"), _listed(2, "notes.txt", None),
                                   _listed(3, "other.pdf", "9")))
    assert copied_text(SHOWN, listing) == (
        "Check this answer against the sources: The lease lasts 12 s. [1] A grace period of "
        "45s by default. [2]\n\n[1] chubby.pdf, page 4\n[2] notes.txt")


def test_a_reply_citing_nothing_lists_the_sources_shown_and_one_without_any_is_its_text():
    listing = SourceListing(shown=(_listed(1, "chubby.pdf", "4"),))
    assert copied_text("It is **five**.", listing) == "It is five.\n\n[1] chubby.pdf, page 4"
    assert copied_text("Hello.", None) == plain_reply("Hello.") == "Hello."


def test_copied_text_carries_no_markdown():
    """The newcomer's clipboard held "The default `opt-level` ..." and a reference-style link."""
    shown = ("The default `opt-level` is 3 for release builds, see "
             "[_The Rust Edition Guide_][edition-guide] and [the book](https://doc.rust-lang.org"
             "/book/) or [section 2](#ch02). It costs \\$5 per *month*; snake_case_name stays.")
    assert plain_reply(shown) == (
        "The default opt-level is 3 for release builds, see The Rust Edition Guide and the book "
        "(https://doc.rust-lang.org/book/) or section 2. It costs $5 per month; "
        "snake_case_name stays.")
    assert plain_reply("```rust\nfn main() {}\n```") == "fn main() {}"
    assert plain_reply("Both [1][2] say so.") == "Both [1][2] say so."


# -- a source with no page: its file and the section it is in (issue 66, the fourth walk) ------

GUIDE = """# Guide

Read this first.

## Installing

```sh
# not a heading: a comment in a shell block
curl https://sh.rustup.rs | sh
```

The installer puts cargo in your path.

Configuring
-----------

Edit the file config.toml.
"""


def test_a_passage_s_section_is_the_heading_above_its_first_line():
    from ragcore.present.passage.section import passage_section, section_heading

    assert section_heading(GUIDE, GUIDE.index("The installer")) == "Installing"
    assert section_heading(GUIDE, GUIDE.index("Edit the file")) == "Configuring"  # underlined
    assert section_heading(GUIDE, GUIDE.index("## Installing")) == "Installing"  # its own
    assert section_heading(GUIDE, GUIDE.index("curl")) == "Installing"  # "# not a heading"
    assert section_heading(GUIDE, 0) == "Guide"
    novel = "It is a truth universally acknowledged.\n\nChapter text goes on here."
    assert section_heading(novel, novel.index("Chapter")) == ""  # nothing invented
    rst = "=======\nAbstract\n=======\n\nThis PEP proposes.\n"
    assert section_heading(rst, rst.index("This PEP")) == "Abstract"
    # without the document (gone or changed), only a heading on the passage's first line
    assert passage_section(None, "## Setup\n\nRun it.", 40) == "Setup"
    assert passage_section("other text", "Run it.", 0) == ""


def test_copy_names_a_pageless_source_s_file_and_section():
    """The walk's clipboard: "[1] notes.md", where in the file not said."""
    listing = SourceListing(shown=(_listed(1, "guide.md", None), _listed(2, "zta.pdf", "12"),
                                   _listed(3, "novel.txt", None)))
    copied = copied_text("Cargo is on your path. [[1]](#s-1) See [[2]](#s-2) and [[3]](#s-3).",
                         listing, {1: "section “Installing”"})
    assert copied.endswith("\n\n[1] guide.md, section “Installing”\n[2] zta.pdf, page 12\n"
                           "[3] novel.txt"), copied
