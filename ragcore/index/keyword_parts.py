"""Where a ``KeywordIndex``'s parts come from: the node segments' saved postings, and memory.

A docstore's nodes are node segments (``node_segments``) plus the nodes added since its last
save. ``keyword_index_of`` gives each saved segment's postings (``postings``: read, mapped, from
the segment's folder, or built from its node records when the segment was written before
postings were saved or by another analyzer, with a log line), analyzes only the nodes added
since, and marks the rows of the segments no longer held as dead. A load maps each segment's
saved postings (``saved_postings``, under its generation's reader lock), so the first keyword
query after it rebuilds nothing and opens no file: a writer may have removed that generation
since, and the mappings still hold its postings.

At a save, ``node_segments`` calls ``segment_postings_written`` for each segment it writes (the
postings of a new batch built from its records; of a merge, merged from the kept rows'
postings) and ``carry_postings`` for each it links forward: their postings files are linked
too, and a segment without saved postings (an index written before them) gets them written in
the new generation, once. Postings built in memory for a segment are kept on its ``Segment``
(``extra``), so the save after a keyword query does not analyze the segment again.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from bisect import bisect_right
from itertools import chain
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..stores.simple.segments import Segment
from ..types import MetadataMode, Node
from .keyword import KeywordIndex
from .disk.node_file import NodeFile
from .postings import FILES, Postings, build_postings, has_postings, read_postings, write_postings

log = logging.getLogger(__name__)


def saved_postings(folder: Path, rows: int) -> tuple[Postings, bool] | None:
    """What ``Segment.extra`` holds for a segment a load reads from ``folder``: its saved
    postings, mapped (None: it has none for this analyzer; ``segment_postings`` builds them)."""
    saved = read_postings(folder, rows)
    return None if saved is None else (saved, True)


def segment_postings(segment: Segment, file: NodeFile) -> Postings:
    """The postings of a saved segment's rows: those its load mapped or its save wrote, else
    built from its node records (and kept on the segment, for the next save to write)."""
    if segment.extra is None:
        log.info("%s: building the keyword postings of %d nodes (the segment has none "
                 "saved for this analyzer; the next save writes them)",
                 segment.folder, segment.rows)
        # From the node file as opened at load: still there if its generation was deleted since.
        rows = range(len(file.ids))
        built = build_postings(file.node(r).content(MetadataMode.EMBED) for r in rows)
        segment.extra = (built, False)
    return segment.extra[0]


def postings_of_lines(path: Path, count: int, offset: int = 0) -> Postings:
    """The postings of ``count`` node records of the ``nodes.jsonl`` at ``path`` from byte
    ``offset`` on, analyzed from its lines (read, not mapped: a commit's batch is not kept
    resident). A line that is not a node record gets none (a warning says so): a save copies
    such lines as they are, with the checksum that finds the damage when the node is read."""
    return build_postings(_contents(path, count, offset))


def postings_of_nodes(ids: list[str], encode: Callable[[str], bytes]) -> Postings:
    """The postings of nodes a save is writing: from the docstore whose ``encode`` writes
    them (its nodes, in memory until the save), else decoded from their records."""
    get = getattr(getattr(encode, "__self__", None), "get", None)
    if not callable(get):
        return build_postings(Node.from_dict(json.loads(encode(i))).content(MetadataMode.EMBED)
                              for i in ids)
    return build_postings(get(i).content(MetadataMode.EMBED) for i in ids)


def _contents(path: Path, count: int, offset: int) -> Iterator[str]:
    with open(path, "rb") as lines:
        lines.seek(offset)
        for number, line in zip(range(count), lines):
            try:
                yield Node.from_dict(json.loads(line)).content(MetadataMode.EMBED)
            except (ValueError, TypeError, KeyError, AttributeError) as exc:
                log.warning("%s: no keyword postings for line %d, not a node record (%s)",
                            path, number + 1, exc)
                yield ""


def segment_postings_written(where: Path, ids: list[str], postings: Postings | None) -> Any:
    """Write a new segment's postings into its folder ``where`` (``postings`` None: build them
    from the node file just written there); returns what ``Segment.extra`` holds."""
    if postings is None:
        postings = postings_of_lines(where / "nodes.jsonl", len(ids))
    write_postings(where, postings)
    return (read_postings(where, len(ids)), True)  # read back: large arrays mapped


def carry_postings(segment: Segment, file: NodeFile, target: Path) -> None:
    """Give a segment linked into ``target`` its postings there: links of the saved files,
    or the files written once (a segment saved before postings, or by another analyzer)."""
    if target.exists() and os.path.samefile(target, segment.folder):
        if not _current(segment):
            write_postings(target, segment_postings(segment, file))
            segment.extra = (segment.extra[0], True)
        return
    if _current(segment):
        for name in FILES:
            (target / name).unlink(missing_ok=True)
            try:
                os.link(segment.folder / name, target / name)
            except OSError:  # another device, or a file system without hard links
                shutil.copyfile(segment.folder / name, target / name)
        return
    write_postings(target, segment_postings(segment, file))
    segment.extra = (segment.extra[0], True)


def _current(segment: Segment) -> bool:
    """Whether the segment's folder holds postings of this analyzer."""
    if segment.extra is not None:
        return segment.extra[1]
    return has_postings(segment.folder)


class ChainedIds(Sequence[str]):
    """The node ids of several node files as one sequence, without copying them (a list of
    1M ids costs ~90 ms, paid by the first keyword query after a load)."""

    def __init__(self, lists: list[list[str]]) -> None:
        self._lists = lists
        self._starts = np.cumsum([0, *map(len, lists)]).tolist()

    def __len__(self) -> int:
        return self._starts[-1]

    def __getitem__(self, row):  # type: ignore[override]
        if isinstance(row, slice):
            return [self[i] for i in range(*row.indices(len(self)))]
        row = row + len(self) if row < 0 else row
        if not 0 <= row < len(self):
            raise IndexError(f"row {row} of {len(self)} ids")
        part = bisect_right(self._starts, row) - 1
        return self._lists[part][row - self._starts[part]]

    def __iter__(self) -> Iterator[str]:
        return chain.from_iterable(self._lists)


def keyword_index_of(docstore: Any, revision: int) -> KeywordIndex:
    """The keyword index of ``docstore``'s nodes: its saved segments' postings, masked to the
    rows it still holds, and postings of the nodes added since its last save."""
    disk = docstore._disk  # the segments read or last saved (None: nothing saved yet)
    if disk is None:
        return KeywordIndex.build(docstore.iter_nodes(), revision=revision)
    parts = [segment_postings(s, f) for s, f in zip(disk.segments, disk.files)]
    ids: Sequence[str] = ChainedIds([f.ids for f in disk.files])
    if docstore._as_disk:  # no node added or removed since: it holds what its runs say
        held, added = disk.held_rows(), []
    else:
        fresh, where = docstore._since.fresh, disk.where()
        current = docstore.node_ids()
        added = [i for i in current if i in fresh]
        held = np.fromiter((where[i] for i in current if i not in fresh), np.int64)
    live = np.zeros(len(ids), dtype=bool)
    live[held] = True
    if added:
        parts.append(build_postings(docstore.get(i).content(MetadataMode.EMBED) for i in added))
        ids = [*ids, *added]
        live = np.concatenate([live, np.ones(len(added), dtype=bool)])

    def metadata() -> list[dict[str, Any]]:
        return [docstore.get(i, keep=False).metadata if alive else {}
                for i, alive in zip(ids, live.tolist())]

    return KeywordIndex(ids, parts, None if live.all() else live, metadata, revision=revision,
                        source=disk)
