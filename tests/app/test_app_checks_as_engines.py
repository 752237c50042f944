"""The app's pages check a reply as the engines do (issue 64, "every path asks the same
question"): the Chat and Query pages' ``citing.marked_listing`` reads the documents' titles and
the index's words (``engines.index_words``) beside the passages, as ``present.AnswerCheck``
does for the CLI and the Python API. Issue 66's walk asked "Is the moon landing mentioned in
the documents?" in Chat and read "The documents don't answer this ...", where the engines say
"**No**: the documents don't mention the moon landing."."""

from __future__ import annotations

from ragcore.present.markers import AnswerCheck
from ragcore.types import Node, ScoredNode
from webapp.answers.citing import marked_listing

PASSAGES = ["He stood on the landing outside the door of his room.",
            "No IANA actions are required by this document."]
INDEX_WORDS = {"landing", "door", "room", "iana", "actions", "document", "stood", "outside"}


def held(name: str) -> bool:
    return all(word in INDEX_WORDS for word in name.lower().split())


def nodes() -> list[ScoredNode]:
    return [ScoredNode(Node(text=t, node_id=f"n{i}", metadata={"file_name": f"doc{i}.txt"}),
                       0.7) for i, t in enumerate(PASSAGES)]


def test_the_pages_say_what_the_documents_never_mention_as_the_engines_do():
    asked = "Is the moon landing mentioned in the documents?"
    reply = "The moon landing is not mentioned in the documents provided."
    text, listing = marked_listing(reply, nodes(), trace=None, retrieval_mode="hybrid",
                                   question=asked, held=held)
    assert text.startswith("**No**: the documents don't mention the moon landing.")
    assert text == AnswerCheck(held=held)(reply, nodes(), question=asked).text
    assert listing.verdict.unmentioned == ("moon landing",)


def test_a_stopped_reply_is_checked_without_ragcores_note_as_the_engines_check_it():
    asked = "Where did he stand?"
    reply = "**On the landing**.\n\n(Stopped early: you pressed Stop.)"
    text, listing = marked_listing(reply, nodes(), trace=None, retrieval_mode="hybrid",
                                   question=asked, held=held)
    assert text == AnswerCheck(held=held)(reply, nodes(), question=asked).text
    assert [c.text for c in listing.verdict.claims] == ["**On the landing**."]
