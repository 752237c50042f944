"""Pictures of an index's corpus (token histogram, documents by size, embedding map) for the
Indexes page: drawn off the page's thread, once per index version, shared by every session of
the process (moved out of ``webapp.state``, whose workspace folder it reads)."""

from __future__ import annotations

import logging
import threading
from typing import Any

from ragcore import Workspace
from webapp.state import workspace_root

logger = logging.getLogger(__name__)

SMALL_INDEX = 3000  # chunks: a picture of an index this small is drawn while the page waits
_pictures: dict[tuple, Any] = {}  # (root, name) -> (version, picture) of the latest drawn
_drawing: dict[tuple, threading.Thread] = {}  # (root, name, version) -> the thread drawing it
_pictures_guard = threading.Lock()


def corpus_picture(name: str, *, chunks: int = 0) -> tuple[Any, bool]:
    """Chart columns for an index (token histogram, documents by size, embedding map) and
    whether they show an earlier version of it.

    Drawn lazily, off the page's thread, once per index version (``Workspace.index_version``):
    a delete or re-index never waits for them. The page waits for a small index's picture
    (``chunks`` below ``SMALL_INDEX``), else shows the latest one drawn (or None) meanwhile.
    """
    ws = Workspace(workspace_root())
    version = ws.index_version(name)
    key = (str(ws.root), name)
    with _pictures_guard:
        latest = _pictures.get(key)
        if latest is not None and latest[0] == version:
            return latest[1], False
        thread = _drawing.get((*key, version))
        if thread is None:
            thread = threading.Thread(target=_draw, args=(key, version), daemon=True,
                                      name=f"picture {name}")
            _drawing[(*key, version)] = thread
            thread.start()
    thread.join(timeout=60 if chunks < SMALL_INDEX else 0.3)
    with _pictures_guard:
        latest = _pictures.get(key)
    if latest is None:
        return None, True
    return latest[1], latest[0] != version


def _draw(key: tuple, version: tuple) -> None:
    from ragcore.present import picture_corpus

    try:
        from ragcore import VectorStoreIndex

        # Straight from the folder (no embedder needed to draw), outside Streamlit's caches.
        index = VectorStoreIndex.load(Workspace(key[0]).index_path(key[1]))
        node_ids = index.node_ids()
        vectors = index.get_vectors(node_ids) if node_ids else None
        picture = picture_corpus(index.get_nodes(node_ids), vectors)
        with _pictures_guard:
            _pictures[key] = (version, picture)
    except Exception as exc:  # noqa: BLE001 - the page shows no picture; the log says why
        logger.warning("could not draw the corpus picture of %s: %s", key[1], exc)
    finally:
        with _pictures_guard:
            _drawing.pop((*key, version), None)
