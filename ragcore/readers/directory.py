"""SimpleDirectoryReader: a folder (or a list of files) to Documents, one report entry per failure.

As in LlamaIndex, but: a bad file never stops the load (it becomes a ``ReaderError`` in
``.failures`` naming the file, the problem and the fix, and a logged warning), document ids are
stable by default (``filename_as_id=True``: the resolved path, plus ``#page=N`` for PDF pages;
LlamaIndex defaults to random ids, which makes re-ingesting a file duplicate it), and hidden
files and folders are skipped. As in LlamaIndex, a folder scan lists every other file, whatever
its extension (``changelog.Debian`` and ``copyright`` are text): ``load_file`` reads each by its
extension or its content, and a binary file it cannot read (a photo, an archive) becomes a
failure that says so, never a file dropped without a word.
"""

from __future__ import annotations

import errno
import fnmatch
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ragcore.errors import ConfigError, ReaderError
from ragcore.readers.files import load_file
from ragcore.types import Document

logger = logging.getLogger(__name__)

# progress(done, total): called after each file, as in ragcore.embeddings.
Progress = Callable[[int, int], None]


class SimpleDirectoryReader:
    """Load every supported file of ``input_dir`` (or exactly ``input_files``) into Documents.

    Options that filter a folder scan (``recursive``, ``exclude`` glob patterns, ``required_exts``,
    ``exclude_hidden``) do not apply to ``input_files``; ``num_files_limit`` caps both.
    A symbolic link in the folder whose target lies outside it is skipped (listed in
    ``failures`` with the reason) unless ``follow_symlinks=True``.
    ``file_metadata(path) -> dict`` adds metadata to every document of a file, and the two
    ``excluded_*_metadata_keys`` lists, when given, replace each document's defaults.
    """

    def __init__(
        self,
        *,
        input_dir: str | Path | None = None,
        input_files: Iterable[str | Path] | None = None,
        recursive: bool = False,
        exclude: Iterable[str] | None = None,
        required_exts: Iterable[str] | None = None,
        filename_as_id: bool = True,
        num_files_limit: int | None = None,
        exclude_hidden: bool = True,
        file_metadata: Callable[[Path], Mapping[str, Any]] | None = None,
        excluded_embed_metadata_keys: Iterable[str] | None = None,
        excluded_llm_metadata_keys: Iterable[str] | None = None,
        follow_symlinks: bool = False,
    ) -> None:
        self.input_dir, self.input_files = _check_inputs(input_dir, input_files)
        self.recursive = bool(recursive)
        self.exclude = _string_list("exclude", exclude, "exclude=['*.log', 'drafts/*']")
        self.required_exts = _extensions(required_exts)
        self.filename_as_id = bool(filename_as_id)
        self.num_files_limit = _limit(num_files_limit)
        self.exclude_hidden = bool(exclude_hidden)
        self.file_metadata = file_metadata
        self.excluded_embed_metadata_keys = _optional_keys(excluded_embed_metadata_keys)
        self.excluded_llm_metadata_keys = _optional_keys(excluded_llm_metadata_keys)
        self.follow_symlinks = bool(follow_symlinks)
        self.failures: list[ReaderError] = []
        self._skipped: list[ReaderError] = []

    def iter_files(self) -> list[Path]:
        """The files ``load_data`` will read, in order (sorted for a folder scan)."""
        if self.input_files is not None:
            files = list(self.input_files)
        else:
            files = self._scan(self.input_dir)
        return files[: self.num_files_limit] if self.num_files_limit else files

    def load_data(self, *, progress: Progress | None = None) -> list[Document]:
        """Read every file; a file that fails goes to ``self.failures`` and the rest still load."""
        documents: list[Document] = []
        files = self.iter_files()
        self.failures = list(self._skipped)
        for skipped in self._skipped:
            logger.warning("skipped %s", skipped)
        for done, path in enumerate(files, start=1):
            try:
                loaded = _load_one(path)
            except ReaderError as exc:
                logger.warning("skipped %s", exc)
                self.failures.append(exc)
            else:
                documents.extend(self._finish(loaded, path))
            if progress is not None:
                progress(done, len(files))
        return documents

    def _finish(self, documents: list[Document], path: Path) -> list[Document]:
        extra = dict(self.file_metadata(path)) if self.file_metadata else {}
        for document in documents:
            if not self.filename_as_id:
                document.doc_id = str(uuid.uuid4())
            document.metadata.update(extra)
            if self.excluded_embed_metadata_keys is not None:
                document.excluded_embed_metadata_keys = list(self.excluded_embed_metadata_keys)
            if self.excluded_llm_metadata_keys is not None:
                document.excluded_llm_metadata_keys = list(self.excluded_llm_metadata_keys)
        return documents

    def _scan(self, root: Path) -> list[Path]:
        allowed = self.required_exts
        found = []
        self._skipped = []
        for folder, dirnames, filenames in os.walk(root, onerror=_log_walk_error):
            folder_path = Path(folder)
            keep = [d for d in dirnames if self.recursive and self._keep(folder_path / d, root)]
            dirnames[:] = keep  # os.walk descends only into the folders left here
            # os.walk never enters a linked folder: one leading outside is said, not dropped
            self._skipped += [_outside_link(folder_path / d, folder=True) for d in keep
                              if _leads_outside(folder_path / d, root)]
            for name in filenames:
                path = folder_path / name
                wanted = allowed is None or path.suffix.lower() in allowed
                if wanted and self._keep(path, root):
                    problem = self._link_problem(path, root)
                    if problem is None:
                        found.append(path)
                    else:
                        self._skipped.append(problem)
        return sorted(found)

    @property
    def skipped(self) -> list[ReaderError]:
        """Entries the last folder scan passed over (links in a loop or leading outside), each
        with the reason; ``load_data`` reports them first in ``failures``."""
        return list(self._skipped)

    def _keep(self, path: Path, root: Path) -> bool:
        relative = PurePosixPath(path.relative_to(root).as_posix())
        if self.exclude_hidden and _is_hidden(relative.name):
            return False
        return not any(_matches(relative, pattern) for pattern in self.exclude)

    def _link_problem(self, path: Path, root: Path) -> ReaderError | None:
        """Why a listed entry is not read: a symbolic link loop, or a link leading outside."""
        if not path.is_symlink():
            return None
        try:
            path.stat()
        except OSError as exc:
            # a loop ends in ELOOP (a plain resolve() raises RuntimeError on it, which killed
            # the whole scan); a dangling link fails later, when read, as a missing file
            return _link_loop(path) if exc.errno == errno.ELOOP else None
        return _outside_link(path) if self._escapes(path, root) else None

    def _escapes(self, path: Path, root: Path) -> bool:
        """True for a symbolic link leading outside ``root`` when links are not to be followed."""
        return not self.follow_symlinks and _leads_outside(path, root)


