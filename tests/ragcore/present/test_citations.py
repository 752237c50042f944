"""Citations over real answers: extractive answers mark exactly what they quote, generated
answers mark the sentences that support them and say when nothing does.

Answers are made the way the app and CLI make them: real corpus files indexed with the fake
embedder, ``index.as_query_engine`` with the extractive backend or a scripted ``FakeLLM``.
tests/test_citations_real.py repeats the checks with the real embedding model.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from ragcore import SimpleDirectoryReader, VectorStoreIndex
from ragcore.search.lexical import split_sentences
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.present.quotes import quoted_spans, sentence_spans
from ragcore.present.sources import SourceListing, answer_sources
from ragcore.present.support import (
    NO_SUPPORT,
    NOT_QUOTED,
    QUOTED,
    SUPPORTS,
    cite,
    is_extractive,
    supporting_spans,
)

QUESTIONS = [
    "When should tabs be used for indentation?",
    "What is the maximum line length?",
    "How should imports be grouped?",
    "What are the reserved characters of a URI?",
    "How is a relative reference resolved?",
]
TABS = ("Tabs should be used solely to remain consistent with code that is already indented "
        "with tabs.")


def flat(text: str) -> str:
    """Words only, lower case, one space apart: how quotes are compared (spacing ignored)."""
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def marked(listing: SourceListing) -> list[tuple[str, list[str]]]:
    """(passage text, marked texts) of every listed source."""
    return [
        (s.scored.node.text, [s.scored.node.text[a:b] for a, b in s.use.spans])
        for s in listing.shown + listing.hidden
    ]


def look_alikes(passage: str, answer: str) -> list[str]:
    """Sentences of ``passage`` the answer does not quote although most of their words are in
    it: what the old 60 %-of-words rule highlighted ('--exclude-tag=FILE')."""
    answer_words = set(re.findall(r"\w{3,}", answer.lower()))
    found = []
    for start, end in sentence_spans(passage):
        sentence = passage[start:end]
        words = re.findall(r"\w{3,}", sentence.lower())
        shared = sum(w in answer_words for w in words)
        if len(words) >= 3 and shared / len(words) >= 0.6 and flat(sentence) not in flat(answer):
            found.append(sentence)
    return found


@pytest.fixture(scope="module")
def index(corpus_dir):
    from ragcore.embeddings.fake import FakeEmbedder

    files = [corpus_dir / "python_peps" / "pep-0008.rst", corpus_dir / "rfcs" / "rfc3986.txt"]
    documents = SimpleDirectoryReader(input_files=files).load_data()
    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


def extractive_answer(index, question: str, mode: str, retrieval_mode: str):
    engine = index.as_query_engine(llm=ExtractiveLLM(), response_mode=mode, similarity_top_k=4,
                                   retrieval_mode=retrieval_mode)
    response = engine.query(question)
    listing = answer_sources(response.text, response.source_nodes, retrieval_mode=retrieval_mode,
                             extractive=is_extractive(response.trace), embedder=index.embedder)
    return response, listing


# -- extractive answers ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["compact", "refine", "tree_summarize"])
@pytest.mark.parametrize("retrieval_mode", ["similarity", "keyword"])
def test_extractive_answers_mark_exactly_the_quoted_sentences(index, mode, retrieval_mode):
    checked_quotes = look_alike_count = 0
    for question in QUESTIONS:
        response, listing = extractive_answer(index, question, mode, retrieval_mode)
        answer = flat(response.text)
        for passage, texts in marked(listing):
            # Nothing is marked that the answer does not quote word for word.
            assert all(flat(text) in answer for text in texts), (question, texts)
            # Every answer sentence found in the passage is marked there.
            for sentence in split_sentences(response.text):
                if len(flat(sentence).split()) >= 3 and flat(sentence) in flat(passage):
                    checked_quotes += 1
                    assert any(flat(sentence) in flat(t) for t in texts), (question, sentence)
            # Sentences sharing most of the answer's words but not quoted stay unmarked.
            for sentence in look_alikes(passage, response.text):
                look_alike_count += 1
                assert not any(flat(sentence) in flat(t) for t in texts), (question, sentence)
    assert checked_quotes >= len(QUESTIONS)  # the answers did quote the passages
    assert look_alike_count >= 1  # and the look-alike case really occurred


def test_extractive_sources_say_whether_they_were_quoted(index):
    used, unused = set(), set()
    for question in QUESTIONS:
        response, listing = extractive_answer(index, question, "compact", "similarity")
        assert is_extractive(response.trace)
        for source in listing.shown + listing.hidden:
            (used if source.use.used else unused).add(source.use.note)
        assert listing.unsupported == () and listing.measure == ""
    assert used == {QUOTED} and unused == {NOT_QUOTED}


def test_a_quote_wrapped_over_lines_is_marked_whole_and_a_look_alike_is_not():
    passage = (
        "Use --exclude-tag=FILE to skip directories that contain FILE,\n"
        "    but keep the tag file itself.\n\n"
        "Use --exclude-caches to skip directories that contain a cache tag file."
    )
    answer = "The most relevant sentences:\n- Use --exclude-caches to skip directories that " \
             "contain a cache tag file."
    spans = quoted_spans(passage, answer)
    assert [passage[a:b] for a, b in spans] == [
        "Use --exclude-caches to skip directories that contain a cache tag file."]
    wrapped = "- Use --exclude-tag=FILE to skip directories that contain FILE, but keep the " \
              "tag file itself."
    assert [passage[a:b] for a, b in quoted_spans(passage, wrapped)] == [
        "Use --exclude-tag=FILE to skip directories that contain FILE,\n"
        "    but keep the tag file itself."]


def test_a_quote_cut_short_by_the_answerer_is_marked_as_far_as_it_goes():
    sentence = ("For flowing long blocks of text with fewer structural restrictions (docstrings or "
                "comments), the line length should be limited to 72 characters.")
    passage = f"Limit all lines to a maximum of 79 characters.\n\n{sentence}"
    answer = "- For flowing long blocks of text with fewer structural restrictions ..."
    assert [passage[a:b] for a, b in quoted_spans(passage, answer)] == [
        "For flowing long blocks of text with fewer structural restrictions"]


def test_a_quote_cut_by_the_chunk_edge_is_marked_where_the_chunk_holds_it():
    quote = "Limit all lines to a maximum of seventy nine characters in every module."
    starts_inside = "of seventy nine characters in every module. Then comes another sentence."
    ends_inside = "An earlier sentence here. Limit all lines to a maximum of"
    assert [starts_inside[a:b] for a, b in quoted_spans(starts_inside, quote)] == [
        "of seventy nine characters in every module."]
    assert [ends_inside[a:b] for a, b in quoted_spans(ends_inside, quote)] == [
        "Limit all lines to a maximum of"]
    assert quoted_spans("to a maximum of nine", quote) == []  # its words, not in its order


# -- generated answers -------------------------------------------------------------------------


# Restates TABS in partly other words (lexical score 0.71).
PARAPHRASE = "Use tabs only to stay consistent with code that is already indented with tabs."
# Invented, on the topic of the passages: shares words with "Use 4 spaces per indentation
# level." (lexical score 0.41) but says something else.
INVENTED = "PEP 8 recommends using two spaces per indentation level."


def generated_listing(index, reply: str, *, embedder=None, question=QUESTIONS[0]):
    engine = index.as_query_engine(llm=FakeLLM([reply]), similarity_top_k=4,
                                   retrieval_mode="keyword")
    response = engine.query(question)
    assert not is_extractive(response.trace)
    return response, answer_sources(response.text, response.source_nodes,
                                    retrieval_mode="similarity", extractive=False,
                                    embedder=embedder)


def test_a_paraphrase_is_supported_and_an_invented_claim_is_reported(index):
    _, listing = generated_listing(index, f"Sure, gladly. {PARAPHRASE} {INVENTED}")
    sources = listing.shown + listing.hidden
    supporting = [(s, texts) for s, (_, texts) in zip(sources, marked(listing)) if texts]
    assert len(supporting) == 1
    source, texts = supporting[0]
    assert [flat(t) for t in texts] == [flat(TABS)]  # only the restated sentence is marked
    assert source.use.note == SUPPORTS
    assert {s.use.note for s in sources if s is not source} == {NO_SUPPORT}
    assert listing.unsupported == (INVENTED,)
    assert "shared words" in listing.measure


def test_sentences_resembling_a_claim_less_than_its_best_match_are_not_marked(index):
    # "Spaces are the preferred indentation method." and "Python disallows mixing tabs and
    # spaces for indentation." share words with the claim; only the restated sentence counts.
    _, listing = generated_listing(index, PARAPHRASE)
    texts = [t for _, ts in marked(listing) for t in ts]
    assert [flat(t) for t in texts] == [flat(TABS)]


def test_an_answer_of_inventions_only_has_no_supporting_passage(index):
    _, listing = generated_listing(index, INVENTED + " It was later translated into Latin verse.")
    sources = listing.shown + listing.hidden
    assert sources and all(s.use.note == NO_SUPPORT and not s.use.spans for s in sources)
    assert len(listing.unsupported) == 2


def test_a_generated_answer_quoting_a_sentence_marks_the_quote(index):
    _, listing = generated_listing(index, f"As PEP 8 puts it, t{TABS[1:]}")
    quoting = [s for s in listing.shown + listing.hidden if s.use.used]
    assert [s.use.note for s in quoting] == [QUOTED]
    texts = [quoting[0].scored.node.text[a:b] for a, b in quoting[0].use.spans]
    assert [flat(t) for t in texts] == [flat(TABS)]
    assert listing.unsupported == ()


def test_support_by_embeddings_uses_the_threshold_and_one_batch():
    class Recorder:
        """Embeds by a fixed table, so the similarities are known; records each batch."""

        model_name = "table"

        def __init__(self, table):
            self.table, self.batches = table, []

        def embed_batch(self, texts):
            import numpy as np

            self.batches.append(list(texts))
            return np.array([self.table[t] for t in texts], dtype="float32")

    claim = "Cats sleep most of the day long."
    near = "Cats doze for most hours."  # cosine 0.8 with the claim
    far = "Dogs bark at the mail carrier."  # cosine 0.6
    embedder = Recorder({claim: [1.0, 0.0], near: [0.8, 0.6], far: [0.6, 0.8]})
    citations = cite(claim, [near, far], extractive=False, embedder=embedder)
    assert [u.spans for u in citations.sources] == [((0, len(near)),), ()]
    assert [u.note for u in citations.sources] == [SUPPORTS, NO_SUPPORT]
    assert len(embedder.batches) == 1 and "table" in citations.measure
    embedder.table[near] = [0.7, 0.714]  # cosine 0.70: under the threshold
    citations = cite(claim, [near, far], extractive=False, embedder=embedder)
    assert citations.unsupported == (claim,)
    assert [u.note for u in citations.sources] == [NO_SUPPORT, NO_SUPPORT]


def test_only_the_best_supporting_sentence_and_its_copies_are_marked():
    scores = {"Best match here.": 0.9, "Copy of the best.": 0.9, "Close second one.": 0.8}
    sentences = list(scores)
    found, unsupported = supporting_spans(
        ["The claim itself."], [" ".join(sentences)],
        similarity=lambda claims, texts: np.array([[scores[t] for t in texts]]),
        threshold=0.75,
    )
    text = " ".join(sentences)
    # 0.8 clears the threshold but falls short of the best match by more than the margin.
    assert [text[a:b] for a, b in found[0]] == ["Best match here.", "Copy of the best."]
    assert unsupported == []


def test_is_extractive_reads_live_and_saved_traces():
    saved = {"llm_calls": [{"model": "extractive"}, {"model": "extractive"}]}
    assert is_extractive(saved)
    assert not is_extractive({"llm_calls": [{"model": "extractive"}, {"model": "llama3"}]})
    assert not is_extractive({"llm_calls": []})  # no call: nothing was quoted
    assert not is_extractive(None)
