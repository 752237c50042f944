"""The chat's context prompt reads a Markdown passage as the answer prompt does: its inline HTML
as text ('<span class="filename">Filename: src/main.rs</span>' reads "Filename: src/main.rs"),
code as written (``synthesis.passages.prompt_text``)."""

from __future__ import annotations

from ragcore.chat.context import pack_passages
from ragcore.types import Node, ScoredNode

SPAN = '<span class="filename">Filename: src/main.rs</span>'


def test_the_context_chat_packs_a_markdown_passage_without_its_tags():
    text = f"{SPAN}\n\n```rust\n// a <b>comment</b>\nfn main() {{}}\n```"
    node = Node(text, metadata={"file_name": "ch03-04-comments.md"})
    context, used = pack_passages([ScoredNode(node, 1.0)], 500)
    assert used and "Filename: src/main.rs" in context
    assert "<span" not in context
    assert "// a <b>comment</b>" in context  # code as written
