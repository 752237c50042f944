"""The grounding claims stay honest: the set is as large and as balanced as its README says,
every passage is real text (the corpus ones as ragcore's reader loads them, the SQuAD ones
training paragraphs), the file is what its generator writes, and the measures mean what they say."""

from __future__ import annotations

import json
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

# benchmarks/ and training/ are folders of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.grounding import claims_make  # noqa: E402
from benchmarks.grounding.claims_set import (  # noqa: E402
    CLAIMS_FILE,
    auc,
    curve,
    load_claims,
    split,
    summary_at,
)
from ragcore import load_file  # noqa: E402

CLAIMS = load_claims()


def _collapsed(text: str) -> str:
    return " ".join(text.split())


def test_the_set_is_large_enough_in_both_parts():
    origins = Counter(c.origin for c in CLAIMS)
    assert len(CLAIMS) >= 300
    assert origins["corpus"] >= 150 and origins["squad-train"] >= 150


def test_labels_are_in_the_proportions_asked_for():
    shares = {label: n / len(CLAIMS) for label, n in Counter(c.label for c in CLAIMS).items()}
    assert shares["supported"] == pytest.approx(0.45, abs=0.04)
    assert shares["unsupported"] == pytest.approx(0.35, abs=0.04)
    assert shares["contradicted"] == pytest.approx(0.20, abs=0.04)
    for origin in ("corpus", "squad-train"):  # neither part leans on one label
        labels = Counter(c.label for c in CLAIMS if c.origin == origin)
        assert all(labels[label] >= 30 for label in ("supported", "unsupported", "contradicted"))


def test_every_kind_of_mistake_and_of_wording_is_there():
    errors = Counter(c.error for c in CLAIMS)
    for error in ("number", "name", "list_item", "acronym", "negation", "invented_fact",
                  "wrong_entity", "date", "copy", "paraphrase", "partial", "list"):
        assert errors[error] >= 5, error
    short = [c for c in CLAIMS if c.claim.startswith("**")]
    assert len(short) >= 30
    assert {c.label for c in short} == {"supported", "unsupported", "contradicted"}


def test_passages_are_chunk_sized_and_claims_are_single_statements():
    for c in CLAIMS:
        assert 100 <= len(c.passage.split()) <= 250, c.id
        assert "\n" not in c.claim and len(c.claim.split()) <= 60, c.id
    corpus_collections = {c.source.split(":")[1].split("/")[0] for c in CLAIMS
                          if c.origin == "corpus"}
    assert corpus_collections >= {"nist_pdfs", "state_of_the_union", "rfcs", "python_peps",
                                  "sherlock_holmes_xhtml", "rust_book"}


@lru_cache(maxsize=None)
def _loaded(path: Path) -> tuple[str, ...]:
    """The whitespace-collapsed text of each Document the reader makes of ``path``."""
    return tuple(_collapsed(doc.text) for doc in load_file(path))


def _corpus_passages() -> list:
    """One case per distinct corpus passage; reading the NIST PDFs is slow, so those are
    checked with the slow tests."""
    found = {(c.source.removeprefix("corpus:"), c.passage): c.id for c in CLAIMS
             if c.origin == "corpus"}
    return [pytest.param(rel, passage, id=first,
                         marks=[pytest.mark.slow] if rel.endswith(".pdf") else [])
            for (rel, passage), first in found.items()]


@pytest.mark.parametrize(("rel", "passage"), _corpus_passages())
def test_corpus_passages_are_in_the_text_the_reader_loads(corpus_dir, rel, passage):
    path = corpus_dir / rel
    assert path.is_file(), f"{path} does not exist"
    # within one Document (a PDF page), where a chunk can hold it
    assert any(_collapsed(passage) in text for text in _loaded(path)), rel


def test_squad_passages_are_paragraphs_of_the_training_file_only():
    paragraphs = {(p["title"], p["context"]) for p in claims_make.training_paragraphs()}
    assert claims_make.TRAIN.name == "train.json"
    assert claims_make.TRAIN.parent.parts[-3:] == ("training", "answerer", "data")
    for c in CLAIMS:
        if c.origin == "squad-train":
            assert (c.source.removeprefix("squad-train:"), c.passage) in paragraphs, c.id


def test_the_file_is_what_the_generator_writes():
    written = [json.loads(line) for line in CLAIMS_FILE.read_text(encoding="utf-8").splitlines()]
    assert claims_make.build() == written  # rerun: python -m benchmarks.grounding.claims_make


