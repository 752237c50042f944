"""The grounding verdict: a claim is supported only where a passage states its facts and words;
invented numbers, names and list items are caught; the answer's label follows its claims."""

from __future__ import annotations

import pytest

from ragcore.grounding import stating
from ragcore.grounding import (
    EMPTY,
    PARTLY,
    REFUSED,
    SUPPORTED,
    UNSUPPORTED,
    check_answer,
    claims_of,
    facts_of,
    missing_facts,
)
from ragcore.grounding.text import without_markers

SSDF = ("The practices are organized into four groups: Prepare the Organization (PO): "
        "Organizations should ensure that the organization's people are prepared. Protect the "
        "Software (PS): Organizations should protect all components of their software. Produce "
        "Well-Secured Software (PW): Organizations should produce well-secured software. Respond "
        "to Vulnerabilities (RV): Organizations should identify residual vulnerabilities.")
NIST = ("NIST is a non-regulatory agency of the U.S. Department of Commerce. A record header is "
        "80 bytes long. The agency was founded in 1901.")
GROUPS = "What are the four groups of practices in the SSDF?"


def test_a_restated_answer_is_supported_with_the_sentence_it_came_from():
    verdict = check_answer("**80 bytes**. A record header is 80 bytes long.", [SSDF, NIST])
    assert verdict.label == SUPPORTED
    assert all(check.support and check.support[0][0] == 1 for check in verdict.claims)


def test_a_misread_number_is_not_supported():
    verdict = check_answer("**40 bytes**. A record header is 40 bytes long.", [SSDF, NIST])
    assert verdict.label == UNSUPPORTED
    assert "the number 40" in verdict.claims[0].missing


def test_an_invented_head_count_is_unsupported():
    verdict = check_answer("NIST has about 1,000 employees.", [SSDF, NIST])
    assert verdict.label == UNSUPPORTED
    assert verdict.claims[0].missing == ("the number 1000",)


def test_an_invented_name_in_a_true_sentence_is_caught():
    verdict = check_answer("The agency was founded in 1901 by Theodore Roosevelt.", [NIST])
    assert verdict.label == UNSUPPORTED
    assert "the name roosevelt" in verdict.claims[0].missing


def test_invented_list_items_are_caught_one_by_one():
    answer = ("The four groups are Prepare the Organization (PO), Protect the Software (PS), "
              "secure software testing, and secure software deployment.")
    verdict = check_answer(answer, [SSDF], list_items=True)
    assert [c.supported for c in verdict.claims] == [True, True, False, False]
    assert verdict.label == PARTLY


def test_the_documents_own_list_is_supported_item_by_item():
    answer = ("- Prepare the Organization (PO)\n- Protect the Software (PS)\n"
              "- 3. Produce Well-Secured Software (PW)\n- Respond to Vulnerabilities (RV)")
    verdict = check_answer(answer, [SSDF], list_items=True)
    assert verdict.label == SUPPORTED and len(verdict.claims) == 4


def test_a_true_first_claim_and_an_invented_second_is_partly_supported():
    verdict = check_answer("**1901**. The agency was founded in 1901 by Theodore Roosevelt.",
                           [NIST])
    assert verdict.label == PARTLY
    assert [c.supported for c in verdict.claims] == [True, False]


def test_a_flipped_negation_lowers_support():
    said = check_answer("NIST is a non-regulatory agency.", [NIST]).claims[0].score
    flipped = check_answer("NIST is not a regulatory agency of Commerce.", [NIST]).claims[0]
    assert flipped.features["negation"] == 1.0 and flipped.score < said


@pytest.mark.parametrize("answer", ["Not found in the documents.",
                                    "The documents don't say how many employees NIST has."])
def test_refusals_are_not_checked(answer):
    assert check_answer(answer, [NIST]).label == REFUSED


def test_an_answer_without_claims_is_empty():
    assert check_answer("", [NIST]).label == EMPTY


