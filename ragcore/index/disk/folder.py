"""The index folder on disk: opening one complete generation, and writes that publish the next.

An index folder holds ``manifest.json`` (``manifest``: format, revision, model, store, splitter,
counts, dates, and which generation folder holds the files, with their checksums) and generation
folders (``generations``: layout, locks, garbage collection). A generation holds the document
store's files (``docs.json``, the runs and counts that order its rows, segments of ``nodes.jsonl``,
``offsets.npy``, ``node_crcs.npy``, ``node_ids.json`` and of ``doc_records.json``, the first beside
``docs.json`` and later ones in ``nodes-NNNNNN/`` and ``docs-NNNNNN/`` folders: ``node_segments``,
``doc_segments``) and, for a store whose rows live in the folder, the store's files (for
``SimpleVectorStore``: ``store.json``, a deletion bitmap, and segments of ``vectors.npy``,
``vector_ids.json``, ``vector_metadata.json``, ``vector_doc_ids.json``, the first beside
``store.json`` and later ones in ``vectors-NNNNNN/`` folders); a store whose rows live in a
database writes a small file or nothing. Files a generation keeps from the one before are hard
links to it, which cost no bytes, and their checksums are carried over unread.
``open_index_folder`` reopens the store the manifest names through ``ragcore.stores.registry``, so
every registered store loads alike.

``committing(path)`` is the one way to write: it takes the index's writer lock, removes what
dead writers left, yields a ``Commit`` whose fresh generation folder the caller fills, and
``Commit.publish(manifest)`` records the files' checksums and replaces the manifest in one
atomic step. A reader (``open_index_folder``) opens the generation the manifest names under
that generation's reader lock and checks it against the checksums; if the manifest changed
meanwhile it starts again, so it always gets one whole generation, old or new, never a mix.
Format version 1 folders (files beside the manifest) still load, and the next persist turns
them into version 2.

``read_revision(path)`` reads only the manifest: caches in other processes compare it with the
revision they loaded. On-disk revisions only grow: ``revision_to_write`` (called by ``persist``
under the writer lock) never writes a revision at or below the one on disk unless the folder
already holds exactly this content.
"""

from __future__ import annotations

import logging
import os
import shutil
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from ...errors import IndexFormatError, PersistError
from ...stores.consistency import ExternalRows, check_rows
from ...stores.registry import open_vector_store
from .bindings import check_ids
from .checksums import damaged, record_files, tree_files, verify_files
from ..docstore import DocStore
from .generations import (
    READER_LOCK,
    Superseded,
    collect_garbage,
    debris,
    fsync_tree,
    new_generation,
    only_our_debris,
    publish,
    reading,
    writer_lock,
    writer_lock_if_free,
)
from .manifest import (
    MANIFEST,
    data_folder,
    manifest_bytes,
    manifest_generation,
    manifest_revision,
    manifest_store,
    manifest_value,
    peek_manifest,
    read_manifest,
)
from ..state import IndexState

__all__ = [
    "Commit",
    "committing",
    "current_data",
    "is_index_folder",
    "open_index_folder",
    "read_manifest",
    "read_revision",
    "recover_interrupted",
    "revision_to_write",
]

_ATTEMPTS = 50  # a reader starts again at most this often while writers keep publishing

log = logging.getLogger(__name__)


def open_index_folder(path: Path, *, full_check: bool = False) -> IndexState:
    """The index at ``path``: its current generation, checked against the manifest's checksums
    (every block with ``full_check``); nodes stay lazy and are checked as they are decoded."""
    path = Path(path)
    recover_interrupted(path)
    if path.is_dir() and not (path / MANIFEST).exists() and only_our_debris(path):
        raise IndexFormatError(
            f"{path / MANIFEST}: missing: the first persist into {path} never finished (or the "
            "manifest was deleted); persist the index again, or rebuild it"
        )
    for _ in range(_ATTEMPTS):
        manifest = read_manifest(path)
        generation = manifest_generation(path, manifest)
        try:
            state = _open(path, manifest, generation, full_check=full_check)
        except (IndexFormatError, OSError, Superseded) as exc:
            if peek_manifest(path) != manifest:
                continue  # a writer published meanwhile: open the new generation instead
            if isinstance(exc, Superseded):
                raise damaged(path / str(generation), "the generation folder the manifest "
                              "names is missing") from None
            raise
        _tidy(path, generation)
        return state
    raise PersistError(
        f"{path}: the index changed {_ATTEMPTS} times while it was being opened; try again when "
        "the process writing it pauses"
    )


