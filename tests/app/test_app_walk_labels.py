"""Every label true (issue 66), the newcomer walk's open list, as plain functions: a source's
title says what the answer check found, not the search's closeness as if it were support; a
passage the reading cut says so with "…"; each chat mode's line says something of its own and
true; an agent that never searched says so; the not-found gate's note reads in plain words; the
packaged model is "the built-in model" without Advanced.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

from ragcore.chat import CHAT_MODE_DESCRIPTIONS, ChatMode
from ragcore.chat.sourceless import sourceless_reply
from ragcore.present import format as fmt
from ragcore.present.citations import passage_segments
from ragcore.present.how_made import gate_note
from ragcore.present.sources import ListedSource, SourceListing
from ragcore.present.strength import listing_strengths
from ragcore.present.support import NO_SUPPORT, SUPPORTS, SourceUse
from ragcore.retrieval.optimizer import SentenceEmbeddingOptimizer
from ragcore.types import MetadataMode, Node, ScoredNode
from webapp.answers.citing import source_title
from webapp.chat.chat_modes import MODE_LINES
from webapp.indexes.document_view import document_segments

# A bibliography entry holds the question's words; the passage stating the answer does not.
BIBLIOGRAPHY = "Rose S, Borchert O. Zero Trust Architecture. NIST SP 800-207. Zero trust."
STATING = "Access is granted per session, after the subject's identity is checked."


def _titles(advanced: bool) -> list[str]:
    listed = [ListedSource(1, ScoredNode(Node(BIBLIOGRAPHY, metadata={"file_name": "zta.pdf",
                                                                      "page": 50}), 0.71),
                           SourceUse((), NO_SUPPORT)),
              ListedSource(2, ScoredNode(Node(STATING, metadata={"file_name": "zta.pdf",
                                                                 "page": 7}), 0.31),
                           SourceUse(((0, len(STATING)),), SUPPORTS))]
    listing = SourceListing(tuple(listed))
    words = listing_strengths(listing, "similarity")
    return [source_title(s, strength=words[s.number], advanced=advanced) for s in listed]


def test_a_sources_title_says_support_only_where_the_check_found_it():
    """The walk: "strong match" on a bibliography entry, "weak match" on the passage stating
    the answer. Without Advanced a title says what the check found; the search's closeness,
    in words of what it measures, and its score wait under Advanced."""
    bibliography, stating = _titles(advanced=False)
    assert bibliography == "[1] zta.pdf · page 50 · found by the search, not used"
    assert stating == "[2] zta.pdf · page 7 · states this"
    bibliography, stating = _titles(advanced=True)
    assert bibliography == ("[1] zta.pdf · page 50 · search: close to your question · "
                            "score 0.710 · found by the search, not used")
    assert "search: far from your question" in stating and "match" not in stating


LINES = [f"Line {n} of the chapter speaks of the weather on the lake." for n in range(1, 10)]
PASSAGE = " ".join([*LINES, "The creature was made by Victor Frankenstein in Ingolstadt.",
                    "He fled from it the same night."])


def test_a_passage_the_reading_cut_begins_with_an_ellipsis():
    """The walk: a passage read from its tenth sentence (nine lines dropped) was previewed
    as if it began there; its source under a Query answer likewise."""
    node = Node(PASSAGE, start_char=100, end_char=100 + len(PASSAGE),
                metadata={"file_name": "pg84.txt"})
    reader = SentenceEmbeddingOptimizer(None, token_budget=12)
    [kept] = reader.postprocess([ScoredNode(node, 0.5)], "Who made the creature in Ingolstadt?")
    assert kept.node.text.startswith("The creature was made")  # the reading's cut
    assert kept.node.start_char == 100 + PASSAGE.index("The creature")  # still in place
    for mode in (MetadataMode.LLM, MetadataMode.EMBED):  # the mark is the page's, not read
        assert "cut" not in kept.node.content(mode), kept.node.content(mode)
    preview = fmt.node_preview(kept.node, 300)
    assert preview.startswith("… The creature was made"), preview
    assert preview.endswith(" …"), preview  # "He fled" was cut too
    whole = fmt.node_preview(node, 2000)
    assert "…" not in whole
    assert fmt.node_preview(node, 80).endswith(" …")  # cut for room, as before
    # the source under the answer: "…" where the passage was cut; in the document, its text
    drawn = "".join(s.text for s in passage_segments(kept.node, []))
    assert drawn.startswith("… The creature") and drawn.endswith(" …"), drawn
    document = " " * 100 + PASSAGE
    around = "".join(s.text for s in document_segments(document, kept.node, []))
    assert "…" not in around and LINES[-1] in around, around


def test_each_chat_modes_line_says_something_of_its_own_and_true():
    """The walk: the default mode's line said it rewrites your follow-up, which is what
    "Follow the conversation" is known for; both rewrite only a follow-up that refers back
    (``refers_back``), and differ in what the answer reads."""
    for lines in (MODE_LINES, CHAT_MODE_DESCRIPTIONS):
        default, follow = lines[ChatMode.CONDENSE_PLUS_CONTEXT], lines[ChatMode.CONDENSE_QUESTION]
        assert "refers back" in default and "refers back" in follow, (default, follow)
        assert "conversation" in default and "without the conversation" in follow
        clauses = [c.strip().lower() for line in lines.values()
                   for c in re.split(r"[;:.]", line) if c.strip()]
        assert len(clauses) == len(set(clauses)), clauses  # nothing said twice


def test_an_agent_says_it_may_answer_without_searching_and_says_when_it_did():
    """The walk: "searches as often as it needs", then an answer with no search at all."""
    for lines in (MODE_LINES, CHAT_MODE_DESCRIPTIONS):
        assert "whether to search" in lines[ChatMode.REACT], lines[ChatMode.REACT]
    notes = {"agent_verdict": {"label": "unobserved", "claims": []},
             "reasoning": [{"thought": "I know this.", "answer": "Victor Frankenstein."}]}
    shown = sourceless_reply("Victor Frankenstein.", notes, "react")
    assert shown.startswith("**Not from the documents:** the agent answered without searching "
                            "your documents"), shown
    notes["reasoning"].insert(0, {"thought": "", "action": "search_documents",
                                  "action_input": {"input": "creator"}, "observation": ""})
    assert "without searching" not in sourceless_reply("Victor Frankenstein.", notes, "react")


def test_the_not_found_gates_note_reads_in_plain_words():
    notes = {"not_found_gate": {"refuse": False, "score": 0.41, "threshold": 0.78,
                                "seconds": 1.0, "signals": {"p_not_found": None,
                                                            "model_refuses": False,
                                                            "p_no": 0.35, "p_answered": 0.72}}}
    note = gate_note({"notes": notes})
    # each number says what it is of: the score, the line it refuses from, each signal's chance
    assert "do not hold the answer at 41%" in note and "when that chance is 78% or more" in note
    assert "passages hold the answer: 35%" in note and "answerable questions): 72%" in note
    assert "It read" not in note and "answerability" not in note  # "It read its "No" 35%"
    assert "it was less, so the model answered" in note


def test_no_two_numbers_of_the_gates_note_read_alike_unnamed():
    """The walk: "From 88% it answers "Not found" itself; ... The 48% combines ... (21%) and
    the chance that they hold it, by a small model ... (88%)": the line it refuses from and one
    signal printed the same 88%, neither named where it stood, the score said three times."""
    notes = {"not_found_gate": {"refuse": False, "score": 0.48, "threshold": 0.88,
                                "seconds": 1.0, "signals": {"p_not_found": None,
                                                            "model_refuses": False,
                                                            "p_no": 0.21, "p_answered": 0.88}}}
    note = gate_note({"notes": notes})
    assert note.count("48%") == 1, note  # the combined chance, said once
    # every figure follows the words naming it: "at 48%", "is 88% or more", "...: 21%"
    for figure in re.finditer(r"\d+%", note):
        assert re.search(r"(?:\bat|\bis|:) $", note[:figure.start()]), (figure[0], note)
    assert "when that chance is 88% or more" in note
    assert "the passages hold the answer (a model trained to tell answerable questions): 88%" \
        in note


class _Packaged:
    model = "local:qwen2.5-1.5b-instruct"
    name = "qwen2.5-1.5b-instruct-q4_k_m.gguf"


def test_the_packaged_model_is_named_only_under_advanced():
    """The walk: the sidebar named a .gguf file with Advanced off."""
    assert fmt.describe_backend(_Packaged(), advanced=False) == "the built-in model"
    assert "q4_k_m.gguf" in fmt.describe_backend(_Packaged(), advanced=True)
    other = SimpleNamespace(model="extractive")
    assert fmt.describe_backend(other, advanced=False) == fmt.describe_backend(other)
