"""Fit the located-answer rule: how much of a factoid question the sentence holding a short answer
must state before the answer is vouched for without the rest of the verdict.

    python -m training.answerer.located     # prints the curve and the chosen share

On the training samples (``data/train_samples.json.gz``, SQuAD training questions only): a
positive is a question with the sentence that holds its answer; its negative is the same
question over the paragraph with that sentence removed, where the sentence a model would answer
from is taken to be the one stating most of the question (an upper bound for a wrong answer's
sentence: the rule must refuse it). The feature is ``asked_share``: the share of the question's
content words (``grounding.text.content_stems``) its sentence holds. Each row is one question;
questions whose paragraph has one sentence make no negative.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from ragcore.grounding.claims import sentence_spans
from ragcore.grounding.located import asked_share

DATA = Path(__file__).resolve().parent / "data" / "train_samples.json.gz"
# The seven titled articles of the training split (the samples above carry no titles): with
# their titles as the documents' subjects, the rule's share with and without them.
TITLED = Path(__file__).resolve().parent / "data" / "train.json"


def rows(path: Path = DATA, titles: bool = False) -> tuple[list[float], list[float]]:
    """The feature of every positive and every negative; with ``titles``, each article's
    title (underscores as spaces) is the subject of its questions (``located.asked_stems``)."""
    opened = gzip.open(path) if path.suffix == ".gz" else path.open(encoding="utf-8")
    data = json.load(opened)["data"]
    positives, negatives = [], []
    for article in data:
        subjects = (article.get("title", "").replace("_", " "),) if titles else ()
        for paragraph in article["paragraphs"]:
            text = paragraph["context"]
            spans = sentence_spans(text, wrapped=True)
            for qa in paragraph["qas"]:
                if not qa.get("answers"):
                    continue
                start = qa["answers"][0]["answer_start"]
                holding = [s for s in spans if s[0] <= start < s[1]]
                if not holding:
                    continue
                question = qa["question"]
                positives.append(asked_share(question, text[holding[0][0]:holding[0][1]],
                                             subjects))
                others = [text[a:b] for a, b in spans if (a, b) != holding[0]]
                if others:
                    negatives.append(max(asked_share(question, s, subjects) for s in others))
    return positives, negatives


def explained_rows(path: Path = DATA) -> tuple[list[float], list[float]]:
    """The why and how questions' rows for the explanation rule (``present.answer_quotes``): a
    positive is the share of the sentence stating most of the question when the sentences
    explaining it (``answer_quotes.explaining``) hold the answer (0 when they do not); its
    negative, the best share over the paragraph with the answer's sentence removed."""
    from ragcore.grounding.answer_type import wants_an_explanation
    from ragcore.present.answer_quotes import explaining

    def best(text: str, question: str) -> tuple[float, int, list[tuple[int, int]]]:
        spans = sentence_spans(text, wrapped=True)
        shares = [asked_share(question, text[a:b]) for a, b in spans]
        top = max(range(len(spans)), key=lambda k: shares[k], default=-1)
        return (shares[top] if spans else 0.0), top, spans

    data = json.load(gzip.open(path))["data"]
    positives, negatives = [], []
    for paragraph in (p for article in data for p in article["paragraphs"]):
        text = paragraph["context"]
        for qa in paragraph["qas"]:
            if not qa.get("answers") or not wants_an_explanation(qa["question"]):
                continue
            start = qa["answers"][0]["answer_start"]
            end = start + len(qa["answers"][0]["text"])
            share, top, spans = best(text, qa["question"])
            if top < 0:
                continue
            first, last = explaining(text, spans, top)
            positives.append(share if spans[first][0] <= start and end <= spans[last][1] else 0)
            holding = [s for s in spans if s[0] <= start < s[1]]
            rest = " ".join(text[a:b] for a, b in spans if (a, b) not in holding[:1])
            if len(spans) > 1:
                negatives.append(best(rest, qa["question"])[0])
    return positives, negatives


def curve(positives: list[float], negatives: list[float]) -> list[tuple[float, float, float]]:
    """(share, positives vouched, negatives vouched) for shares 0.1 to 1.0."""
    out = []
    for tenth in range(1, 11):
        share = tenth / 10
        out.append((share, sum(p >= share for p in positives) / len(positives),
                    sum(n >= share for n in negatives) / len(negatives)))
    return out


def main() -> None:
    for name, path, titles in (("samples", DATA, False), ("titled, no subjects", TITLED, False),
                               ("titled, titles as subjects", TITLED, True)):
        positives, negatives = rows(path, titles)
        print(f"\n{name}: {len(positives)} positives, {len(negatives)} negatives (answer "
              "sentence removed)")
        print("share  positives vouched  negatives vouched")
        for share, pos, neg in curve(positives, negatives):
            print(f"{share:5.1f}  {pos:17.1%}  {neg:17.1%}")
    positives, negatives = explained_rows()
    print(f"\nwhy and how questions, samples: {len(positives)} positives, {len(negatives)} "
          "negatives (answer sentence removed)")
    print("share  explained, answer in the quote  explained, answer sentence removed")
    for share, pos, neg in curve(positives, negatives):
        print(f"{share:5.1f}  {pos:31.1%}  {neg:34.1%}")


if __name__ == "__main__":
    main()