def test_similarity_of_meaning_is_used_when_an_embedder_is_given():
    from ragcore.embeddings.fake import FakeEmbedder

    verdict = check_answer("A record header is 80 bytes long.", [NIST], embedder=FakeEmbedder())
    assert "cosine" in verdict.claims[0].features and verdict.label == SUPPORTED
    assert "meaning" in verdict.measure


def test_facts_are_numbers_names_and_bold_phrases():
    facts = facts_of("**Protect the Software**: about 1,000 staff at NIST in Boulder since four years.")
    assert 1000.0 in facts.numbers
    assert {"nist", "boulder"} <= facts.names
    assert facts.quoted[0][0] == "Protect the Software"
    assert missing_facts(facts, "NIST, Boulder: protect the software; 1000 people, four years") == []


def test_number_words_and_digits_are_the_same_number():
    assert missing_facts(facts_of("It has 4 groups."), "organized into four groups") == []


def test_model_markers_are_taken_out_before_checking():
    assert without_markers("**Oslo**. Source 1.") == "**Oslo**."
    assert without_markers("Herons nest in trees [1][2].") == "Herons nest in trees."
    assert without_markers("RFC 2616 (1999) says so [3].") == "RFC 2616 (1999) says so."


def test_a_numbered_item_is_one_claim_not_two():
    claims = claims_of("- 3. Secure Software Development (SSD). It is new.\n(a) one thing")
    assert [c.text for c in claims] == ["- 3. Secure Software Development (SSD).", "It is new.",
                                        "(a) one thing"]


def test_a_bold_number_stated_in_words_is_found():
    assert missing_facts(facts_of("**8**."), "Eight cars were made for the film.") == []


@pytest.mark.parametrize("digits, words", [
    ("39", "There are thirty-nine enormous beryls"),
    ("300", "There are three hundred pounds in gold"),
    ("150", "He paid a hundred and fifty guineas."),
    ("2500", "two thousand five hundred men"),
])
def test_a_number_spelled_in_several_words_is_found(digits, words):
    assert missing_facts(facts_of(f"**{digits}**."), words) == []


def test_number_words_side_by_side_are_not_added_up():
    assert "the number 3" in missing_facts(facts_of("It is 3."), "one and two")
    assert "the number 39" in missing_facts(facts_of("It is 39."), "thirty nights, nine days")


class Judge:
    """A model that tells first-token chances: "Yes" with ``yes`` of the mass; records asks."""

    model = "judge"

    def __init__(self, yes: float) -> None:
        self.yes, self.asked = yes, []

    def first_token_logprobs(self, messages, *, top=10):
        import math

        self.asked.append(messages[-1].content)
        return {"Yes": math.log(self.yes), "No": math.log(1 - self.yes)}


def test_the_judge_decides_what_its_features_cannot():
    claim = "The agency was founded long ago."
    doubting, sure = Judge(0.02), Judge(0.98)
    said_no = check_answer(claim, [NIST], judge=doubting).claims[0]
    said_yes = check_answer(claim, [NIST], judge=sure).claims[0]
    assert said_yes.score > said_no.score and "judge" in said_yes.features
    assert said_no.refuted and not said_no.supported
    assert doubting.asked and claim in doubting.asked[0] and "founded in 1901" in doubting.asked[0]


def test_the_judge_reads_only_the_first_claim_and_never_a_refuted_one():
    judge = Judge(0.9)
    check_answer("**80 bytes**. A record header is 80 bytes long. It was founded in 1901.",
                 [NIST], judge=judge)
    assert len(judge.asked) == 1
    judge = Judge(0.9)
    verdict = check_answer("NIST has about 1,000 employees.", [NIST], judge=judge)
    assert judge.asked == [] and verdict.label == UNSUPPORTED


def test_the_judge_is_not_asked_about_a_claim_its_features_take_for_invented():
    # no fact to miss, but nothing of it in the passage: refuted by its chance, whatever the
    # model that wrote it would say of it
    judge = Judge(0.99)
    checked = check_answer("The weather was pleasant in the spring.", [NIST],
                           judge=judge).claims[0]
    assert judge.asked == [] and checked.refuted and not checked.missing


