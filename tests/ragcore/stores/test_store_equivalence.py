"""One real corpus, the real embedding model, three stores: the numpy store (exact), Chroma
(embedded and a server) and Postgres with pgvector give the same top-5, unfiltered and filtered
(recall@5 >= 0.95 against exact search), and the Chroma-server and Postgres indexes load back
from their folders in a new process (an app restart) with the same answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ragcore.embeddings.base import embed_query
from ragcore.index import VectorStoreIndex
from ragcore.readers import load_file
from ragcore.stores import MetadataFilter, MetadataFilters

pytest.importorskip("chromadb", reason="needs chromadb: pip install '.[chroma]'")
pytest.importorskip("psycopg", reason="needs psycopg: pip install '.[postgres]'")

from ragcore.stores.chroma import ChromaVectorStore  # noqa: E402
from ragcore.stores.postgres.pgvector import PGVectorStore  # noqa: E402

pytestmark = pytest.mark.slow

FILES = ["state_of_the_union/state_of_the_union.txt", "rfcs/rfc3986.txt",
         "python_peps/pep-0001.rst", "python_peps/pep-0007.rst"]
QUESTIONS = [
    "How should a URI scheme be parsed?", "percent-encoding of reserved characters",
    "What does the president say about inflation and prices?", "support for Ukraine",
    "Who decides whether a PEP is accepted?", "C code style: indentation and braces",
    "maximum line length in C code", "relative reference resolution", "veterans and burn pits",
    "the role of the PEP editors",
]
FILTERS = [
    None,
    MetadataFilters((MetadataFilter("file_name", "rfc3986.txt"),)),
    MetadataFilters((MetadataFilter("file_name", ["pep-0001.rst", "pep-0007.rst"], "in"),)),
    MetadataFilters((MetadataFilter("file_name", "rfc3986.txt", "!="),)),
]


@pytest.fixture(scope="module")
def exact(corpus_dir, real_embedder):
    documents = [d for f in FILES for d in load_file(corpus_dir / f)]
    index = VectorStoreIndex.from_documents(documents, embedder=real_embedder)
    questions = np.stack([embed_query(real_embedder, q) for q in QUESTIONS])
    return index, questions.astype(np.float32)


def _copy(exact_index: VectorStoreIndex, store, embedder) -> VectorStoreIndex:
    nodes = list(exact_index.all_nodes())
    vectors = exact_index.get_vectors([n.node_id for n in nodes])
    index = VectorStoreIndex(store=store, embedder=embedder)
    index.insert_nodes(nodes, vectors=vectors)
    return index


def _top5(index: VectorStoreIndex, vectors: np.ndarray) -> list[list[list[str]]]:
    return [[[h.node.node_id for h in index.search(v, top_k=5, filters=f)] for v in vectors]
            for f in FILTERS]


def _recall(got: list, want: list) -> float:
    pairs = [(g, w) for fg, fw in zip(got, want) for g, w in zip(fg, fw)]
    return sum(len(set(g) & set(w)) for g, w in pairs) / sum(len(w) for _, w in pairs)


@pytest.fixture(scope="module")
def stores(exact, real_embedder, tmp_path_factory, request):
    index, _ = exact
    folder = tmp_path_factory.mktemp("stores")
    made = {
        "chroma": ChromaVectorStore(path=folder / "chroma", collection="equivalence"),
        "chroma-server": ChromaVectorStore(url=request.getfixturevalue("chroma_server"),
                                           collection="equivalence"),
        "postgres": PGVectorStore(request.getfixturevalue("postgres_url"), table="equivalence"),
    }
    yield {name: _copy(index, store, real_embedder) for name, store in made.items()}
    made["chroma-server"].drop()
    made["postgres"].drop()


def test_every_store_finds_the_exact_top5(exact, stores):
    index, vectors = exact
    want = _top5(index, vectors)
    assert all(len(ids) == 5 for per_filter in want for ids in per_filter)
    for name, other in stores.items():
        got = _top5(other, vectors)
        assert all(len(ids) == 5 for per_filter in got for ids in per_filter), name
        assert _recall(got, want) >= 0.95, name
        assert [g[0] for g in got[0]] == [w[0] for w in want[0]], name  # the best hit agrees


RELOAD = """
import json, sys
import numpy as np
from ragcore.index import VectorStoreIndex
index = VectorStoreIndex.load(sys.argv[1])
vectors = np.load(sys.argv[2])
print(json.dumps([[h.node.node_id for h in index.search(v, top_k=5)] for v in vectors]))
"""


@pytest.mark.parametrize("name", ["chroma-server", "postgres"])
def test_a_database_index_survives_a_restart(exact, stores, name, tmp_path):
    _, vectors = exact
    index = stores[name]
    index.persist(tmp_path / "index")
    manifest = (tmp_path / "index" / "manifest.json").read_text()
    assert "ragcore-test-secret" not in manifest
    np.save(tmp_path / "q.npy", vectors)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    run = subprocess.run([sys.executable, "-c", RELOAD, str(tmp_path / "index"),
                          str(tmp_path / "q.npy")], capture_output=True, text=True, env=env,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout.strip().splitlines()[-1]) == _top5(index, vectors)[0]
