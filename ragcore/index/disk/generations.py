"""Generations of an index folder: immutable data folders, one published by its manifest.

An index folder (format version 2) looks like::

    index/
      manifest.json      what the index is, and which generation holds its files (the pointer)
      writer.lock        flock'd by the one process writing; holds that process's id
      gen-000042/        the current generation: the docstore's and the store's files
        reading.lock     flock'd (shared) by readers while they open this generation

A writer takes ``writer.lock`` (``writer_lock``: a second writer waits, then fails with a
PersistError naming the holder), writes the next generation beside the current one
(``new_generation``), fsyncs it, and publishes it by replacing ``manifest.json`` with one
``os.replace`` (``publish``). A reader reads the manifest, takes ``reading.lock`` of the
generation it names (``reading``) and opens its files, which it then holds in memory, through
memory maps or open descriptors (node records, keyword postings, vectors, approximate indexes:
nothing is opened by name after the lock is let go), so a later deletion cannot touch what it
loaded, and the kernel frees a deleted file's space when its last reader lets go
(``benchmarks/index/drill_readers.py`` is the drill). ``collect_garbage`` (under the
writer lock) deletes what is not the current generation and not locked by a reader: superseded
generations, the unpublished ones of writers that died, half-deleted ``.trash-*`` folders,
manifest temp files, the ``merge-*`` folders of mergers that died (``merge_folder``: a live
merger holds its folder locked, as a reader does its generation), the flat files of a folder
upgraded from format version 1 and the ``.<name>.tmp-*``/``.<name>.old-*`` siblings old
versions left after a crash. A generation is
renamed to ``.trash-*`` before it is deleted, so a reader can tell (by the lock file's inode) that
the generation it locked is going, and start again from the manifest.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...errors import PersistError

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; one writer at a time is then up to the caller
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "Superseded",
    "collect_garbage",
    "debris",
    "fsync_tree",
    "merge_folder",
    "new_generation",
    "publish",
    "reading",
    "writer_lock",
]

MANIFEST = "manifest.json"
WRITER_LOCK = "writer.lock"
READER_LOCK = "reading.lock"
WRITER_WAIT_SECONDS = 120.0
MERGE_PREFIX = "merge-"  # a merger's folder: segments no manifest names yet
SYNC_THREADS = 16  # fsyncs a commit has in flight at once (``fsync_tree``)
_GENERATION = re.compile(r"gen-(\d{6,})")
_OURS = re.compile(rf"gen-\d{{6,}}|merge-.*|\.trash-.*|\.{re.escape(MANIFEST)}\.tmp-.*|"
                   rf"{WRITER_LOCK}")

log = logging.getLogger(__name__)


class Superseded(Exception):
    """The generation a reader went for was removed: read the manifest again."""


def generation_name(number: int) -> str:
    return f"gen-{number:06d}"


def is_generation_name(name: object) -> bool:
    return isinstance(name, str) and _GENERATION.fullmatch(name) is not None


def only_our_debris(folder: Path) -> bool:
    """Whether ``folder`` holds nothing but what a writer that never published leaves."""
    return all(_OURS.fullmatch(child.name) for child in folder.iterdir())


# -- writing -------------------------------------------------------------------------------


@contextmanager
def writer_lock(path: Path, *, wait_seconds: float = WRITER_WAIT_SECONDS) -> Iterator[None]:
    """Hold ``path/writer.lock`` (waiting up to ``wait_seconds`` for another writer)."""
    with open(path / WRITER_LOCK, "a+b") as handle:
        deadline = time.monotonic() + wait_seconds
        while not _try_lock(handle.fileno(), exclusive=True):
            if time.monotonic() >= deadline:
                raise PersistError(
                    f"{path}: another process (pid {_holder(handle)}) has been writing this index "
                    f"for over {wait_seconds:.0f} s; wait until it finishes and try again"
                )
            time.sleep(0.05)
        try:
            handle.truncate(0)
            handle.write(f"{os.getpid()}\n".encode())
            handle.flush()
            yield
        finally:
            _unlock(handle.fileno())


@contextmanager
def writer_lock_if_free(path: Path) -> Iterator[bool]:
    """Hold the writer lock for the block if no one does; yields whether it is held."""
    try:
        handle = open(path / WRITER_LOCK, "a+b")
    except OSError:  # a read-only folder: whoever can write it will tidy it
        yield False
        return
    with handle:
        held = _try_lock(handle.fileno(), exclusive=True)
        try:
            yield held
        finally:
            if held:
                _unlock(handle.fileno())


def new_generation(path: Path) -> Path:
    """A new, empty generation folder numbered after every one present (call under the lock)."""
    numbers = [int(m.group(1)) for c in path.iterdir() if (m := _GENERATION.fullmatch(c.name))]
    folder = path / generation_name(max(numbers, default=0) + 1)
    folder.mkdir()
    (folder / READER_LOCK).touch()
    return folder


def publish(path: Path, manifest: bytes) -> None:
    """Make ``manifest`` (naming a fully written, fsynced generation) the index's manifest."""
    tmp = path / f".{MANIFEST}.tmp-{secrets.token_hex(4)}"
    try:
        with open(tmp, "wb") as out:
            out.write(manifest)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path / MANIFEST)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise PersistError(f"could not publish the new index generation in {path}: {exc}") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path)


