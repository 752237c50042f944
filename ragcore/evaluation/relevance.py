"""Which retrieved items are relevant: matched by id or source, or by holding a gold string.

``retrieval_metrics`` scores a judgement; this makes one. A generated question set names the
node ids of its passages; an imported one may name a source (a file name, a document id); a
benchmark names exact strings a relevant passage holds. An expected id matches a retrieved node
whose node id, document id, file name or file path is that id, so one rule serves the first two.
Gold strings match when they occur in the passage once both are whitespace-collapsed and
case-folded.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, Sequence

from .retrieval_metrics import Judged


def normalize(text: str) -> str:
    """``text`` with runs of whitespace made one space, case-folded."""
    return " ".join(text.split()).casefold()


def names_of(item: Any) -> set[str]:
    """The names a retrieved item answers to: a plain id, or a (scored) node's ids and file."""
    if isinstance(item, str):
        return {item}
    node = getattr(item, "node", item)
    metadata = getattr(node, "metadata", {}) or {}
    names = {getattr(node, "node_id", None), getattr(node, "ref_doc_id", None),
             metadata.get("file_name")}
    path = metadata.get("file_path")
    if path:
        names |= {str(path), PurePath(str(path)).name}
    return {str(n) for n in names if n}


def text_of(item: Any) -> str:
    """The passage text of a retrieved item (a string is taken as the text itself)."""
    if isinstance(item, str):
        return item
    return getattr(getattr(item, "node", item), "text", "")


def judge_ids(expected_ids: Sequence[str], retrieved: Sequence[Any], *,
              relevant_total: int | None = None) -> Judged:
    """Each retrieved item matched against ``expected_ids`` (node ids, doc ids or sources)."""
    expected = [str(e) for e in expected_ids]
    matches = []
    for item in retrieved:
        names = names_of(item)
        matches.append(frozenset(i for i, e in enumerate(expected) if e in names))
    return Judged(tuple(matches), len(expected), relevant_total)


def judge_texts(golds: Sequence[str], retrieved: Sequence[Any], *,
                relevant_total: int | None = None) -> Judged:
    """Each retrieved item matched against the gold strings its text holds."""
    wanted = [normalize(g) for g in golds]
    matches = []
    for item in retrieved:
        haystack = normalize(text_of(item))
        matches.append(frozenset(i for i, g in enumerate(wanted) if g and g in haystack))
    return Judged(tuple(matches), len(wanted), relevant_total)