def test_a_bold_acronym_is_stated_by_the_words_it_stands_for():
    passage = "NIST Special Publication 800-94 replaces NIST Special Publication 800-31."
    assert missing_facts(facts_of("**SP 800-31**."), passage) == []
    assert missing_facts(facts_of("**SP 800-53**."), passage) == ["the number 53",
                                                                  "\u201cSP 800-53\u201d"]
    assert "\u201cFIPS 800-31\u201d" in missing_facts(facts_of("**FIPS 800-31**."), passage)


def test_a_claim_a_passage_holds_word_for_word_is_supported_without_the_judge():
    doubting = Judge(0.01)
    quoting = check_answer("A record header is 80 bytes long, as NIST says.",
                           ["NIST says: a record header is 80 bytes long, as NIST says."],
                           judge=doubting).claims[0]
    assert doubting.asked == [] and quoting.supported and quoting.support
    items = check_answer("- Prepare the Organization (PO)\n- Protect the Software (PS)", [SSDF],
                         list_items=True, judge=doubting)
    assert doubting.asked == [] and items.label == SUPPORTED
    # a short answer is not a quotation, whatever passage holds its words: the judge is asked
    check_answer("**four groups**.", [SSDF], judge=doubting, question=GROUPS)
    assert doubting.asked


def test_the_judge_reads_a_claims_numbers_as_the_passage_writes_them():
    passage = "\u201cThere are three hundred pounds in gold and seven hundred in notes,\u201d he said."
    judge = Judge(0.9)
    check_answer("**300 pounds in gold and 700 in notes**.", [passage], judge=judge,
                 question="How much money did the King give Holmes for expenses?")
    assert judge.asked and "Claim: **three hundred pounds in gold and seven hundred in notes**" \
        in judge.asked[0]


class RememberingJudge(Judge):
    """A judge that wrote the answer itself: it is asked in that answer's prompt."""

    def prompt_of(self, answer):
        from ragcore.types import Message

        return [Message("user", "Passages ... Question ...\nAnswer:")]


def test_a_judge_that_wrote_the_answer_is_weighed_by_its_own_weights():
    import dataclasses

    from ragcore.grounding.weights import WEIGHTS

    claim = "The agency was founded long ago."
    judge = RememberingJudge(0.98)
    own = dataclasses.replace(WEIGHTS, in_prompt=WEIGHTS.judged, in_prompt_threshold=0.8)
    checked = check_answer(claim, [NIST], judge=judge, weights=own).claims[0]
    assert "in_prompt" in checked.features and "judge" not in checked.features
    assert "founded in 1901" not in judge.asked[0]  # the answer's prompt, not the window
    # with no weights of its own its "Yes" is weighed as the window judge's
    plain = dataclasses.replace(WEIGHTS, in_prompt=())
    assert "judge" in check_answer(claim, [NIST], judge=RememberingJudge(0.98),
                                   weights=plain).claims[0].features


def test_a_count_in_words_the_passage_does_not_state_is_never_vouched_for():
    passage = ("Network-based IDPS and some forms of host-based IDPS have been commercially "
               "available for over ten years.")
    claim = "Network-based IDPS products have been commercially available for over twenty years."
    assert missing_facts(facts_of(claim), passage) == ["the number 20"]
    verdict = check_answer(claim, [passage])
    assert not verdict.claims[0].supported and verdict.claims[0].refuted
    assert 1.0 not in facts_of("It is one of the groups.").numbers  # "one": a pronoun too


