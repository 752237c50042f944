"""The index manifest: what an index folder records about itself, written and read back checked.

``manifest.json`` holds the format tag and version, the revision (a counter that grows with
every change, for caches in other processes), the embedding model, the store (its registry name
and settings, ``StoreSpec``), the splitter, counts and dates. Format version 2 adds
``generation``, the folder inside the index folder that holds the data files, and ``files``,
each file's size and block checksums (``checksums``), and ``ids``, digests of the ordered id
lists that bind the files' rows together (``bindings``): replacing the manifest publishes a new
generation at once (``generations``). Format version 3 keeps the docstore's and the store's
rows in segments (``node_segments``, ``ragcore.stores.simple.segments``), which a version 2 ragcore
could not read whole, so it refuses them. Format version 4 keeps each document segment's node
counts in it (``doc_segments``: docs.json version 2, so a commit writes none but its batch's),
which a version 3 ragcore would misread. Version 1 folders keep their files beside the manifest;
those written before the store registry keep the store's settings beside its type and have no
revision; they read as settings ``{"metric": ...}`` and revision 0.

``folder`` opens and writes whole folders; ``state`` is what a manifest and its files become
in memory. ``index_stats`` (what an index reports to users) shares ``index_counts`` and
``approximate_search`` (each big segment's measured recall, ``store.approximate_search``) with
the manifest.
"""

from __future__ import annotations

import inspect
import json
import re
from pathlib import Path
from typing import Any

from ...errors import ConfigError, IndexFormatError, PersistError
from ...stores.base import StoreSpec, VectorStore
from ...stores.registry import vector_stores
from ..docstore import DocStore

FORMAT = "ragcore-index"
VERSION = 4  # 2: a generation folder, with checksums; 3: segments; 4: node counts in doc segments
MANIFEST = "manifest.json"
REBUILDABLE_SPLITTERS = ("SentenceSplitter", "TokenTextSplitter")


def index_manifest(
    *,
    model: str,
    max_input_tokens: int | None,
    store: VectorStore,
    splitter: dict[str, Any] | None,
    docstore: DocStore,
    created: str,
    updated: str,
    revision: int,
) -> dict[str, Any]:
    """What the manifest records about an index (``write_manifest`` adds the format tag)."""
    spec = store.describe()
    searched = approximate_search(store)  # recorded when some segment has an index
    if spec.type not in vector_stores:
        raise ConfigError(
            f"the store describes itself as {spec.type!r}, which is not registered, so load() "
            f"could not reopen it: call register_vector_store({spec.type!r}, opener) "
            "(ragcore.stores.registry) before persisting"
        )
    return {
        "revision": revision,
        "embed_model": {"name": model, "dim": store.dim, "max_input_tokens": max_input_tokens},
        "store": {"type": spec.type, "settings": dict(spec.settings),
                  **({"approximate_search": searched} if searched else {})},
        "splitter": splitter,
        "counts": index_counts(docstore),
        "created": created,
        "updated": updated,
    }


def manifest_bytes(manifest: dict[str, Any]) -> bytes:
    """The manifest as written: the format tag and version first."""
    data = {"format": FORMAT, "version": VERSION, **manifest}
    return json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8")


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
    if type(version) is not int or version < 1:
        raise IndexFormatError(
            f"{path}: the format version is {version!r}, not a positive integer: the manifest is "
            "damaged; rebuild the index (or restore the folder from a backup)"
        )
    if version > VERSION:
        raise IndexFormatError(
            f"{path}: index format version {version!r} is newer than this ragcore reads "
            f"(version {VERSION}): upgrade ragcore to load it"
        )
    return data


def peek_manifest(folder: Path) -> dict[str, Any] | None:
    """The manifest's JSON if ``folder`` holds a readable one with our tag, else None."""
    try:
        data = json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def manifest_generation(folder: Path, manifest: dict[str, Any]) -> str | None:
    """The generation folder a manifest names (None: version 1, files beside it)."""
    if manifest.get("version") == 1:
        return None
    name = manifest.get("generation")
    if not isinstance(name, str) or re.fullmatch(r"gen-\d{6,}", name) is None:
        raise IndexFormatError(
            f"{folder / MANIFEST}: 'generation' is {name!r}, not a generation folder name: the "
            "manifest is damaged; rebuild the index"
        )
    return name


def data_folder(folder: Path, manifest: dict[str, Any]) -> Path:
    """Where the files of the index at ``folder`` are (its generation, or itself)."""
    generation = manifest_generation(folder, manifest)
    return folder if generation is None else folder / generation


def manifest_revision(manifest: dict[str, Any]) -> int:
    """The manifest's revision (0 for folders written before revisions were recorded)."""
    revision = manifest.get("revision", 0)
    return revision if type(revision) is int and revision >= 0 else 0


def manifest_value(path: Path, manifest: dict[str, Any], section: str, key: str, kind: type) -> Any:
    """``manifest[section][key]``, which must be a ``kind``."""
    part = manifest.get(section)
    value = part.get(key) if isinstance(part, dict) else None
    if not isinstance(value, kind) or isinstance(value, bool):
        raise IndexFormatError(
            f"{path / MANIFEST}: '{section}.{key}' is missing or not a {kind.__name__}"
        )
    return value


def manifest_store(path: Path, manifest: dict[str, Any]) -> StoreSpec:
    """The store the manifest names; version 1 folders keep its settings beside ``type``."""
    kind = manifest_value(path, manifest, "store", "type", str)
    section = manifest["store"]
    settings = section.get("settings", {k: v for k, v in section.items() if k != "type"})
    if not isinstance(settings, dict):
        raise IndexFormatError(f"{path / MANIFEST}: 'store.settings' is not an object")
    return StoreSpec(kind, settings)


def splitter_spec(splitter: Any) -> dict[str, Any] | None:
    """How a splitter is described in the manifest: its class name and settings."""
    if splitter is None:
        return None
    settings = splitter.settings() if callable(getattr(splitter, "settings", None)) else {}
    return {"type": type(splitter).__name__, "settings": settings}


def build_splitter(spec: dict[str, Any] | None) -> Any:
    """The default splitter, or the one a manifest describes, rebuilt from its settings."""
    from ... import chunking

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


def index_stats(
    docstore: DocStore,
    store: VectorStore,
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
        "dim": store.dim,
        "metric": store.metric,
        "created": created,
        "updated": updated,
        "bytes_on_disk": folder_bytes(path) if on_disk and path else None,
        "path": str(path) if path else None,
        "approximate_search": approximate_search(store),
    }


def approximate_search(store: VectorStore, *, measure: bool = False) -> list[dict[str, Any]]:
    """How the store's big segments are searched: each one's measured recall@10 against exact
    search and nprobe, or exact and why (``SimpleVectorStore.approximate_search``); [] for a
    store that searches exactly, or has no approximate index of its own."""
    report = getattr(store, "approximate_search", None)
    return report(measure=measure) if callable(report) else []


def index_counts(docstore: DocStore) -> dict[str, int]:
    """The documents, nodes and characters an index holds (the manifest's and stats' counts)."""
    return {
        "documents": docstore.doc_count(),
        "nodes": len(docstore),
        "characters": docstore.characters(),
    }


def folder_bytes(folder: Path) -> int:
    """Total size of the files of the current generation of an index folder (0 if unreadable)."""
    manifest = peek_manifest(folder)
    try:
        data = folder if manifest is None else data_folder(folder, manifest)
        files = [p for p in data.rglob("*") if p.is_file()]
        if data != folder:
            files.append(folder / MANIFEST)
        return sum(p.stat().st_size for p in files)
    except (OSError, IndexFormatError):
        return 0
