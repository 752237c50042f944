"""SentenceSplitter: chunks that end at paragraph and sentence boundaries where possible.

LlamaIndex's default node parser, with its semantics: a text that is too big is cut into
paragraphs (``paragraph_separator``), then sentences, then clauses (``secondary_chunking_regex``),
then words (``separator``), and only then finer; the pieces are merged greedily into chunks of up
to ``chunk_size`` tokens, each starting with up to ``chunk_overlap`` tokens from the end of the
previous one. Unlike ``TokenTextSplitter``, which only knows words, it keeps sentences whole
whenever they fit, so chunks read as complete thoughts.

It differs from LlamaIndex in speed (one tokenization of the text plus one exact check per chunk,
linear in the text's length), in exact character offsets for every chunk, in never dropping
characters, and in a guaranteed budget (see ``merge``).
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ConfigError
from .boundaries import (
    DEFAULT_SECONDARY_REGEX,
    SENTENCES,
    CharLevel,
    RegexLevel,
    SeparatorLevel,
    TokenLevel,
)
from .splitter import TextSplitter, check_text
from .window import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE

DEFAULT_PARAGRAPH_SEPARATOR = "\n\n\n"


def _compile(pattern: object) -> re.Pattern[str]:
    text = check_text("secondary_chunking_regex", pattern)
    try:
        return re.compile(text)
    except re.error as exc:
        raise ConfigError(
            f"secondary_chunking_regex {text!r} is not a valid regular expression ({exc}); "
            f"the default is {DEFAULT_SECONDARY_REGEX!r}"
        ) from exc


class SentenceSplitter(TextSplitter):
    """Split text at paragraphs, then sentences, then finer, into overlapping token chunks."""

    def __init__(
        self,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        separator: str = " ",
        paragraph_separator: str = DEFAULT_PARAGRAPH_SEPARATOR,
        secondary_chunking_regex: str = DEFAULT_SECONDARY_REGEX,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        self.separator = check_text("separator", separator)
        self.paragraph_separator = check_text("paragraph_separator", paragraph_separator)
        self.secondary_chunking_regex = _compile(secondary_chunking_regex).pattern
        super().__init__(
            levels=(
                SeparatorLevel(self.paragraph_separator),
                SENTENCES,
                RegexLevel(re.compile(self.secondary_chunking_regex)),
                SeparatorLevel(self.separator),
                TokenLevel(),
                CharLevel(),
            ),
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
        )

    def options(self) -> dict[str, Any]:
        return {
            "separator": self.separator,
            "paragraph_separator": self.paragraph_separator,
            "secondary_chunking_regex": self.secondary_chunking_regex,
        }
