"""Pictures of an index: chunk token lengths, documents by size, a 2-D map of the embeddings.

Pure numpy and plain columns (dicts of lists) that any chart library can draw. The map is a
principal-component projection computed with one SVD: the two directions along which the chunk
vectors vary most, so chunks about similar things land near each other.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

from ..tokens import count_tokens
from ..types import Node

Columns = dict[str, list]

# Twenty clearly different colours for the map's files (no two alike, unlike category20's
# light/dark pairs); more files than this share one grey "other files" group.
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#393b79", "#e6550d", "#31a354", "#843c39", "#7b4173", "#3182bd", "#f2b701",
    "#00a087", "#fd8d3c", "#6b6ecf", "#000000",
)
OTHER_COLOUR = "#b0b0b0"
LABEL_CHARS = 44  # longer file names are shortened in the middle in the legend


def project_2d(vectors: np.ndarray) -> np.ndarray:
    """Project rows onto their two principal components: an (n, 2) float array.

    Deterministic: each component's sign is fixed so its largest loading is positive. Fewer
    than two rows or dimensions give zeros in the missing columns.
    """
    data = np.asarray(vectors, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError(f"vectors must be a 2-D array, got shape {data.shape}")
    out = np.zeros((data.shape[0], 2))
    if data.shape[0] < 2 or data.shape[1] == 0:
        return out
    centered = data - data.mean(axis=0)
    _, _, components = np.linalg.svd(centered, full_matrices=False)
    components = components[:2]
    signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
    signs[signs == 0] = 1.0
    projected = centered @ (components * signs[:, None]).T
    out[:, : projected.shape[1]] = projected
    return out


def sample_indices(count: int, limit: int) -> np.ndarray:
    """Up to ``limit`` evenly spaced positions in ``range(count)`` (all of them if they fit)."""
    if limit < 1:
        raise ValueError(f"limit ({limit}) must be at least 1")
    if count <= limit:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, limit).round().astype(int))


def token_histogram(lengths: Sequence[int], *, bins: int = 20) -> Columns:
    """Chunk counts per token-length bin: columns 'tokens' (bin label), 'start' and 'chunks'."""
    if bins < 1:
        raise ValueError(f"bins ({bins}) must be at least 1")
    if not lengths:
        return {"tokens": [], "start": [], "chunks": []}
    low, high = min(lengths), max(lengths)
    width = max(1, -(-(high - low + 1) // bins))  # ceiling division: every length fits a bin
    counts = Counter((length - low) // width for length in lengths)
    starts = [low + i * width for i in range(max(counts) + 1)]
    return {
        "tokens": [f"{s}-{s + width - 1}" for s in starts],
        "start": starts,
        "chunks": [counts.get(i, 0) for i in range(len(starts))],
    }


@dataclass(slots=True)
class CorpusPicture:
    """Columns for the three corpus charts of one index."""

    histogram: Columns = field(default_factory=dict)
    documents: Columns = field(default_factory=dict)
    embedding_map: Columns = field(default_factory=dict)
    chunk_count: int = 0
    mapped_count: int = 0


def source_label(node: Node) -> str:
    """The file a chunk came from (PDF pages of one file share a label)."""
    return str(node.metadata.get("file_name") or node.ref_doc_id or "unknown")


def picture_corpus(
    nodes: Iterable[Node], vectors: np.ndarray | None = None, *, max_points: int = 2000
) -> CorpusPicture:
    """Build the chart columns; ``vectors`` rows must be aligned with ``nodes`` (or None)."""
    nodes = list(nodes)
    tokens = [count_tokens(node.text) for node in nodes]
    picture = CorpusPicture(
        histogram=token_histogram(tokens), documents=_documents_by_size(nodes, tokens)
    )
    picture.chunk_count = len(nodes)
    if vectors is not None and len(nodes):
        if len(vectors) != len(nodes):
            raise ValueError(f"{len(vectors)} vectors for {len(nodes)} nodes: they must align")
        keep = sample_indices(len(nodes), max_points)
        points = project_2d(np.asarray(vectors)[keep])
        picture.embedding_map = {
            "x": points[:, 0].round(4).tolist(),
            "y": points[:, 1].round(4).tolist(),
            "document": [source_label(nodes[i]) for i in keep],
            "preview": [_preview(nodes[i].text) for i in keep],
        }
        picture.embedding_map["group"] = legend_groups(picture.embedding_map["document"])
        picture.mapped_count = len(keep)
    return picture


def shorten_middle(label: str, limit: int = LABEL_CHARS) -> str:
    """``label`` cut in the middle to ``limit`` characters, keeping its start and extension."""
    if len(label) <= limit:
        return label
    tail = max(8, limit // 3)
    return label[: limit - tail - 1] + "…" + label[-tail:]


def legend_groups(files: Sequence[str], colours: int = len(PALETTE)) -> list[str]:
    """The legend entry of each point: its file (shortened), or "other files (k)" for files
    beyond the ``colours - 1`` with the most points once there are more files than colours."""
    counts = Counter(files)
    order = sorted(counts, key=lambda f: (-counts[f], f))
    kept = order if len(order) <= colours else order[: colours - 1]
    short = {f: shorten_middle(f) for f in kept}
    if len(set(short.values())) < len(short):  # two names alike once shortened: keep them whole
        short = {f: f for f in kept}
    other = f"other files ({len(order) - len(kept)})"
    return [short.get(f, other) for f in files]


def legend_colours(groups: Sequence[str]) -> tuple[list[str], list[str]]:
    """Legend domain (kept files by number of points, then "other files") and their colours."""
    counts = Counter(groups)
    order = sorted(counts, key=lambda g: (g.startswith("other files ("), -counts[g], g))
    colours = [OTHER_COLOUR if g.startswith("other files (") else PALETTE[i % len(PALETTE)]
               for i, g in enumerate(order)]
    return order, colours


def _documents_by_size(nodes: list[Node], tokens: list[int]) -> Columns:
    chunks: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for node, count in zip(nodes, tokens):
        label = source_label(node)
        chunks[label] += 1
        sizes[label] += count
    order = sorted(sizes, key=lambda label: (-sizes[label], label))
    return {
        "document": order,
        "tokens": [sizes[label] for label in order],
        "chunks": [chunks[label] for label in order],
    }


def _preview(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
