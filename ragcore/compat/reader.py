"""``SimpleDirectoryReader`` with LlamaIndex's signature over ragcore's reader.

The folder may be given by position; ``show_progress``, ``num_workers`` (files are read one
after another: the documents are the same), ``raise_on_error`` and ``encoding="utf-8"`` are
accepted; a named file that does not exist raises ValueError at once, as in LlamaIndex.
ragcore detects each file's encoding and reads by extension, so other encodings and
``file_extractor`` are refused with what to do instead. Document ids stay stable
(``filename_as_id=True``) unless ``filename_as_id=False`` is passed: LlamaIndex's random ids
would make re-ingesting a file duplicate it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable

from ..errors import ConfigError
from ..readers import SimpleDirectoryReader as _Reader
from ..types import Document
from .progress import progress_bar
from .refusals import refuse

_HINTS = {
    "file_extractor": "ragcore picks the reader by extension (ragcore.readers.files.READERS); "
                      "for another format, build Documents yourself and pass them to "
                      "VectorStoreIndex.from_documents",
    "fs": "ragcore reads the local file system only",
    "errors": "ragcore decodes text itself (ragcore.readers.decoding) and reports a file it "
              "cannot read in reader.failures",
}


class SimpleDirectoryReader(_Reader):
    """LlamaIndex's ``SimpleDirectoryReader(input_dir, input_files=..., ...)``."""

    def __init__(
        self,
        input_dir: str | Path | None = None,
        input_files: Iterable[str | Path] | None = None,
        exclude: Iterable[str] | None = None,
        exclude_hidden: bool = True,
        recursive: bool = False,
        encoding: str = "utf-8",
        filename_as_id: bool = True,
        required_exts: Iterable[str] | None = None,
        num_files_limit: int | None = None,
        file_metadata: Any = None,
        raise_on_error: bool = False,
        **unsupported: Any,
    ) -> None:
        refuse("SimpleDirectoryReader", unsupported, _HINTS)
        if str(encoding).lower().replace("_", "-") not in ("utf-8", "utf8"):
            raise ConfigError(
                f"encoding={encoding!r}: ragcore detects each text file's encoding itself "
                "(UTF-8 with or without BOM, UTF-16, then legacy code pages); leave encoding out"
            )
        if input_dir is None and input_files is None:
            raise ConfigError("Must provide either input_dir or input_files.")
        if input_files is not None and not isinstance(input_files, (str, Path)):
            input_files = list(input_files)
            for path in input_files:
                if not Path(path).is_file():
                    raise ConfigError(f"File {path} does not exist.")
        super().__init__(
            input_dir=input_dir, input_files=input_files, recursive=recursive, exclude=exclude,
            required_exts=required_exts, filename_as_id=filename_as_id,
            num_files_limit=num_files_limit, exclude_hidden=exclude_hidden,
            file_metadata=file_metadata,
        )
        self.raise_on_error = bool(raise_on_error)

    def load_data(  # type: ignore[override]
        self, show_progress: bool = False, num_workers: int | None = None, *, progress: Any = None
    ) -> list[Document]:
        """Every file's documents; ``raise_on_error`` raises the first failure after the load."""
        if num_workers is not None and (isinstance(num_workers, bool)
                                        or not isinstance(num_workers, int) or num_workers < 1):
            raise ConfigError(f"num_workers ({num_workers!r}) must be a positive whole number")
        progress = progress or progress_bar(show_progress, "Loading files")
        documents = super().load_data(progress=progress)
        if self.raise_on_error and self.failures:
            raise self.failures[0]
        return documents