def debris(path: Path, current: str | None) -> list[Path]:
    """What of the index at ``path`` is not its current generation (nor manifest or lock)."""
    found = []
    for child in path.iterdir():
        name = child.name
        if name == current or name in (MANIFEST, WRITER_LOCK):
            continue
        if (
            is_generation_name(name)
            or name.startswith((".trash-", f".{MANIFEST}.tmp-", MERGE_PREFIX))
            or (current is not None and child.is_file())  # a file of a version 1 folder
        ):
            found.append(child)
    for pattern in (f".{path.name}.tmp-*", f".{path.name}.old-*"):
        found += path.parent.glob(pattern)  # left by older versions' interrupted persists
    return found


def collect_garbage(path: Path, current: str | None) -> None:
    """Delete the debris no reader needs (call under the writer lock)."""
    for child in debris(path, current):
        if child.parent == path and (is_generation_name(child.name)
                                     or child.name.startswith(MERGE_PREFIX)):
            _drop_generation(child)  # not while a reader or the merger holds it
        elif child.is_dir():
            log.info("removing %s, left by an interrupted persist", child)
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def _drop_generation(folder: Path) -> None:
    try:
        handle = open(folder / READER_LOCK, "rb")
    except FileNotFoundError:  # never published, or half deleted: nobody can be reading it
        _trash(folder)
        return
    with handle:
        if not _try_lock(handle.fileno(), exclusive=True):
            return  # a reader is opening it: the next writer deletes it
        try:
            _trash(folder)  # renamed while locked: a reader that locks it next sees it is gone
        finally:
            _unlock(handle.fileno())


def _trash(folder: Path) -> None:
    trash = folder.with_name(f".trash-{folder.name}-{secrets.token_hex(4)}")
    try:
        os.rename(folder, trash)
    except FileNotFoundError:  # removed meanwhile (by the merger that made it)
        return
    # Its segment folders at once: an rmdir may wait for the disk (~3 ms each on an ext4
    # mounted with discard), in flight together they wait about once.
    try:
        folders = [c for c in trash.iterdir() if c.is_dir()]
    except OSError:  # removed meanwhile, as debris, by another writer
        return
    with ThreadPoolExecutor(max_workers=SYNC_THREADS) as pool:
        list(pool.map(_remove, folders))
    _remove(trash)


def _remove(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def merge_folder(path: Path) -> Iterator[Path]:
    """A new folder ``merge-<random>`` in the index at ``path`` for a merger to write into,
    locked (as a reader locks a generation) so that no commit's ``collect_garbage`` removes it
    meanwhile; removed after the block (its files are linked into a generation by then). A
    merger killed meanwhile leaves it unlocked: debris, removed at the next open or commit.
    Call under the writer lock (a commit must not see it before it is locked)."""
    folder = path / f"{MERGE_PREFIX}{secrets.token_hex(6)}"
    folder.mkdir()
    (folder / READER_LOCK).touch()
    with reading(folder):
        try:
            yield folder
        finally:  # still locked: a commit's garbage collection leaves it to us
            shutil.rmtree(folder, ignore_errors=True)


# -- reading -------------------------------------------------------------------------------


@contextmanager
def reading(folder: Path) -> Iterator[None]:
    """Hold a shared lock on generation ``folder`` so no writer deletes it meanwhile; raises
    Superseded if it is already gone (or going)."""
    lock = folder / READER_LOCK
    try:
        handle = open(lock, "rb")
    except FileNotFoundError as exc:
        raise Superseded(str(folder)) from exc
    with handle:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
        try:
            try:
                still_there = os.path.samestat(os.fstat(handle.fileno()), os.stat(lock))
            except FileNotFoundError:
                still_there = False
            if not still_there:
                raise Superseded(str(folder))
            yield
        finally:
            _unlock(handle.fileno())


# -- files ---------------------------------------------------------------------------------


def fsync_tree(folder: Path, *, skip: frozenset[Path] = frozenset()) -> None:
    """fsync every file under ``folder`` but those in ``skip`` (links to files made durable
    by an earlier commit) and the folders themselves (which hold the new links), all of them
    in flight at once: a journaling file system (ext4, XFS) then makes them durable in one or
    two journal commits instead of one each (61 folders on ext4: 110-250 ms one by one, 8-16 ms
    at once), so the segments a commit links cost it next to nothing."""
    with ThreadPoolExecutor(max_workers=SYNC_THREADS) as pool:
        list(pool.map(_fsync, _unsynced(folder, skip)))  # raises the first failure


def _unsynced(folder: Path, skip: frozenset[Path]) -> Iterator[Path]:
    for child in folder.iterdir():
        if child.is_dir():
            yield from _unsynced(child, skip)
        elif child.is_file() and child not in skip:
            yield child
    yield folder


def _fsync(path: Path) -> None:
    if path.is_dir():
        fsync_dir(path)
        return
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def fsync_dir(folder: Path) -> None:
    if os.name == "nt":  # directories cannot be opened for fsync on Windows
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _try_lock(fd: int, *, exclusive: bool) -> bool:
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def _holder(handle) -> str:
    handle.seek(0)
    return handle.read(32).decode("ascii", "replace").strip() or "unknown"
