"""The unseen set's scoring reads a reply as a person does: a refusal first, then the hedge
banner, then whether the gold is there; and it flags a cited list item nothing backs."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.unseen.scoring import (  # noqa: E402
    OUTCOMES,
    gold_found,
    hedged,
    invented_items,
    is_right,
    score,
)

NOT_CONFIRMED = ("**Not confirmed by the passages:** ragcore could not match this answer to what "
                 "they say; check it against the sources below.\n\n")
NOT_STATED = ("**Check this answer against the sources:** none of its sentences could be "
              "matched to the passages; the ones stating what no passage holds are marked.\n\n")


def test_a_plain_answer_with_the_gold_is_right_and_vouched():
    assert score("A block header is about **80 bytes** [1].", ["80 bytes"], "factoid").outcome \
        == "right_vouched"


def test_an_answer_under_the_not_confirmed_banner_is_hedged():
    shown = NOT_CONFIRMED + "A block header is about 80 bytes [1]."
    assert score(shown, ["80 bytes"], "factoid").outcome == "right_hedged"


def test_an_answer_under_the_check_banner_is_hedged():
    assert hedged(NOT_STATED + "- gzip\n- zstd")
    assert score(NOT_STATED + "- gzip\n- zstd", ["gzip", "zstd"], "list").outcome \
        == "right_hedged"


def test_a_banner_later_in_the_text_is_no_hedge():
    shown = "It is 80 bytes. " + NOT_CONFIRMED
    assert not hedged(shown)


def test_a_wrong_answer_is_vouched_without_a_banner_and_hedged_under_one():
    assert score("It is 200 bytes [1].", ["80 bytes"], "factoid").outcome == "wrong_vouched"
    assert score(NOT_CONFIRMED + "It is 200 bytes.", ["80 bytes"], "factoid").outcome \
        == "wrong_hedged"


def test_a_refusal_in_the_first_sentence_wins_over_a_quoted_passage_holding_the_gold():
    shown = ("The documents don't say how big a block header is. What they say nearest to it:"
             " \u201cA block header with no transactions would be about 80 bytes.\u201d [1]")
    assert score(shown, ["80 bytes"], "factoid").outcome == "refused"


def test_the_models_bold_refusal_reads_as_refused():
    assert score("**Not found in the documents.**", [], "unanswerable").outcome == "refused"


def test_a_refusal_after_an_answer_is_not_a_refusal():
    shown = "It is 80 bytes [1]. The documents do not say more about it."
    assert score(shown, ["80 bytes"], "factoid").outcome == "right_vouched"


def test_a_factoid_needs_any_one_spelling_a_list_needs_every_item():
    assert gold_found("Adam Back's system.", ["Hashcash", "Adam Back"], "factoid") == (True,)
    assert gold_found("Adam Back's system.", ["Hashcash", "Adam Back"], "list") == (False, True)
    assert score("- gzip [1]\n- xz [1]", ["gzip", "xz", "zstd"], "list").outcome \
        == "wrong_vouched"


def test_markers_inside_the_gold_do_not_hide_it():
    assert gold_found("Tom's Obvious, [1] Minimal Language", ["Tom's Obvious, Minimal Language"],
                      "factoid") == (True,)


def test_a_non_refusal_to_an_unanswerable_question_is_wrong_whatever_it_says():
    reply = score("The reward is 50 bitcoins [1].", [], "unanswerable")
    assert reply.outcome == "wrong_vouched" and not is_right(reply.outcome, answerable=False)
    assert is_right("refused", answerable=False) and not is_right("refused", answerable=True)
    assert is_right("right_hedged", answerable=True)


PASSAGES = ["Block Header (Block Hash) Prev Hash Nonce Root Hash Tx0 Tx1"]


def test_a_cited_item_no_passage_holds_is_invented():
    shown = "- Prev Hash [1]\n- Timestamp [1]\n- Nonce [2]"
    assert invented_items(shown, ["Prev Hash", "Nonce"], PASSAGES) == ("Timestamp",)
    assert score(shown, ["Prev Hash", "Nonce"], "list", PASSAGES).invented == ("Timestamp",)


def test_an_uncited_item_is_not_flagged_even_when_invented():
    assert invented_items("- Prev Hash [1]\n- Timestamp", ["Prev Hash"], PASSAGES) == ()


def test_a_cited_item_in_the_passages_or_the_gold_is_not_invented():
    shown = "1. Root Hash [1]\n2. Merkle root [[2]](#turn-3-2)"
    assert invented_items(shown, ["Merkle root"], PASSAGES) == ()


def test_the_chat_pages_linked_marker_counts_as_a_citation():
    assert invented_items("- Timestamp [[1]](#turn-1-1)", [], PASSAGES) == ("Timestamp",)


@pytest.mark.parametrize("shown", ["", "Yes.", NOT_CONFIRMED, "- a [1]"])
def test_every_reply_gets_exactly_one_known_outcome(shown):
    assert score(shown, ["x"], "list").outcome in OUTCOMES


def test_the_existing_sets_rows_are_scored_as_the_unseen_sets():
    from benchmarks.unseen.existing import scored

    rows = scored([
        {"id": "g03", "shown": "**February 2022**. \u201cSP 800-218 was published in February "
                               "2022.\u201d [1]"},
        {"id": "g16", "shown": "The documents don't say how many employees NIST has."},
        {"id": "g03", "shown": "**Not confirmed by the passages:** ... **March 2021**."},
    ])
    assert [(r["outcome"], r["right"]) for r in rows] == [
        ("right_vouched", True), ("refused", True), ("wrong_hedged", False)]
    # the model's own text, before the check: rows made without it count it wrong
    assert [r["model_right"] for r in rows] == [False, False, False]
    rewritten = scored([{"id": "g03", "answer": "**February 2022**.", "shown": "..."}])
    assert rewritten[0]["model_right"]


def test_the_table_says_how_many_answers_the_model_itself_got_right_and_where_others_lost():
    from benchmarks.unseen.run import ceiling

    def row(answerable, model_right, missed=None):
        return {"answerable": answerable, "model_right": model_right,
                "diagnosis": {"missed_at": missed}}

    lines = ceiling([row(True, True), row(True, False, "retrieval"), row(True, False),
                     row(False, False), {"answerable": True, "diagnosis": {}}])
    assert lines == ["answerable replies whose model text holds every gold item: 1 (33%); "
                     "the others' evidence lost at none (read, answered wrong): 1, "
                     "retrieval: 1"]
    assert ceiling([{"answerable": True, "diagnosis": {}}]) == []  # rows before the field