@pytest.mark.parametrize(("question", "answer", "sentence"), [
    ("Who managed the Destiny's Child group?", "Mathew Knowles",
     "Mathew Knowles managed the Destiny's Child group."),
    ("When was Fort Hamilton built?", "1825", "Fort Hamilton was built in 1825."),
    ("How many restaurants are there in NYC?", "24,000", "There are 24,000 restaurants in NYC."),
    ("How many Tibetan prisoners did Mu Ying capture?", "30,000",
     "Mu Ying captured 30,000 Tibetan prisoners."),
    ("What year did Chopin leave Warsaw?", "1830", "Chopin left Warsaw in 1830."),
    ("When did Apple reveal the iPod?", "October 23, 2001",
     "Apple revealed the iPod on October 23, 2001."),
])
def test_questions_become_sentences_holding_the_answer(question, answer, sentence):
    assert claims_make.fill(claims_make.rule_template(question), answer) == sentence


def test_a_swapped_answer_keeps_its_kind_and_unit():
    context = ("The quake killed 69,197 people and injured 374,176; 20 helicopters flew on "
               "May 12, and 4 ships sailed in 2008, a year after 2007.")
    qa = {"question": "How many people were killed?",
          "answers": [{"text": "69,197", "answer_start": context.index("69,197")}]}
    assert claims_make.swap_candidates(context, qa, "number") == ["374,176"]
    qa = {"question": "When?", "answers": [{"text": "2008", "answer_start": context.index("2008")}]}
    assert claims_make.swap_candidates(context, qa, "date") == ["2007"]


def test_split_is_deterministic_disjoint_and_covers_both_parts():
    fit, judge = split(CLAIMS)
    assert (fit, judge) == split(list(CLAIMS))
    assert not {c.id for c in fit} & {c.id for c in judge}
    assert len(fit) + len(judge) == len(CLAIMS)
    for half in (fit, judge):
        assert len(half) >= 0.4 * len(CLAIMS)
        assert {(c.origin, c.label) for c in half} == {
            (o, label) for o in ("corpus", "squad-train")
            for label in ("supported", "unsupported", "contradicted")}
    # a claim's half depends on its id alone: a smaller set splits the same way
    assert split(CLAIMS[:50])[0] == [c for c in fit if c in CLAIMS[:50]]


# A worked example: two supported claims scored 0.9 and 0.4, an unsupported one 0.8 and a
# contradicted one 0.3.
SCORES = [0.9, 0.8, 0.4, 0.3]
LABELS = ["supported", "unsupported", "supported", "contradicted"]


def test_curve_gives_precision_and_both_recalls_at_every_threshold():
    assert curve(SCORES, LABELS) == [
        (0.9, 1.0, 0.5, 1.0),      # only the 0.9 claim called supported
        (0.8, 0.5, 0.5, 0.5),      # the unsupported 0.8 one gets through
        (0.4, 2 / 3, 1.0, 0.5),
        (0.3, 0.5, 1.0, 0.0),      # everything called supported
    ]


def test_curve_treats_tied_scores_as_one_threshold():
    assert curve([0.5, 0.5, 0.1], ["supported", "unsupported", "supported"]) == [
        (0.5, 0.5, 0.5, 0.0), (0.1, 2 / 3, 1.0, 0.0)]


def test_auc_is_the_share_of_supported_unsupported_pairs_ordered_right():
    assert auc(SCORES, LABELS) == pytest.approx(3 / 4)  # 0.4 < 0.8 is the one pair wrong
    assert auc([0.5, 0.5], ["supported", "contradicted"]) == pytest.approx(0.5)


def test_summary_at_a_threshold_breaks_recall_down_by_label_and_error():
    summary = summary_at(0.4, SCORES, LABELS, ["copy", "number", "paraphrase", "name"])
    assert summary.precision_supported == pytest.approx(2 / 3)
    assert summary.recall_supported == 1.0 and summary.recall_unsupported == 0.5
    assert summary.by_label == {"supported": 1.0, "unsupported": 0.0, "contradicted": 1.0}
    assert summary.by_error["number"] == 0.0 and summary.by_error["name"] == 1.0
    assert summary_at(1.0, SCORES, LABELS).precision_supported == 1.0  # nothing called supported


def test_measures_refuse_mismatched_input():
    with pytest.raises(ValueError, match="3 scores for 4 labels"):
        curve(SCORES[:3], LABELS)
    with pytest.raises(ValueError, match="maybe"):
        curve([0.1], ["maybe"])


def _write(tmp_path: Path, **fields) -> Path:
    row = {"id": "x1", "source": "corpus:rfcs/rfc2616.txt", "question": "q?", "passage": "p",
           "claim": "c.", "label": "supported", "error": "copy", **fields}
    path = tmp_path / "claims.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("fields", "message"), [
    ({"label": "true"}, "label 'true'"),
    ({"error": "number"}, "error 'number' of a supported claim"),
    ({"label": "contradicted", "error": "copy"}, "error 'copy' of a contradicted claim"),
    ({"claim": ""}, "claim"),
    ({"source": "wiki:Paris"}, "source 'wiki:Paris'"),
])
def test_load_claims_names_the_line_and_the_problem(tmp_path, fields, message):
    with pytest.raises(ValueError, match=f"claims.jsonl:1: .*{message}"):
        load_claims(_write(tmp_path, **fields))
