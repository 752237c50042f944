"""The grounded-answers question set stays honest: it is well formed and big enough, every gold
string and stating sentence really is in the text ragcore's reader loads from the file it names,
the unanswerable questions really go unanswered there, and the measures mean what they say."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.answers.grounded_set import (  # noqa: E402
    KINDS,
    GroundedQuestion,
    diagnose,
    first_sentence,
    items_found,
    load_questions,
    refused_first,
)
from ragcore import load_file  # noqa: E402

QUESTIONS = load_questions()
SSDF = "NIST.SP.800-218.pdf"
IDPS = "nistspecialpublication800-94.pdf"


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


@lru_cache(maxsize=None)
def _loaded_texts(path: Path) -> tuple[str, ...]:
    """The normalised text of each Document the reader makes of ``path`` (one per PDF page)."""
    return tuple(_normal(doc.text) for doc in load_file(path))


def _is_pdf_question(question: GroundedQuestion) -> bool:
    return question.collection == "nist_pdfs"


# --- the set's shape --------------------------------------------------------------------------

def test_the_set_has_enough_questions_of_every_kind():
    kinds = Counter(q.kind for q in QUESTIONS)
    assert set(kinds) == set(KINDS)
    assert kinds["factoid"] + kinds["list"] >= 40
    assert kinds["list"] >= 12
    assert kinds["unanswerable"] >= 24
    assert kinds["summary"] >= 6
    assert [q.id for q in QUESTIONS] == [f"g{n:02d}" for n in range(1, len(QUESTIONS) + 1)]


def test_the_questions_spread_over_the_collections():
    by_file = Counter(f for q in QUESTIONS for f in q.files)
    ssdf = [q for q in QUESTIONS if SSDF in q.files or
            (q.collection == "nist_pdfs" and "SSDF" in q.question)]
    assert len(ssdf) >= 12
    other_pdfs = {f: n for f, n in by_file.items() if f.endswith(".pdf") and f != SSDF}
    assert max(other_pdfs.values()) >= 6
    assert {q.collection for q in QUESTIONS} >= {
        "nist_pdfs", "state_of_the_union", "rfcs", "python_peps", "sherlock_holmes_xhtml",
        "rust_book"}


def _asked(text: str) -> GroundedQuestion:
    matches = [q for q in QUESTIONS if q.question == text]
    assert len(matches) == 1, f"the set must ask {text!r} once"
    return matches[0]


def test_the_set_asks_the_issues_two_named_questions():
    groups = _asked("What are the four groups of practices in the SSDF?")
    assert groups.kind == "list" and groups.files == (SSDF,)
    assert groups.gold == ("Prepare the Organization (PO)", "Protect the Software (PS)",
                           "Produce Well-Secured Software (PW)",
                           "Respond to Vulnerabilities (RV)")
    staff = _asked("How many employees does NIST have?")
    assert staff.kind == "unanswerable" and staff.collection == "nist_pdfs"


def test_no_question_is_asked_twice():
    asked = Counter(_normal(q.question) for q in QUESTIONS)
    assert [text for text, n in asked.items() if n > 1] == []


# --- gold strings and sentences are in the loaded text ----------------------------------------

def _answerable() -> list:
    """One case per answerable question; the PDFs are read with the slow tests."""
    return [pytest.param(q, id=q.id, marks=[pytest.mark.slow] if _is_pdf_question(q) else [])
            for q in QUESTIONS if q.answerable]


@pytest.mark.parametrize("question", _answerable())
def test_gold_and_sentence_occur_in_the_text_the_reader_loads(corpus_dir, question):
    wanted = list(question.gold) + ([question.sentence] if question.sentence else [])
    found: dict[str, list[str]] = {}
    for path in question.paths(corpus_dir):
        assert path.is_file(), f"{path} does not exist"
        # Each string must sit inside one Document (a PDF page), where a chunk can hold it.
        found[path.name] = [s for s in wanted
                            if any(_normal(s) in text for text in _loaded_texts(path))]
    missing = [s for s in wanted if not any(s in hits for hits in found.values())]
    assert not missing, f"{question.id}: not in {list(found)}: {missing}"
    idle = [name for name, hits in found.items() if not hits]
    assert not idle, f"{question.id} names {idle}, which hold none of its strings"


# --- unanswerable questions: on topic, and not answered -------------------------------------

# (start of the question, the file to search or None for the whole collection, a pattern the
# text must hold: the topic is there, a pattern it must not hold: the answer). The patterns run
# on the whitespace-collapsed, case-folded text.
UNSTATED = [
    ("How many employees does NIST", None, r"nist employee", r"\d[\d,]* (?:employees|staff)"),
    ("How much does it cost to get an SSDF", SSDF, r"secure software development framework",
     r"certification|\$\s?\d"),
    ("When will version 2.0 of the SSDF", SSDF, r"version 1\.1", r"ssdf version 2|ssdf 2\.0"),
    ("How much does a typical IDPS", IDPS, r"licensing fees", r"\$\s?\d|dollars"),
    ("How much money did the President ask", None, r"send congress a request", r"\$[^.]*request"),
    ("What is the name of the Ukrainian Ambassador", None,
     r"the ukrainian ambassador to the united states is here tonight", r"oksana|markarova"),
    ("How long did the State of the Union speech last", None, r"state of the union",
     r"\d+ minutes|\bhours? long|lasted"),
    ("Which TLS version does RFC 2616", "rfc2616.txt", r"ssl", r"\btls\b|transport layer secur"),
    ("What is the maximum total length of a URI", "rfc3986.txt", r"255 characters",
     r"maximum length"),
    ("Which code formatter does PEP 8", "pep-0008.rst", r"linters",
     r"\bblack\b|autopep8|formatter"),
    ("In what year did Guido write", "pep-0008.rst", r"python style guide essay",
     r"essay[^.]{0,40}\b(?:19|20)\d\d"),
    ("Does PEP 257 prefer Google", "pep-0257.rst", r"docstring", r"google|numpy"),
    ("What is the name of Sherlock Holmes's older brother", None, r"holmes", r"mycroft"),
    ("What prison sentence did John Clay", "the-redheaded-league.xhtml", r"john clay",
     r"penal servitude|years in prison"),
    ("What is the first name of Dr. Watson's wife", None, r"my wife", r"mrs\. watson|mary watson"),
    ("What is the default stack size", None, r"thread::spawn", r"stack size"),
    ("How many crates are published on crates.io", None, r"crates\.io",
     r"\d[\d,]* crates (?:are|on|published)"),
]


@lru_cache(maxsize=None)
def _searched_text(folder: Path, name: str | None) -> str:
    """The loaded, normalised text of file ``name`` of a collection, or of every file of it (its
    SOURCE.md notes too, which a user indexing the folder would index) when ``name`` is None."""
    paths = [folder / name] if name else [
        path for path in sorted(folder.rglob("*"))
        if path.suffix in {".pdf", ".txt", ".rst", ".md", ".xhtml"}]
    return "\n".join(text for path in paths for text in _loaded_texts(path))


def _unstated() -> list:
    cases = []
    for start, name, topic, answer in UNSTATED:
        matches = [q for q in QUESTIONS if q.question.startswith(start)]
        assert len(matches) == 1, f"no single question starts with {start!r}"
        question = matches[0]
        cases.append(pytest.param(question, name, topic, answer, id=question.id,
                                  marks=[pytest.mark.slow] if _is_pdf_question(question) else []))
    return cases


@pytest.mark.parametrize(("question", "name", "topic", "answer"), _unstated())
def test_an_unanswerable_question_is_on_topic_but_unanswered(corpus_dir, question, name, topic,
                                                              answer):
    assert question.kind == "unanswerable"
    text = _searched_text(corpus_dir / question.collection, name)
    assert re.search(topic, text), f"{question.id}: the topic {topic!r} is not in the collection"
    hit = re.search(answer, text)
    assert not hit, f"{question.id}: the collection seems to answer it: {hit.group()!r}"


# --- loading -----------------------------------------------------------------------------------

def _write(tmp_path: Path, **fields) -> Path:
    record = {"id": "g1", "collection": "rfcs", "kind": "factoid", "question": "What is 413?",
              "gold": ["413"], "files": ["rfc2616.txt"], "sentence": "413 Request Entity",
              **fields}
    path = tmp_path / "grounded.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "guess"}, "kind 'guess' is not one of"),
        ({"gold": ["a", "b", "c", "d"]}, "a factoid question needs 1-3 gold strings, has 4"),
        ({"kind": "list", "gold": ["one"]}, "a list question needs at least 2 gold strings"),
        ({"kind": "summary", "gold": ["one"]}, "a summary question needs 2-4 gold strings"),
        ({"kind": "unanswerable"}, "an unanswerable question needs no gold strings"),
        ({"kind": "unanswerable", "gold": []}, "needs empty files and sentence"),
        ({"files": []}, "needs the files holding its gold strings"),
        ({"sentence": " "}, "needs the sentence stating its answer"),
        ({"sentence": None}, "sentence must be a string"),
        ({"gold": ["  "]}, "gold must be a list of non-empty strings"),
        ({"question": ""}, "question must be a non-empty string"),
        ({"extra": 1}, "expected exactly the fields"),
    ],
)
def test_a_malformed_question_is_rejected_with_its_line(tmp_path, fields, message):
    path = _write(tmp_path, **fields)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load_questions(path)
    assert f"{path}:1" in str(info.value)


def test_a_repeated_id_and_a_broken_line_are_rejected(tmp_path):
    path = _write(tmp_path)
    path.write_text(path.read_text() * 2, encoding="utf-8")
    with pytest.raises(ValueError, match="id 'g1' is used twice"):
        load_questions(path)
    path.write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON"):
        load_questions(path)


# --- the measures ------------------------------------------------------------------------------

def _question(kind: str, gold: tuple[str, ...], sentence: str = "") -> GroundedQuestion:
    return GroundedQuestion("g1", "rfcs", kind, "?", gold, ("rfc2616.txt",), sentence)


def test_items_found_ignores_layout_emphasis_and_quotes_but_not_words():
    listed = _question("list", ("Pope’s Court, Fleet Street", "Produce Well-Secured Software",
                                "Access fields of `union`s"))
    answer = ("At **7 Pope's Court,\nFleet  Street**; the group “produce well-secured "
              "software”; access fields of unions.")
    assert items_found(listed, answer) == [True, True, True]
    assert items_found(listed, "Pope's Lane, Fleet Street; Produce Secured Software") == [
        False, False, False]


def test_a_factoid_needs_one_alternative_and_a_list_needs_every_item():
    factoid = _question("factoid", ("£120 a year", "£30 a quarter"))
    assert items_found(factoid, "He offered £30 a quarter.") == [True]
    assert items_found(factoid, "He offered £100 a year.") == [False]
    listed = _question("list", ("Poland", "Romania", "Estonia"))
    assert items_found(listed, "Poland and Estonia") == [True, False, True]
    assert items_found(_question("unanswerable", ()), "anything") == []


@pytest.mark.parametrize("answer", [
    "The documents don't say how many employees NIST has.",
    "Not found in the documents.",
    "**Not found in the documents.** NIST is a federal agency.",
    "The provided passages do not state a price.",
    "RFC 2616 doesn’t mention TLS at all.",
    "The number is not stated.",
    "I couldn't find the date in the documents.",
    "There is no information about his brother in these stories.",
    "Dr. Watson's wife is never named in the stories.",
])
def test_a_refusal_in_the_first_sentence_is_recognised(answer):
    assert refused_first(answer)


@pytest.mark.parametrize("answer", [
    "NIST held a June 2021 workshop. The documents don't say how many people came.",
    "The server has not found anything matching the Request-URI.",
    "Rust doesn't have exceptions; it has Result<T, E> and panic!.",
    "We will never give up on vaccinating more Americans.",
    "The four groups are PO, PS, PW and RV.",
    "",
])
def test_an_answer_or_a_late_hedge_is_not_a_refusal(answer):
    assert not refused_first(answer)


def test_the_first_sentence_skips_markup_and_abbreviations():
    assert first_sentence("## Answer\n") == "Answer"
    assert first_sentence("- Dr. Watson, e.g. the narrator. Then more.") == (
        "Dr. Watson, e.g. the narrator.")
    assert first_sentence("Version 1.1 of the SSDF.\nNext") == "Version 1.1 of the SSDF."


def test_diagnose_names_the_stage_that_lost_the_evidence():
    question = _question("factoid", ("2 connections",),
                         "A single-user client SHOULD NOT maintain more than 2 connections")
    chunk = "clients. A single-user client SHOULD NOT maintain\nmore than 2 connections with any"
    assert diagnose(question, [chunk], [chunk]) == {
        "gold_retrieved": [True], "gold_read": [True], "sentence_retrieved": True,
        "sentence_read": True, "missed_at": None}
    report = diagnose(question, ["other", chunk], ["other"])
    assert report["gold_read"] == [False] and report["missed_at"] == "reading"
    assert diagnose(question, ["2 connections, not the sentence"], [])["missed_at"] == "retrieval"
    # A sentence cut between two retrieved chunks still counts as retrieved.
    halves = ["A single-user client SHOULD NOT", "maintain more than 2 connections"]
    assert diagnose(question, halves, halves)["sentence_retrieved"] is True


def test_diagnose_of_an_unanswerable_question_has_nothing_to_miss():
    report = diagnose(_question("unanswerable", ()), ["text"], ["text"])
    assert report == {"gold_retrieved": [], "gold_read": [], "sentence_retrieved": None,
                      "sentence_read": None, "missed_at": None}
