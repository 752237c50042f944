"""The index folder on disk: its manifest, and writes that never leave a half-written index.

An index folder holds ``manifest.json`` (format tag, version, embedding model, splitter, counts,
dates), the document store's files (``docs.json``, ``nodes.jsonl``, ``offsets.npy``) and the
vector store's (``store.json``, ``vectors.npy``, ``vector_ids.json``, ``vector_metadata.json``).

``atomic_folder(path)`` yields a fresh sibling folder ``.<name>.tmp-<random>`` to write into; on
success it fsyncs every file and the folder, renames the old index aside, renames the new one
into place, fsyncs the parent and deletes the old one. If anything fails the new folder is
removed and the old index is untouched; if the process dies between the two renames, the next
``recover_interrupted(path)`` (called by load) puts the old index back.

``index_manifest`` and ``index_stats`` say what an index records about itself on disk and what
it reports to users; both share ``index_counts``.
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import secrets
import shutil
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .docstore import DocStore
from ..errors import ConfigError, IndexFormatError, PersistError
from ..stores.simple import SimpleVectorStore

log = logging.getLogger(__name__)

FORMAT = "ragcore-index"
VERSION = 1
MANIFEST = "manifest.json"
REBUILDABLE_SPLITTERS = ("SentenceSplitter", "TokenTextSplitter")


@dataclass(slots=True)
class IndexFolder:
    """The parts of a loaded index folder, checked against each other."""

    manifest: dict[str, Any]
    model: str
    store: SimpleVectorStore
    docstore: DocStore

    @property
    def model_window(self) -> int | None:
        """The embedding model's input window the manifest records (None when unknown)."""
        window = (self.manifest.get("embed_model") or {}).get("max_input_tokens")
        return window if isinstance(window, int) else None


def open_index_folder(path: Path) -> IndexFolder:
    """Read an index folder's manifest, vector store and document store (nodes stay lazy)."""
    recover_interrupted(path)
    manifest = read_manifest(path)
    nodes = manifest_value(path, manifest, "counts", "nodes", int)
    model = manifest_value(path, manifest, "embed_model", "name", str)
    store_type = manifest_value(path, manifest, "store", "type", str)
    if store_type != "SimpleVectorStore":
        raise IndexFormatError(
            f"{path / MANIFEST}: vectors are in a {store_type!r}, which load() cannot open; "
            "only SimpleVectorStore folders are supported"
        )
    store = SimpleVectorStore.load(path)
    if len(store) != nodes:
        raise IndexFormatError(
            f"{path / 'vectors.npy'}: holds {len(store)} vectors but the manifest lists {nodes} "
            "nodes; the index is damaged: rebuild it"
        )
    docstore = DocStore.load(path, expected_nodes=nodes)
    return IndexFolder(manifest, model, store, docstore)


def index_manifest(
    *,
    model: str,
    max_input_tokens: int | None,
    store: Any,
    splitter: dict[str, Any] | None,
    docstore: DocStore,
    created: str,
    updated: str,
) -> dict[str, Any]:
    """What the manifest records about an index (``write_manifest`` adds the format tag)."""
    return {
        "embed_model": {
            "name": model,
            "dim": getattr(store, "dim", None),
            "max_input_tokens": max_input_tokens,
        },
        "store": {"type": type(store).__name__, "metric": store.metric},
        "splitter": splitter,
        "counts": index_counts(docstore),
        "created": created,
        "updated": updated,
    }


def index_stats(
    docstore: DocStore,
    store: Any,
    *,
    model: str,
    created: str,
    updated: str,
    path: Path | None,
) -> dict[str, Any]:
    """Counts, model, dates and size on disk (tokens are None: counting needs the tokenizer)."""
    on_disk = path is not None and path.is_dir()
    return {
        **index_counts(docstore),
        "tokens": None,
        "model": model,
        "dim": getattr(store, "dim", None),
        "metric": getattr(store, "metric", None),
        "created": created,
        "updated": updated,
        "bytes_on_disk": folder_bytes(path) if on_disk and path else None,
        "path": str(path) if path else None,
    }


def index_counts(docstore: DocStore) -> dict[str, int]:
    """The documents, nodes and characters an index holds (the manifest's and stats' counts)."""
    return {
        "documents": docstore.doc_count(),
        "nodes": len(docstore),
        "characters": docstore.characters(),
    }


def manifest_value(path: Path, manifest: dict[str, Any], section: str, key: str, kind: type) -> Any:
    """``manifest[section][key]``, which must be a ``kind``."""
    part = manifest.get(section)
    value = part.get(key) if isinstance(part, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise IndexFormatError(
            f"{path / MANIFEST}: '{section}.{key}' is missing or not a {kind.__name__}"
        )
    return value


def splitter_spec(splitter: Any) -> dict[str, Any] | None:
    """How a splitter is described in the manifest: its class name and settings."""
    if splitter is None:
        return None
    settings = splitter.settings() if callable(getattr(splitter, "settings", None)) else {}
    return {"type": type(splitter).__name__, "settings": settings}


def build_splitter(spec: dict[str, Any] | None) -> Any:
    """The default splitter, or the one a manifest describes, rebuilt from its settings."""
    from .. import chunking

    if not spec:
        return chunking.SentenceSplitter()
    kind, settings = spec.get("type"), spec.get("settings") or {}
    if kind not in REBUILDABLE_SPLITTERS:
        raise ConfigError(
            f"this index was split with {kind!r}, which cannot be rebuilt from the manifest: "
            "pass splitter=... to VectorStoreIndex.load() to insert documents"
        )
    cls = getattr(chunking, kind)
    accepted = inspect.signature(cls).parameters
    return cls(**{k: v for k, v in settings.items() if k in accepted})


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    data = {"format": FORMAT, "version": VERSION, **manifest}
    (folder / MANIFEST).write_text(json.dumps(data, indent=2, ensure_ascii=False), "utf-8")


def read_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of an index folder, checked for our tag and a version we can read."""
    path = folder / MANIFEST
    if not folder.is_dir():
        raise PersistError(f"{folder}: no index folder here; build one and persist it first")
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError as exc:
        raise IndexFormatError(
            f"{path}: missing, so {folder} is not a ragcore index (or its write never finished)"
        ) from exc
    except ValueError as exc:
        raise IndexFormatError(f"{path}: damaged JSON ({exc}); rebuild the index") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise IndexFormatError(f"{path}: format is {found!r}, not {FORMAT!r}: not a ragcore index")
    version = data.get("version")
    if not isinstance(version, int) or version > VERSION or version < 1:
        raise IndexFormatError(
            f"{path}: index format version {version!r} is newer than this ragcore reads "
            f"(version {VERSION}): upgrade ragcore to load it"
        )
    return data


def is_index_folder(folder: Path) -> bool:
    """Whether ``folder`` carries our manifest tag (used to refuse overwriting anything else)."""
    try:
        data = json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


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


def folder_bytes(folder: Path) -> int:
    """Total size of the files in an index folder."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
