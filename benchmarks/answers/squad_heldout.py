"""The offline answerer on held-out SQuAD 2.0 questions, measured as the issue asks.

Each held-out paragraph (``squad/heldout_paragraphs.jsonl``) is one Document of an index built
with the packaged model; each question of ``squad/heldout.jsonl`` goes through the default
``index.as_query_engine()`` with ``ExtractiveLLM`` (what a user without a language model gets).
Measures (SQuAD's normalization: lower case, no punctuation, articles or extra spaces):

- gold paragraph among the passages given to the answerer;
- short answer exact match and token F1 against the gold answers (best gold), on answerable
  questions: the bold phrase when the answer has one, else its first quote, "" for not found;
- whole answer contains a gold answer, on all answerable questions and on those whose gold
  paragraph was retrieved;
- answer words, median and p90, without the fixed label prefix (the same on every answer);
- false "not found" on answerable questions, abstention on unanswerable ones;
- seconds per question after the index is loaded;
- and the baseline: the sentence of the given passages sharing the most question words.

    python -m benchmarks.answers.squad_heldout
"""

from __future__ import annotations

import json
import re
import string
import time
from collections import Counter
from pathlib import Path
from statistics import median
from typing import Any

FOLDER = Path(__file__).resolve().parent / "squad"
_LABEL_PREFIX = re.compile(r"^Extractive answer \(no language model configured\)"
                           r"(?: \[score \d\.\d\d\])?:\s*")


def normalize(text: str) -> str:
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def exact(prediction: str, golds: list[str]) -> float:
    return float(any(normalize(prediction) == normalize(g) for g in golds))


def token_f1(prediction: str, golds: list[str]) -> float:
    best = 0.0
    for gold in golds:
        p, g = normalize(prediction).split(), normalize(gold).split()
        common = sum((Counter(p) & Counter(g)).values())
        if common:
            best = max(best, 2 * common / (len(p) + len(g)))
    return best


def contains(text: str, golds: list[str]) -> bool:
    norm = normalize(text)
    return any(normalize(g) and normalize(g) in norm for g in golds)


def read_jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (FOLDER / name).read_text(encoding="utf-8").splitlines()]


def says_not_found(answer: str) -> bool:
    """Whether the answer's own first line says "not found" (the answerer's words)."""
    return _LABEL_PREFIX.sub("", answer.strip()).startswith("not found")


def short_of(answer: str) -> str:
    if says_not_found(answer):
        return ""
    first = _LABEL_PREFIX.sub("", answer.strip()).split("\n", 1)[0]
    phrase = re.match(r"^\*\*(.+?)\*\*", first)
    if phrase:
        return phrase.group(1)
    quotes = [line.strip()[2:] for line in answer.splitlines() if line.strip().startswith("- ")]
    return quotes[0] if quotes else ""


def words_of(answer: str) -> int:
    return len(_LABEL_PREFIX.sub("", answer.strip()).split())


def baseline(question: str, passages: list[str]) -> str:
    from ragcore.lexical import split_sentences, terms

    asked = set(terms(question))
    sentences = [s for p in passages for s in split_sentences(p)]
    return max(sentences, key=lambda s: len(asked & set(terms(s))), default="")


def build_engine(embedder: Any = None):
    from ragcore import VectorStoreIndex
    from ragcore.embeddings.packaged import default_embedder
    from ragcore.llms.extractive import ExtractiveLLM
    from ragcore.types import Document

    docs = [Document(text=p["text"], doc_id=p["id"], metadata={"title": p["title"]})
            for p in read_jsonl("heldout_paragraphs.jsonl")]
    index = VectorStoreIndex.from_documents(docs, embedder=embedder or default_embedder())
    return index.as_query_engine(llm=ExtractiveLLM())


def run(engine) -> tuple[dict[str, float], dict[str, float], list[dict]]:
    """The measures of the answerer and of the baseline, and each question's outcome."""
    outcomes = []
    for q in read_jsonl("heldout.jsonl"):
        started = time.perf_counter()
        response = engine.query(q["question"])
        answer = response.text
        seconds = time.perf_counter() - started
        passages = [s.node.text for s in response.source_nodes]
        given = [s.node.ref_doc_id for s in response.source_nodes]
        outcomes.append({**q, "answer": answer, "seconds": seconds,
                         "retrieved": q["paragraph"] in given,
                         "baseline": baseline(q["question"], passages),
                         "not_found": says_not_found(answer)})
    return measures(outcomes, "answer"), measures(outcomes, "baseline"), outcomes


def measures(outcomes: list[dict], key: str) -> dict[str, float]:
    answerable = [o for o in outcomes if not o["is_impossible"]]
    impossible = [o for o in outcomes if o["is_impossible"]]
    retrieved = [o for o in answerable if o["retrieved"]]
    short = (lambda o: short_of(o["answer"])) if key == "answer" else (lambda o: o["baseline"])
    not_found = (lambda o: o["not_found"]) if key == "answer" else (lambda o: False)
    words = sorted(words_of(o[key]) for o in answerable)
    pct = lambda xs: 100.0 * sum(xs) / max(len(xs), 1)  # noqa: E731
    return {
        "gold paragraph among the passages %": pct([o["retrieved"] for o in answerable]),
        "short answer exact match %": pct([exact(short(o), o["answers"]) for o in answerable]),
        "short answer token F1": pct([token_f1(short(o), o["answers"]) for o in answerable]),
        "answer contains a gold answer %": pct([contains(o[key], o["answers"])
                                                for o in answerable]),
        "... when the gold paragraph was retrieved %": pct([contains(o[key], o["answers"])
                                                            for o in retrieved]),
        "answer words, median": float(median(words)) if words else 0.0,
        "answer words, p90": float(words[int(0.9 * (len(words) - 1))]) if words else 0.0,
        "false 'not found' on answerable %": pct([not_found(o) for o in answerable]),
        "'not found' on unanswerable %": pct([not_found(o) for o in impossible]),
        "seconds per question, median": median(o["seconds"] for o in outcomes)
        if key == "answer" else float("nan"),
    }


def table(ours: dict[str, float], base: dict[str, float]) -> str:
    lines = ["| measure | ragcore | best-word-overlap sentence |", "|---|---|---|"]
    for name, value in ours.items():
        other = base[name]
        lines.append(f"| {name} | {value:.3g} | {'' if other != other else f'{other:.3g}'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    t = time.perf_counter()
    engine = build_engine()
    print(f"index built in {time.perf_counter() - t:.0f} s")
    ours, base, outcomes = run(engine)
    print(table(ours, base))
    out = Path(__file__).resolve().parents[1] / "results" / "squad-heldout-latest.jsonl"
    out.parent.mkdir(exist_ok=True)
    out.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in outcomes),
                   encoding="utf-8")
