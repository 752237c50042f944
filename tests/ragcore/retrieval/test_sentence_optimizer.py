"""SentenceEmbeddingOptimizer: passages cut to the question's closest sentences (a token budget
across passages, or LlamaIndex's percentile and threshold per passage), offsets kept where the
kept text is one run of the document; engines add it for an LLM that reads few tokens fast."""

from __future__ import annotations

import pytest

from ragcore import Document, VectorStoreIndex
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import ConfigError
from ragcore.retrieval.optimizer import GAP, SentenceEmbeddingOptimizer
from ragcore.llms.fake import FakeLLM
from ragcore.tokens import count_tokens
from ragcore.types import Node, ScoredNode

DOC = ("The castle stands on a hill above the river. Its walls are built of grey granite. "
       "Pelicans nest in the east tower every spring. The moat was filled in 1820. "
       "Visitors buy tickets at the gate.")


def scored(text: str, start: int | None = 0, score: float = 0.9) -> ScoredNode:
    end = None if start is None else start + len(text)
    return ScoredNode(Node(text=text, ref_doc_id="castle", start_char=start, end_char=end), score)


def test_the_budget_keeps_the_closest_sentence_with_its_offsets():
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), token_budget=12)
    [kept] = optimizer.postprocess([scored(DOC)], "Where do pelicans nest every spring?")
    assert kept.node.text == "Pelicans nest in the east tower every spring."
    assert DOC[kept.node.start_char:kept.node.end_char] == kept.node.text
    assert kept.score == 0.9


def test_the_budget_spans_passages_and_drops_those_that_keep_nothing():
    other = scored("Bread is baked at dawn. The bakery closes at noon.", start=None)
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), token_budget=30)
    kept = optimizer.postprocess([other, scored(DOC)], "When was the moat filled, and where "
                                                       "do pelicans nest?")
    texts = [k.node.text for k in kept]
    assert len(texts) == 1 and "moat" in texts[0] and "Pelicans" in texts[0]
    assert sum(count_tokens(t) for t in texts) <= 30 + count_tokens(GAP)


def test_sentences_apart_are_joined_with_a_gap_and_lose_their_offsets():
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), token_budget=25)
    [kept] = optimizer.postprocess([scored(DOC)], "castle hill river tickets gate visitors")
    assert GAP in kept.node.text and kept.node.start_char is None
    assert kept.node.text.startswith("The castle") and kept.node.text.endswith("gate.")


def test_at_least_one_sentence_is_kept_whatever_the_budget():
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), token_budget=1)
    assert len(optimizer.postprocess([scored(DOC)], "pelicans")) == 1


def test_percentile_and_context_as_in_llamaindex():
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), percentile_cutoff=0.2,
                                           context_before=1, context_after=1)
    [kept] = optimizer.postprocess([scored(DOC)], "Where do pelicans nest?")
    assert kept.node.text == ("Its walls are built of grey granite. Pelicans nest in the east "
                              "tower every spring. The moat was filled in 1820.")


@pytest.mark.parametrize("options", [{}, {"token_budget": 0}, {"percentile_cutoff": 1.5},
                                     {"token_budget": 10, "context_after": -1}])
def test_bad_settings_say_what_to_give(options):
    with pytest.raises(ConfigError):
        SentenceEmbeddingOptimizer(FakeEmbedder(), **options)


class FewTokensLLM(FakeLLM):
    reading_tokens = 12


def test_engines_cut_the_passages_for_an_llm_that_reads_few_tokens():
    index = VectorStoreIndex.from_documents([Document(text=DOC, doc_id="castle")],
                                            embedder=FakeEmbedder(dim=256))
    question = "Where do pelicans nest every spring?"
    response = index.as_query_engine(llm=FewTokensLLM(), retrieval_mode="similarity").query(question)
    assert [s.node.text for s in response.source_nodes] == [
        "Pelicans nest in the east tower every spring."]
    whole = index.as_query_engine(llm=FakeLLM(), retrieval_mode="similarity").query(question)
    assert whole.source_nodes[0].node.text == DOC