def test_however_high_its_chance_a_claim_with_a_fact_no_passage_states_is_not_vouched_for():
    from ragcore.grounding import Weights

    eager = Weights(lexical=(10.0, 0, 0, 0, 0, 0, 0), meaning=(10.0, 0, 0, 0, 0, 0, 0, 0),
                    lexical_threshold=0.5, meaning_threshold=0.5)
    verdict = check_answer("A record header is 40 bytes long.", [NIST], weights=eager)
    assert verdict.claims[0].score > 0.99
    assert not verdict.claims[0].supported and verdict.claims[0].refuted
    assert check_answer("A record header is 80 bytes long.", [NIST], weights=eager
                        ).claims[0].supported


def test_a_possessive_states_the_name_it_is_made_of():
    passage = "Harry Potter and the Prisoner of Azkaban's \u00a323.88 million was the record."
    assert missing_facts(facts_of("**Harry Potter and the Prisoner of Azkaban**."), passage) == []


def test_a_name_written_possessive_is_the_name():
    assert facts_of("It was Wilson's job.").names == {"wilson"}
    assert missing_facts(facts_of("It was Wilson's job."), "Wilson copied it out.") == []


def test_a_short_answer_in_digits_is_supported_by_the_number_in_words():
    pep = "Surround top-level function and class definitions with two blank lines."
    verdict = check_answer("**2**.", [pep], question="How many blank lines should surround "
                                                     "top-level function definitions?")
    assert verdict.label == SUPPORTED


WRAPPED = ("Note that we specify `char` literals with single quotation marks.  Rust's `char` "
           "type is 4\nbytes in size and represents a Unicode scalar value.\n\n"
           "# Compound Types\n- 1xx: Informational - Request received,\n    continuing process\n"
           "- 2xx: Success")


def test_a_passage_hard_wrapped_reads_as_its_sentences():
    from ragcore.grounding import sentence_spans

    spans = [WRAPPED[a:b] for a, b in sentence_spans(WRAPPED, wrapped=True)]
    assert spans == ["Note that we specify `char` literals with single quotation marks.",
                     "Rust's `char` type is 4\nbytes in size and represents a Unicode scalar "
                     "value.", "# Compound Types",
                     "- 1xx: Informational - Request received,\n    continuing process",
                     "- 2xx: Success"]
    assert "Rust's `char` type is 4" in [WRAPPED[a:b] for a, b in sentence_spans(WRAPPED)]


def test_the_gap_the_sentence_reader_leaves_ends_a_sentence():
    from ragcore.grounding import sentence_spans

    text = "It has a purpose. \u2026 Our test of resolve. \u2026 It is here"
    assert [text[a:b] for a, b in sentence_spans(text, wrapped=True)] == [
        "It has a purpose.", "Our test of resolve.", "It is here"]


def test_a_short_answer_in_digits_covers_a_number_in_several_words():
    passage = ("\u201cThere are three hundred pounds in gold and seven hundred in notes,\u201d "
               "he said.")
    verdict = check_answer("**300 pounds**.", [passage],
                           question="How many pounds were there in gold?")
    assert verdict.claims[0].features["coverage"] == 1.0 and not verdict.claims[0].refuted


def test_code_in_backticks_is_a_fact_read_literally():
    python = "Context managers provide `__enter__()` and `__exit__()` methods; close the file."
    invented = check_answer("Context managers provide `__enter__()`, `__exit__()` and "
                            "`__close__()` methods.", [python])
    assert invented.claims[0].missing == ("`__close__`",) and invented.claims[0].refuted
    rust = "| Octal            | `0o77`        |\n| Binary           | `0b1111_0000` |"
    prefix = facts_of("Octal literals use the `0o` prefix, as in `0o77`.")
    assert prefix.code == {"0o", "0o77"} and missing_facts(prefix, rust) == []
    assert missing_facts(facts_of("Floats default to `f64`."), rust) == ["`f64`"]


def test_the_judge_reads_the_claims_sentence_with_two_on_each_side():
    from ragcore.grounding.claims import sentence_spans
    from ragcore.grounding.judge import judged_text

    text = " ".join(f"Sentence {n} is here." for n in range(1, 8))
    spans = sentence_spans(text, wrapped=True)
    assert judged_text(text, spans[3]) == ("Sentence 2 is here. Sentence 3 is here. Sentence 4 "
                                           "is here. Sentence 5 is here. Sentence 6 is here.")
    assert judged_text(text, spans[0]).endswith("Sentence 3 is here.")  # clipped at the start