def _open(
    path: Path, manifest: dict[str, Any], generation: str | None, *, full_check: bool
) -> IndexState:
    data = path if generation is None else path / generation
    with nullcontext() if generation is None else reading(data):
        if generation is not None:
            verify_files(data, manifest.get("files"), full=full_check)
        nodes = manifest_value(path, manifest, "counts", "nodes", int)
        model = manifest_value(path, manifest, "embed_model", "name", str)
        spec = manifest_store(path, manifest)
        store = open_vector_store(spec, data)
        if len(store) != nodes and not isinstance(store, ExternalRows):
            raise damaged(data, f"the {spec.type} holds {len(store)} vectors but the manifest "
                                f"lists {nodes} nodes")
        docstore = DocStore.load(data, expected_nodes=nodes)
        check_ids(data, manifest.get("ids"), docstore, store)
        check_rows(store, docstore.node_ids, nodes, where=path)  # a database store
    window = (manifest.get("embed_model") or {}).get("max_input_tokens")
    revision = manifest_revision(manifest)
    state = IndexState(
        store,
        docstore,
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


def _tidy(path: Path, generation: str | None) -> None:
    """Remove what dead writers left, if any and no writer is at work (never fails a load)."""
    try:
        if not debris(path, generation):
            return
        with writer_lock_if_free(path) as held:
            manifest = peek_manifest(path) if held else None  # current again, under the lock
            if manifest is not None:
                collect_garbage(path, manifest_generation(path, manifest))
    except (OSError, IndexFormatError) as exc:
        log.warning("could not tidy the index folder %s: %s", path, exc)


def read_revision(path: str | Path) -> int | None:
    """The revision of the index at ``path``, reading only its manifest; None when no index is
    there (missing folder or manifest, or not a ragcore index). Folders written before revisions
    were recorded read as 0. Between the two renames of an older ragcore's persist (a crash
    there), the backup answers, as load() would restore it."""
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


def current_data(path: Path) -> Path:
    """The folder holding the files of the index at ``path`` now (its current generation)."""
    return data_folder(path, read_manifest(path))


def is_index_folder(folder: Path) -> bool:
    """Whether ``folder`` carries our manifest tag (used to refuse overwriting anything else)."""
    return peek_manifest(folder) is not None


@dataclass(slots=True)
class Commit:
    """The generation a writer fills (``folder``), then publishes with the index's manifest."""

    path: Path
    folder: Path
    published: bool = False

    def publish(self, manifest: dict[str, Any]) -> None:
        """Record the generation's files and their checksums (carried over for the files linked
        from the current generation), and make it the current one."""
        names = [n for n in tree_files(self.folder) if n != READER_LOCK]
        linked = _linked_records(self.path, self.folder)
        files = record_files(self.folder, names, known=linked)
        kept = frozenset(self.folder / n for n in names if files[n] is linked.get(n, (0, 0))[1])
        fsync_tree(self.folder, skip=kept)
        body = {**manifest, "generation": self.folder.name, "files": files}
        publish(self.path, manifest_bytes(body))
        self.published = True


@contextmanager
def committing(path: Path) -> Iterator[Commit]:
    """Under the index's writer lock, yield a new generation to fill and ``publish``; if the
    block fails (or never publishes) the generation is removed and the index is untouched."""
    path = Path(path)
    recover_interrupted(path)
    _check_replaceable(path)
    path.mkdir(parents=True, exist_ok=True)
    with writer_lock(path):
        collect_garbage(path, _current(path))
        commit = Commit(path, new_generation(path))
        try:
            yield commit
        except BaseException:
            shutil.rmtree(commit.folder, ignore_errors=True)
            raise
        if not commit.published:
            shutil.rmtree(commit.folder, ignore_errors=True)
            return
        collect_garbage(path, commit.folder.name)


def _linked_records(path: Path, folder: Path) -> dict[str, tuple[int, dict[str, Any]]]:
    """The current generation's file records, by name, with each file's inode: a file of the
    new generation with the same name and inode is a link to it, with the same checksums."""
    manifest = peek_manifest(path)
    files = manifest.get("files") if manifest is not None else None
    try:
        current = data_folder(path, manifest) if isinstance(files, dict) else None
    except IndexFormatError:
        current = None
    if current is None or current == path or current == folder:
        return {}
    known = {}
    for name, record in files.items():
        try:
            known[name] = (os.stat(current / name).st_ino, record)
        except OSError:
            continue
    return known


def _current(path: Path) -> str | None:
    manifest = peek_manifest(path)
    return None if manifest is None else manifest_generation(path, manifest)


def _check_replaceable(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise PersistError(f"{path} is a file: choose a folder path for the index")
    if path.is_dir() and not is_index_folder(path) and not only_our_debris(path):
        raise PersistError(
            f"{path} is a non-empty folder that is not a ragcore index: refusing to replace it; "
            "choose an empty or new folder"
        )


def recover_interrupted(path: Path) -> None:
    """If a persist of an older ragcore (which renamed the old folder aside) died between its
    renames, put back the newest backup that opens completely."""
    path = Path(path)
    if path.exists() or not path.parent.is_dir():
        return
    backups = sorted(path.parent.glob(f".{path.name}.old-*"), key=_mtime, reverse=True)
    for backup in backups:
        try:
            manifest = read_manifest(backup)
            _open(backup, manifest, manifest_generation(backup, manifest), full_check=False)
        except (IndexFormatError, PersistError, OSError, Superseded) as exc:
            log.warning("not restoring %s from %s: %s", path, backup, exc)
            continue
        log.warning("restoring %s from %s (an earlier persist was interrupted)", path, backup)
        os.rename(backup, path)
        return


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
