"""The offline answerer on the real corpus with the real model (issue 19): the questions a new
user asked in the app, answered as a person would (slow: one workspace index of three files,
built as the app builds it)."""

from __future__ import annotations

import pytest

from pathlib import Path

from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.extractive.answer import says_not_found, short_answer_of
from ragcore.workspace import Workspace

pytestmark = pytest.mark.slow

FILES = ("sherlock_holmes_xhtml/a-scandal-in-bohemia.xhtml",
         "sherlock_holmes_xhtml/a-case-of-identity.xhtml",
         "rust_book/src/ch04-01-what-is-ownership.md")
RULES = ["Each value in Rust has an _owner_.", "There can only be one owner at a time.",
         "When the owner goes out of scope, the value will be dropped."]


@pytest.fixture(scope="module")
def engine(corpus_dir, tmp_path_factory):
    """The files uploaded and indexed as the app's Upload page does, asked as its Query page
    asks (4 passages, hybrid search)."""
    ws = Workspace(tmp_path_factory.mktemp("corpus-short") / "ws")
    uploads = [ws.save_upload("reading", Path(f).name, (corpus_dir / f).read_bytes())
               for f in FILES]
    assert ws.ingest("reading", uploads).failed == 0
    index = ws.load_index("reading")
    return index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=4, retrieval_mode="hybrid")


def test_who_is_the_woman_holmes_admires_names_irene_adler(engine):
    reply = engine.query("Who is the woman Sherlock Holmes admires?").text
    assert short_answer_of(reply) == "Irene Adler", reply
    assert len(reply.split()) <= 60, reply  # the name, then the one sentence it comes from


def test_the_ownership_rules_are_quoted_as_the_list_they_are(engine):
    reply = engine.query("What are the ownership rules in Rust?").text
    assert short_answer_of(reply) is None
    items = [line.strip()[2:] for line in reply.splitlines() if line.startswith("  - ")]
    assert items == RULES, reply


def test_a_question_the_stories_do_not_answer_is_not_found(engine):
    reply = engine.query("What is the boiling point of liquid nitrogen?").text
    assert says_not_found(reply), reply
