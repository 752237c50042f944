"""English analysis for keyword search: Snowball stemming, stopwords, and that the keyword
index uses it (words the light stemmer of ``ragcore.search.lexical`` kept apart now match)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ragcore.search import analysis
from ragcore.search.analysis import STOPWORDS, stem, term, terms
from ragcore.errors import ConfigError
from ragcore.index.keyword import KeywordIndex
from ragcore.types import Node


@pytest.mark.parametrize(
    ("words", "stem_"),
    [
        (("running", "runs", "run"), "run"),
        (("policies", "policy", "Policy"), "polici"),
        (("connection", "connected", "connecting", "connections"), "connect"),
        (("generously", "generous"), "generous"),
        (("decisions", "decision"), "decis"),
    ],
)
def test_inflections_share_one_term(words, stem_):
    assert {term(w) for w in words} == {stem_}


def test_stem_is_the_snowball_english_stemmer():
    # Porter2 results the light suffix stripper gets wrong ("runn", "generously").
    assert [stem(w) for w in ("running", "generously", "happiness", "agreed")] == [
        "run", "generous", "happi", "agre",
    ]


def test_stopwords_and_single_letters_are_dropped_numbers_kept():
    assert terms("What is the policy of a PDP in 2022, and why was it x?") == [
        "polici", "pdp", "2022",
    ]
    assert terms("the THE The") == []
    assert terms("7 of 9") == ["7", "9"]
    # Snowball's list, not the extractive answerer's question words: "tell" and "explain"
    # are words a passage can match.
    assert {"the", "which", "because", "themselves"} <= STOPWORDS
    assert terms("tell explain") == ["tell", "explain"]


def test_terms_accepts_another_analyzer():
    assert terms("Running dogs", analyzer=str.upper) == ["RUNNING", "DOGS"]


def test_keyword_search_matches_inflections_the_light_stemmer_missed():
    nodes = [
        Node("She gave generously to the connections fund.", node_id="gift"),
        Node("Dogs bark at the mail carrier.", node_id="dogs"),
        Node("A running total of policies.", node_id="total"),
    ]
    keywords = KeywordIndex.build(nodes)
    assert [i for i, _ in keywords.search("generous connected", top_k=3)] == ["gift"]
    assert [i for i, _ in keywords.search("run a policy", top_k=3)] == ["total"]
    assert keywords.search("the of a", top_k=3) == []  # stopwords alone match nothing


def test_a_missing_stemmer_is_explained(monkeypatch):
    analysis._stem_word.cache_clear()
    analysis.term.cache_clear()
    monkeypatch.setitem(sys.modules, "Stemmer", None)  # None in sys.modules: ImportError
    monkeypatch.setitem(sys.modules, "snowballstemmer", None)
    try:
        with pytest.raises(ConfigError, match="pip install PyStemmer"):
            stem("running")
    finally:
        analysis._stem_word.cache_clear()
        analysis.term.cache_clear()


def test_importing_ragcore_does_not_load_the_stemmer():
    script = (
        "import sys, ragcore, ragcore.index, ragcore.retrieval.retrievers, "
        "ragcore.search.analysis; "
        "print('Stemmer' in sys.modules, 'snowballstemmer' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["False", "False"]
