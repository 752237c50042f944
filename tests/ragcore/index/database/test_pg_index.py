"""PgIndex on a real Postgres with pgvector: the same answers as the embedded index on the same
data, one transaction per commit, readers that see one generation, tasks committed once."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from support.team_backends import drop_database, fresh_database

from ragcore.chunking import SentenceSplitter
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.database import PgIndex
from ragcore.readers import load_file
from ragcore.stores import MetadataFilters

QUESTIONS = ["What is a PEP?", "who decides on the acceptance of a proposal",
             "deprecation of modules", "the steering council votes", "style guide indentation",
             "release schedule and dates", "type hints annotations", "zzz unknown qqq"]


@pytest.fixture()
def database(postgres_url):
    url = fresh_database(postgres_url)
    yield url
    drop_database(url)


@pytest.fixture(scope="module")
def documents(corpus_dir):
    files = sorted((corpus_dir / "python_peps").glob("pep-000*.rst"))[:6]
    return [d for f in files for d in load_file(f)]


def _pair(database, documents):
    embedder, splitter = FakeEmbedder(dim=32), SentenceSplitter(chunk_size=200, chunk_overlap=20)
    local = VectorStoreIndex.from_documents(documents, embedder=embedder, splitter=splitter)
    remote = PgIndex.create(database, "peps", embedder=embedder, record={}, splitter=splitter)
    remote.refresh_ref_docs(documents)
    assert remote.commit()
    return local, remote


def _ids(hits):
    return [h.node.node_id for h in hits]


def _same_ranking(got, want):
    """Equal scores, and equal ids but among tied scores (each side breaks ties its own way:
    the embedded index by row, Postgres by node id)."""
    assert np.allclose([h.score for h in got], [h.score for h in want], rtol=1e-5)
    last = want[-1].score if want else None
    above = {h.node.node_id for h in want if not np.isclose(h.score, last, rtol=1e-5)}
    assert above <= set(_ids(got))
    groups = lambda hits: sorted((round(h.score, 4), h.node.node_id) for h in hits  # noqa: E731
                                 if h.node.node_id in above)
    assert groups(got) == groups(want)


def _counts_are_exact(index):
    """The catalog's counts (kept as deltas by each commit) equal a recount of the tables."""
    stats = index.stats()
    nodes = list(index.all_nodes())
    docs = [index.doc_info(d) for d in index.ref_doc_ids()]
    assert stats["nodes"] == len(nodes) and stats["documents"] == len(docs)
    assert stats["characters"] == sum(d.characters for d in docs)
    length = index._run("SELECT coalesce(sum(length), 0) FROM " + index.tables.name("nodes"))
    assert index._entry()[2] == length[0][0]


def test_searches_equal_the_embedded_index(database, documents):
    local, remote = _pair(database, documents)
    assert len(remote) == len(local) > 50
    assert remote.ref_doc_ids() == local.ref_doc_ids()
    assert remote.node_ids() == local.node_ids()
    embedder = local.embedder
    for question in QUESTIONS:
        vector = embedder.embed_batch([question])[0]
        assert _ids(remote.search(vector, top_k=8)) == _ids(local.search(vector, top_k=8))
        for k1, b in ((1.2, 0.75), (0.0, 0.0), (2.0, 1.0)):
            want = local.keyword_search(question, top_k=10, k1=k1, b=b)
            got = remote.keyword_search(question, top_k=10, k1=k1, b=b)
            _same_ranking(got, want)
        for mode in ("hybrid", "mmr"):
            want = local.as_retriever(similarity_top_k=5, mode=mode).retrieve(question)
            got = remote.as_retriever(similarity_top_k=5, mode=mode).retrieve(question)
            assert _ids(got) == _ids(want), (mode, question)


def test_filters_and_documents_narrow_both_sides(database, documents):
    local, remote = _pair(database, documents)
    doc_ids = local.ref_doc_ids()[:2]
    name = local.doc_info(doc_ids[0]).metadata["file_name"]
    filters = MetadataFilters.from_dict({"file_name": name})
    vector = local.embedder.embed_batch(["proposal process"])[0]
    for kwargs in ({"filters": filters}, {"doc_ids": doc_ids}):
        assert _ids(remote.search(vector, top_k=6, **kwargs)) == \
            _ids(local.search(vector, top_k=6, **kwargs))
        assert _ids(remote.keyword_search("proposal process", top_k=6, **kwargs)) == \
            _ids(local.keyword_search("proposal process", top_k=6, **kwargs))


