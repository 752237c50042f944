"""Copy's text (issue 66): the reply as shown, plain, with its sources as numbered footnotes."""

from __future__ import annotations

from ragcore.present.markers import copied_text, plain_reply
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
