"""Quotable units and summaries on the real corpus (issue 19): the Rust book's ownership rules,
the Cybersecurity Framework's five Functions, and the summaries of two NIST PDFs.

The candidate and summary tests read the files with ragcore's readers (the summaries over an
index embedded by the fake model); the Framework question is asked of an index of its PDF built
with the real packaged model (slow).
"""

from __future__ import annotations

import re

import pytest

from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM, extractive_reply
from ragcore.llms.extractive.summary import is_debris, outline
from ragcore.llms.extractive.debris import is_filler
from ragcore.llms.extractive.text import candidates, list_unit
from ragcore.types import AnswerRequest
from ragcore.readers import SimpleDirectoryReader
from ragcore.summaries.index import SummaryIndex, summarize_document
from ragcore.workspace.ingest.index_files import files_of

RULES = ["Each value in Rust has an _owner_.", "There can only be one owner at a time.",
         "When the owner goes out of scope, the value will be dropped."]
FUNCTIONS = ("Identify", "Protect", "Detect", "Respond", "Recover")
CSF = "NIST.CSWP.04162018.pdf"
ZTA = "NIST.SP.800-207-ZeroTrustArchitecture.pdf"


def read(path) -> list[str]:
    return [doc.text for doc in SimpleDirectoryReader(input_files=[path]).load_data()]


def test_the_ownership_rules_are_a_list_quoted_whole_with_its_lead_in(corpus_dir):
    (text,) = read(corpus_dir / "rust_book" / "src" / "ch04-01-what-is-ownership.md")
    cands = candidates(text)
    rules = [c for c in cands if c.text in RULES]
    assert [c.text for c in rules] == RULES and all(c.item for c in rules)
    intro, items = list_unit(cands, rules[1].position)
    assert [cands[i].text for i in items] == RULES
    assert cands[intro[-1]].text.endswith("illustrate them:")
    assert rules[0].section == "Ownership Rules"


@pytest.fixture(scope="module")
def csf_pages(corpus_dir) -> list[str]:
    return read(corpus_dir / "nist_pdfs" / CSF)


def test_the_five_functions_come_with_no_filler_around_them(csf_pages):
    page = next(p for p in csf_pages if "Framework Core Functions are defined below" in p)
    cands = candidates(page)
    texts = [c.text for c in cands]
    assert not any(is_filler(t) or "defined below" in t for t in texts)
    assert not any(t.startswith("See Appendix A") for t in texts)
    # The paragraph after the bullet list is prose again, not part of its last item.
    after = next(c for c in cands if c.text.startswith("These Functions are not intended"))
    assert not after.item and after.previous is None


def test_the_sentence_naming_the_five_functions_is_a_candidate(csf_pages):
    texts = [c.text for page in csf_pages for c in candidates(page)]
    named = [t for t in texts if all(f in t for f in FUNCTIONS)]
    assert any(t.startswith("The Framework Core consists of five concurrent") for t in named)


def test_the_outline_of_the_framework_is_its_numbered_sections(csf_pages):
    found = outline([candidates(page) for page in csf_pages])
    assert found.sections == ("Executive Summary", "1.0 Framework Introduction",
                              "2.0 Framework Basics", "3.0 How to Use the Framework",
                              "4.0 Self-Assessing Cybersecurity Risk with the Framework")
    # Appendix A (the Core's table) and the glossary are no section of a summary.
    assert not any(re.search(r"\b[A-Z]{2}\.[A-Z]{2}-\d", s.text) for s in found.sentences)


# -- indexes of the two PDFs --------------------------------------------------------------------


@pytest.fixture(scope="module")
def pdf_index(corpus_dir, fake_embedder_module):
    """Both PDFs, embedded by the fake model: what is quoted depends on the text alone."""
    files = [corpus_dir / "nist_pdfs" / CSF, corpus_dir / "nist_pdfs" / ZTA]
    docs = SimpleDirectoryReader(input_files=files).load_data()
    return VectorStoreIndex.from_documents(docs, embedder=fake_embedder_module)


@pytest.fixture(scope="module")
def fake_embedder_module():
    from ragcore.embeddings.fake import FakeEmbedder

    return FakeEmbedder()


def body_of(index, row) -> str:
    nodes = SummaryIndex.from_index(index, row["doc_ids"]).nodes
    return " ".join(" ".join(n.text.split()) for n in nodes)


@pytest.mark.parametrize("name", [CSF, ZTA])
def test_the_pdf_summaries_are_made_of_body_sentences(pdf_index, name):
    row = next(r for r in files_of(pdf_index) if r["file"] == name)
    summary = summarize_document(pdf_index, row["id_base"], row["doc_ids"], title=name)
    lines = summary.text.splitlines()  # what the app shows for "Summarise <file>"
    assert len(lines) >= 4 and all(line.startswith("- ") for line in lines), summary.text
    found = [line[2:] for line in lines]
    whole = body_of(pdf_index, row)
    for sentence in found:
        assert sentence in whole  # quoted from this file, no other
        assert sentence[-1] in ".!?" and len(sentence.split()) >= 6, sentence
        assert not is_debris(sentence), sentence


def test_summarise_quotes_the_body_of_the_file_most_passages_come_from(pdf_index):
    rows = {r["file"]: r for r in files_of(pdf_index)}
    chunks = {name: SummaryIndex.from_index(pdf_index, rows[name]["doc_ids"]).nodes
              for name in (CSF, ZTA)}
    passages = [(CSF, n.text) for n in chunks[CSF] if "Framework Core" in n.text][:3]
    passages.insert(1, (ZTA, next(n.text for n in chunks[ZTA] if "zero trust" in n.text)))
    context = "\n\n".join(f"file_name: {name}\n\n{text}" for name, text in passages)
    reply = extractive_reply(AnswerRequest("qa", "Summarise", (context,)))
    header, *lines = reply.splitlines()
    assert header.endswith(f"sentences of {CSF}:"), reply
    whole = body_of(pdf_index, rows[CSF])
    assert lines and all(line[2:] in whole and not is_debris(line[2:]) for line in lines)


@pytest.mark.slow
def test_the_five_functions_answer_opens_with_the_sentence_naming_them(corpus_dir, real_embedder):
    docs = SimpleDirectoryReader(input_files=[corpus_dir / "nist_pdfs" / CSF]).load_data()
    index = VectorStoreIndex.from_documents(docs, embedder=real_embedder)
    reply = index.as_query_engine(llm=ExtractiveLLM()).query(
        "What are the five Functions of the Framework Core?").text
    quotes = [line.lstrip(" -") for line in reply.splitlines()[1:]]
    assert all(f in quotes[0] for f in FUNCTIONS), reply
    assert not any(is_filler(q) for q in quotes), reply
