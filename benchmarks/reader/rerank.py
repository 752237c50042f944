"""The reader as a reranker, on retrieval alone: is the sentence stating the answer among what
the packaged model reads, with the default search and with the passages reordered by the reader?

    python -m benchmarks.reader.rerank [--half tune|test]

Each answerable question of the unseen set's half (follow-ups left out: they are searched with
their rewrite) is searched as the Query page searches it (``as_query_engine`` with the packaged
model's reading budget fixed at the idle 250 tokens: ``unseen.replay.fixed_reader``): the
hybrid search's pool of 12 passages, the question's closest sentences of the first 4 read. With
``ReaderRerank`` the pool is reordered by the reader first (each passage by its sentence most
likely to state the answer), so the 4 read are the reader's. Where the evidence was lost
(``grounded_set.diagnose``: not in the pool, or in it but not read) and the rerank's seconds.
No model writes anything: this is retrieval's share of issue 64's figures.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter

from benchmarks.answers.grounded_set import diagnose
from benchmarks.unseen.replay import fixed_reader
from benchmarks.unseen.run import index_of
from benchmarks.unseen.unseen_set import load_questions


def measure(half: str, rerank: bool) -> dict:
    """Where the evidence was lost, per question, and the reranking's median seconds."""
    from ragcore.retrieval.rerank import ReaderRerank
    from ragcore.trace import Trace

    questions = [q for q in load_questions(half=half) if q.answerable and not q.follows]
    lost: Counter = Counter()
    seconds = []
    for collection in sorted({q.collection for q in questions}):
        asked = [q for q in questions if q.collection == collection]
        index = index_of(sorted({p for q in asked for p in q.paths()}))
        engine = index.as_query_engine(
            llm=fixed_reader(), node_postprocessors=[ReaderRerank(top_n=12)] if rerank else ())
        for question in asked:
            trace = Trace()
            pool = engine.retriever.retrieve(question.question)
            started = time.perf_counter()
            read = engine.retrieve(question.question, trace=trace)
            seconds.append(time.perf_counter() - started)
            where = diagnose(question, [n.node.text for n in pool], [n.node.text for n in read])
            lost[where["missed_at"] or "read"] += 1
    return {"questions": len(questions), **lost,
            "median s (postprocessing, reading choice included)": round(
                statistics.median(seconds), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="tune", choices=("tune", "test"))
    args = parser.parse_args()
    for rerank in (False, True):
        print("reader rerank" if rerank else "default search", measure(args.half, rerank))


if __name__ == "__main__":
    main()
