"""Citations with the real packaged embedding model (all-MiniLM-L6-v2): slow.

Extractive answers mark exactly their quotes under real retrieval; generated answers are
checked for support by meaning, which finds a restatement in other words that the lexical
measure misses, and the support threshold separates restatements from invented claims on the
examples it was chosen from (see ``EMBEDDING_SUPPORT``).
"""

from __future__ import annotations

import re

import pytest

from ragcore import SimpleDirectoryReader, VectorStoreIndex
from ragcore.search.lexical import split_sentences
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.present.sources import answer_sources
from ragcore.present.support import (
    EMBEDDING_SUPPORT,
    NO_SUPPORT,
    SUPPORTS,
    embedding_similarity,
    is_extractive,
)

pytestmark = pytest.mark.slow

TABS = ("Tabs should be used solely to remain consistent with code that is already indented "
        "with tabs.")
# A restatement sharing few words with the source (lexical score 0.31) and an invented claim.
RESTATED = ("You should only use tabs to stay consistent with existing code that already uses "
            "tab indentation.")
INVENTED = "PEP 8 requires every module to start with a license header written in Latin."


def flat(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


@pytest.fixture(scope="module")
def index(corpus_dir, real_embedder):
    files = [corpus_dir / "python_peps" / "pep-0008.rst"]
    return VectorStoreIndex.from_documents(SimpleDirectoryReader(input_files=files).load_data(),
                                           embedder=real_embedder)


def test_extractive_answers_mark_exactly_their_quotes(index):
    quotes = 0
    for question in ["When should tabs be used for indentation?",
                     "What is the maximum line length?", "How should imports be grouped?"]:
        response = index.as_query_engine(llm=ExtractiveLLM()).query(question)
        listing = answer_sources(response.text, response.source_nodes,
                                 retrieval_mode="similarity",
                                 extractive=is_extractive(response.trace),
                                 embedder=index.embedder)
        for source in listing.shown + listing.hidden:
            text = source.scored.node.text
            marks = [text[a:b] for a, b in source.use.spans]
            assert all(flat(m) in flat(response.text) for m in marks), marks
            for sentence in split_sentences(response.text):
                if len(flat(sentence).split()) >= 3 and flat(sentence) in flat(text):
                    quotes += 1
                    assert any(flat(sentence) in flat(m) for m in marks), sentence
    assert quotes >= 3


def test_a_restatement_in_other_words_is_supported_by_meaning_only(index):
    engine = index.as_query_engine(llm=FakeLLM([f"{RESTATED} {INVENTED}"]))
    response = engine.query("When should tabs be used for indentation?")

    def listing(embedder):
        return answer_sources(response.text, response.source_nodes, retrieval_mode="similarity",
                              extractive=False, embedder=embedder)

    by_meaning = listing(index.embedder)
    used = [s for s in by_meaning.shown if s.use.used]
    assert [s.use.note for s in used] == [SUPPORTS]
    marks = [used[0].scored.node.text[a:b] for a, b in used[0].use.spans]
    assert [flat(m) for m in marks] == [flat(TABS)]
    assert by_meaning.unsupported == (INVENTED,)
    assert "all-MiniLM-L6-v2" in by_meaning.measure
    by_words = listing(None)  # the strict lexical measure misses the restatement
    assert by_words.unsupported == (RESTATED, INVENTED)
    assert {s.use.note for s in by_words.shown + by_words.hidden} == {NO_SUPPORT}


@pytest.mark.parametrize(
    "claim, source, supported",
    [
        (RESTATED, TABS, True),
        ("Lines should be no longer than 79 characters.",
         "Limit all lines to a maximum of 79 characters.", True),
        ("Python does not allow tabs and spaces to be mixed for indentation.",
         "Python disallows mixing tabs and spaces for indentation.", True),
        ("Lines may be up to 120 characters long in new code.",
         "Limit all lines to a maximum of 79 characters.", False),
        (INVENTED, "Code in the core Python distribution should always use UTF-8.", False),
    ],
)
def test_the_support_threshold_separates_restatements_from_inventions(
    real_embedder, claim, source, supported
):
    score = float(embedding_similarity(real_embedder)([claim], [source])[0, 0])
    assert (score >= EMBEDDING_SUPPORT) is supported, score