def test_without_an_embedder_sentences_are_ranked_by_the_question_words_they_share():
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=12)
    [kept] = optimizer.postprocess([scored(DOC)], "When was the moat filled?")
    assert kept.node.text == "The moat was filled in 1820."


class CountingEmbedder(FakeEmbedder):
    calls = 0

    def embed_batch(self, texts):
        CountingEmbedder.calls += 1
        return super().embed_batch(texts)


def test_keyword_mode_cuts_passages_without_calling_the_embedding_model():
    embedder = CountingEmbedder(dim=256)
    index = VectorStoreIndex.from_documents([Document(text=DOC, doc_id="castle")],
                                            embedder=embedder)
    CountingEmbedder.calls = 0
    response = index.as_query_engine(llm=FewTokensLLM(), retrieval_mode="keyword").query(
        "Where do pelicans nest every spring?")
    assert [s.node.text for s in response.source_nodes] == [
        "Pelicans nest in the east tower every spring."]
    assert CountingEmbedder.calls == 0


class MeaningOf:
    """An embedder whose similarity to the question is set per sentence (the question is the
    first axis; a sentence's vector leans on it by its given share)."""

    def __init__(self, shares: dict[str, float]) -> None:
        self.shares = shares

    def embed_batch(self, texts):
        import numpy as np

        rows = []
        for text in texts:
            share = self.shares.get(text.strip(), 1.0)
            rows.append([share, (1 - share * share) ** 0.5])
        return np.array(rows)


def test_under_a_budget_the_questions_rare_words_weigh_with_its_meaning():
    # A table row shares the question's rarest word and little of its meaning; the sentence
    # closest in meaning names neither. Meaning alone read the wrong one.
    near = "Network products of this kind are sold by several large companies."
    row = "Snort  Sourcefire  http://www.snort.org/"
    other = "Installing one takes about an hour."
    shares = {near: 0.9, row: 0.3, other: 0.1}
    passage = scored(f"{near}\n{other}\n{row}", start=None)
    budget = SentenceEmbeddingOptimizer(MeaningOf(shares), token_budget=count_tokens(row))
    [kept] = budget.postprocess([passage], "Who is the vendor of Snort?")
    assert kept.node.text == row
    # LlamaIndex's cutoffs keep their meaning: the percentile keeps the closest sentence.
    percentile = SentenceEmbeddingOptimizer(MeaningOf(shares), percentile_cutoff=0.3)
    [kept] = percentile.postprocess([passage], "Who is the vendor of Snort?")
    assert kept.node.text == near


def test_a_word_every_sentence_shares_counts_for_less_than_a_rare_one():
    lines = ["RFC 3986 defines the generic URI syntax.", "RFC 3986 obsoletes RFC 2396.",
             "RFC 3986 names the URI scheme first.", "RFC 3986 allows percent-encoding.",
             "RFC 3986 reserves some characters.", "RFC 3986 resolves relative references.",
             "Updates: 1738"]
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=count_tokens("Updates: 1738"))
    [kept] = optimizer.postprocess([scored("\n".join(lines), start=None)],
                                   "Which RFC does RFC 3986 update?")
    assert kept.node.text == "Updates: 1738"


def test_a_why_question_reads_the_sentence_after_the_one_restating_it():
    """The reason follows the sentence that restates a why (the unseen tune half's crawler:
    "... we need no mutex around changes to shared data ... / There is no preemptive
    multitasking, so ..."); a what question reads the restating sentence alone."""
    text = ("The crawler adds links to seen_urls in its callbacks. With callbacks we need no "
            "mutex around changes to seen_urls. There is no preemptive multitasking, so we "
            "cannot be interrupted at arbitrary points. Visitors buy tickets at the gate.")
    optimizer = SentenceEmbeddingOptimizer(FakeEmbedder(dim=256), token_budget=16)
    [why] = optimizer.postprocess([scored(text)], "Why do callbacks need no mutex around "
                                                  "changes to seen_urls?")
    assert "preemptive multitasking" in why.node.text
    [what] = optimizer.postprocess([scored(text)], "What do callbacks need no mutex around "
                                                   "changes to?")
    assert "preemptive" not in what.node.text
