"""A passage as the model reads it: its metadata header for the LLM, then its text as read.

A node's stored text stays as its file holds it: its offsets open it in the document, and the
citation check finds quotes in it. What the model is given goes through ``readers.markdown``'s
``read_as``: a Markdown file's HTML turned into its text ('<span class="filename">Filename:
src/main.rs</span>' reads "Filename: src/main.rs", as the passage view shows it), which the
packaged model would otherwise copy into an answer ("<span"), code left as written.
"""

from __future__ import annotations

from ..readers.markdown import read_as
from ..types import MetadataMode, Node


def passage_text(node: Node) -> str:
    """``node``'s text as the model reads it (without its metadata header)."""
    return read_as(node.text, node.metadata.get("file_name"))


def prompt_text(node: Node) -> str:
    """``node`` as a prompt holds it: ``Node.content(MetadataMode.LLM)``, laid out the same way
    (the header, a blank line, the text), with the text as the model reads it."""
    return with_header(node.metadata_str(MetadataMode.LLM), passage_text(node))


def with_header(header: str, text: str) -> str:
    """A passage's text as read under its metadata ``header`` (none: the text alone)."""
    return f"{header}\n\n{text}" if header else text
