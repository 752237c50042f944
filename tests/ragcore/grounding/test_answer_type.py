"""A short answer of another kind than its question asks for is not an answer."""

from __future__ import annotations

import pytest

from ragcore.grounding import stating
from ragcore.grounding import check_answer
from ragcore.grounding.answer_type import (
    COUNT_UNSTATED,
    HEADING,
    REPEATS,
    asked_for,
    count_unstated,
    heading_only,
    mismatch,
    unshown,
)
from ragcore.grounding.claims import claims_of

SPEECH = ("We’ve sent 475 Million vaccine doses to 112 countries, more than any other nation. "
          "And we won’t stop. Insulin costs about $10 a vial to make. This is the 245th year "
          "of our nation.")


@pytest.mark.parametrize("question, answer, wanted", [
    ("How much money did the President ask Congress for to keep fighting COVID?",
     "**475 Million vaccine doses**.", "a sum of money"),
    ("How long did the State of the Union speech last?", "**245th year**.", "a length of time"),
    ("How many prosecutors are on the task force?", "**the Justice Department**.", "a count"),
    ("How many employees does NIST have?", "**100 Bureau Drive**.", "a count"),
    ("In what year was the bridge opened?", "**the old town**.", "a year"),
    ("On what date was Executive Order 14028 issued?", "**2021**.", "a date"),
])
def test_an_answer_of_another_kind_is_named(question, answer, wanted):
    assert mismatch(question, answer) == wanted


@pytest.mark.parametrize("question, answer", [
    ("How much does insulin cost to make?", "**$10**."),
    ("How many miles of highway will be fixed this year?", "**65,000 miles**."),
    ("How many employees does NIST have?", "**about a thousand**."),
    ("How many position papers did NIST get?", "**over 150**."),
    ("How long did the war last?", "**a decade**."),
    ("How long did the siege last?", "**11 months**."),
    ("In what year was the bridge opened?", "**1867**."),
    ("In which year did the dynasty fall?", "**the 17th century**."),
    ("What percentage of the vote did he win?", "**52%**."),
    ("How many times did he call?", "**twice**."),
    ("How many vaccine doses has the US sent?", "**475 Million**."),
    ("How many countries agreed?", "**30 other countries**."),
    ("On what date was Executive Order 14028 issued?", "**May 12, 2021**."),
    ("On which day did he arrive?", "**the 22nd of December**."),
    ("How much money did the King give Holmes for expenses?", "**300 pounds**."),
    ("How much was Victor Hatherley offered for one night's work?", "**fifty guineas**."),
    # questions whose answers take any form are never judged by their form
    ("How much of its value has the Russian stock market lost?", "**most of it**."),
    ("When was the treaty signed?", "**after the war**."),
    ("Who did Biden nominate to the Supreme Court?", "**Judge Ketanji Brown Jackson**."),
    ("How long is an IPv4 address?", "**long enough**."),
    ("Which date format must HTTP/1.1 generate?", "**The RFC 1123 format.**"),
])
def test_an_answer_of_the_asked_kind_or_a_question_that_does_not_say_passes(question, answer):
    assert mismatch(question, answer) == ""


def test_a_question_asking_two_things_takes_a_short_answer_to_either():
    question = "Who coined the term C10K, and in what year?"
    assert mismatch(question, "**Kegel**.") == ""
    assert mismatch(question, "**1999**.") == ""
    assert mismatch("In what year, and in which city, was the bridge opened?",
                    "**the old town**.") == ""
    # one question asked once is still judged by its kind
    assert mismatch("In what year did Kegel and his team open the bridge?",
                    "**the old town**.") == "a year"


def test_asked_for_reads_the_question_alone():
    assert asked_for("How much money did the President ask for?") == "a sum of money"
    assert asked_for("What is ARPA-H?") == ""
    assert asked_for("How old was Julia when she died?") == "an age"