def _leads_outside(path: Path, root: Path) -> bool:
    """True for a symbolic link whose target lies outside ``root``."""
    return path.is_symlink() and not path.resolve().is_relative_to(root.resolve())


def _link_loop(path: Path) -> ReaderError:
    return ReaderError(
        path,
        f"is a symbolic link in a loop (it points to {os.readlink(path)!r}, which never leads "
        "to a file)",
        "remove the link or point it at a real file",
    )


def _outside_link(path: Path, *, folder: bool = False) -> ReaderError:
    if folder:  # os.walk does not follow linked folders, whatever follow_symlinks says
        return ReaderError(
            path,
            f"is a symbolic link to the folder {path.resolve()}, outside the input folder; "
            "not followed",
            "give that folder as an input of its own, or copy its files into the folder",
        )
    return ReaderError(
        path,
        f"is a symbolic link to {path.resolve()}, outside the input folder; not followed",
        "give the linked file itself as an input, copy it into the folder, or read the folder "
        "with follow_symlinks=True",
    )


def _load_one(path: Path) -> list[Document]:
    """load_file, with an unexpected crash in a reader reported as that file's failure."""
    try:
        return load_file(path)
    except ReaderError:
        raise
    except Exception as exc:  # a reader bug on one odd file must not abort the whole folder
        raise read_failure(path, exc) from exc


