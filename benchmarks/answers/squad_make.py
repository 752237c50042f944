"""Make the SQuAD files from SQuAD training files: the held-out ones of
``benchmarks/answers/squad/`` and the training ones of ``training/answerer/data/``.

    python -m benchmarks.answers.squad_make path/to/train-v2.0.json
    python -m benchmarks.answers.squad_make --extra path/to/train-v1.1.json

The second form adds ``train_extra.json``: the articles of a SQuAD 1.1 training file that are
neither training nor held-out articles here (``EXTRA``). It reads a file cut short, as the copy
used is, up to its last whole article.

The articles are split by title (``TRAINING``, ``HELD_OUT``): the answerer's models are trained
on the first (``training/answerer/train.py``) and judged on a fixed sample of the second
(``python -m benchmarks --only answers``). See ``squad/README.md`` for the source.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from training.answerer.squad import DATA  # the one place that sees both sides: it makes the split

FOLDER = Path(__file__).resolve().parent / "squad"
TRAINING = ("Beyoncé", "Frédéric_Chopin", "Sino-Tibetan_relations_during_the_Ming_dynasty",
            "IPod", "The_Legend_of_Zelda:_Twilight_Princess", "2008_Sichuan_earthquake",
            "New_York_City")
HELD_OUT = ("Spectre_(2015_film)", "To_Kill_a_Mockingbird", "Solar_energy")
EXTRA = ("University_of_Notre_Dame", "Montana", "Genocide", "Antibiotics")
ANSWERABLE, UNANSWERABLE, SEED = 300, 60, 19


def main(source: Path) -> None:
    articles = {a["title"]: a for a in json.loads(source.read_text(encoding="utf-8"))["data"]}
    FOLDER.mkdir(exist_ok=True)
    train = {"version": "v2.0", "data": [articles[t] for t in TRAINING]}
    (DATA / "train.json").write_text(json.dumps(train, ensure_ascii=False), encoding="utf-8")
    paragraphs, questions = [], []
    for title in HELD_OUT:
        for p, paragraph in enumerate(articles[title]["paragraphs"]):
            pid = f"{title}-{p}"
            paragraphs.append({"id": pid, "title": title.replace("_", " "),
                               "text": paragraph["context"]})
            for qa in paragraph["qas"]:
                golds = list(dict.fromkeys(a["text"] for a in qa["answers"]))
                questions.append({"id": qa["id"], "title": title, "question": qa["question"],
                                  "answers": golds, "paragraph": pid,
                                  "is_impossible": bool(qa.get("is_impossible"))})
    rng = random.Random(SEED)
    sample = (rng.sample([q for q in questions if not q["is_impossible"]], ANSWERABLE)
              + rng.sample([q for q in questions if q["is_impossible"]], UNANSWERABLE))
    sample.sort(key=lambda q: (q["paragraph"], q["id"]))
    for name, rows in (("heldout_paragraphs.jsonl", paragraphs), ("heldout.jsonl", sample)):
        (FOLDER / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                           for r in rows), encoding="utf-8")


def whole_articles(text: str) -> list[dict]:
    """The complete articles of a SQuAD file's text, which may stop in the middle of one."""
    decoder, articles = json.JSONDecoder(), []
    at = text.index("[", text.index('"data"')) + 1
    while True:
        at = text.find("{", at)
        if at < 0:
            return articles
        try:
            article, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            return articles
        articles.append(article)


def extra(source: Path) -> None:
    articles = {a["title"]: a for a in whole_articles(source.read_text(encoding="utf-8"))}
    data = [articles[t] for t in EXTRA]
    assert not set(EXTRA) & set(HELD_OUT + TRAINING)
    (DATA / "train_extra.json").write_text(
        json.dumps({"version": "1.1", "data": data}, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--extra":
        extra(Path(sys.argv[2]))
    else:
        main(Path(sys.argv[1]))
