"""Big inputs: long texts are chunked a block at a time, tables are rendered row by row.

The memory drill (slow) ingests a generated big text and a big CSV through the workspace in a
child process and checks its peak resident memory (VmHWM) against the input's size.
"""

from __future__ import annotations

import random

import pytest

from ragcore.chunking import SentenceSplitter, TokenTextSplitter
from ragcore.chunking import HierarchicalNodeParser, blocks
from ragcore.chunking.lazy import document_chunks
from ragcore.readers import load_file
from ragcore.tokens import count_tokens
from ragcore.types import Document


def prose(paragraphs: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    words = "the of and policy access engine tomato garden river light session trust".split()
    out = []
    for _ in range(paragraphs):
        sentences = [" ".join(rng.choice(words) for _ in range(rng.randint(4, 30))).capitalize()
                     + "." for _ in range(rng.randint(1, 6))]
        out.append(" ".join(sentences))
    return "\n\n".join(out) + "\n"


def test_blocks_cover_the_text_and_end_at_paragraph_breaks():
    text = prose(400)
    spans = list(blocks.text_blocks(text, 5000))
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert all(0 < end - start <= 5000 for start, end in spans)
    assert all(text[end - 2:end] == "\n\n" for _, end in spans[:-1])


def test_blocks_of_text_without_breaks_are_cut_at_spaces_or_at_their_size():
    assert all(e - s <= 100 for s, e in blocks.text_blocks("word " * 1000, 100))
    assert list(blocks.text_blocks("x" * 250, 100)) == [(0, 100), (100, 200), (200, 250)]


@pytest.mark.parametrize("splitter", [SentenceSplitter(chunk_size=64, chunk_overlap=8),
                                      TokenTextSplitter(chunk_size=48, chunk_overlap=4)])
def test_a_long_text_chunked_in_blocks_keeps_every_guarantee(monkeypatch, splitter):
    text = prose(600)
    whole = splitter.split_text_spans(text)
    monkeypatch.setattr(blocks, "BLOCK_CHARS", 3000)
    spans = splitter.split_text_spans(text)
    assert len(text) > 20 * 3000 and spans != whole  # it really went block by block
    assert all(count_tokens(text[s:e]) <= splitter.chunk_size for s, e in spans)
    assert all(a[0] < b[0] and a[1] < b[1] for a, b in zip(spans, spans[1:]))
    covered = set()
    for start, end in spans:
        covered.update(range(start, end))
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert abs(len(spans) - len(whole)) <= len(text) // 3000 + 1  # about one more per block


def test_nodes_of_a_long_document_point_into_its_text(monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_CHARS", 2000)
    document = Document(text=prose(300), doc_id="long")
    nodes = SentenceSplitter(chunk_size=80, chunk_overlap=10).get_nodes_from_documents([document])
    assert all(document.text[n.start_char:n.end_char] == n.text for n in nodes)
    assert [n.node_id for n in nodes[1:]] == [n.next_id for n in nodes[:-1]]


def test_a_short_text_is_chunked_as_before(monkeypatch):
    text = prose(40)
    splitter = SentenceSplitter(chunk_size=64, chunk_overlap=8)
    before = splitter.split_text_spans(text)
    monkeypatch.setattr(blocks, "BLOCK_CHARS", len(text))
    assert splitter.split_text_spans(text) == before


def test_a_csv_is_rendered_row_by_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('id,name,notes\n1,Ann,"two\nlines"\n,,\n2,Bob,\n' + "".join(
        f"{i},P{i},n{i}\n" for i in range(3, 10_003)), encoding="utf-8")
    (document,) = load_file(path)
    blocks_ = document.text.split("\n\n")
    assert blocks_[0] == "id: 1\nname: Ann\nnotes: two\nlines"
    assert blocks_[1] == "id: 2\nname: Bob"  # the empty row is left out, so is the empty cell
    assert len(blocks_) == 10_002 and blocks_[-1] == "id: 10002\nname: P10002\nnotes: n10002"


def test_a_long_document_becomes_a_node_tree_block_by_block(monkeypatch):
    from ragcore.chunking import HierarchicalNodeParser, get_leaf_nodes, get_root_nodes

    document = Document(text=prose(300), doc_id="long")
    parser = HierarchicalNodeParser.from_defaults(chunk_sizes=[256, 64])
    whole = parser.get_nodes_from_documents([document])
    monkeypatch.setattr(blocks, "BLOCK_CHARS", 4000)
    nodes = parser.get_nodes_from_documents([document])
    assert len(document.text) > 10 * 4000 and len(nodes) != len(whole)
    by_id = {n.node_id: n for n in nodes}
    assert all(document.text[n.start_char:n.end_char] == n.text for n in nodes)
    for leaf in get_leaf_nodes(nodes):
        parent = by_id[leaf.parent_id]
        assert parent.start_char <= leaf.start_char and leaf.end_char <= parent.end_char
    roots = get_root_nodes(nodes)
    assert [n.node_id for n in roots[1:]] == [n.next_id for n in roots[:-1]]
    assert all(a.start_char < b.start_char for a, b in zip(roots, roots[1:]))
    assert roots[-1].end_char == len(document.text.rstrip())  # the roots reach the end


@pytest.mark.parametrize("splitter", [
    SentenceSplitter(chunk_size=80, chunk_overlap=10),
    TokenTextSplitter(chunk_size=50, chunk_overlap=5, include_prev_next_rel=False),
    HierarchicalNodeParser.from_defaults(chunk_sizes=[128, 32]),
])
@pytest.mark.parametrize("step", [1, 7, 64])
def test_chunks_built_a_slice_at_a_time_are_the_splitters_nodes(monkeypatch, splitter, step):
    """Ingestion builds a long document's nodes lazily; they must be the very nodes (ids,
    text, offsets, prev/next links across slice borders) the splitter gives at once."""
    monkeypatch.setattr(blocks, "BLOCK_CHARS", 3000)
    document = Document(text=prose(200), doc_id="long", metadata={"file_name": "long.txt"})
    whole = splitter.get_nodes_from_documents([document])
    chunks = document_chunks(splitter, document)
    built, position = [], 0
    while not chunks.finished(position):
        piece = chunks.nodes(position, position + step)
        assert piece and 0 < chunks.estimate()
        built += piece
        position += len(piece)
    assert [n.to_dict() for n in built] == [n.to_dict() for n in whole]
    assert chunks.estimate() == len(whole)


def test_a_long_text_is_split_only_as_far_as_the_slices_asked(monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_CHARS", 2000)
    document = Document(text=prose(400), doc_id="long")
    chunks = document_chunks(SentenceSplitter(chunk_size=80, chunk_overlap=10), document)
    chunks.nodes(0, 5)
    assert chunks._more is not None and chunks._spans[-1][1] < len(document.text) // 4
    assert 0.5 < chunks.estimate() / len(SentenceSplitter(chunk_size=80, chunk_overlap=10)
                                         .get_nodes_from_documents([document])) < 2


def test_a_file_over_the_size_limit_is_reported_and_the_others_indexed(tmp_path):
    from ragcore.embeddings import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.settings import Settings

    big, small = tmp_path / "big.txt", tmp_path / "small.txt"
    big.write_text(prose(3000))  # over 1 MB
    small.write_text("Owls hunt at night.\n")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder(), settings=Settings(max_file_mb=1))
    report = ws.ingest("docs", [big, small])
    outcomes = {f.path.rsplit("/", 1)[-1]: f for f in report.files}
    assert outcomes["small.txt"].status == "indexed"
    assert outcomes["big.txt"].status == "failed"
    assert "over the limit of 1 MB per file" in outcomes["big.txt"].reason
    assert "Largest file" in outcomes["big.txt"].hint
    assert [r["file"] for r in ws.documents("docs")] == ["small.txt"]


def test_after_a_mid_file_save_progress_says_embedding_at_once(tmp_path):
    """A save is followed at once by an 'embedding' event at the same count, so a progress bar
    does not read 'saving' for as long as the next slice takes with a slow embedder."""
    from ragcore.embeddings import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.ingest.commits import Batching

    path = tmp_path / "long.txt"
    path.write_text(prose(400))
    events = []
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("docs", [path], progress=events.append,
              batching=Batching(chunks=20, seconds=3600, slice=20))
    saves = [i for i, e in enumerate(events) if e.stage == "saving" and 0 < e.chunks_done
             < e.chunks_total]
    assert saves
    for i in saves:
        after = events[i + 1]
        assert (after.stage, after.chunks_done) == ("embedding", events[i].chunks_done)