def read_failure(path: Path, exc: Exception) -> ReaderError:
    """The ReaderError for a reader that crashed on ``path``, logged (with the traceback only
    for a likely reader bug: a file nested past Python's recursion limit is the file's fault)."""
    if isinstance(exc, RecursionError):
        logger.warning("%s nests too deeply to read: %s", path, exc)
        return ReaderError(
            path, "nests its structure (sections, parts, tags) too deeply to be read; no "
            "ordinary document does that", "open it in the program that made it and save or "
            "export its text, or leave it out")
    logger.exception("unexpected error reading %s", path)
    return ReaderError(
        path,
        f"could not be read ({type(exc).__name__}: {exc})",
        "convert it to another format and try again; please report the file if it is valid",
    )


def _log_walk_error(exc: OSError) -> None:
    logger.warning("cannot list folder %s: %s; its files are skipped", exc.filename, exc.strerror)


def _is_hidden(name: str) -> bool:
    """Dot files and folders (.git, .DS_Store) and Office lock files (~$report.docx)."""
    return name.startswith((".", "~$"))


def _matches(relative: PurePosixPath, pattern: str) -> bool:
    """Glob ``pattern`` against the relative path, the file name, or any parent folder."""
    candidates = [relative.as_posix(), relative.name]
    candidates += [parent.as_posix() for parent in relative.parents if parent.parts]
    patterns = [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]
    return any(fnmatch.fnmatch(c, p) for c in candidates for p in patterns)


def _check_inputs(
    input_dir: str | Path | None, input_files: Iterable[str | Path] | None
) -> tuple[Path | None, list[Path] | None]:
    if (input_dir is None) == (input_files is None):
        raise ConfigError(
            "give exactly one of input_dir='folder' or input_files=['a.pdf', ...]"
            + (", not both" if input_dir is not None else "")
        )
    if input_dir is not None:
        folder = Path(input_dir)
        if not folder.is_dir():
            problem = "is not a folder" if folder.exists() else "does not exist"
            raise ConfigError(f"input_dir {str(folder)!r} {problem}: give the path of a folder")
        return folder, None
    if isinstance(input_files, (str, Path)):
        example = f"input_files=[{str(input_files)!r}]"
        raise ConfigError(f"input_files must be a list of paths, e.g. {example}")
    files = list(dict.fromkeys(Path(p) for p in input_files))  # a file named twice loads once
    if not files:
        raise ConfigError("input_files is empty: give at least one file path")
    return None, files


def _limit(value: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"num_files_limit ({value!r}) must be a positive integer or None")
    return value


def _string_list(name: str, values: Iterable[str] | None, example: str) -> list[str]:
    if values is None:
        return []
    items = [values] if isinstance(values, str) else list(values)
    if isinstance(values, str) or not all(isinstance(v, str) for v in items):
        raise ConfigError(f"{name} ({values!r}) must be a list of strings, e.g. {example}")
    return items


def _extensions(values: Iterable[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    names = _string_list("required_exts", values, "required_exts=['.md', '.pdf']")
    if not names or not all(n.strip(". ") for n in names):
        raise ConfigError(f"required_exts ({values!r}) must list extensions, e.g. ['.md', '.pdf']")
    return tuple("." + n.strip().lstrip(".").lower() for n in names)


def _optional_keys(values: Iterable[str] | None) -> tuple[str, ...] | None:
    if values is None:
        return None
    return tuple(_string_list("excluded metadata keys", values, "['file_path', 'file_size']"))
