"""Token counts kept per document (ragcore.workspace.ingest.token_counts): stats after a job read only
the documents it changed, and always equal a full recount."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragcore.tokens
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.tokens import count_tokens
from ragcore.types import Document
from ragcore.workspace import Workspace
from ragcore.workspace.ingest.token_counts import ledger_path, update_counts

WORDS = ["owls", "bats", "hunt", "at", "night", "échos", "🦉", "and", "sleep", "by", "day."]


def full_recount(index: VectorStoreIndex) -> int:
    return sum(count_tokens(node.text) for node in index.all_nodes())


@pytest.fixture
def counted_texts(monkeypatch):
    """The texts whose tokens are counted from now on."""
    texts: list[str] = []

    def counting(text: str) -> int:
        texts.append(text)
        return count_tokens(text)

    monkeypatch.setattr(ragcore.tokens, "count_tokens", counting)
    return texts


def test_stats_after_adding_a_file_read_only_that_files_nodes(tmp_path, fake_embedder,
                                                               counted_texts):
    workspace = Workspace(tmp_path / "ws", embedder=fake_embedder)
    old = [tmp_path / f"old{i}.txt" for i in range(3)]
    for i, path in enumerate(old):
        path.write_text(" ".join(f"Old sentence {i}.{j} about owls." for j in range(60)))
    workspace.ingest("docs", old)
    before = workspace.index_info("docs")
    assert counted_texts  # the first stats count every document once
    counted_texts.clear()

    new = tmp_path / "new.txt"
    new.write_text(" ".join(f"New sentence {j} about bats." for j in range(60)))
    workspace.ingest("docs", [new])
    after = workspace.index_info("docs")

    assert counted_texts and all("New sentence" in text for text in counted_texts)
    assert after.tokens == before.tokens + sum(count_tokens(t) for t in counted_texts)
    assert after.tokens == full_recount(workspace.load_index("docs"))


def test_a_deleted_file_leaves_the_counts_without_reading_any_node(tmp_path, fake_embedder,
                                                                    counted_texts):
    workspace = Workspace(tmp_path / "ws", embedder=fake_embedder)
    paths = [tmp_path / f"f{i}.txt" for i in range(2)]
    for i, path in enumerate(paths):
        path.write_text(f"File {i} tells of owls and bats. " * (10 + 30 * i))
    workspace.ingest("docs", paths)
    workspace.index_info("docs")
    counted_texts.clear()
    workspace.delete_document("docs", str(paths[1]))
    info = workspace.index_info("docs")
    assert counted_texts == []
    assert info.files == 1 and info.tokens == full_recount(workspace.load_index("docs"))


def test_a_workspace_without_the_ledger_builds_it_once(tmp_path, fake_embedder, counted_texts):
    workspace = Workspace(tmp_path / "ws", embedder=fake_embedder)
    source = tmp_path / "a.txt"
    source.write_text("Owls hunt at night. " * 50)
    workspace.ingest("docs", [source])
    first = workspace.index_info("docs")
    ledger = ledger_path(workspace.record_path("docs"))
    ledger.unlink()  # as a workspace from before per-document counts
    record = workspace.record("docs")
    record.counted_revision = None
    workspace.save_record("docs", record)
    counted_texts.clear()
    assert workspace.index_info("docs") == first
    assert counted_texts and ledger.is_file()
    assert workspace.index_names() == ["docs"]  # the ledger's folder is not an index


OPS = st.lists(st.tuples(st.sampled_from(["add", "add", "delete"]), st.integers(0, 4),
                         st.lists(st.sampled_from(WORDS), min_size=1, max_size=80)),
               min_size=1, max_size=12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_kept_counts_equal_a_full_recount_after_any_adds_and_deletes(ops):
    from ragcore.chunking import SentenceSplitter

    index = VectorStoreIndex([], embedder=FakeEmbedder(dim=8),
                             splitter=SentenceSplitter(chunk_size=24, chunk_overlap=4))
    ledger: dict = {}
    for op, number, words in ops:
        if op == "add":  # a new document, or a replacement of the one with that id
            index.insert(Document(text=" ".join(words), doc_id=f"doc{number}"))
        else:
            index.delete_ref_doc(f"doc{number}")
        ledger = update_counts(index, ledger)
        assert sum(tokens for _, tokens in ledger.values()) == full_recount(index)
        assert set(ledger) == set(index.ref_doc_ids())


def test_counting_a_loaded_index_keeps_none_of_its_nodes_decoded(tmp_path):
    import tracemalloc

    from ragcore.chunking import SentenceSplitter

    index = VectorStoreIndex([], embedder=FakeEmbedder(dim=8),
                             splitter=SentenceSplitter(chunk_size=64, chunk_overlap=0))
    sentence = "Owls hunt voles at night and sleep by day in old barns. "
    index.insert(Document(text=sentence * 24000, doc_id="big"))  # about 5,000 nodes
    index.persist(tmp_path / "ix")
    loaded = VectorStoreIndex.load(tmp_path / "ix")
    count_tokens("warm the tokenizer up")
    tracemalloc.start()
    try:
        counts = update_counts(loaded, {})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert counts["big"][1] == full_recount(loaded)
    # a thousand nodes decoded at a time (4 MB), not all 5,000 kept (14 MB)
    assert peak < 7_000_000, peak
