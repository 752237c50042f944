"""KeywordIndex and KeywordRetriever: BM25 against a brute-force reference, k1 and b,
tokenization, filters and doc_ids, and the cache that follows the index's changes."""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.index.keyword import KeywordIndex
from ragcore.search.analysis import terms
from ragcore.retrieval.retrievers import KeywordRetriever, Retriever
from ragcore.stores import MetadataFilter, MetadataFilters
from ragcore.trace import Trace
from ragcore.types import Document, MetadataMode, Node

CORPUS = [
    "The policy decision point (PDP) decides whether a subject may access a resource.",
    "The policy enforcement point enables, monitors and terminates connections.",
    "Risk assessments inform decisions about security policy and risk responses.",
    "Threat sources and threat events are identified during a risk assessment.",
    "Cats chase yarn; kittens chase cats; nobody chases the policy.",
    "Zero trust assumes no implicit trust granted to assets based on network location.",
]


def reference_bm25(texts: list[str], query: str, k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Okapi BM25 written the obvious way, one document and one term at a time."""
    docs = [terms(t) for t in texts]
    n, avg = len(docs), sum(map(len, docs)) / len(docs)
    scores = []
    for doc in docs:
        tf, score = Counter(doc), 0.0
        for t in set(terms(query)):
            df = sum(t in d for d in docs)
            if tf[t]:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * len(doc) / avg))
        scores.append(score)
    return scores


def nodes_of(texts: list[str]) -> list[Node]:
    return [Node(t, node_id=f"n{i}", ref_doc_id=f"d{i}") for i, t in enumerate(texts)]


@pytest.mark.parametrize(
    "query",
    ["What is a policy decision point?", "risk assessment threat", "chase cats", "trust trust"],
)
def test_scores_match_a_brute_force_reference(query):
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    expected = reference_bm25(CORPUS, query)
    assert keywords.scores(query).tolist() == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(("k1", "b"), [(0.0, 0.75), (1.2, 0.0), (2.0, 1.0), (0.9, 0.4)])
def test_k1_and_b_are_per_search_and_match_the_reference(k1, b):
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    query = "policy risk threat chase cats"
    expected = reference_bm25(CORPUS, query, k1=k1, b=b)
    assert keywords.scores(query, k1=k1, b=b).tolist() == pytest.approx(expected, rel=1e-5)
    assert keywords.scores(query).tolist() == pytest.approx(reference_bm25(CORPUS, query))


def test_k1_and_b_change_the_ranking_as_documented():
    texts = ["policy policy policy policy and then some other words", "policy", "cats"]
    keywords = KeywordIndex.build(nodes_of(texts))
    # k1 = 0: repeats count once and b has nothing to scale, so both nodes tie.
    tied = keywords.scores("policy", k1=0.0, b=0.75).tolist()
    assert tied[0] == pytest.approx(tied[1]) and tied[2] == 0
    # No length penalty (b = 0): the node repeating the term wins; full penalty: the short one.
    assert keywords.search("policy", top_k=1, k1=1.2, b=0.0)[0][0] == "n0"
    assert keywords.search("policy", top_k=1, k1=1.2, b=1.0)[0][0] == "n1"


@pytest.mark.parametrize(
    ("k1", "b", "message"),
    [(-0.1, 0.75, "k1 \\(-0.1\\) must be >= 0"), (1.2, 1.5, "b \\(1.5\\) must be between 0"),
     ("1.2", 0.75, "k1 must be a number"), (1.2, None, "b must be a number")],
)
def test_bad_k1_and_b_are_explained(index, k1, b, message):
    with pytest.raises(ConfigError, match=message):
        KeywordRetriever(index, k1=k1, b=b)
    with pytest.raises(ConfigError, match=message):
        KeywordIndex.build(nodes_of(CORPUS)).search("policy", top_k=1, k1=k1, b=b)


def test_keyword_retriever_searches_with_its_k1_and_b(index):
    flat = KeywordRetriever(index, similarity_top_k=6, k1=0.0).retrieve("policy decision risk")
    texts = [r.node.text for r in flat]
    expected = reference_bm25(CORPUS, "policy decision risk", k1=0.0)
    assert [r.score for r in flat] == pytest.approx(
        [expected[CORPUS.index(t)] for t in texts], rel=1e-5
    )
    default = KeywordRetriever(index, similarity_top_k=6).retrieve("policy decision risk")
    assert [r.score for r in default] != pytest.approx([r.score for r in flat])


@given(st.lists(st.text(alphabet="ab AB1_-.,’éİ\n\t(PDP)", max_size=40), min_size=1, max_size=6))
def test_node_lengths_are_the_shared_tokenizer_term_counts(texts):
    keywords = KeywordIndex.build(nodes_of(texts))
    assert keywords.lengths.tolist() == [len(terms(t)) for t in texts]
    query = " ".join(texts[0].split()[:3])
    assert keywords.scores(query).tolist() == pytest.approx(reference_bm25(texts, query), rel=1e-5)


def test_search_ranks_best_first_and_skips_nodes_without_a_shared_term():
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    hits = keywords.search("policy decision point", top_k=10)
    assert hits[0][0] == "n0"
    assert {i for i, _ in hits} == {"n0", "n1", "n2", "n4"}  # the others lack every term
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert keywords.search("quantum chromodynamics", top_k=3) == []


def test_stopwords_are_ignored_and_suffixes_stemmed():
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    assert not keywords.scores("what is the a of and").any()
    # "chasing" and "chased" stem like "chase"/"chases": the cat node matches without the word.
    assert keywords.search("chased", top_k=1)[0][0] == "n4"
    assert keywords.search("connected", top_k=1)[0][0] == "n1"  # "connections" (Snowball)
    assert keywords.search("DECISIONS", top_k=1)[0][0] in {"n0", "n2"}
    assert keywords.search("pdp", top_k=1) == keywords.search("PDP", top_k=1)


def test_metadata_the_embedder_sees_is_searchable_but_excluded_keys_are_not():
    node = Node("Some text.", node_id="x", metadata={"file_name": "zta.pdf", "file_path": "/tmp/q"})
    assert "zta" in node.content(MetadataMode.EMBED)
    keywords = KeywordIndex.build([node, *nodes_of(CORPUS)])
    assert keywords.search("zta", top_k=1)[0][0] == "x"
    assert keywords.search("tmp", top_k=1) == []  # file_path is not embedded, not indexed


def test_search_validates_top_k():
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    with pytest.raises(ConfigError, match="top_k"):
        keywords.search("policy", top_k=0)


def test_empty_index_finds_nothing():
    assert KeywordIndex.build([]).search("policy", top_k=3) == []


# -- the retriever over a VectorStoreIndex -----------------------------------------------------


@pytest.fixture
def index(fake_embedder):
    docs = [
        Document(text, doc_id=f"d{i}", metadata={"topic": "zta" if i < 2 else "other"})
        for i, text in enumerate(CORPUS)
    ]
    return VectorStoreIndex.from_documents(docs, embedder=fake_embedder)


def test_keyword_retriever_is_a_retriever_and_records_its_stage(index):
    retriever = index.as_retriever(mode="keyword", similarity_top_k=2)
    assert isinstance(retriever, KeywordRetriever) and isinstance(retriever, Retriever)
    trace = Trace()
    results = retriever.retrieve("What is a policy decision point?", trace=trace)
    assert results[0].node.ref_doc_id == "d0" and len(results) == 2
    assert [s.name for s in trace.stages] == ["keyword search"]
    detail = trace.stages[0].detail
    assert detail["built index"] is True and detail["hits"][0]["score"] == results[0].score
    trace = Trace()
    retriever.retrieve("policy", trace=trace)
    assert trace.stages[0].detail["built index"] is False  # the postings are reused


def test_keyword_retriever_never_embeds_the_question(index):
    calls = []
    embedder = index.embedder
    original = embedder.embed_batch
    embedder.embed_batch = lambda texts: calls.append(texts) or original(texts)
    index.as_retriever(mode="keyword").retrieve("policy")
    assert calls == []


def test_filters_and_doc_ids_are_respected(index):
    question = "policy decision risk"
    by_topic = index.as_retriever(mode="keyword", similarity_top_k=6, filters={"topic": "other"})
    assert {r.node.ref_doc_id for r in by_topic.retrieve(question)} == {"d2", "d3", "d4"}
    nested = MetadataFilters((MetadataFilter("topic", ["zta"], "in"),))
    zta = KeywordRetriever(index, similarity_top_k=6, filters=nested).retrieve(question)
    assert {r.node.ref_doc_id for r in zta} == {"d0", "d1"}
    some = KeywordRetriever(index, similarity_top_k=6, doc_ids=["d2", "d5", "missing"])
    assert {r.node.ref_doc_id for r in some.retrieve(question)} == {"d2"}
    # Same semantics as the vector store: filters and doc_ids combine.
    vector = index.as_retriever(similarity_top_k=6, filters={"topic": "other"}, doc_ids=["d2"])
    both = KeywordRetriever(index, similarity_top_k=6, filters={"topic": "other"}, doc_ids=["d2"])
    assert [r.node.ref_doc_id for r in both.retrieve(question)] == ["d2"]
    assert [r.node.ref_doc_id for r in vector.retrieve(question)] == ["d2"]


def test_repeated_filters_give_the_same_answer_and_follow_index_changes(index):
    # A filter's row mask is cached per keyword index: the cache must never answer for another
    # filter, for the same filter after a doc_ids restriction, or for an index that changed.
    other = {"topic": "other"}
    first = index.keyword_search("policy decision risk", top_k=6, filters=other)
    assert {h.node.ref_doc_id for h in first} == {"d2", "d3", "d4"}
    again = index.keyword_search("policy decision risk", top_k=6, filters=other)
    assert [(h.node.node_id, h.score) for h in again] == [(h.node.node_id, h.score) for h in first]
    narrowed = index.keyword_search("policy decision risk", top_k=6, filters=other, doc_ids=["d3"])
    assert [h.node.ref_doc_id for h in narrowed] == ["d3"]
    unnarrowed = index.keyword_search("policy decision risk", top_k=6, filters=other)
    assert {h.node.ref_doc_id for h in unnarrowed} == {"d2", "d3", "d4"}
    zta = index.keyword_search("policy decision risk", top_k=6, filters={"topic": "zta"})
    assert {h.node.ref_doc_id for h in zta} == {"d0", "d1"}
    index.insert(Document("Risk policy, revisited.", doc_id="new", metadata={"topic": "other"}))
    after = index.keyword_search("policy decision risk", top_k=6, filters=other)
    assert {h.node.ref_doc_id for h in after} == {"d2", "d3", "d4", "new"}


def test_cache_follows_insert_and_delete(index):
    retriever = index.as_retriever(mode="keyword")
    assert retriever.retrieve("microsegmentation") == []
    built = index.keyword_index()
    assert index.keyword_index() is built  # cached while the index is unchanged
    index.insert(Document("Microsegmentation isolates workloads.", doc_id="new"))
    assert [r.node.ref_doc_id for r in retriever.retrieve("microsegmentation")] == ["new"]
    index.delete_ref_doc("new")
    assert retriever.retrieve("microsegmentation") == []
    index.delete_nodes(index.doc_info("d0").node_ids)
    assert "d0" not in {r.node.ref_doc_id for r in retriever.retrieve("decision point")}
    report = index.refresh_ref_docs([Document("A decision point, refreshed.", doc_id="d0")])
    assert report is not None
    assert report.changed == ["d0"] and report.unchanged == []
    assert retriever.retrieve("refreshed")[0].node.ref_doc_id == "d0"


def test_index_keyword_search_takes_the_same_options_as_vector_search(index):
    hits = index.keyword_search("policy decision", top_k=3, filters={"topic": "zta"})
    assert [h.node.ref_doc_id for h in hits] == ["d0", "d1"]
    assert index.keyword_search("policy", top_k=5, doc_ids=["d4"])[0].node.ref_doc_id == "d4"
    assert index.keyword_search("policy", doc_ids=[]) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"similarity_top_k": 0}, "similarity_top_k"),
        ({"similarity_top_k": True}, "similarity_top_k"),
        ({"doc_ids": "d0"}, "doc_ids"),
        ({"filters": ["topic"]}, "filters"),
    ],
)
def test_bad_options_are_explained(index, options, message):
    with pytest.raises(ConfigError, match=message):
        KeywordRetriever(index, **options)


def test_unknown_mode_lists_the_choices(index):
    with pytest.raises(ConfigError, match="similarity, mmr, keyword, hybrid"):
        index.as_retriever(mode="bm25")


LOAD_SCRIPT = """
import sys
from ragcore.index import VectorStoreIndex
index = VectorStoreIndex.load(sys.argv[1])
assert len(index) > 0
built_at_load = index._state.keywords is not None
index.as_retriever(mode="keyword").retrieve("policy")
print(int(built_at_load), int(index._state.keywords is not None), int("torch" in sys.modules))
"""


def test_loading_an_index_does_not_build_the_keyword_index(index, tmp_path):
    index.keyword_index()  # built here: nothing of it may reach the folder or the next load
    index.persist(tmp_path / "ix")
    out = subprocess.run(
        [sys.executable, "-c", LOAD_SCRIPT, str(tmp_path / "ix")],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout.split()
    assert out == ["0", "1", "0"]  # not at load; on the first keyword query; no model needed


def test_the_index_says_whether_it_holds_a_name_anywhere():
    """The premise check asks it of a question's name the passages found lack: "President" in
    a speech whose retrieved passages never write it (``grounding.located.unmentioned``)."""
    keywords = KeywordIndex.build(nodes_of(CORPUS))
    assert keywords.holds("PDP") and keywords.holds("Zero Trust") and keywords.holds("kittens")
    assert not keywords.holds("etcd") and not keywords.holds("Zero etcd")
    assert not keywords.holds("the")  # no term: nothing to hold
