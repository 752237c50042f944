"""How close the search found a passage, in words of what the score measures (not support)."""

from ragcore.present.sources import ListedSource, SourceListing
from ragcore.present.strength import CLOSE, FAR, SOMEWHAT, listing_strengths, match_strength
from ragcore.present.support import SourceUse
from ragcore.types import Node, ScoredNode


def test_cosine_scores_are_judged_against_the_relevance_floor():
    scores = [0.62, 0.41, 0.2]
    assert [match_strength(s, scores, "similarity") for s in scores] == [
        CLOSE, SOMEWHAT, FAR]


def test_keyword_and_fused_scores_are_judged_against_the_best_one():
    scores = [12.0, 11.0, 7.0, 2.0]
    assert [match_strength(s, scores, "keyword") for s in scores] == [
        CLOSE, CLOSE, SOMEWHAT, FAR]
    assert match_strength(0.55, [1.0, 0.55], "hybrid") == FAR


def test_a_passage_added_as_context_has_no_score_to_judge():
    assert match_strength(None, [0.7, None], "similarity") == "added as context"


def test_every_listed_source_gets_its_word_by_number():
    listed = [ListedSource(n, ScoredNode(Node(text=f"t{n}"), s), SourceUse(()))
              for n, s in ((1, 0.7), (2, 0.35), (3, 0.1))]
    listing = SourceListing(tuple(listed[:2]), tuple(listed[2:]))
    assert listing_strengths(listing, "similarity") == {
        1: CLOSE, 2: FAR, 3: FAR}
