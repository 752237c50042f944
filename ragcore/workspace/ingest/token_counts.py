"""Token counts kept per document, so the stats after a job count only what the job changed.

The workspace shows how many cl100k tokens an index holds. Counting them reads node texts
(the whole index's took 2.75 min and 1.8 GB for a 205 MB text), so each document's count is kept
in a ledger beside the index record (``indexes/.tokens/<name>.json``), with a fingerprint of what
was counted (the document's content hash and node ids). When the stats are counted again
(``stats``), a document whose fingerprint is new is counted, one that is gone is dropped, and
the others are summed without reading a node. An index from before the ledger gets it built
once, the first time its stats are counted. The ledger belongs to one index (its record's uid):
a deleted index's successor of the same name starts a new one. ``embedded_tokens`` counts the
text an ingestion gives the embedder: a job's pace goes by it (``jobs.remaining``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..files import write_bytes_atomic

if TYPE_CHECKING:
    from ...types import Node

LEDGER_FORMAT = "ragcore-token-counts"
_NODES_AT_ONCE = 1000  # node texts in memory at a time while one document is counted

Counts = dict[str, tuple[str, int]]  # document id -> (fingerprint, tokens)


def ledger_path(record_path: Path) -> Path:
    """Where the ledger of the index whose record is ``record_path`` lives (a hidden folder,
    so it is never taken for an index)."""
    return record_path.parent / ".tokens" / record_path.name


def read_ledger(path: Path, uid: str) -> Counts:
    """The counts kept for the index ``uid`` (empty if none, another index's, or unreadable:
    the ledger is a cache, counted again rather than trusted)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT \
            or data.get("uid") != uid or not isinstance(data.get("documents"), dict):
        return {}
    return {doc_id: (entry[0], entry[1]) for doc_id, entry in data["documents"].items()
            if _valid_entry(entry)}


def _valid_entry(entry: Any) -> bool:
    return (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
            and type(entry[1]) is int and entry[1] >= 0)


def write_ledger(path: Path, uid: str, counts: Counts) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"format": LEDGER_FORMAT, "version": 1, "uid": uid,
            "documents": {k: list(v) for k, v in counts.items()}}
    write_bytes_atomic(path, json.dumps(data, ensure_ascii=False).encode("utf-8"))


def fingerprint(content_hash: str | None, node_ids: list[str]) -> str:
    """What a document's count depends on: its text (hash) and the nodes it was split into."""
    digest = hashlib.sha256((content_hash or "").encode())
    for node_id in node_ids:
        digest.update(b"\n" + node_id.encode())
    return digest.hexdigest()[:32]


def update_counts(index: Any, known: Counts) -> Counts:
    """Every document of ``index`` with its tokens: taken from ``known`` when its fingerprint
    is unchanged, else counted from its nodes (loads the tokenizer then)."""
    counts: Counts = {}
    for doc_id in index.ref_doc_ids():
        info = index.doc_info(doc_id)
        mark = fingerprint(info.hash, info.node_ids)
        kept = known.get(doc_id)
        counts[doc_id] = kept if kept is not None and kept[0] == mark \
            else (mark, count_document(index, info.node_ids))
    return counts


def embedded_tokens(nodes: Sequence[Node]) -> int:
    """The cl100k tokens of the text the embedder is given for ``nodes`` (their embed-mode
    content, its header too): an embedding model's time goes by them, not by passages (a
    PDF's, 158 on average, went 12 % faster than a novel's 178). About 0.1 ms a passage."""
    from ...tokens import get_tokenizer
    from ...types import MetadataMode

    encoding = get_tokenizer()
    return sum(len(encoding.encode_ordinary(n.content(MetadataMode.EMBED))) for n in nodes)


def count_document(index: Any, node_ids: list[str]) -> int:
    """The tokens of one document's nodes, a thousand node texts at a time."""
    from ...tokens import count_tokens

    total = 0
    for start in range(0, len(node_ids), _NODES_AT_ONCE):
        nodes = index.get_nodes(node_ids[start : start + _NODES_AT_ONCE], keep=False)
        total += sum(count_tokens(node.text) for node in nodes)
    return total