def test_changes_are_invisible_until_commit_and_deletes_match(database, documents):
    local, remote = _pair(database, documents)
    reader = PgIndex(database, "peps")
    first = local.ref_doc_ids()[0]
    generation = reader.generation
    assert remote.delete_ref_doc(first)
    local.delete_ref_doc(first)
    assert first not in remote.ref_doc_ids()  # the writer sees its own change
    assert first in reader.ref_doc_ids()  # nobody else does, yet
    assert reader.generation == generation
    assert remote.commit()
    assert first not in reader.ref_doc_ids() and reader.generation == generation + 1
    assert reader.node_ids() == local.node_ids()
    vector = local.embedder.embed_batch(["steering council"])[0]
    assert _ids(reader.search(vector, top_k=5)) == _ids(local.search(vector, top_k=5))
    assert _ids(reader.keyword_search("steering council", top_k=5)) == \
        _ids(local.keyword_search("steering council", top_k=5))
    history = reader.history()
    assert [h["generation"] for h in history] == [generation + 1, generation]
    assert history[0]["documents_changed"] == 1 and history[0]["nodes_removed"] > 0
    remote.delete_nodes(reader.node_ids()[:3])
    remote.set_document_info(type(documents[1])(text="short", doc_id=local.ref_doc_ids()[1]))
    remote.commit()
    _counts_are_exact(reader)


def test_rollback_leaves_the_index_as_it_was(database, documents):
    local, remote = _pair(database, documents)
    before = remote.node_ids()
    remote.delete_ref_doc(local.ref_doc_ids()[1])
    remote.rollback()
    assert remote.node_ids() == before and remote.revision == remote.generation


def test_a_task_commits_once(database, documents):
    """Two workers on one batch: the second waits on the first's claim, then learns it landed;
    a claim whose worker died (its connection gone) is free again."""
    embedder = FakeEmbedder(dim=32)
    first = PgIndex.create(database, "tasks", embedder=embedder, record={})
    second = PgIndex(database, "tasks", embedder=embedder)
    assert first.claim("job/0")
    first.refresh_ref_docs(documents[:2])
    answer = {}
    waiting = threading.Thread(target=lambda: answer.update(claimed=second.claim("job/0")))
    waiting.start()
    time.sleep(0.5)
    assert waiting.is_alive()  # blocked on the first worker's open claim
    assert first.commit(task="job/0")
    waiting.join(10)
    assert answer == {"claimed": False} and second.revision == second.generation
    assert not second.commit(task="job/0") and second.committed("job/0")
    assert [h["task"] for h in first.history()] == ["job/0"]

    dying = PgIndex(database, "tasks", embedder=embedder)
    assert dying.claim("job/1")
    dying.refresh_ref_docs(documents[2:3])
    dying._writer.conn.pgconn.finish()  # the process is gone: the server ends its transaction
    assert second.claim("job/1")
    second.refresh_ref_docs(documents[2:3])
    assert second.commit(task="job/1")
    assert len(PgIndex(database, "tasks")) == len(first)


def test_readers_see_whole_generations(database, documents):
    """A writer replaces all documents again and again; hybrid searches running meanwhile
    always see one generation: every hit's document is complete in the nodes they read."""
    embedder = FakeEmbedder(dim=32)
    writer = PgIndex.create(database, "race", embedder=embedder, record={},
                            splitter=SentenceSplitter(chunk_size=200, chunk_overlap=20))
    writer.refresh_ref_docs(documents[:3])
    writer.commit()
    reader = PgIndex(database, "race", embedder=embedder)
    stop, seen, problems = threading.Event(), set(), []
    read = threading.Event()  # a read happened since the last commit: the two overlap

    def write() -> None:
        for round_ in range(6):
            read.wait(30)
            read.clear()
            docs = [type(d)(text=d.text + f" round{round_}", doc_id=d.doc_id,
                            metadata={**d.metadata, "round": round_}) for d in documents[:3]]
            writer.refresh_ref_docs(docs)
            writer.commit()
        stop.set()

    thread = threading.Thread(target=write)
    thread.start()
    retriever = reader.as_retriever(similarity_top_k=8, mode="hybrid")
    while not stop.is_set():
        with reader.reading():
            rounds = {h.node.metadata.get("round") for h in retriever.retrieve("round proposal")}
            counts = len(reader)
            docs = [reader.doc_info(d) for d in reader.ref_doc_ids()]
        if len(rounds) > 1 or counts != sum(len(d.node_ids) for d in docs):
            problems.append((rounds, counts))
        seen |= rounds
        read.set()
    thread.join()
    assert not problems
    _counts_are_exact(reader)
    assert len(seen) > 1  # the reads did overlap the commits