def test_an_age_asked_for_is_answered_with_a_number():
    assert mismatch("How old is Neville St. Clair?", "**A man of temperate habits**.") == "an age"
    assert mismatch("How old is Neville St. Clair?", "**thirty-seven**.") == ""


def test_the_verdict_refuses_an_answer_of_another_kind_though_a_passage_holds_it():
    question = "How much money did the President ask Congress for to keep fighting COVID?"
    answer = "**475 Million vaccine doses**. We’ve sent 475 Million vaccine doses to 112 countries."
    verdict = check_answer(answer, [SPEECH], question=question)
    lead = verdict.claims[0]
    assert verdict.label == "unsupported"
    assert lead.refuted and not lead.supported and lead.off_question == "a sum of money"
    assert verdict.as_dict()["claims"][0]["off_question"] == "a sum of money"
    # the same answer to the question it does answer stands
    asked = "How many vaccine doses has the US sent to other countries?"
    assert check_answer(answer, [SPEECH], question=asked).label == "supported"


def test_an_answer_in_sentences_is_judged_by_its_form_too():
    """A "how many" answered in sentences that hold no count has not answered (CI, Chat:
    "NIST has many employees, including former NIST employees ..." vouched for)."""
    question = "How long did the speech last?"
    sentence = ("The speech marked the 245th year of the nation, the President told Congress "
                "and the Cabinet.")
    assert check_answer(sentence, [SPEECH], question=question).claims[0].off_question == \
        "a length of time"
    staff = ["NIST employs about 3,400 people. Former NIST employees worked on this "
             "publication while at NIST."]
    count = "How many employees does NIST have?"
    vague = check_answer("NIST has many employees, including former NIST employees who worked "
                         "on this publication while at NIST.", staff, question=count)
    assert vague.claims[0].off_question == "a count" and vague.claims[0].refuted
    stated = check_answer("NIST employs about 3,400 people.", staff, question=count)
    assert not stated.claims[0].off_question


def test_an_attribution_to_the_passages_claims_nothing_itself():
    quoted = claims_of('The passage states: "Insulin costs about $10 a vial to make."')[0]
    plain = claims_of("Insulin costs about $10 a vial to make.")[0]
    assert set(quoted.stems) == set(plain.stems)
    according = claims_of("According to the documents, insulin costs about $10 a vial.")[0]
    assert "document" not in " ".join(according.stems)
    answer = '**$10**. The passage states: "Insulin costs about $10 a vial to make."'
    assert check_answer(answer, [SPEECH], question="How much does insulin cost to make?"
                        ).label == "supported"


@pytest.mark.parametrize("question, answer", [
    ("What is the name of Sherlock Holmes's older brother?", "**Holmes**."),
    ("What name did the King of Bohemia use when he first came to Holmes?",
     "**King of Bohemia**."),
    ("Who was Hosmer Angel really?", "**Hosmer Angel**."),
    ("What is the first name of Dr. Watson\u2019s wife?", "**Watson**."),
    ("Whose son is abducted by Hinx?", "**Hinx**."),
    ("Who was Hosmer Angel really?", "**Mr. Angel**."),  # a title adds nothing
    ("What is the name of the Ukrainian Ambassador who attended the speech?",
     "**Ukrainian Ambassador to the United States**."),  # a role is no name
])
def test_an_answer_made_of_the_questions_own_words_says_nothing(question, answer):
    assert mismatch(question, answer) == REPEATS


@pytest.mark.parametrize("question, answer", [
    ("Should new code break lines before or after binary operators?", "**before**."),
    ("Is PEP 8 a style guide?", "**PEP 8**."),
    ("What is ARPA-H?", "**ARPA-H**."),  # named first, its sentence defines it
    ("What does SDLC stand for in the SSDF document?", "**SDLC**."),
    ("What is the title of PEP 8?", "**Style Guide for Python Code**."),
    ("Who wrote the Zen of Python?", "**Tim Peters**."),
    ("Who was Hosmer Angel really?", "**Mr. Windibank**."),
    ("Who is the President of France?", "**President of the Republic**."),
    ("What is the name of the city that hosts the games?", "**City of London**."),
    ('With the base URI http://a/b/c/d;p?q, what does "../g" resolve to?', "**http://a/g**."),
    # a flag is a written form, not the question's word "text"
    ("Which flag makes ripgrep search binary files as if they were plain text?", "**--text**."),
])
def test_a_choice_a_yes_or_no_a_definition_or_a_new_word_is_no_repetition(question, answer):
    assert mismatch(question, answer) == ""


