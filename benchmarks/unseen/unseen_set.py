"""The unseen question set: questions over four document collections that none of the other sets
use (``docs/``: a paper PDF, a spec, a manual, a book chapter), written before any rule of the
grounding verdict was changed for issue 55, and split once into a half to tune on and a half to
test on.

Unlike ``benchmarks/answers/grounded_set.py``, whose kinds are factoid/list/summary/unanswerable,
rows here also ask why and how, and come in follow-up pairs asked as a chat. Each line of
``questions.jsonl`` is one question:

    id          "u001", "u002" ...
    collection  the folder under ``docs/`` ("paper", "spec", "manual", "chapter")
    kind        factoid | list | why | how | summary | followup | unanswerable
    question    the text asked; a follow-up is worded as a person would in a chat
    gold        short strings of the loaded text a right reply says: for a factoid, alternative
                spellings (any one will do); for every other kind, every item; [] when the
                documents do not answer (kind unanswerable, or a follow-up they don't answer)
    files       the file(s) of the collection the question is about
    sentence    the document's sentence stating the answer, verbatim; for a question they don't
                answer, what they say nearest, or ""
    where       page or section
    follows     (follow-ups only) the id of the question the follow-up continues
    half        "tune" or "test" (``split``, seed ``SEED``)

The split keeps a follow-up pair in one half and spreads each collection's unanswerable, pair
and single questions evenly over the two halves.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUESTIONS_FILE = HERE / "questions.jsonl"
DOCS = HERE / "docs"
SEED = 55  # issue 55; fixed, so the halves never move
KINDS = ("factoid", "list", "why", "how", "summary", "followup", "unanswerable")
HALVES = ("tune", "test")
_FIELDS = {"id", "collection", "kind", "question", "gold", "files", "sentence", "where", "half"}


@dataclass(frozen=True, slots=True)
class UnseenQuestion:
    """One question of the unseen set."""

    id: str
    collection: str
    kind: str
    question: str
    gold: tuple[str, ...]
    files: tuple[str, ...]
    sentence: str
    where: str
    half: str
    follows: str | None = None

    @property
    def answerable(self) -> bool:
        """False when the documents do not answer it: the right reply says so."""
        return bool(self.gold)

    def paths(self, docs: Path = DOCS) -> list[Path]:
        """The files it is about."""
        return [docs / self.collection / name for name in self.files]


def load_questions(path: Path = QUESTIONS_FILE, *, half: str | None = None) -> list[UnseenQuestion]:
    """The questions of ``path`` (only ``half``'s when given); ValueError naming the line and the
    problem if one is malformed."""
    if half is not None and half not in HALVES:
        raise ValueError(f"half {half!r} is not one of {', '.join(HALVES)}")
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            questions.append(_question(json.loads(line), f"{path.name}:{number}"))
    ids = {q.id for q in questions}
    for q in questions:
        if q.follows is not None and q.follows not in ids:
            raise ValueError(f"{q.id}: follows {q.follows!r}, which is not a question id")
    return [q for q in questions if half is None or q.half == half]


def split(rows: list[dict], seed: int = SEED) -> dict[str, str]:
    """Each row id's half: a follow-up goes with the question it follows; within each
    collection, its questions of each kind (a pair counting as one, by whether the documents
    answer its follow-up) are shuffled with ``seed`` and dealt alternately, so each half gets as
    many of each kind as the other (+-1)."""
    rng = random.Random(seed)
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row.get("follows") or row["id"], []).append(row["id"])
    by_id = {row["id"]: row for row in rows}
    strata: dict[tuple[str, str], list[str]] = {}
    for head, members in groups.items():
        if len(members) > 1:  # a pair the documents answer, or one whose follow-up they don't
            stratum = "pair" if all(by_id[m]["gold"] for m in members) else "pair-unanswerable"
        else:
            stratum = by_id[head]["kind"]
        strata.setdefault((by_id[head]["collection"], stratum), []).append(head)
    # One deal per stratum kind, carried from collection to collection: each collection's
    # share is even (+-1) and so is the whole set's.
    dealt = {kind: rng.randrange(2) for kind in sorted({kind for _, kind in strata})}
    halves = {}
    for collection, kind in sorted(strata):
        heads = sorted(strata[collection, kind])
        rng.shuffle(heads)
        for head in heads:
            for member in groups[head]:
                halves[member] = HALVES[dealt[kind] % 2]
            dealt[kind] += 1
    return halves


def _question(record: object, where: str) -> UnseenQuestion:
    if not isinstance(record, dict) or not _FIELDS <= set(record) <= _FIELDS | {"follows"}:
        keys = sorted(record) if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{where}: expected the fields {sorted(_FIELDS)} (and 'follows' for "
                         f"a follow-up), got {keys}")
    if record["kind"] not in KINDS:
        raise ValueError(f"{where}: kind {record['kind']!r} is not one of {', '.join(KINDS)}")
    if record["half"] not in HALVES:
        raise ValueError(f"{where}: half {record['half']!r} is not one of {', '.join(HALVES)}")
    if (record["kind"] == "followup") != ("follows" in record):
        raise ValueError(f"{where}: a followup, and only a followup, names the id it follows")
    if (record["kind"] == "unanswerable") != (not record["gold"]) and record["kind"] != "followup":
        raise ValueError(f"{where}: only an unanswerable question (or a follow-up) has no gold")
    for name in ("gold", "files"):
        if not all(isinstance(s, str) and s.strip() for s in record[name]):
            raise ValueError(f"{where}: {name} must be a list of non-empty strings")
    return UnseenQuestion(record["id"], record["collection"], record["kind"], record["question"],
                          tuple(record["gold"]), tuple(record["files"]), record["sentence"],
                          record["where"], record["half"], record.get("follows"))