SPEECH = ("Cancer is the #2 cause of death in America, second only to heart disease. The hours "
          "were ten to two. That left only four hours a day.")


def test_a_superlative_or_exclusive_no_passage_says_is_taken_for_invented():
    verdict = check_answer("Cancer is the leading cause of death in America.", [SPEECH])
    assert verdict.claims[0].missing == ("the word \u201cleading\u201d",)
    assert verdict.claims[0].refuted and verdict.label == UNSUPPORTED
    # a word of the same group says it; "not only" says no degree
    assert missing_facts(facts_of("Its biggest cost is rent."), "The largest cost: rent.") == []
    assert facts_of("It is not only fast but also safe.").degrees == frozenset()


def test_a_degree_may_stand_in_another_sentence_of_the_passages():
    office = ("The office opened its doors to the clerks at ten every weekday morning. It closed "
              "at two. The work was copying the encyclopaedia. Nothing else was asked of them; "
              "copying was the only task.")
    verdict = check_answer("The office opened its doors to the clerks at ten every weekday "
                           "morning, and copying was their only task.", [office])
    assert not verdict.claims[0].missing and not verdict.claims[0].refuted
    assert verdict.claims[0].features["missing"] == 0.0  # not counted against the window


def test_a_number_word_inside_an_identifier_states_no_number():
    code = "def long_function_name(var_one, var_two, var_three):"
    assert "the number 2" in missing_facts(facts_of("**2**."), code)
    verdict = check_answer("**2**.", [code, "Surround class definitions with two blank lines."],
                           question="How many blank lines surround class definitions?")
    assert {position for position, _ in verdict.claims[0].support} == {1}


def test_a_name_of_several_words_must_be_stated_whole():
    passage = ("Koji Kondo wrote the theme. Toru Minegishi and Asuka Ohta wrote the music for "
               "The Legend of Zelda: Twilight Princess, as Destiny's Child sang elsewhere.")
    invented = facts_of("Toru Minegishi and Asuka Ohta wrote the music for Twilight Kondo.")
    assert missing_facts(invented, passage) == ["the name Twilight Kondo"]
    # a rare word opening a sentence or following a colon opens a name too
    for claim, name in (("Asuka Kondo wrote the theme.", "Asuka Kondo"),
                        ("It is The Legend of Zelda: Clawshot Princess.", "Clawshot Princess")):
        assert missing_facts(facts_of(claim), passage) == [f"the name {name}"], claim
    # "and" joins two names; a possessive, "of" and "the" read as the passage writes them
    for claim in ("Toru Minegishi and Asuka Ohta wrote it.", "It is Zelda's Twilight Princess.",
                  "They wrote music for The Legend of Zelda.", "It was Destiny's Child's song.",
                  "Wireless Kondo wrote the theme.",  # a sentence's opening word is no name
                  "The Legend of Zel-da was scored."):  # a hyphen the passage does not write
        assert missing_facts(facts_of(claim), passage) == [], claim


def test_an_item_a_list_adds_is_taken_for_invented():
    passage = ("He told me to bring my own ink, pens, and blotting-paper, while they provided "
               "this table and chair. I was to copy out the Encyclopaedia Britannica.")
    verdict = check_answer("Wilson had to bring his own ink, pens, blotting-paper, and a lamp.",
                           [passage])
    assert verdict.claims[0].missing == ("the item \u201ca lamp\u201d",)
    assert verdict.claims[0].refuted and verdict.label == UNSUPPORTED
    # the items the passage states, in any order and form; "such as" and the words before
    # the first item are the sentence's, not an item's
    for claim in ("He brought blotting-paper, pens and ink.",
                  "They gave him everything, such as a table, a chair, and ink.",
                  "He brought his lunch box, for example ink, pens and blotting-paper."):
        assert missing_facts(facts_of(claim), passage) == [], claim


