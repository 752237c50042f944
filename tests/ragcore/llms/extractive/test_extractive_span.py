"""Short answers (issue 19): what kind of phrase a question wants, which phrases a sentence
offers, and the learned scorer picking one (the shipped weights, no model needed)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.extractive.answer import (
    answer, not_found_threshold, short_answer_of,
)
from ragcore.llms.extractive.model import WEIGHTS_FILE, load_weights, read, variant
from ragcore.llms.extractive.rank import Scorer
from ragcore.llms.extractive.text import candidates
from ragcore.llms.extractive.question import asks_one_thing
from ragcore.llms.extractive.span import answer_type, shape, spans, tokens


@pytest.mark.parametrize("question, kind", [
    ("Who made Ralph earl?", "person"),
    ("Who is the woman Sherlock Holmes admires?", "person"),
    ("When did Ronald Robinson die?", "date"),
    ("In what year did the English take over New Amsterdam?", "date"),
    ("Where was Chopin born?", "place"),
    ("Which city hosted the games?", "place"),
    ("How many institutions does the system have?", "number"),
    ("How long is the Staten Island Ferry route?", "quantity"),
    ("What is the common name for the technology sector?", "name"),
    ("Which instrument did Chopin play?", "entity"),
    ("Why did Chopin want his body opened?", None),
    ("How does the borrow checker work?", None),
    ("What are the ownership rules in Rust?", None),
    ("What are the five Functions of the Framework Core?", None),
    ("What is ownership?", None),
    ("Summarise the document", None),
    # a verb in -s or a count the question only mentions asks for no list
    ("Which actor plays the role of Mr. Hinx?", "person"),
    ("Which company is Danjaq, LLC associated with?", "person"),  # names an organisation
    ("Who was the last person to direct two James Bond movies in a row?", "person"),
    ("What is the name of the solar car race held every two years?", "name"),
    ("Which process turns light into sugar?", "entity"),
    # a plural after "which", or a count asked for, does
    ("Which countries signed the treaty?", None),
    ("Which HTTP methods are safe?", None),
    ("What two forms of humor are found in the novel?", None),
    ("Who were two visitors to Chopin while in Nohant?", None),
])
def test_the_question_says_what_kind_of_phrase_answers_it(question, kind):
    assert answer_type(question) == kind


def test_phrases_start_and_end_on_content_words_and_keep_names_and_numbers_whole():
    toks = tokens("Beyoncé was born on September 4, 1981, in Houston, Texas.")
    texts = {" ".join(t.text for t in toks[s.first: s.last + 1]) for s in spans(toks)}
    assert "September 4 , 1981" in texts and "Houston , Texas" in texts and "Houston" in texts
    assert not any(t.split()[0] in ("was", "on", "in") for t in texts)  # function words
    assert not any(t.split()[-1] in ("on", "in", ",") for t in texts)
    assert shape(toks[4:8]) == "date" and shape(toks[10:11]) == "name"
    assert shape(tokens("1981")) == "year" and shape(tokens("42 percent")) == "percent"


@pytest.mark.parametrize("sentence, cut, whole", [
    ("The prize went to Eric F. Wieschaus in 1995.", "Eric F", "Eric F. Wieschaus"),
    ("He played J.S. Bach's preludes every day.", "J.S", "J.S. Bach's preludes"),
    ("His last work was the Barcarolle Op. 60 in F sharp.", "Barcarolle Op", "Barcarolle Op. 60"),
    ("The store opened on November 19, 2006 in Tokyo.", "November 19", "November 19, 2006"),
])
def test_a_phrase_does_not_stop_inside_a_name_or_a_date(sentence, cut, whole):
    toks = tokens(sentence)
    phrases = {sentence[toks[s.first].start:toks[s.last].end] for s in spans(toks)}
    assert whole in phrases and cut not in phrases


def test_a_range_of_years_is_one_phrase():
    sentence = "Father John Augustine Zahm (1851\u20131921) taught science."
    toks = tokens(sentence)
    assert "1851\u20131921" in {sentence[toks[s.first].start:toks[s.last].end] for s in spans(toks)}


def test_an_initialism_before_a_lower_case_word_is_a_phrase():
    toks = tokens("Sales grew in the U.S. and Canada.")
    assert "U.S" in {" ".join(t.text for t in toks[s.first:s.last + 1]) for s in spans(toks)}


def test_a_title_or_a_pronoun_alone_is_no_phrase():
    toks = tokens("I saw Mr. Sherlock Holmes at Baker Street.")
    texts = {" ".join(t.text for t in toks[s.first: s.last + 1]) for s in spans(toks)}
    assert "Mr. Sherlock Holmes" in texts and "Sherlock Holmes" in texts
    assert "Mr." not in texts and "I" not in texts and "Mr" not in texts


def test_a_sentence_adverb_is_no_phrase():
    toks = tokens("Surely the code was inherited by all Southerners.")
    texts = {" ".join(t.text for t in toks[s.first: s.last + 1]) for s in spans(toks)}
    assert "Southerners" in texts and "code" in texts
    assert not any(t.split()[0] == "Surely" for t in texts)


@pytest.mark.parametrize("question, one", [
    ("In the 1880s, who constructed the first solar cell?", True),  # a lead-in asks nothing
    ("According to Sheriff Tate's story, how did Ewell die?", True),
    ("Who rescued Scout and Jem?", True),  # one rescuer of both
    ("Which reviewer called the book melodramatic and contrived?", True),
    ("In which direction were the buildings built by the Greeks and Chinese facing?", True),
    ("How old were Officer Wilbert Mora and Officer Jason Rivera?", False),  # two ages
    ("What do the HTTP status codes 403 Forbidden and 503 Service Unavailable mean?", False),
    ("What happens on integer overflow in a debug build and in a release build?", False),
    ("Who is responsible for the move, and what is the budget?", False),
])
def test_whether_one_phrase_can_answer_the_question(question, one):
    assert asks_one_thing(question) is one


def test_a_lead_in_clause_does_not_stop_a_short_answer():
    reply = answer(PASSAGE, "In 1888, where did Holmes live?", limit=3)
    assert short_answer_of(reply) in PLACES, reply


@pytest.mark.parametrize("pep, missing", [("8", 0.0), ("9", 1.0)])
def test_a_name_of_the_file_counts_as_mentioned_but_a_changed_number_does_not(pep, missing):
    context = ("file_name: pep-0008.rst\n\nUse 4 spaces per indentation level. "
               "Continuation lines should align wrapped elements.")
    scorer = Scorer(candidates(context), None)
    question = f"How many spaces per indentation level does PEP {pep} recommend?"
    assert read(scorer, question, scorer.scores(question)).missing["missing_names"] == missing


def test_the_words_of_a_heading_above_a_sentence_count_as_mentioned():
    context = "# The Zen of Python\n\nBeautiful is better than ugly. Explicit beats implicit."
    scorer = Scorer(candidates(context), None)
    question = "What are the first aphorisms of the Zen of Python?"
    assert read(scorer, question, scorer.scores(question)).missing["missing_names"] == 0.0


def test_a_name_whose_words_never_stand_together_in_the_passages_counts_as_missing():
    context = ("Twilight Princess was released by Nintendo in 2006. Its enemies are smarter "
               "than those of Ocarina of Time, and Midna guides Link.")
    scorer = Scorer(candidates(context), None)

    def missing(name: str) -> dict[str, float]:
        question = f"In what year was {name} released?"
        return read(scorer, question, scorer.scores(question)).missing

    for right, mixed in (("Twilight Princess", "Twilight Enemies"),
                         ("Ocarina of Time", "Midna of Time"),
                         ("Nintendo Twilight Princess", "Midna of Time")):  # named more fully
        assert missing(right)["missing_name_pairs"] == 0.0
        assert missing(mixed)["missing_name_pairs"] == 1.0
        assert missing(mixed)["missing_pairs_share"] > missing(right)["missing_pairs_share"]
        assert missing(mixed)["missing_names"] == missing(right)["missing_names"] == 0.0
    # a name at the question's start is read after its first word, whose capital is the
    # sentence's: "Which Twilight Enemies ...?" mixes a name, "Twilight Princess was ...?" not
    opening = read(scorer, "Which Twilight Enemies were released?", [1.0, 0.5]).missing
    assert opening["missing_name_pairs"] == 1.0
    started = read(scorer, "Twilight Princess was released when?", [1.0, 0.5]).missing
    assert started["missing_name_pairs"] == 0.0


def test_the_weights_are_data_with_their_source_written_down():
    weights = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert "SQuAD 2.0 training split" in weights["source"]
    for which in ("semantic", "lexical"):
        assert weights["span"][which] and 0 < weights["found"][which]["threshold"] < 1
    assert variant(None) == "lexical" and variant(FakeEmbedder()) == "lexical"
    assert not_found_threshold() == load_weights()["found"]["lexical"]["threshold"]


PASSAGE = (
    "file_name: bohemia.txt\n\n"
    "To Sherlock Holmes she is always the woman. I have seldom heard him mention her under any "
    "other name. And yet there was but one woman to him, and that woman was the late Irene "
    "Adler, of dubious and questionable memory. Holmes lived at Baker Street in London in "
    "1888 with Doctor Watson."
)


PLACES = ("Baker Street", "Baker Street in London")  # either says where he lived


@pytest.mark.parametrize("question, shorts", [
    ("Who was the one woman to Holmes?", ("Irene Adler",)),
    ("In what year did Holmes live at Baker Street?", ("1888",)),
    ("Where did Holmes live?", PLACES),
])
def test_a_factoid_question_gets_a_bold_short_answer_then_the_sentence_it_comes_from(
        question, shorts):
    notes: dict = {}
    reply = answer(PASSAGE, question, limit=3, notes=notes)
    short = short_answer_of(reply)
    assert short in shorts, reply
    lines = reply.splitlines()
    assert lines[0].endswith(f"**{short}**") and len(lines) == 2
    assert short in lines[1] and lines[1].startswith("- ")
    assert notes["answer_score"] >= not_found_threshold() and "[score" not in reply


def test_a_question_the_passage_does_not_touch_is_not_found_with_its_score():
    notes: dict = {}
    reply = answer(PASSAGE, "What is the boiling point of mercury in kelvin?", limit=3,
                   notes=notes)
    assert "not found" in reply.splitlines()[0] and "[score" not in reply
    assert notes["answer_score"] < not_found_threshold()


def test_the_phrase_most_likely_readings_agree_on_wins_over_the_best_scored_one():
    """Minimum Bayes risk under token F1: "Madonna and Celine Dion" holds most of the weight of
    "Celine Dion" (scored best) and "Madonna" (scored close), so the whole pair is the answer."""
    from ragcore.llms.extractive.model import best_phrase
    from ragcore.llms.extractive.span import Span

    toks = tokens("Madonna and Celine Dion were paid the most")
    rows = [(0, toks, span, {"score": value}) for span, value in
            ((Span(2, 3), 1.0), (Span(0, 3), 0.9), (Span(0, 0), 0.8), (Span(5, 5), 0.0))]
    best, probability, margin = best_phrase(rows, {"score": 1.0})
    assert rows[best][2] == Span(0, 3)
    assert probability == pytest.approx(1.0 / sum(math.exp(v - 1.0) for v in (1.0, 0.9, 0.8, 0.0)))
    assert margin == pytest.approx(0.1)  # what the answer model reads: the best-scored row's


@pytest.mark.parametrize("question, words", [
    ("Which Indie band said Beyonce was an inspiration?", "Indie band"),
    ("What was the nationality of anthropologist Peg LeVine?", "nationality"),
    ("What was the name of Giovanni da Verrazzano's ship?", "Giovanni"),
    ("In which decade did Beyonce become famous?", "decade"),
    ("Who managed the group?", "person"),
    ("When did Chopin die?", "date year"),
    ("What did many families lose in the earthquake?", "many families"),
])
def test_the_words_that_say_what_kind_of_thing_answers(question, words):
    from ragcore.llms.extractive.span import type_words

    assert type_words(question, answer_type(question)) == words


def test_the_second_stage_rescores_the_best_phrases_by_their_meaning_against_the_type_words():
    """"What was the nationality ...?": of the first stage's best phrases, the one whose
    meaning is closest to "nationality" gains by the second stage's weight on ``type_sim``."""
    from ragcore.llms.extractive.model import TYPED_CANDIDATES, best_phrase, typed_rows
    from ragcore.llms.extractive.span import Span

    toks = tokens("The term was coined by an Australian anthropologist")
    rows = [(0, toks, Span(k, k), {"score": 1.0 - 0.01 * k}) for k in range(len(toks))]
    texts = [t.text for t in toks]
    meaning = {"nationality": [1.0, 0.0], "Australian": [0.8, 0.6]}

    def embed(batch):
        return [np.array(meaning.get(text, [0.0, 1.0])) for text in batch]

    question = "What was the nationality of anthropologist Peg LeVine?"
    top, typed = typed_rows(rows, texts, {"score": 1.0}, question, "entity", embed)
    assert top == list(range(min(len(rows), TYPED_CANDIDATES)))  # best first by the first stage
    sims = {texts[i]: row[3]["type_sim"] for i, row in zip(top, typed)}
    assert sims["Australian"] == pytest.approx(0.8) and sims["term"] == 0.0
    assert typed[0][3]["entity|type_sim"] == typed[0][3]["type_sim"]
    best, *_ = best_phrase(typed, {"score": 1.0, "type_sim": 5.0})
    assert texts[top[best]] == "Australian"
    assert texts[best_phrase(rows, {"score": 1.0})[0]] != "Australian"


