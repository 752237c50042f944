"""A Markdown passage cut from inside a code block renders its prose as prose (the Rust book:
a chunk starting "You guessed: 6\\n```" showed everything after that closing fence as code)."""

from __future__ import annotations

from pathlib import Path

from ragcore.present.citations import Segment
from ragcore.readers.markdown.fences import balance_fences, outside_fence
from ragcore.present.passage.markup import render_segments
from webapp.indexes.document_view import document_segments

CHAPTER = "rust_book/src/ch02-00-guessing-game-tutorial.md"


def _chapter(corpus_dir: Path) -> str:
    return (corpus_dir / CHAPTER).read_text(encoding="utf-8")


def _chunk_from_inside_a_block(text: str) -> str:
    start = text.index("Please input your guess.\n6\nYou guessed: 6\n```")
    return text[start:text.index("## Generating a Secret Number") + 200]


def test_a_passage_starting_inside_a_code_block_shows_its_prose_and_headings(corpus_dir):
    chunk = _chunk_from_inside_a_block(_chapter(corpus_dir))
    shown = render_segments([Segment(chunk, "passage")], "markdown")
    assert "<h2>" in shown and "## Generating" not in shown
    prose = shown.index("At this point, the first part")
    assert shown.rfind("</code></pre>", 0, prose) > shown.rfind("<pre>", 0, prose)


def test_fences_are_judged_by_their_info_string_and_the_text_around_them():
    inside = "let x = 5;\n```\n\nThe next paragraph explains what the code above does.\n"
    assert balance_fences(inside) == "```\n" + inside
    before_rust = "x\n```\n\nSee below.\n\n```rust\nfn main() {}\n```\n"
    assert balance_fences(before_rust).startswith("```\nx\n")
    opener = "Run the following command to build the project now:\n```\ncargo build\n"
    assert balance_fences(opener) == opener  # ends inside: CommonMark closes it at the end
    whole = "Intro text.\n\n```rust\nfn main() {}\n```\n\nAfter the code comes more prose."
    assert balance_fences(whole) == whole


def test_a_document_window_never_starts_inside_a_code_block():
    text = "# Title\n\nSome prose here.\n\n```rust\nfn main() {\n    x();\n}\n```\n\nMore."
    inside = text.index("    x();")
    assert outside_fence(text, inside) == text.index("```rust")
    after = text.index("More.")
    assert outside_fence(text, after) == after
    assert outside_fence(text, text.index("prose")) == text.index("Some prose")


class _Node:
    def __init__(self, text: str, start: int):
        self.text, self.start_char = text, start


def test_the_document_view_window_starts_outside_a_code_block(corpus_dir, monkeypatch):
    import webapp.indexes.document_view as view

    text = _chapter(corpus_dir)
    start = text.index("At this point, the first part")
    node = _Node(text[start:start + 300], start)
    monkeypatch.setattr(view, "WINDOW", start - text.index("You guessed: 6\n```"))
    segments = document_segments(text, node, [])
    assert segments[0].text.startswith("…\n\n```console\n$ cargo run")  # the block whole
    shown = render_segments(segments, "markdown")
    prose = shown.index("At this point, the first part")
    assert shown.rfind("</code></pre>", 0, prose) > shown.rfind("<pre>", 0, prose)
