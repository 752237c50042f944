"""A reply the packaged model stopped early ("(Stopped early: ...)", ``llms.local.pace``) is
checked without that note, and shown with it: the note is ragcore's, not a claim to check."""

from __future__ import annotations

from ragcore.llms.cut_short import split_cut_short
from ragcore.llms.local.pace import cut_short_note
from ragcore.present.markers import AnswerCheck
from ragcore.types import Node, ScoredNode

PASSAGE = ("The keepers recommend lighting the lamp between 18:00 and 06:00 in winter. "
           "The tower is 42 metres tall.")


def test_the_note_is_split_off_whole():
    text, note = split_cut_short("The tower is tall." + cut_short_note(75))
    assert text == "The tower is tall." and note == cut_short_note(75)
    assert split_cut_short("The tower (the old one) is tall.") == (
        "The tower (the old one) is tall.", "")


def test_a_reply_stopped_early_is_checked_without_its_note_and_shown_with_it():
    answer = "The keepers recommend lighting the lamp between 18:00 and 06:00 in winter."
    checked = AnswerCheck()(answer + cut_short_note(75), [ScoredNode(Node(PASSAGE), 0.9)],
                            question="When do the keepers recommend lighting the lamp?")
    assert checked.verdict.label == "supported"
    assert "not in the documents" not in checked.text
    assert checked.text.endswith(cut_short_note(75).strip())
