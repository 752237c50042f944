"""Safe names and writes inside the workspace: sanitized upload names, checked paths, atomic JSON.

Everything the workspace writes goes through here, so one module decides what a safe file name
is, that a path stays inside its root, and that a half-written file never replaces a good one.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import tempfile
import threading
import unicodedata
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

try:
    import fcntl
except ImportError:  # Windows: no advisory file locks
    fcntl = None  # type: ignore[assignment]

from ..errors import WorkspaceError

MAX_FILENAME_LENGTH = 120
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
NAME_RULE = (
    "1-64 characters: letters, digits, '-' and '_', starting with a letter or digit"
)
_TAGGED = re.compile(r"-[0-9a-f]{8}(\.[^.]*)?$")  # what upload_name appends
_UNSAFE_CHARS = re.compile(r'[\\/:*?"<>|\x00-\x1f\x7f]')
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {f"{p}{i}" for p in ("com", "lpt") for i in
                                                     range(1, 10)}


def validate_name(name: str, *, what: str = "index name") -> str:
    """Return ``name`` if it is a valid index (or chat) name, else raise WorkspaceError."""
    if not isinstance(name, str) or not NAME_PATTERN.match(name):
        raise WorkspaceError(f"{what} {name!r} is not allowed: use {NAME_RULE}")
    return name


def sanitize_filename(filename: str) -> str:
    """A file name safe to create in one folder: no separators, '..', control chars; short.

    Keeps the extension (readers choose by it) and as much of the stem as fits.
    """
    name = unicodedata.normalize("NFC", str(filename))
    # A browser may send a full client path ("C:\\docs\\a.pdf"): keep only the last part.
    name = re.split(r"[\\/]", name)[-1]
    name = _UNSAFE_CHARS.sub("_", name).strip().strip(".")
    name = re.sub(r"\s+", " ", name)
    if not name:
        name = "upload"
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    ext = ext[:16]
    if stem.lower() in _WINDOWS_RESERVED:
        stem = f"_{stem}"
    room = MAX_FILENAME_LENGTH - (len(ext) + 1 if ext else 0)
    stem = _truncate_utf8(stem, room).rstrip(" .") or "upload"
    return f"{stem}.{ext}" if ext else stem


def upload_name(filename: str) -> str:
    """The name an upload called ``filename`` is stored under: unique to that name.

    A name that is already safe is kept as it is, so uploading it again replaces the earlier
    upload (and re-ingesting updates its documents). A name that had to be changed (unsafe
    characters, other Unicode normalization, cut to length) also gets 8 hex digits of a hash of
    the name as given: two different names that clean up alike ("a:b.txt", "a?b.txt") no
    longer overwrite each other, while the same name always lands on the same stored file.
    """
    given = re.split(r"[\\/]", str(filename))[-1]  # a browser may send a full client path
    clean = sanitize_filename(given)
    if clean == given and not _TAGGED.search(clean):  # a name shaped like a tagged one is tagged
        return clean
    tag = hashlib.sha256(given.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    stem, dot, ext = clean.rpartition(".")
    if not dot:
        stem, ext = clean, ""
    stem = stem[: MAX_FILENAME_LENGTH - len(tag) - 2 - len(ext)].rstrip(" .") or "upload"
    return f"{stem}-{tag}.{ext}" if ext else f"{stem}-{tag}"


def _truncate_utf8(text: str, max_chars: int) -> str:
    # File systems limit names to 255 bytes; MAX_FILENAME_LENGTH characters of up to 2 bytes fit.
    text = text[:max_chars]
    while len(text.encode("utf-8")) > 2 * MAX_FILENAME_LENGTH:
        text = text[:-1]
    return text


def inside(root: Path, path: Path) -> Path:
    """``path`` resolved, after checking it lies inside ``root`` (else WorkspaceError)."""
    root_resolved = root.resolve()
    resolved = path.resolve()
    if resolved != root_resolved and root_resolved not in resolved.parents:
        raise WorkspaceError(
            f"refusing to touch {path}: it is outside the workspace {root_resolved}"
        )
    return resolved


def write_bytes_atomic(path: Path, data: bytes, *, private: bool = False) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (no torn files).

    ``private`` makes the file readable by its owner only, from its first byte on.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    fd, tmp = tempfile.mkstemp(prefix=_temporary_prefix(path) + f"{os.getpid()}.",
                               suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600 if private else 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _temporary_prefix(path: Path) -> str:
    return f".{path.name[:40]}."


def _remove_orphans(path: Path) -> None:
    """Remove the temporary files of earlier writers of ``path`` whose process is gone (a
    writer killed between creating its temporary file and the rename leaves one behind).
    Temporary names are ``.<name>.<pid>.<random>.tmp``; a live pid's file is left alone."""
    prefix = _temporary_prefix(path)
    for tmp in path.parent.glob(glob.escape(prefix) + "*.tmp"):
        pid = tmp.name[len(prefix):].split(".", 1)[0]
        if pid.isdigit() and not process_exists(int(pid)):
            tmp.unlink(missing_ok=True)


def process_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists (another user's process counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def write_json_atomic(path: Path, data: Any, *, private: bool = False) -> None:
    """Write ``data`` as indented JSON; ``private`` makes the file readable by its owner only."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"), private=private)


def read_json(path: Path, *, what: str) -> Any:
    """Parse a JSON file the workspace wrote, with an error that names the file."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise WorkspaceError(f"{what} not found: {path}") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise WorkspaceError(
            f"{what} {path} cannot be read ({exc}); fix or delete the file"
        ) from exc


@contextmanager
def exclusive_lock(path: Path, *, wait: bool = True) -> Iterator[bool]:
    """Hold an exclusive lock on ``path`` for the block; yields whether it is held.

    Streamlit serves every browser session from threads of one process, and the CLI may run
    beside it: two ingestions into one workspace must not both persist a stale copy. Threads
    wait on an in-process lock (the only one on Windows), processes on an advisory file lock.
    With ``wait=False`` the block runs at once, holding the lock only if nobody else did.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    in_process = _thread_lock(path)
    if not in_process.acquire(blocking=wait):
        yield False
        return
    try:
        with open(path, "a+b") as handle:
            held = _flock(handle.fileno(), wait)
            try:
                yield held
            finally:
                if held and fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        in_process.release()


_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _thread_lock(path: Path) -> threading.Lock:
    with _thread_locks_guard:
        return _thread_locks.setdefault(str(path.resolve()), threading.Lock())


def _flock(fd: int, wait: bool) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
