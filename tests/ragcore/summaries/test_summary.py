"""Summaries (issue 13): extractive summaries, SummaryIndex, DocumentSummaryIndex, the router,
and the workspace's summary cache."""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.llms.fake import FakeLLM
from ragcore.readers import SimpleDirectoryReader
from ragcore.summaries.summarize import summarize_extractive
from ragcore.summaries.index import DocumentSummaryIndex, SummaryIndex, summarize_document
from ragcore.summaries.router import INDEX_SUMMARY, RETRIEVAL, SUMMARY, route_question
from ragcore.types import Document
from ragcore.workspace import Workspace
from ragcore.workspace.summaries import (
    SummaryCache,
    document_names,
    summarize_file,
    summarize_whole_index,
)

MEMO = (
    "The office moves to the harbour building in March. "
    "Every team packs its own desks during the last week of February. "
    "The harbour building has parking for forty cars and a canteen. "
    "Network equipment moves first, over the weekend of 1 March. "
    "Questions about the move go to the facilities desk."
)
RECIPE = (
    "Bread needs flour, water, salt and yeast. "
    "Knead the dough for ten minutes until it is smooth. "
    "Let the dough rise for an hour in a warm place. "
    "Bake the loaf at 220 degrees for thirty minutes."
)


@pytest.fixture
def index(fake_embedder):
    docs = [Document(MEMO, doc_id="memo", metadata={"file_name": "relocation-memo.txt"}),
            Document(RECIPE, doc_id="bread", metadata={"file_name": "bread.txt"})]
    return VectorStoreIndex.from_documents(docs, embedder=fake_embedder)


# -- extractive summary -----------------------------------------------------------------------


def test_extractive_summary_keeps_document_order_and_its_length_bound(fake_embedder):
    chunks = [MEMO[:120], MEMO[100:], RECIPE]  # overlapping chunks, as a splitter makes them
    found = summarize_extractive(chunks, fake_embedder, max_sentences=4, max_chars=220)
    texts = [s.text for s in found.sentences]
    assert 1 <= len(texts) <= 4 and len(found.text) <= 220
    assert len(set(texts)) == len(texts)  # a sentence repeated by the overlap is read once
    positions = [(s.chunk, (MEMO + RECIPE).find(s.text)) for s in found.sentences]
    assert positions == sorted(positions)


def test_extractive_summary_of_nothing_is_empty_and_bad_bounds_are_refused(fake_embedder):
    assert summarize_extractive([], fake_embedder).text == ""
    with pytest.raises(ConfigError, match="max_chars"):
        summarize_extractive(["x"], fake_embedder, max_chars=10)


def test_one_long_sentence_is_cut_to_the_bound(fake_embedder):
    long = "The relocation " + "plan covers many details of the move " * 20 + "in March."
    found = summarize_extractive([long], fake_embedder, max_chars=100)
    assert len(found.text) <= 100 and found.text.endswith("…")


# -- SummaryIndex and DocumentSummaryIndex -------------------------------------------------------


def test_summary_index_reads_every_node_not_the_top_k(index):
    llm = FakeLLM(default="summary")
    nodes = SummaryIndex.from_index(index, ["memo", "bread"]).nodes
    response = SummaryIndex(nodes).query("Summarise", llm=llm)
    assert response.text == "summary"
    prompts = " ".join(m.content for call in llm.calls for m in call)
    assert "harbour building" in prompts and "Bake the loaf" in prompts


def test_document_summary_is_extractive_offline_and_by_the_model_otherwise(index):
    offline = summarize_document(index, "memo", ["memo"], title="relocation-memo.txt")
    assert offline.method == "extractive" and offline.text
    assert all(sentence in MEMO for sentence in offline.text.split(". ") if sentence)
    llm = FakeLLM(default="The office moves in March.", model="m1")
    online = summarize_document(index, "memo", ["memo"], llm=llm)
    assert (online.method, online.text) == ("m1", "The office moves in March.")
    assert "Bake" not in " ".join(m.content for call in llm.calls for m in call)


def test_document_summary_index_retrieves_by_summary_then_by_chunks(index):
    summaries = DocumentSummaryIndex.build(
        index, {"memo": ("relocation memo", ["memo"]), "bread": ("bread recipe", ["bread"])}
    )
    best, _ = summaries.retrieve_summaries("bake the bread loaf dough")[0]
    assert best.key == "bread"
    nodes = summaries.retrieve("bake the bread loaf dough", top_k=3)
    assert nodes and {n.node.ref_doc_id for n in nodes} == {"bread"}


# -- the router -------------------------------------------------------------------------------

DOCS = {"m": "relocation-memo.docx", "p": "pep-0008.rst",
        "n": "NIST.SP.800-207-ZeroTrustArchitecture.pdf", "b": "Budget 2025.xlsx"}


@pytest.mark.parametrize("question, kind, document", [
    ("summarise the relocation memo", SUMMARY, "m"),
    ("Give me a summary of the budget 2025 spreadsheet", SUMMARY, "b"),
    ("tl;dr of pep 8 please", SUMMARY, "p"),
    ("What is the zero trust architecture document about?", SUMMARY, "n"),
    ("Summarise this index", INDEX_SUMMARY, None),
    ("Can you summarise the documents?", INDEX_SUMMARY, None),
    ("Summarise what PEP 8 says about indentation", RETRIEVAL, None),
    ("What does the memo say about parking?", RETRIEVAL, None),
    ("summarise the chapter on ownership", RETRIEVAL, None),
])
def test_router_chooses_summary_or_retrieval(question, kind, document):
    route = route_question(question, DOCS)
    assert (route.kind, route.document) == (kind, document)
    assert route.reason  # shown in the trace


