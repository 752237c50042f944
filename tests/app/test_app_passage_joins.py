"""A Markdown source drawn as its file shows it (issue 66's fifth walk, the Rust book's data
types chapter): the passage opening with a code fence draws that code as code and the words
before it as words, and the quote after a passage draws its heading as one. The chunks are cut
with the whitespace between them left out, and the words around a passage were joined to it by
a space: "like this: ```rust" drew the link markup before it as code, "collection. > #####
Integer Overflow" showed its marks. A cross-reference to a link defined elsewhere in the file
reads as its words ("[“Comparing the Guess ...”][comparing-the-guess-...]" was shown so)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

CHAPTER = "rust_book/src/ch03-02-data-types.md"


def _sources(root: str) -> None:
    """The chapter's passage opening with its first code fence, and the one before its quoted
    "Integer Overflow" heading, drawn as the Chat and Query pages draw a source."""
    from pathlib import Path

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.present.sources import ListedSource, SourceUse
    from ragcore.types import ScoredNode
    from ragcore.workspace import Workspace
    from webapp.answers.citing import source_body

    index = Workspace(Path(root), embedder=FakeEmbedder()).load_index("rust")
    nodes = list(index.all_nodes())
    fenced = next(n for n in nodes if n.text.startswith("```rust\nlet guess"))
    quoted = next(n for n in nodes if n.text.endswith("some sort of collection.")
                  and "Integer Overflow" not in n.text)

    def lookup(node_id):
        return index.get_node(node_id)

    for number, node in enumerate((fenced, quoted), 1):
        source = ListedSource(number, ScoredNode(node, 0.8), SourceUse(spans=()))
        source_body(source, lookup, "rust", key=f"open-{number}")


def test_a_markdown_source_draws_the_code_and_the_quote_around_its_cuts(tmp_path, corpus_dir,
                                                                         monkeypatch):
    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest("rust", [corpus_dir / CHAPTER])
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    at = AppTest.from_function(_sources, args=(str(root),), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    fenced, quoted = [h.proto.body for h in at.get("html") if "rc-passage" in h.proto.body]
    assert "```" not in _visible(fenced), _visible(fenced)
    code = fenced.index('<pre><code class="language-rust">')
    assert fenced.index("let guess: u32") > code
    assert fenced.rfind("</code></pre>", 0, code) < 0  # the words before it are no code
    assert "we must add a type annotation, like this:</span></p>" in fenced
    words = " ".join(_visible(fenced).split())  # a cross-reference as its words, no markup
    assert "in the “Comparing the Guess to the Secret Number” section in Chapter 2" in words
    assert "#####" not in _visible(quoted) and "> " not in _visible(quoted), _visible(quoted)
    assert "<blockquote>" in quoted and "Integer Overflow</span></h5>" in quoted


def _visible(drawn: str) -> str:
    """The words a reader sees in drawn HTML (the style sheet left out)."""
    body = re.sub(r"<style>.*?</style>", "", drawn, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))
