"""The index the answer and retrieval benchmarks ask their questions of, built once and cached.

Embedding the whole corpus takes many minutes on a 2-core machine, so the index holds only the
files the questions name plus a few distractors per collection (documents on neighbouring
topics that a retriever must not confuse with the right one). It is built the way a user builds
one (``SimpleDirectoryReader`` on the files, ``VectorStoreIndex.from_documents`` with the
packaged embedding model and default splitter), persisted under ``benchmarks/.cache/`` and
reloaded by later runs. The folder's name is a hash of the files' bytes, ragcore's chunking
settings, the embedding model's name and the readers' source code, so any of those changing
builds a fresh index; an unreadable cached folder (an older index format) is rebuilt too.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from .question_set import Question

CACHE_DIR = Path(__file__).resolve().parents[1] / ".cache"
_READERS_DIR = Path(__file__).resolve().parents[2] / "ragcore" / "readers"

# Files no question names, indexed beside the named ones as distractors (paths relative to
# the collection folder). The NIST PDFs, RFCs and the speech distract each other already.
DISTRACTORS: dict[str, tuple[str, ...]] = {
    "python_peps": ("pep-0007.rst", "pep-0012.rst", "pep-0236.rst", "pep-0289.rst",
                    "pep-0318.rst", "pep-0342.rst"),
    "rust_book": ("src/ch01-01-installation.md", "src/ch03-05-control-flow.md",
                  "src/ch04-03-slices.md", "src/ch09-01-unrecoverable-errors-with-panic.md",
                  "src/ch15-04-rc.md", "src/ch16-03-shared-state.md"),
    "sherlock_holmes_xhtml": ("the-boscombe-valley-mystery.xhtml",
                              "the-adventure-of-the-noble-bachelor.xhtml"),
}


@dataclass(slots=True)
class BenchIndex:
    """The loaded index and how it came to be (for the benchmark's rows)."""

    index: Any  # ragcore.VectorStoreIndex
    files: list[Path]
    nodes: int
    built: bool  # False when loaded from the cache
    seconds: float  # building (load, split, embed, persist) or loading from the cache
    folder: Path
    reported: bool = False  # its rows go to the first benchmark group that asks for it

    def rows(self, group: str) -> list[dict]:
        """How the index was made, once per process (answers and retrieval share the index)."""
        if self.reported:
            return []
        self.reported = True
        how = "built and cached" if self.built else f"loaded from {self.folder.name}"
        return [{"group": group, "metric": "benchmark index ready", "value": self.seconds,
                 "unit": "s", "note": f"{how}: {self.nodes:,} nodes from {len(self.files)} files"}]


_LOADED: dict[tuple[Path, ...], BenchIndex] = {}  # answers and retrieval share one per process


def question_files(questions: Sequence[Question], corpus: Path) -> list[Path]:
    """The files the questions name, plus the distractors of their collections, sorted."""
    files = {path for q in questions for path in q.paths(corpus)}
    for collection in {q.collection for q in questions}:
        files.update(corpus / collection / name for name in DISTRACTORS.get(collection, ()))
    missing = sorted(str(p) for p in files if not p.is_file())
    if missing:
        raise FileNotFoundError(f"benchmark files missing from the corpus: {missing}")
    return sorted(files)


def cache_key(files: Sequence[Path], corpus: Path) -> str:
    """A digest of everything that decides the index's nodes and vectors."""
    return _key([(str(path.relative_to(corpus)), path) for path in files],
                _READERS_DIR.glob("*.py"))


# What decides an app-built index's nodes besides its files: how files are read, split, given
# their cards (``app_index``).
_NODE_CODE = ("readers", "chunking", "cards")


def app_index(files: Sequence[Path], folder: Path):
    """The index of ``files`` as the app's workspace builds it, cached under ``folder`` by a
    digest of the files' names and bytes, the splitter's settings, the embedding model and the
    code that reads, splits and titles them: their absolute path left out of the header the
    model reads (``workspace.ingest.parts.path_hidden``), since a chunk's budget counts it, so
    the checkout's folder does not move chunk borders (it did: the unseen tune half's replay
    read 26/43 right at /work/main and 27/43 in a checkout elsewhere)."""
    from ragcore import VectorStoreIndex, load_file
    from ragcore.workspace.ingest.parts import path_hidden

    code = [path for name in _NODE_CODE
            for path in (_READERS_DIR.parent / name).rglob("*.py")]
    cached = folder / _key([(path.name, path) for path in files], code)
    if (cached / "manifest.json").exists():
        return VectorStoreIndex.load(cached)
    index = VectorStoreIndex.from_documents(path_hidden(d for f in files for d in load_file(f)))
    index.persist(cached)
    return index


def _key(named: Sequence[tuple[str, Path]], code: Iterable[Path]) -> str:
    """A digest of the splitter's settings, the embedding model, ``code`` and the files
    (``named``: the name each is known by, its path)."""
    from ragcore import SentenceSplitter, default_embedder

    digest = hashlib.sha256()
    settings = {"splitter": SentenceSplitter().settings(), "model": default_embedder().model_name}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for path in sorted(code):  # a reader change may change the text
        digest.update(path.name.encode() + hashlib.sha256(path.read_bytes()).digest())
    for name, path in named:
        digest.update(name.encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def load_or_build(questions: Sequence[Question], corpus: Path) -> BenchIndex:
    """The cached index for these questions, built if needed (quick runs use the same one:
    building is the expensive part, so a second, smaller index would only add to it)."""
    files = question_files(questions, corpus)
    key = tuple(files)
    if key not in _LOADED:
        folder = CACHE_DIR / f"answers-index-{cache_key(files, corpus)}"
        _LOADED[key] = _load(folder, files) or _build(folder, files)
    return _LOADED[key]


def _load(folder: Path, files: list[Path]) -> BenchIndex | None:
    from ragcore import VectorStoreIndex
    from ragcore.errors import PersistError

    if not folder.is_dir():
        return None
    started = time.perf_counter()
    try:
        index = VectorStoreIndex.load(folder)
    except PersistError as exc:
        sys.stderr.write(f"  cached index unreadable ({exc}); rebuilding\n")
        return None
    return BenchIndex(index, files, len(index), False, time.perf_counter() - started, folder)


def _build(folder: Path, files: list[Path]) -> BenchIndex:
    from ragcore import SimpleDirectoryReader, VectorStoreIndex

    started = time.perf_counter()
    reader = SimpleDirectoryReader(input_files=files)
    documents = reader.load_data()
    if reader.failures:
        raise RuntimeError(f"benchmark files could not be read: {reader.failures}")
    sys.stderr.write(f"  indexing {len(files)} files ({len(documents)} documents); "
                     "embedding takes minutes the first time, then the index is cached\n")
    index = VectorStoreIndex.from_documents(documents, progress=_progress())
    _drop_stale(folder)
    index.persist(folder)
    return BenchIndex(index, files, len(index), True, time.perf_counter() - started, folder)


def _progress():
    """A progress callback writing a line to stderr at every tenth of the nodes."""
    shown = {"step": -1}

    def report(done: int, total: int) -> None:
        step = done * 10 // max(total, 1)
        if step != shown["step"]:
            shown["step"] = step
            sys.stderr.write(f"  embedded {done}/{total} nodes\n")

    return report


def _drop_stale(keep: Path) -> None:
    """Remove cached indexes of other keys: they are never loaded again."""
    for folder in CACHE_DIR.glob("answers-index-*"):
        if folder != keep and folder.is_dir():
            shutil.rmtree(folder)
