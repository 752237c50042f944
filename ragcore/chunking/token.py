"""TokenTextSplitter: chunks of up to ``chunk_size`` tokens cut at word boundaries only.

LlamaIndex's ``TokenTextSplitter``: a text that is too big is cut at ``separator`` (words), then
at each of ``backup_separators`` (line breaks), then between tokens; pieces are merged greedily
with ``chunk_overlap`` tokens of overlap. Unlike ``SentenceSplitter`` it ignores sentences and
paragraphs, so chunks are filled closer to ``chunk_size`` but may start or end mid-sentence; it
is the splitter to use for text without sentence structure (logs, tables, code). Offsets,
budget and speed guarantees are the same (see ``merge``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import ConfigError
from .boundaries import CharLevel, SeparatorLevel, TokenLevel
from .splitter import TextSplitter, check_text
from .window import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE


class TokenTextSplitter(TextSplitter):
    """Split text at words (then line breaks, then tokens) into overlapping token chunks."""

    def __init__(
        self,
        *,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        separator: str = " ",
        backup_separators: Sequence[str] = ("\n",),
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        self.separator = check_text("separator", separator)
        if isinstance(backup_separators, str):
            raise ConfigError(
                f"backup_separators must be a list of strings, got the string {backup_separators!r}"
                f"; write [{backup_separators!r}]"
            )
        self.backup_separators = tuple(
            check_text("backup_separators item", sep) for sep in backup_separators
        )
        super().__init__(
            levels=(
                SeparatorLevel(self.separator),
                *(SeparatorLevel(sep) for sep in self.backup_separators),
                TokenLevel(),
                CharLevel(),
            ),
            chunk_size=chunk_size,
            chunk_overlap=chunk_overlap,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
        )

    def options(self) -> dict[str, Any]:
        return {"separator": self.separator, "backup_separators": list(self.backup_separators)}
