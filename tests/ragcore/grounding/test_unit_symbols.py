"""A number written with its unit's symbol states the unit's word: "45s" says "45 seconds"
(issue 64: the grace period of a Chubby client, refused for want of the word)."""

from __future__ import annotations

from ragcore.grounding.facts import facts_of, missing_facts
from ragcore.grounding.text import content_stems

GRACE = "The client waits a further interval called the grace period, 45s by default."


def test_a_unit_symbol_states_its_word():
    assert missing_facts(facts_of("**45 seconds**."), GRACE) == []
    assert {"150", "millisecond"} <= set(content_stems("an election timeout of 150ms"))
    assert set(content_stems("2 gigabytes")) <= set(content_stems("at most 2GB"))


def test_a_decade_is_not_seconds_and_another_number_is_still_missing():
    assert "second" not in content_stems("in the 1990s")
    assert missing_facts(facts_of("**60 seconds**."), GRACE) != []