def test_the_verdict_refuses_a_repetition_though_the_passage_holds_it():
    passage = "Holmes stopped in front of it with his head on one side and looked it all over."
    verdict = check_answer("**Holmes**. Holmes stopped in front of it.", [passage],
                           question="What is the name of Sherlock Holmes's older brother?")
    assert verdict.label == "unsupported" and verdict.claims[0].off_question == REPEATS


def test_no_judge_is_asked_about_a_lead_of_another_kind(monkeypatch):
    # the word rules alone: the shipped reader decides the second lead itself (it reads "$10 a
    # vial to make" as what a dose costs), and what is asked here is when the judge is asked
    monkeypatch.setattr(stating, "reader_available", lambda: False)

    class Judge:
        model = "judge"

        def __init__(self):
            self.asked = []

        def first_token_logprobs(self, messages, *, top=10):
            self.asked.append(messages)
            return {"Yes": -0.05, "No": -3.0}

    judge = Judge()
    verdict = check_answer("**245th year**. This is the 245th year of our nation.", [SPEECH],
                           question="How long did the speech last?", judge=judge)
    assert verdict.claims[0].off_question == "a length of time" and judge.asked == []
    check_answer("**$10**. Insulin costs about $10 a vial to make.", [SPEECH],
                 question="How much money does a diabetic spend on one dose?", judge=judge)
    assert judge.asked  # a lead of the asked kind its sentence does not confirm is judged


GREENHOUSE = ("Greenhouses were first used during Roman times to produce cucumbers year-round "
              "for the Roman emperor Tiberius.")


def test_a_lead_restating_a_why_or_what_question_gives_way_to_the_sentence_after_it():
    answer = ("**Greenhouses**. Greenhouses were first used during Roman times to produce "
              "cucumbers year-round for the emperor Tiberius.")
    verdict = check_answer(answer, [GREENHOUSE],
                           question="What was one of the first uses of a greenhouse?")
    assert verdict.label == "supported"
    assert [c.text for c in verdict.claims] == [answer.split(". ", 1)[1]]


def test_a_lead_restating_a_name_question_is_still_refused_whatever_follows():
    speech = "The Ukrainian Ambassador to the United States is here tonight."
    verdict = check_answer("**Ukrainian Ambassador to the United States**. " + speech, [speech],
                           question="What is the name of the Ukrainian Ambassador who attended "
                                    "the speech?")
    assert verdict.label == "unsupported" and verdict.claims[0].off_question == REPEATS


def test_a_sum_of_money_no_passage_gives_as_money_is_refused():
    from ragcore.grounding.answer_type import MONEY_UNSTATED

    doses = "We've sent 475 Million vaccine doses to 112 countries, more than any other nation."
    question = "How much money did the President ask Congress for to keep funding COVID-19 tests?"
    verdict = check_answer("**$475 million**.", [doses], question=question)
    assert verdict.label == "unsupported" and verdict.claims[0].off_question == MONEY_UNSTATED
    priced = "Insulin costs about $10 a vial to make. It is sold for 30 times more."
    assert check_answer("**$10**.", [priced], question="How much does insulin cost to make?"
                        ).claims[0].off_question == ""


RFC_SECTION = ("   4.5 General Header Fields\n\n   There are a few header fields which have general "
               "applicability for both request and\n   response messages.")


