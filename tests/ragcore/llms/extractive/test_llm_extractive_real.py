"""The extractive answerer with the real packaged model: the failures of issue 9, by meaning.

Slow: loads all-MiniLM-L6-v2 (once per session). The same documents with words alone and the
fake embedder are in test_llm_extractive.py.
"""

from __future__ import annotations

from ragcore.llms.extractive.answer import says_not_found

import pytest

from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import NOT_FOUND, ExtractiveLLM
from ragcore.llms.extractive.text import split_passages
from ragcore.types import Document
from test_llm_extractive import BUDGET, DANGER, MEMO, RESPONSIBLE, TAR_HELP, ask, quoted

pytestmark = pytest.mark.slow

# Another document that names "the main risk" in the question's very words, about something else.
HEALTH = "file_name: health.txt\n\nSmoking is the main risk factor for heart disease.\n"


def test_the_two_part_question_is_answered_part_by_part(real_embedder):
    reply = ask(MEMO, "Who is responsible for moving the servers, and what is the budget?",
                embedder=real_embedder)
    assert quoted(reply) == [RESPONSIBLE, BUDGET]


def test_the_exclude_option_comes_first(real_embedder):
    quotes = quoted(ask(TAR_HELP, "How do I exclude files when creating a tar archive?",
                        embedder=real_embedder))
    assert quotes[0] == "--exclude=PATTERN exclude files, given as a PATTERN"
    assert not any("Usage" in q for q in quotes)


def test_meaning_beats_the_other_documents_matching_words(real_embedder):
    quotes = quoted(ask(MEMO + "\n" + HEALTH, "What is the main risk of the move?",
                        embedder=real_embedder))
    assert quotes == [DANGER]


@pytest.mark.parametrize("question", ["Which vendor supplies the new routers?",
                                      "Who won the 2022 FIFA World Cup?"])
def test_questions_the_memo_does_not_answer_are_not_found(real_embedder, question):
    assert says_not_found(ask(MEMO, question, embedder=real_embedder))


def test_a_query_engine_over_a_real_index_answers_with_the_indexs_model(real_embedder):
    documents = [Document(p.text, doc_id=p.file_name, metadata={"file_name": p.file_name})
                 for p in split_passages(MEMO + "\n" + HEALTH + "\n" + TAR_HELP)]
    index = VectorStoreIndex.from_documents(documents, embedder=real_embedder)
    engine = index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=3)
    answer = engine.query("What is the main risk of the move?").text
    assert quoted(answer)[0] == DANGER
