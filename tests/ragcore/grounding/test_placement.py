"""Where a claim's numbers stand: a number the passage states beside other words than the
claim's ("drives out at five ... returns at seven" written the other way round) is displaced,
and the verdict never vouches for it; paraphrases, parts of one expression and a year beside
a count are not displacements."""

from __future__ import annotations

import pytest

from ragcore.grounding import check_answer, facts_of
from ragcore.grounding.placement import displaced_numbers

ADLER = ("She lives quietly, sings at concerts, drives out at five every day, and returns at "
         "seven sharp for dinner.")
QUAKE = ("Official figures stated that 69,197 were confirmed dead, including 68,636 in Sichuan "
         "province, and 374,176 injured, with 18,222 listed as missing.")
TIERS = ("Risk assessments can be conducted at all three tiers in the risk management "
         "hierarchy, including Tier 1 (organization level), Tier 2 (mission/business process "
         "level), and Tier 3 (information system level).")


def displaced(claim: str, passage: str) -> list[str]:
    return displaced_numbers(claim, facts_of(claim), [passage])


@pytest.mark.parametrize("claim, passage, numbers", [
    ("She drives out at seven every day and returns at five.", ADLER, ["7"]),
    ("374,176 people were confirmed dead in the Sichuan province.", QUAKE, ["374176"]),
    ("Tier 2 is the information system level.", TIERS, ["2"]),
])
def test_a_number_standing_where_the_passage_puts_another_is_displaced(claim, passage,
                                                                         numbers):
    assert displaced(claim, passage) == numbers


@pytest.mark.parametrize("claim, passage", [
    ("She drives out at five every day and returns at seven.", ADLER),
    ("68,636 people were confirmed dead in the Sichuan province.", QUAKE),
    ("374,176 people were injured.", QUAKE),
    ("Tier 3 is the information system level.", TIERS),
    # words the passage does not use near the number: a paraphrase says nothing here
    ("Each evening at seven she is home to dine.", ADLER),
    # two numbers of one expression share their words
    ("Investment could grow to $100 billion.",
     "Intel is ready to increase its investment from $20 billion to $100 billion."),
    # in columns the word beside a number is the next column's
    ("RFC 3986 updates RFC 1738.",
     "Request for Comments: 3986                                     W3C/MIT\n"
     "STD: 66                                                      R. Fielding\n"
     "Updates: 1738                                               Day Software"),
    # a year is not in the place of a count
    ("109 million travelers used JFK, LaGuardia and Newark Liberty in 2012.",
     "The three busiest airports are JFK, Newark Liberty and LaGuardia; 109 million "
     "travelers used these three airports in 2012."),
])
def test_numbers_where_the_passage_puts_them_are_not(claim, passage):
    assert displaced(claim, passage) == []


def test_the_verdict_never_vouches_for_a_displaced_number():
    swapped = check_answer("She drives out at seven every day and returns at five.", [ADLER],
                           question="When does she drive out?")
    [check] = swapped.claims
    assert not check.supported and check.refuted and check.displaced == ("7",)
    assert swapped.as_dict()["claims"][0]["displaced"] == ["7"]
    right = check_answer("She drives out at five every day and returns at seven.", [ADLER],
                         question="When does she drive out?")
    assert right.claims[0].supported and not right.claims[0].displaced


TOURS = ("In May she set out on the Harbour Lights Tour in Japan, and later joined the Open "
         "Road Tour in Canada.")
ISLANDS = ["The traders built a fur trading post on Kestrel Island in the spring.",
           "Later a fort was raised on Heron Island, and Heron Island's harbour was dredged."]
POST = "On what island did the traders build a fur trading post?"


def names_displaced(claim: str, sentences: list[str], question: str = "") -> list[str]:
    from ragcore.grounding.text import content_stems
    from ragcore.grounding.placement import displaced_names

    return displaced_names(claim, sentences, content_stems(question), short=bool(question))


def test_a_name_standing_where_the_passage_puts_another_of_its_kind_is_displaced():
    assert names_displaced("In May she set out on the Open Road Tour in Japan.", [TOURS]) == [
        "Open Road Tour"]
    assert names_displaced("In May she set out on the Harbour Lights Tour in Japan.",
                           [TOURS]) == []
    # a short answer: the question's words stand in for the claim's
    assert names_displaced("**Heron Island**.", ISLANDS, POST) == ["Heron Island"]
    assert names_displaced("**Kestrel Island**.", ISLANDS, POST) == []
    # a name no passage states is the facts' to catch; a possessive is the same name
    assert names_displaced("**Osprey Island**.", ISLANDS, POST) == []
    assert names_displaced("The harbour of Heron Island was dredged in May.",
                           ["Heron Island lies north.",
                            "Heron Island\u2019s harbour was dredged in May."]) == []


def test_the_verdict_never_vouches_for_a_displaced_name():
    wrong = check_answer("**Heron Island**.", ISLANDS, question=POST)
    assert wrong.claims[0].displaced == ("Heron Island",) and wrong.claims[0].refuted
    right = check_answer("**Kestrel Island**.", ISLANDS, question=POST)
    assert not right.claims[0].displaced and not right.claims[0].refuted