def test_a_heading_of_the_documents_is_no_answer_unless_a_section_was_asked_for():
    question = "What is the maximum number of header fields allowed in an HTTP/1.1 request?"
    answer = ("**4.5 General Header Fields**. HTTP/1.1 applications MUST NOT generate more than "
              "three digits.")
    verdict = check_answer(answer, [RFC_SECTION], question=question)
    assert verdict.label == "unsupported" and verdict.claims[0].off_question == HEADING
    assert heading_only(question, "General Header Fields", [RFC_SECTION]) == HEADING
    read = ("its field value MUST exactly match the number of OCTETs in\n   the message-body. "
            "\u2026 4.5 General Header Fields \u2026 There are a few header fields")
    assert heading_only(question, "4.5 General Header Fields", [read]) == HEADING
    assert heading_only(question, "## Blank Lines", ["## Blank Lines\n\nTwo of them."]) == HEADING
    assert heading_only(question, "Blank Lines", ["Blank Lines\n===========\n"]) == HEADING
    # asked for a section, or a line that is no heading: an answer like any other
    assert heading_only("Which section covers general header fields?",
                        "4.5 General Header Fields", [RFC_SECTION]) == ""
    assert heading_only(question, "There are a few header fields", [RFC_SECTION]) == ""


def test_a_count_the_passages_give_only_as_money_or_a_share_is_none():
    speech = ["And unlike the $2 Trillion tax cut that benefitted the top 1% of Americans, the "
              "plan helped working people.", "Let each of us here tonight in this Chamber send "
              "an unmistakable signal."]
    question = "How many people were in the Chamber for the speech?"
    verdict = check_answer("**2**. Members of Congress and the Cabinet.", speech,
                           question=question)
    assert verdict.label == "unsupported" and verdict.claims[0].off_question == COUNT_UNSTATED
    assert count_unstated(question, "**2**.", [*speech, "Two people spoke first."]) == ""
    assert count_unstated("How much did the cut cost?", "**2**.", speech) == ""  # no count asked
    assert count_unstated(question, "**40**.", speech) == ""  # unstated: the verdict's missing


SSDF_PAPERS = ("NIST held a June 2021 workshop and received over 150 position papers. "
               "Organizations adopting the SSDF benefit from its practices.")
RISK = ("CHAPTER 1 PAGE 2 1.1 PURPOSE AND APPLICABILITY The purpose of Special Publication "
        "800-30 is to provide guidance. Tier 1 (organization level) frames risk.")


@pytest.mark.parametrize("question, answer, passage, off", [
    ("How many organizations have adopted the SSDF so far?", "**150**.", SSDF_PAPERS,
     "a count of organizations the documents state"),
    ("How many federal agencies use SP 800-30?", "**1**.", RISK,
     "a count of federal agencies the documents state"),
    ("How many position papers did NIST get for its workshop?", "**150**.", SSDF_PAPERS, ""),
    ("How many members of the European Union stood with us?", "**27**.",
     "Along with twenty-seven members of the European Union including France.", ""),
    ("How many people died?", "**69,197**.", "Figures stated that 69,197 were confirmed dead.",
     ""),  # a small word after the number: it may count anything
    ("How many did NIST receive?", "**150**.", SSDF_PAPERS, ""),  # no thing asked
])
def test_a_count_the_passages_give_only_of_another_thing_is_not_the_count_asked(
        question, answer, passage, off):
    assert count_unstated(question, answer, [passage]) == off


@pytest.mark.parametrize("text, shown", [
    ("Gregor only remained close to his sister now.", False),  # the question's name alone
    ("The name of Gregor's sister is Grete.", True),
    ("**Grete**.", True),
    ("The flag is called `--text`.", True),
    ("It is set in RIPGREP_CONFIG_PATH.", True)])
def test_a_name_asked_for_is_one_the_question_does_not_give(text, shown):
    # issue 66's walk: the agent's "Gregor only remained close to his sister now." was shown
    # as what the documents state, for "What is the name of Gregor's sister?"
    asked = "What is the name of Gregor's sister?"
    assert (unshown(asked, text) == "") is shown
    assert unshown("What is the sister's job?", "Gregor only remained close.") == ""