def test_the_answerer_rescores_its_best_phrases_with_the_second_stage(monkeypatch):
    """``assess`` with the packaged model's weights runs the second stage: first-stage weights
    that see nothing leave every phrase tied, and the second stage's ``type_sim`` picks the
    phrase whose meaning is a nationality."""
    import ragcore.llms.extractive.model as model

    class Meaning:  # the packaged model's name, vectors that know one thing
        model_name, max_input_tokens = "all-MiniLM-L6-v2", 256

        def embed_batch(self, texts):
            known = {"nationality": [1.0, 0.0], "Australian": [0.8, 0.6]}
            return np.array([known.get(t, [0.0, 1.0]) for t in texts])

    weights = {"span": {"semantic": {}}, "span_typed": {"semantic": {"type_sim": 10.0}},
               "found": {"semantic": {"weights": {}, "threshold": 0.0}}}
    monkeypatch.setattr(model, "load_weights", lambda: weights)
    scorer = Scorer(candidates("The term was coined by Peg LeVine, an Australian anthropologist."),
                    Meaning())
    question = "What was the nationality of anthropologist Peg LeVine?"
    assert model.assess(scorer, question, scorer.scores(question)).phrase.text == "Australian"


def test_a_phrase_after_an_asked_word_and_a_preposition_says_so():
    context = "The funeral procession was led by Prince Adam Czartoryski."
    scorer = Scorer(candidates(context), None)
    question = "Who led the funeral procession?"
    reading = read(scorer, question, scorer.scores(question))
    texts = {context[toks[s.first].start:toks[s.last].end]: f for _, toks, s, f in reading.rows}
    assert "person|prev2_asked|prev=by" in texts["Prince Adam Czartoryski"]
    assert not any("prev2_asked|" in name for name in texts["Adam Czartoryski"])