# -- the workspace cache ----------------------------------------------------------------------


def test_file_summaries_are_cached_until_the_file_changes(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "relocation-memo.txt").write_text(MEMO, encoding="utf-8")
    (folder / "bread.txt").write_text(RECIPE, encoding="utf-8")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("office", [folder])
    index, uid = ws.load_index("office"), ws.record("office").uid
    names = document_names(index)
    key = next(k for k, name in names.items() if name == "relocation-memo.txt")
    assert route_question("summarise the relocation memo", names).document == key
    cache = SummaryCache(tmp_path / "ws" / "summaries")
    llm = FakeLLM(default="first summary", model="m1")
    assert summarize_file(cache, uid, index, key, llm=llm).text == "first summary"
    calls = len(llm.calls)
    assert summarize_file(cache, uid, index, key, llm=llm).text == "first summary"
    assert len(llm.calls) == calls  # cached
    assert summarize_file(cache, uid, index, key).method == "extractive"  # another method
    (folder / "relocation-memo.txt").write_text(MEMO + " Parking is free.", encoding="utf-8")
    ws.ingest("office", [folder])
    index = ws.load_index("office")
    llm.default = "second summary"
    assert summarize_file(cache, uid, index, key, llm=llm).text == "second summary"
    whole = summarize_whole_index(cache, uid, ws.index_version("office").revision, index)
    assert whole.method == "extractive"
    lines = whole.text.splitlines()  # a line per file, so a large file cannot drown the rest
    assert sorted(line.split("**")[1] for line in lines) == ["bread.txt", "relocation-memo.txt"]


# -- the real model on real corpus files --------------------------------------------------------


@pytest.mark.slow
def test_extractive_summary_of_real_documents_with_the_real_model(corpus_dir, real_embedder):
    files = [corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf",
             corpus_dir / "python_peps" / "pep-0020.rst"]
    docs = SimpleDirectoryReader(input_files=files).load_data()
    index = VectorStoreIndex.from_documents(docs, embedder=real_embedder)
    names = document_names(index)
    for key, name in names.items():
        row_ids = [d for d in index.ref_doc_ids() if d.startswith(key)]
        summary = summarize_document(index, key, row_ids, title=name)
        text = summary.text
        assert 200 <= len(text) <= 1200, (name, text)
        nodes_text = " ".join(" ".join(n.text.split()) for d in row_ids
                              for n in index.nodes_for_doc(d))
        # Quoted, in document order, each sentence a whole sentence (a long document's a line
        # per section).
        flat = " ".join(line.removeprefix("- ") for line in text.splitlines())
        sentences = [s.strip() for s in flat.replace("!", ".").split(". ") if s.strip()]
        assert len(sentences) >= 2
        if name.endswith(".pdf"):
            assert "zero trust" in text.lower() or "ZTA" in text
        else:
            assert "Pythoneer" in text or "aphorisms" in text
        assert flat.split()[0] in nodes_text


def test_sentences_leaning_on_the_one_before_are_left_out(fake_embedder):
    text = ("The memo sets the moving date for the whole office. And it was late. "
            "The harbour building has parking for forty cars. But the canteen opens later. "
            "Every team packs its own desks before the move.")
    found = summarize_extractive([text], fake_embedder, max_sentences=3)
    assert found.sentences and not any(s.text.startswith(("And ", "But ")) for s in found.sentences)


def test_an_index_summary_with_a_model_summarises_the_files_summaries(tmp_path, monkeypatch):
    import ragcore.workspace.summaries as summaries

    folder = tmp_path / "docs"
    folder.mkdir()
    for number in range(3):
        (folder / f"note{number}.txt").write_text(f"Note {number}. " + MEMO, encoding="utf-8")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("notes", [folder])
    monkeypatch.setattr(summaries, "INDEX_SUMMARY_FILES", 2)
    llm = FakeLLM(default=lambda messages: "summary" if "note" in messages[-1].content else "?",
                  model="m1")
    cache = SummaryCache(tmp_path / "ws" / "summaries")
    whole = summarize_whole_index(cache, ws.record("notes").uid, 1, ws.load_index("notes"),
                                  llm=llm)
    assert whole.method == "m1" and whole.text.endswith("(From the first 2 of 3 files.)")
    root_prompt = llm.calls[-1][-1].content
    assert "note0.txt" in root_prompt and "note1.txt" in root_prompt
    assert "note2.txt" not in root_prompt


def test_restructured_text_markup_reads_as_plain_text():
    from ragcore.summaries.summarize import tidy

    assert tidy("Docstrings follow :pep:`257` and  a *hanging indent* [#fn-hi]_ is fine.") == \
        "Docstrings follow PEP 257 and a *hanging indent* is fine."
    assert tidy("Avoid ``from m import *`` (see :ref:`imports <imp>`).") == \
        "Avoid `from m import *` (see imports)."


def test_a_sentence_without_a_full_stop_is_set_off_from_the_next(fake_embedder):
    # A slide: its title and its body are two sentences, not "Quarterly review Relocation ...".
    found = summarize_extractive(["Quarterly review\n\nRelocation of the Lisbon office"],
                                 fake_embedder, max_sentences=2, max_chars=60)
    assert found.text == "Quarterly review \u2014 Relocation of the Lisbon office"
    assert len(found.text) <= 60
