"""Whether the packaged model reads the sentence stating the answer, with and without the reader.

    python -m benchmarks.reader.reading [--half tune|test]

For each answerable question of the unseen set (``benchmarks/unseen``; a follow-up is searched
as its standalone form, the sentence it was written for), the default query engine of the
packaged model retrieves and cuts the passages to its reading budget
(``retrieval.optimizer``), once as shipped and once with the reader's weight on the ranking set
to 0; ``grounded_set.diagnose`` says whether the question's stating sentence (or, for a
factoid, its gold) is among what the model reads. Nothing is asked of the model.
"""

from __future__ import annotations

import argparse

from benchmarks.answers.grounded_set import diagnose
from benchmarks.unseen.run import index_of
from benchmarks.unseen.unseen_set import load_questions
from ragcore.retrieval import optimizer


def read_share(half: str) -> dict[str, tuple[int, int]]:
    """Per setting, (questions whose stating sentence was read, answerable questions)."""
    from ragcore.llms.resolve import resolve_llm

    every = load_questions(half=half)
    index = index_of(sorted({p for q in every for p in q.paths()}))  # as the runs index them
    questions = [q for q in every if q.gold and q.follows is None]
    engine = index.as_query_engine(llm=resolve_llm("local"))
    out = {}
    shipped = optimizer.READER_WEIGHT
    for name, weight in (("without the reader", 0.0), ("with the reader", shipped)):
        optimizer.READER_WEIGHT = weight
        read = 0
        for question in questions:
            nodes = engine.retrieve(question.question)
            texts = [n.node.text for n in nodes]
            found = diagnose(question, texts, texts)
            read += bool(found["sentence_read"] if found["sentence_read"] is not None
                         else all(found["gold_read"]))
        out[name] = (read, len(questions))
    optimizer.READER_WEIGHT = shipped
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="tune", choices=("tune", "test"))
    args = parser.parse_args()
    for name, (read, total) in read_share(args.half).items():
        print(f"| {args.half} | {name} | {read}/{total} ({read / total:.0%}) |")


if __name__ == "__main__":
    main()
