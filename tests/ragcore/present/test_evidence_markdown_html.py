"""Markdown passages show no raw HTML or mdBook markup (the Rust book's "<!-- manual-regeneration",
'<Listing number="2-1" …>', "{{#rustdoc_include …}}", '<span class="filename">'), while code
blocks and code spans keep every character, and the highlight survives."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ragcore.present.citations import Segment
from ragcore.readers.markdown.readable import readable_markdown
from ragcore.present.passage.markup import render_segments

CHAPTER = "rust_book/src/ch02-00-guessing-game-tutorial.md"


def _shown_text(rendered: str) -> str:
    body = rendered.split("</style>", 1)[1]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def test_rust_book_passages_show_no_html_or_includes(corpus_dir: Path):
    text = (corpus_dir / CHAPTER).read_text(encoding="utf-8")
    start = text.index("Let’s test the first part")
    listing = text.index("<Listing number=\"2-1\"")
    for passage in (text[start:start + 900], text[listing - 300:listing + 400]):
        shown = _shown_text(render_segments([Segment(passage, "passage")], "markdown"))
        assert "<!--" not in shown and "-->" not in shown and "<Listing" not in shown
        assert "{{#" not in shown and "</Listing>" not in shown
    shown = _shown_text(render_segments([Segment(text[listing - 300:listing + 400], "passage")],
                                        "markdown"))
    assert "Listing 2-1: Code that gets a guess from the user and prints it (src/main.rs)" \
        in shown
    assert "(code from listing-02-01/src/main.rs)" in shown


def test_code_keeps_its_markup_and_prose_loses_tags():
    text = ('Press <kbd>Ctrl</kbd>+<kbd>C</kbd>. See `<span>` and Vec<T> too.\n\n'
            '```html\n<!-- kept --><span class="x">code</span>\n```\n'
            '<span class="filename">Filename: src/main.rs</span>\n<img src="a.png" alt="A map">')
    assert readable_markdown(text) == (
        'Press Ctrl+C. See `<span>` and Vec<T> too.\n\n'
        '```html\n<!-- kept --><span class="x">code</span>\n```\n'
        'Filename: src/main.rs\nA map')


def test_a_passage_cut_inside_a_comment_drops_the_comment_tail():
    assert readable_markdown("cargo clean\ninput 6 -->\n\nAt this point.") == "\n\nAt this point."


def test_the_highlight_markers_inside_removed_markup_are_kept():
    hidden = re.compile("[\ue010-\ue015]")
    text = "Intro <!-- a\ue013 note -->\ue012rest\ue013"
    assert readable_markdown(text, hidden=hidden) == "Intro \ue013\ue012rest\ue013"


def test_a_caption_holding_code_and_angle_brackets_is_one_tag():
    text = '<Listing number="6-5" caption="A `match` on an `Option<i32>`">\n\n```rust\nx\n```\n'
    assert readable_markdown(text).startswith("**Listing 6-5:** A `match` on an `Option<i32>`\n")
