"""The grounding verdict as a second refusal, offline, on recorded SQuAD rows: its trade-off curve.

``squad_local.py`` records the packaged model's unrefused answer, the passages it read and the
not-found gate's signals for each held-out question. Here each row is shown as the app shows it:
refused by the shipped gate, else checked by ``ragcore.grounding`` (the index's embedding model,
the question, the passages) and, for a factoid whose first claim the verdict does not support,
replaced by "The documents don't say ...". The figures of what a person is shown come from the
app's own text (``grounded_set.shown_text``: the gate, then the listing the verdict writes,
refused when its first sentence says the documents do not hold the answer, as ``grounded_set``
scores its questions): "**Quantum of Solace**. Not found in the documents." is shown as a
refusal, though the verdict, which reads no claim in a refusal, leaves the name unverified and
its label is not "unsupported". Nothing is fitted on these rows: the verdict's weights come from
the labelled claims (``benchmarks/grounding``), the gate's from training questions.

    python -m benchmarks.answers.verdict_sweep benchmarks/answers/squad_local_rows/heldout-...jsonl

Prints, at the shipped threshold and along the curve (refuse when the first claim's chance is
below t), the refusal of unanswerable questions, false "not found" on answerable ones, the
short-answer F1 over answerable ones (a refusal scores 0) and the verdict's time per answer.

``--frontier``: where the check stands on its trade-off, on training questions.
``squad_local --calibrate-whole`` records the packaged model's whole answers to 100 answerable
and 100 unanswerable questions of the calibration article (a SQuAD 2.0 *training* article) with
the passages each read. Here each answer is shown again as the app shows it (the not-found
gate, then the grounding verdict without the judge, ``grounded_set.shown_text``) under variants
of the located rule (``grounding.located``) and of a signal the check does not use:

- ``located share s, veto v``: the share of the question a short answer's sentence must state
  to vouch for it (``LOCATED_SHARE``), and below which one the features vouch for is refused
  (``VETO_SHARE``);
- ``best-stating sentence >= s``: a short answer is also located when it stands in the passage
  sentence that states the most of the question (over all passages), at least ``s`` of it;
- ``reader's mass >= m`` / ``< m``: the extractive span model's expected token F1 of the
  model's short answer (its phrases' softmax weights times each phrase's overlap with it;
  ``reader_mass``) vouches for an undecided short answer whose sentence states at least
  ``VETO_SHARE``, or refuses a vouched one.

Each row of the table counts the answerable questions shown right (short-answer F1 >= 0.5),
shown wrong, refused though right, refused and wrong, and the unanswerable ones shown, with
SQuAD's refusal, false "not found" and F1. Then each signal's AUC for three separations: a
right answer from every other shown one, from a wrong answer to an answerable question, and an
answerable question from an unanswerable one. Nothing here changes a rule: the shipped rules
stay unless a variant shows more right answers for fewer wrong ones shown.

    python -m benchmarks.answers.verdict_sweep --frontier [rows.jsonl]

``--reask N``: what the answerer could do with better passages. Of the answerable rows whose
passages held a gold answer and whose short answer was wrong, the first N are asked again by
the packaged model (the synthesizer's defaults, the gate never refusing): once with the same
passages (the model's own variance) and once with only the passage holding the gold.

    python -m benchmarks.answers.verdict_sweep --reask 30 [rows.jsonl]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

from benchmarks.answers.answer_measures import says_not_found, short_answer
from benchmarks.answers.gate_sweep import gate_refuses, read_rows
from benchmarks.answers.grounded_set import refused_first, shown_text
from benchmarks.answers.squad import normalize_answer, token_f1
from ragcore.grounding import QuestionKind, question_kind
from ragcore.synthesis.not_found import NotFoundGate
from ragcore.types import Node, ScoredNode


def judged(rows: list[dict], embedder, judge=None) -> list[dict]:
    """Per row: answerable, gate refusal, first-claim chance (1 when nothing to check), whether
    it states a fact no passage holds, whether what the app shows refuses, F1 of the answer as
    written, the seconds the app's verdict and text take. The verdict is the app's own
    (``grounded_set.shown_text``), computed once; the text scored is the one ``squad_local``
    recorded when the answer was written (the judge asked in that answer's prompt), if any."""
    gate = NotFoundGate()
    out = []
    for row in rows:
        answerable = bool(row["golds"])
        refused = gate_refuses(row, gate) or says_not_found(row["answer"])
        nodes = [ScoredNode(Node(text=passage), 1.0) for passage in row["passages"]]
        started = time.perf_counter()
        shown, listing = shown_text(row["answer"], nodes, question=row["question"],
                                    embedder=embedder, judge=judge)
        seconds = time.perf_counter() - started
        if row.get("shown") is not None:
            shown = row["shown"]
        verdict = listing.verdict
        factoid = question_kind(row["question"]) is QuestionKind.FACTOID
        lead = verdict.claims[0] if verdict is not None and verdict.claims and factoid else None
        chance = lead.score if lead is not None else 1.0
        label = verdict.label if verdict is not None else ""
        out.append({"answerable": answerable, "gate": refused, "chance": chance,
                    "missing": bool(lead is not None and lead.missing),
                    "shipped": label == "unsupported" and factoid,
                    "shown": refused or refused_first(shown),
                    "f1": token_f1(short_answer(row["answer"]), row["golds"]) if answerable
                    else 0.0, "seconds": seconds, "label": label})
    return out


def at(items: list[dict], threshold: float) -> tuple[float, float, float]:
    """(refusal of unanswerable, false not-found, F1 of answerable) refusing below threshold."""
    refuse = [i["gate"] or i["missing"] or i["chance"] < threshold for i in items]
    unanswerable = [r for r, i in zip(refuse, items) if not i["answerable"]]
    answerable = [(r, i) for r, i in zip(refuse, items) if i["answerable"]]
    return (sum(unanswerable) / max(1, len(unanswerable)),
            sum(r for r, _ in answerable) / max(1, len(answerable)),
            100 * statistics.mean(0.0 if r else i["f1"] for r, i in answerable)
            if answerable else 0.0)


ROWS = (Path(__file__).resolve().parent / "squad_local_rows"
        / "calibration-whole-2026-11-28-run1.jsonl")
COLUMNS = ("shown right", "shown wrong", "refused right", "refused wrong", "unanswerable shown")


def reader_mass(passages: list[str], question: str, answer: str, embedder: Any) -> float:
    """The extractive span model's expected token F1 of ``answer`` over ``passages``: each of
    its phrases' softmax weight (the shipped span weights, as ``model.assess`` scores them)
    times that phrase's overlap with the answer."""
    from ragcore.llms.extractive import model
    from ragcore.llms.extractive.answer import strip_labels
    from ragcore.llms.extractive.question import without_source_words
    from ragcore.llms.extractive.rank import Scorer, rank
    from ragcore.llms.extractive.text import candidates

    cands = candidates(strip_labels("\n\n".join(passages)))
    if not cands:
        return 0.0
    scorer = Scorer(list(cands), embedder)  # scored as ``answer.assessed`` scores them
    _, rows, span = model.phrase_rows(scorer, without_source_words(question),
                                      rank(scorer, question, limit=3, floor=False).scores)
    if not rows:
        return 0.0
    scores = [model.linear(span, feats) for *_, feats in rows]
    top = max(scores)
    chances = [math.exp(s - top) for s in scores]
    wanted = Counter(normalize_answer(answer).split())
    total = 0.0
    for chance, row in zip(chances, rows):
        words = Counter(model._answer_words(row))
        same = sum((words & wanted).values())
        if same:
            total += chance * 2 * same / (sum(words.values()) + sum(wanted.values()))
    return total / sum(chances)


@contextmanager
def located_rules(share: float, veto: float, best: float | None = None,
                  mass_up: float | None = None, mass_down: float | None = None,
                  embedder: Any = None) -> Iterator[None]:
    """The located rule's shares set to ``share`` / ``veto``, and the variants above, while
    the block runs (the shipped values back after)."""
    from ragcore.grounding import holding, located, verdict
    from ragcore.grounding.claims import sentence_spans
    from ragcore.grounding.claims import short_answer as is_short
    from ragcore.grounding.kinds import asks_one_fact

    saved = located.LOCATED_SHARE, located.VETO_SHARE, located._stating, verdict.decided
    stating, decided = located._stating, verdict.decided

    def best_stating(lead, stems, forms, passages, question, subjects, read):
        found = stating(lead, stems, forms, passages, question, subjects, read)
        if found is not None or best is None:
            return found
        shares = [(located.asked_share(question, p[a:b], subjects), k, (a, b))
                  for k, p in enumerate(passages) for a, b in sentence_spans(p, wrapped=True)]
        top = max((s for s, *_ in shares), default=0.0)
        held = [(s, k, span) for s, k, span in shares if s >= max(best, top)
                and holding.holds(lead, stems, forms, passages[k][span[0]:span[1]], question)]
        return (held[0][1], held[0][2]) if held else None

    def with_mass(lead, passages, question, subjects=(), absent=False, doubted=False):
        out = decided(lead, passages, question, subjects, absent, doubted)
        if (absent or not is_short(lead.claim) or lead.claim.item or not asks_one_fact(question)
                or (mass_up is None and mass_down is None)):
            return out
        mass = reader_mass(list(passages), question,
                           lead.claim.text.replace("*", "").strip().rstrip("."), embedder)
        if not out.supported and mass_up is not None and mass >= mass_up:
            stems, forms = holding.what_locates(lead.claim, True, question)
            for k, passage in enumerate(passages):
                for a, b in sentence_spans(passage, wrapped=True):
                    if (holding.holds(lead, stems, forms, passage[a:b], question)
                            and located.asked_share(question, passage[a:b], subjects) >= veto):
                        return replace(lead, supported=True, refuted=False,
                                       support=((k, (a, b)),), score=max(lead.score, 0.5))
        if out.supported and mass_down is not None and mass < mass_down:
            return replace(out, supported=False, refuted=True, support=(),
                           score=min(out.score, 0.5))
        return out

    located.LOCATED_SHARE, located.VETO_SHARE = share, veto
    located._stating, verdict.decided = best_stating, with_mass
    try:
        yield
    finally:
        located.LOCATED_SHARE, located.VETO_SHARE, located._stating, verdict.decided = saved


def shown(rows: list[dict], embedder: Any) -> list[dict]:
    """Per row: answerable, right (the short answer's F1 >= 0.5), F1, and whether what the app
    shows refuses (the gate, the model's own refusal, or the verdict's text)."""
    gate, out = NotFoundGate(), []
    for row in rows:
        refused = gate_refuses(row, gate) or says_not_found(row["answer"])
        if not refused:
            nodes = [ScoredNode(Node(text=p), 1.0) for p in row["passages"]]
            text, _ = shown_text(row["answer"], nodes, question=row["question"],
                                 embedder=embedder)
            refused = refused_first(text)
        f1 = token_f1(short_answer(row["answer"]), row["golds"]) if row["golds"] else 0.0
        out.append({"answerable": bool(row["golds"]), "f1": f1, "right": f1 >= 0.5,
                    "refused": bool(refused)})
    return out


def counts(items: list[dict]) -> tuple[tuple[int, ...], tuple[float, float, float]]:
    """The table's five counts, and (refusal, false not-found, F1)."""
    answerable = [i for i in items if i["answerable"]]
    unanswerable = [i for i in items if not i["answerable"]]
    row = (sum(not i["refused"] and i["right"] for i in answerable),
           sum(not i["refused"] and not i["right"] for i in answerable),
           sum(i["refused"] and i["right"] for i in answerable),
           sum(i["refused"] and not i["right"] for i in answerable),
           sum(not i["refused"] for i in unanswerable))
    squad = (sum(i["refused"] for i in unanswerable) / max(1, len(unanswerable)),
             sum(i["refused"] for i in answerable) / max(1, len(answerable)),
             100 * statistics.mean(0.0 if i["refused"] else i["f1"] for i in answerable)
             if answerable else 0.0)
    return row, squad


def auc(positives: list[float], negatives: list[float]) -> float:
    """The chance a positive scores above a negative (ties count half)."""
    if not positives or not negatives:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def signals(rows: list[dict], embedder: Any) -> dict[str, list[tuple[dict, float]]]:
    """Each answered row's signals: the located share of the best sentence holding its short
    answer, the gate's answerability, the reader's stated score and its mass on the answer."""
    from ragcore.grounding.claims import claims_of, sentence_spans
    from ragcore.grounding.claims import short_answer as is_short
    from ragcore.grounding.holding import holds, what_locates
    from ragcore.grounding.located import asked_share

    class Lead:  # what ``holds`` reads of a claim's check
        def __init__(self, claim):
            self.claim = claim

    out: dict[str, list[tuple[dict, float]]] = {"located share": [], "gate's answerability": [],
                                                "reader's stated score": [], "reader's mass": []}
    for row in rows:
        claims = [] if says_not_found(row["answer"]) else claims_of(row["answer"])
        text = short_answer(row["answer"])
        if not claims or not text:
            continue
        lead = claims[0]
        stems, forms = what_locates(lead, is_short(lead), row["question"])
        held = [asked_share(row["question"], p[a:b]) for p in row["passages"]
                for a, b in sentence_spans(p, wrapped=True)
                if holds(Lead(lead), stems, forms, p[a:b], row["question"])]
        f1 = token_f1(text, row["golds"]) if row["golds"] else 0.0
        item = {"answerable": bool(row["golds"]), "right": f1 >= 0.5}
        out["located share"].append((item, max(held, default=0.0)))
        answered = (row.get("signals") or {}).get("p_answered")
        if answered is not None:
            out["gate's answerability"].append((item, answered))
        if row.get("extractive_stated_score") is not None:
            out["reader's stated score"].append((item, float(row["extractive_stated_score"])))
        out["reader's mass"].append((item, reader_mass(row["passages"], row["question"], text,
                                                       embedder)))
    return out


SEPARATIONS: dict[str, tuple[Callable[[dict], bool], Callable[[dict], bool]]] = {
    "right / every other": (lambda i: i["right"], lambda i: not i["right"]),
    "right / wrong, answerable": (lambda i: i["right"],
                                  lambda i: i["answerable"] and not i["right"]),
    "answerable / unanswerable": (lambda i: i["answerable"], lambda i: not i["answerable"]),
}


def frontier(path: Path) -> None:
    """Print the frontier's table and the signals' AUCs for the rows at ``path``."""
    from ragcore.embeddings.packaged import default_embedder
    from ragcore.grounding.located import LOCATED_SHARE, VETO_SHARE

    embedder, rows = default_embedder(), read_rows(path)
    variants = [
        (f"shipped: located share {LOCATED_SHARE}, veto {VETO_SHARE}", {}),
        ("located share 0.5, veto 0.4", {"share": 0.5}),
        ("located share 0.5, veto 0.3", {"share": 0.5, "veto": 0.3}),
        ("located share 0.4, veto 0.3", {"share": 0.4, "veto": 0.3}),
        ("best-stating sentence >= 0.5", {"best": 0.5}),
        ("best-stating sentence >= 0.4", {"best": 0.4}),
        ("reader's mass >= 0.15 vouches", {"mass_up": 0.15}),
        ("reader's mass < 0.05 refuses", {"mass_down": 0.05}),
    ]
    print(f"{len(rows)} rows of {path.name}; what the app shows (no judge):")
    print(f"| variant | {' | '.join(COLUMNS)} | refusal | false not-found | F1 |")
    print("|---|" + "---|" * (len(COLUMNS) + 3))
    for name, change in variants:
        settings = {"share": LOCATED_SHARE, "veto": VETO_SHARE, **change}
        with located_rules(embedder=embedder, **settings):
            row, (refusal, false_nf, f1) = counts(shown(rows, embedder))
        print(f"| {name} | {' | '.join(map(str, row))} | {refusal:.0%} | {false_nf:.0%} | "
              f"{f1:.1f} |", flush=True)
    print("\nAUC of each signal, over the answered rows:")
    print(f"| signal | {' | '.join(SEPARATIONS)} |")
    print("|---|" + "---|" * len(SEPARATIONS))
    for name, values in signals(rows, embedder).items():
        cells = [auc([v for i, v in values if pos(i)], [v for i, v in values if neg(i)])
                 for pos, neg in SEPARATIONS.values()]
        print(f"| {name} | {' | '.join(f'{c:.2f}' for c in cells)} |")


def reask(path: Path, limit: int, llm: Any = None) -> dict[str, int]:
    """How many wrong answers whose passages held the gold the model (``llm``; the packaged
    one) gets right asked again, with the same passages and with the gold's passage alone."""
    from ragcore.llms.resolve import resolve_llm
    from ragcore.synthesis import Synthesizer

    llm = resolve_llm("local") if llm is None else llm
    synthesizer = Synthesizer(llm, not_found_gate=NotFoundGate(refuses=False))
    rows = [r for r in read_rows(path) if r["golds"]
            and any(g in p for g in r["golds"] for p in r["passages"])]
    wrong = [r for r in rows if token_f1(short_answer(r["answer"]), r["golds"]) < 0.5][:limit]
    right = {"the same passages": 0, "the gold's passage alone": 0}
    for row in wrong:
        holding = next(p for p in row["passages"] if any(g in p for g in row["golds"]))
        for name, passages in zip(right, (row["passages"], [holding])):
            nodes = [ScoredNode(Node(text=p), 1.0) for p in passages]
            text = synthesizer.synthesize(row["question"], nodes).text
            right[name] += token_f1(short_answer(text), row["golds"]) >= 0.5
    print(f"{len(rows)} answerable rows held a gold answer in their passages; {len(wrong)} of "
          "their wrong answers asked again:")
    for name, count in right.items():
        print(f"  with {name}: {count} right")
    return right


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="?", default=None)
    parser.add_argument("--judge", action="store_true", help="the packaged model judges too")
    parser.add_argument("--frontier", action="store_true",
                        help="the located rule's variants (rows: the training article's)")
    parser.add_argument("--reask", type=int, default=0,
                        help="ask the model again N wrong answers whose passages held the gold")
    args = parser.parse_args()
    if args.reask:
        reask(args.rows or ROWS, args.reask)
        return
    if args.frontier:
        frontier(args.rows or ROWS)
        return
    if args.rows is None:
        parser.error("give the rows to sweep")
    from ragcore.embeddings.packaged import default_embedder
    from ragcore.llms.resolve import resolve_llm

    judge = resolve_llm("local") if args.judge else None
    items = judged(read_rows(args.rows), default_embedder(), judge)
    print(f"{len(items)} rows; verdict seconds median "
          f"{statistics.median(i['seconds'] for i in items):.3f}, max "
          f"{max(i['seconds'] for i in items):.3f}")
    gate_only = at([dict(i, missing=False) for i in items], 0.0)
    shipped = _shipped(items)
    print("                           refusal  false-nf  F1")
    print(f"gate alone                  {gate_only[0]:6.1%}  {gate_only[1]:6.1%}  "
          f"{gate_only[2]:5.1f}")
    print(f"gate + shipped verdict      {shipped[0]:6.1%}  {shipped[1]:6.1%}  {shipped[2]:5.1f}")
    shown = _shown(items)
    print(f"what the app shows          {shown[0]:6.1%}  {shown[1]:6.1%}  {shown[2]:5.1f}")
    print("curve (refuse a factoid whose first claim states a fact no passage holds or whose "
          "chance is below t: refusal, false not-found, F1):")
    for threshold in sorted({round(i["chance"], 2) for i in items} | {0.0}):
        refusal, false_nf, f1 = at(items, threshold)
        print(f"  {threshold:.2f}: {refusal:6.1%} {false_nf:6.1%} {f1:5.1f}")


def _shipped(items: list[dict]) -> tuple[float, float, float]:
    """The figures of what the app shows: refused by the gate, or replaced by the verdict."""
    return at([dict(i, missing=i["shipped"], chance=1.0) for i in items], 0.0)


def _shown(items: list[dict]) -> tuple[float, float, float]:
    """The figures of the text the app shows (a refusal scores F1 0)."""
    return at([dict(i, gate=i["shown"], missing=False, chance=1.0) for i in items], 0.0)


if __name__ == "__main__":
    main()
