"""Questions the passages do not answer, made from answerable training questions: the answer
model's negatives beside SQuAD 2.0's own unanswerable ones (``train.py``).

- ``off_topic``: a question given the passages of a question about another article;
- ``near_misses``: a number or a name changed to one the passages do not hold.
"""

from __future__ import annotations

import random
import re

OFF_TOPIC_SEED, OFF_TOPIC_POOL = 19, 300
NEAR_MISS_SEED = 20
_NUMBER = re.compile(r"\b\d{2,4}\b")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")


def off_topic(rows: list[dict]) -> list[dict]:
    """Questions the documents do not cover at all, as users ask them: every third question
    with the passages retrieved for the question of another article that shares the most of
    its words (SQuAD's own unanswerable questions are all about the paragraph at hand)."""
    from ragcore.search.lexical import terms

    rng = random.Random(OFF_TOPIC_SEED)
    bags = [set(terms(r["question"])) for r in rows]
    out = []
    for i in range(0, len(rows), 3):
        others = [j for j in rng.sample(range(len(rows)), OFF_TOPIC_POOL)
                  if rows[j]["title"] != rows[i]["title"]]
        if not others:
            continue
        j = max(others, key=lambda j: len(bags[i] & bags[j]) / (len(bags[i] | bags[j]) or 1))
        out.append({**rows[i], "context": rows[j]["context"], "impossible": True,
                    "id": f"{rows[i]['id']}-off-topic"})
    return out


def near_misses(rows: list[dict]) -> list[dict]:
    """Questions the passages almost answer, as SQuAD 2.0's unanswerable ones are made: every
    third answerable question with one of its numbers or names changed to one the passages do
    not hold ("... hacked in November 2004?" of a passage on November 2014, "... in
    Australia?" of one on Austria), given the passages of the question as asked."""
    rng = random.Random(NEAR_MISS_SEED)
    names = sorted({w for r in rows for w in _NAME.findall(r["question"])[1:]})
    out = []
    for row in rows[::3]:
        if row["impossible"]:
            continue
        changed = with_changed_fact(row, names, rng)
        if changed:
            out.append({**row, "question": changed, "asked": changed, "impossible": True,
                        "id": f"{row['id']}-near-miss"})
    return out


def with_changed_fact(row: dict, names: list[str], rng: random.Random) -> str | None:
    """``row``'s question with a number or a name its passages do not hold, or None."""
    question, context = row["question"], row["context"]
    numbers = [m for m in _NUMBER.finditer(question)]
    if numbers:
        m = rng.choice(numbers)
        for _ in range(10):
            digits = list(m.group())
            k = rng.randrange(len(digits))
            digits[k] = rng.choice([d for d in "0123456789" if d != digits[k]])
            new = "".join(digits)
            if new[0] != "0" and new not in context:
                return question[: m.start()] + new + question[m.end():]
    own = [m for m in _NAME.finditer(question) if m.start() > 0]
    if own and names:
        m = rng.choice(own)
        for _ in range(10):
            new = rng.choice(names)
            if new not in context and new.lower() not in question.lower():
                return question[: m.start()] + new + question[m.end():]
    return None