def test_a_word_no_english_word_list_holds_must_be_in_a_passage():
    passage = ("One-liners are for really obvious cases. Triple quotes are used even though the "
               "string fits on one line. The docstring is a phrase ending in a period.")
    invented = facts_of("The pydocstyle tool checks these one-line docstring rules.")
    assert missing_facts(invented, passage) == ["the word pydocstyle"]
    # a word the list holds, in British spelling or with an accent, is English: no term;
    # a capitalised word is a name (the names' rules)
    assert facts_of("The colour of the organisation's catalogue, said her fiancé.").terms == \
        frozenset()
    assert facts_of("Pydocstyle is a tool.").terms == frozenset()
    # a word holding a digit is a token as written, not letters to look up ("utf" of utf8mb4)
    assert facts_of("Run flake8 on utf8mb4 tables.").terms == frozenset()
    assert missing_facts(facts_of("Run flake8 on utf8mb4 tables."),
                         "Use utf8mb4 and flake8.") == []


def test_a_short_answer_a_stated_sentence_restates_with_the_question_is_vouched_for(
        monkeypatch):
    # the word rules' restatement (the shipped reader vouches for "**39**." alone, reading the
    # sentence as stating the count)
    monkeypatch.setattr(stating, "reader_available", lambda: False)
    coronet = ("He opened the case and showed me the beryl coronet. \u2018There are thirty-nine "
               "enormous beryls,\u2019 said he, \u2018and the price of the gold chasing is "
               "incalculable.\u2019 The lowest estimate would put the worth of the coronet at "
               "double the sum which I have asked.")
    question = "How many beryls were in the beryl coronet?"
    alone = check_answer("**39**.", [coronet], question=question)
    restated = check_answer("**39**. There are thirty-nine enormous beryls in the beryl "
                            "coronet.", [coronet], question=question)
    assert not alone.claims[0].supported
    assert restated.claims[1].supported and restated.claims[0].supported
    assert restated.claims[0].support == restated.claims[1].support
    assert restated.label == SUPPORTED
    # a restatement without the question's words may answer another question: not vouched
    other = check_answer("**39**. There are thirty-nine enormous beryls in the beryl coronet.",
                         [coronet], question="How many beryls were in the Bohemian coronet?")
    assert other.claims[1].supported and not other.claims[0].supported


def test_a_whole_number_is_spelled_every_way_english_writes_it():
    from ragcore.grounding.numbers import as_written_in, in_words

    assert in_words(39) == ("thirty-nine", "thirty nine")
    assert "a hundred and fifty" in in_words(150) and in_words(300) == ("three hundred",)
    assert in_words(2.5) == () and in_words(10**6) == ()
    # a decimal or a version is never a count to respell; a number the source writes in
    # digits stays in digits
    assert as_written_in("Rust 1.0 has 3 parts and 80 bytes.", "one, three parts, 80 bytes") \
        == "Rust 1.0 has three parts and 80 bytes."


def test_the_verdicts_reader_reuses_the_not_found_gates_reading_of_the_same_passages(
        monkeypatch):
    # the gate (answerability) and the verdict's second reader (expected_phrase) read one
    # answer's passages for one question: the span model runs once
    from ragcore.grounding.agreement import expected_phrase
    from ragcore.llms.extractive import answer

    runs = []
    real = answer.assess
    monkeypatch.setattr(answer, "assess", lambda *a, **k: runs.append(1) or real(*a, **k))
    monkeypatch.setattr(answer, "_ASSESSED", type(answer._ASSESSED)())
    question = "How long is a record header?"
    chance = answer.answerability([NIST], question)
    expected = expected_phrase([NIST], question)
    assert len(runs) == 1 and expected.answered == chance
    expected_phrase([NIST], "When was the agency founded?")  # another question: read again
    assert len(runs) == 2
