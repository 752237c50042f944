"""Grammars for llama.cpp's constrained decoding: a reply that can only be one of some texts.

llama.cpp reads a GBNF grammar from a chat body's ``grammar`` field and masks every token that
would leave it, so the model chooses among the texts instead of writing freely
(``LocalLLM.choose``). Pure: tests read the grammar text.
"""

from __future__ import annotations

from typing import Sequence

from ...errors import ConfigError

# GBNF string literals: the quote and backslash escaped, and the characters a line cannot hold.
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_of(options: Sequence[str]) -> str:
    """A GBNF grammar whose only sentences are ``options``, word for word."""
    if not options or not all(options):
        raise ConfigError(f"options ({list(options)!r}) must be one or more non-empty texts to "
                          "choose among")
    return "root ::= " + " | ".join(f'"{_literal(option)}"' for option in options)


def _literal(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)
