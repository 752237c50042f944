"""Every label true (issue 66), the third walk's list, headless: the README counts the chat
modes the library and the app offer; a saved chat's line names its last reply's mode as that;
a measured speed says threads only under Advanced.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_app_chat_list import chat
from test_app_pages import app_env, built_workspace, docs_ws, open_page  # noqa: F401 (fixtures)

from ragcore.chat import ChatMode
from ragcore.present.sources import ListedSource
from ragcore.present.support import SUPPORTS, SourceUse
from ragcore.retrieval.cards import CARD_SUFFIX
from ragcore.types import Node, ScoredNode
from ragcore.workspace.chats import ChatSource
from webapp.answers.citing import source_title
from webapp.chat.chat_modes import PEOPLE_MODES
from webapp.chat.chat_turns import source_passage
from webapp.chat.evidence import passages_found
from webapp.indexes import document_view
from webapp.settings.packaged_models import SPEEDS

README = Path(__file__).resolve().parents[2] / "README.md"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def chat_mode_counts(text: str) -> tuple[int, int]:
    """(the modes the README says the library chats in, those it says the Chat page offers)."""
    flat = " ".join(text.split())
    library = re.search(r"chat in (\w+) modes", flat)
    offered = re.search(r"(\w+) of them offered by name on the app's Chat page", flat)
    return (NUMBERS.get(library.group(1), -1) if library else -1,
            NUMBERS.get(offered.group(1), -1) if offered else -1)


def test_the_readme_counts_the_chat_modes_there_are():
    """The walk: the README said "five modes" while the library has six and the app names four."""
    assert chat_mode_counts(README.read_text(encoding="utf-8")) == (len(ChatMode),
                                                                    len(PEOPLE_MODES))


def test_a_saved_chat_names_the_mode_of_its_last_reply_as_such(docs_ws):
    """The walk: a chat asked in two modes was listed under the last one alone, unlabelled, as
    if it were the chat's mode."""
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    at.sidebar.selectbox(key="chat_mode_choice").set_value("simple").run()
    chat(at, "And about jobs?")
    rows = [c.value for c in at.sidebar.caption if c.value.startswith("today")]
    assert len(rows) == 1, rows
    assert rows[0].endswith(" · last reply: Just the model, no documents · docs"), rows


def test_a_measured_speed_says_threads_only_under_advanced(docs_ws):
    """The walk: Settings' measured speed read "writes about 5.0 (2 threads)"."""
    speed = {"prompt_per_second": 90.0, "decode_per_second": 6.0, "first_token_seconds": 1.5,
             "threads": 2}
    (docs_ws / "app-preferences.json").write_text(json.dumps(
        {"advanced": False, SPEEDS: {"smollm2-135m": speed}}), encoding="utf-8")
    at = open_page("settings")
    said = at.dataframe[0].value.set_index("model").loc["smollm2-135m", "speed here"]
    assert said == "reads about 68 words a second and writes about 4.5 words a second", said
    at.sidebar.toggle[0].set_value(True).run()
    said = at.dataframe[0].value.set_index("model").loc["smollm2-135m", "speed here"]
    assert said.endswith("(2 threads)"), said


def test_a_sources_passage_says_what_its_colours_mean(docs_ws):
    """The walk: passages tinted blue and orange under an answer, with no word of what each
    tint means. Under each passage, one line names the tints drawn in it."""
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    sources = [e for e in at.main.expander if e.label.startswith("[")]
    assert sources
    legends = [[c.value for c in e.caption if c.value.startswith("Highlight: ")] for e in sources]
    assert all(len(said) == 1 for said in legends), legends
    assert "the words the answer used" in legends[0][0], legends[0]


CARD = ("Title of this document: Secure Software Development Framework (SSDF) Version 1.1.\n"
        "Authors who wrote this document: Murugiah Souppaya, Karen Scarfone and Donna Dodson.\n"
        "Date of this document, when it was published: February 2022.")


def test_a_document_card_is_named_as_what_it_is_not_a_pageless_passage():
    """The walk: the card a question about a document is answered from (its title, authors
    and date, read off it at indexing) was listed as "[1] ssdf.pdf", a passage without a page;
    reopened from a saved chat it is still the card."""
    card = Node(CARD, node_id="ssdf-doc" + CARD_SUFFIX, metadata={"file_name": "ssdf.pdf"})
    listed = ListedSource(1, ScoredNode(card, 0.8), SourceUse(((0, 40),), SUPPORTS))
    assert source_title(listed, advanced=False) == (
        "1. About ssdf.pdf: its title, authors and date · states this")
    assert source_title(listed, strength="close to your question", advanced=False) == (
        "[1] About ssdf.pdf: its title, authors and date · states this")
    saved = ChatSource(text=CARD, file_name="ssdf.pdf", node_id=card.node_id)
    reopened = source_passage(saved, lambda node_id: None)  # not a node of the index
    assert reopened.node.node_id == card.node_id
    found = passages_found([ScoredNode(card, 0.8)])  # while the answer is made
    assert "About ssdf.pdf: its title, authors and date" in found and "page" not in found
    assert document_view.CARD_SUFFIX == CARD_SUFFIX  # the app knows a card as ragcore makes it
