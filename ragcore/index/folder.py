"""The index folder on disk: opening it, its revision, and writes that never leave half an index.

An index folder holds ``manifest.json`` (``manifest``: format, revision, model, store, splitter,
counts, dates), the document store's files (``docs.json``, ``node_ids.json``, ``nodes.jsonl``,
``offsets.npy``) and, for a store whose rows live in the folder, the store's files (for
``SimpleVectorStore``: ``store.json``, ``vectors.npy``, ``vector_ids.json``,
``vector_metadata.json``, ``vector_doc_ids.json``). ``open_index_folder`` reopens the store the
manifest names through ``ragcore.stores.registry``, so every registered store loads alike.

``read_revision(path)`` reads only the manifest: caches in other processes compare it with the
revision they loaded. On-disk revisions only grow: ``revision_to_write`` (called by ``persist``
while the old folder is still in place) never writes a revision at or below the one on disk
unless the folder already holds exactly this content.

``atomic_folder(path)`` yields a fresh sibling folder ``.<name>.tmp-<random>`` to write into; on
success it fsyncs every file and the folder, renames the old index aside, renames the new one
into place, fsyncs the parent and deletes the old one. If anything fails the new folder is
removed and the old index is untouched; if the process dies between the two renames, the next
``recover_interrupted(path)`` (called by load) puts the old index back.
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..errors import IndexFormatError, PersistError
from ..stores.registry import open_vector_store
from .docstore import DocStore
from .manifest import (
    manifest_revision,
    manifest_store,
    manifest_value,
    peek_manifest,
    read_manifest,
    write_manifest,
)
from .state import IndexState

__all__ = [
    "atomic_folder",
    "is_index_folder",
    "open_index_folder",
    "read_manifest",
    "read_revision",
    "recover_interrupted",
    "revision_to_write",
    "write_manifest",
]

log = logging.getLogger(__name__)


def open_index_folder(path: Path) -> IndexState:
    """Read an index folder's manifest, vector store and document store (nodes stay lazy)."""
    recover_interrupted(path)
    manifest = read_manifest(path)
    nodes = manifest_value(path, manifest, "counts", "nodes", int)
    model = manifest_value(path, manifest, "embed_model", "name", str)
    spec = manifest_store(path, manifest)
    store = open_vector_store(spec, path)
    if len(store) != nodes:
        raise IndexFormatError(
            f"{path}: the {spec.type} holds {len(store)} vectors but the manifest lists {nodes} "
            "nodes; the index is damaged: rebuild it"
        )
    window = (manifest.get("embed_model") or {}).get("max_input_tokens")
    revision = manifest_revision(manifest)
    state = IndexState(
        store,
        DocStore.load(path, expected_nodes=nodes),
        model=model,
        model_window=window if isinstance(window, int) else None,
        splitter_spec=manifest.get("splitter"),
        revision=revision,
        path=path,
        saved_revision=revision,
    )
    state.created = str(manifest.get("created") or state.created)
    state.updated = str(manifest.get("updated") or state.updated)
    return state


def read_revision(path: str | Path) -> int | None:
    """The revision of the index at ``path``, reading only its manifest; None when no index is
    there (missing folder or manifest, or not a ragcore index). Folders written before revisions
    were recorded read as 0. Between the two renames of a persist, the old folder answers."""
    path = Path(path)
    manifest = peek_manifest(path)
    if manifest is None and not path.exists():
        # A persist is between its renames (or died there): load() would restore this backup.
        backups = sorted(path.parent.glob(f".{path.name}.old-*"), key=_mtime, reverse=True)
        manifest = next(filter(None, map(peek_manifest, backups)), None)
    return None if manifest is None else manifest_revision(manifest)


def revision_to_write(path: Path, state: IndexState) -> int:
    """The revision a persist of ``state`` to ``path`` records: its own, unless the folder there
    already has that revision or a later one for other content; then one past the folder's."""
    on_disk = read_revision(path)
    if on_disk is None or state.revision > on_disk:
        return state.revision
    if state.revision == on_disk and state.in_sync_with(path):
        return on_disk  # rewriting the very content on disk: nothing for a cache to reload
    return on_disk + 1


def is_index_folder(folder: Path) -> bool:
    """Whether ``folder`` carries our manifest tag (used to refuse overwriting anything else)."""
    return peek_manifest(folder) is not None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


@contextmanager
def atomic_folder(path: Path) -> Iterator[Path]:
    """Yield a temporary folder; on clean exit it atomically replaces ``path``."""
    path = Path(path)
    _check_replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        yield tmp
        fsync_tree(tmp)
        _swap_in(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _check_replaceable(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise PersistError(f"{path} is a file: choose a folder path for the index")
    if path.is_dir() and any(path.iterdir()) and not is_index_folder(path):
        raise PersistError(
            f"{path} is a non-empty folder that is not a ragcore index: refusing to replace it; "
            "choose an empty or new folder"
        )


def _swap_in(tmp: Path, path: Path) -> None:
    old: Path | None = None
    if path.exists():
        old = path.parent / f".{path.name}.old-{secrets.token_hex(4)}"
        os.rename(path, old)
    try:
        os.rename(tmp, path)
    except OSError as exc:
        if old is not None:
            os.rename(old, path)
        raise PersistError(f"could not move the new index into {path}: {exc}") from exc
    _fsync_dir(path.parent)
    if old is not None:
        shutil.rmtree(old)
    # Backups left by a persist that died after its swap are garbage once a new index is in.
    for stale in path.parent.glob(f".{path.name}.old-*"):
        shutil.rmtree(stale)


def recover_interrupted(path: Path) -> None:
    """If a persist died between renaming the old index aside and the new one in, restore it."""
    path = Path(path)
    if path.exists() or not path.parent.is_dir():
        return
    backups = sorted(path.parent.glob(f".{path.name}.old-*"), key=lambda p: p.stat().st_mtime)
    for backup in reversed(backups):
        if is_index_folder(backup):
            log.warning("restoring %s from %s (an earlier persist was interrupted)", path, backup)
            os.rename(backup, path)
            return


def fsync_tree(folder: Path) -> None:
    """fsync every file in ``folder`` and the folder itself."""
    for child in folder.iterdir():
        if child.is_file():
            with open(child, "rb") as handle:
                os.fsync(handle.fileno())
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    if os.name == "nt":  # directories cannot be opened for fsync on Windows
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
