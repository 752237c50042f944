"""The offline answerer on the held-out SQuAD 2.0 sample, asked as a user asks.

Each held-out paragraph (``squad.heldout_paragraphs()``) is one Document of an index built with
the packaged embedding model and default splitter, and cached under ``benchmarks/.cache/`` like
the corpus index (``corpus_index.py``): the folder's name is a hash of the paragraphs file, the
splitter's settings and the model's name. Each question of ``squad.heldout_questions()`` goes
through the default ``index.as_query_engine(llm=ExtractiveLLM())`` and becomes an
``answer_measures.Record`` (gold = the question's paragraph among the passages).

    python -m benchmarks.answers.squad_heldout     # prints the issue's table for this set
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

from .answer_measures import Record, best_overlap_sentence, markdown_table, measures, timed_query
from .corpus_index import CACHE_DIR
from .squad import FOLDER, heldout_paragraphs, heldout_questions


def index_folder() -> Path:
    """Where the held-out index of the current paragraphs, splitter and model is cached."""
    from ragcore import SentenceSplitter, default_embedder

    digest = hashlib.sha256((FOLDER / "heldout_paragraphs.jsonl").read_bytes())
    settings = {"splitter": SentenceSplitter().settings(), "model": default_embedder().model_name}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    return CACHE_DIR / f"squad-heldout-index-{digest.hexdigest()[:16]}"


def load_or_build_index():
    """The cached held-out index and the seconds it took to load (or build and cache) it."""
    from ragcore import Document, VectorStoreIndex
    from ragcore.errors import PersistError

    folder, started = index_folder(), time.perf_counter()
    if folder.is_dir():
        try:
            return VectorStoreIndex.load(folder), False, time.perf_counter() - started
        except PersistError as exc:
            sys.stderr.write(f"  cached SQuAD index unreadable ({exc}); rebuilding\n")
    documents = [Document(text=p["text"], doc_id=p["id"], metadata={"title": p["title"]})
                 for p in heldout_paragraphs()]
    sys.stderr.write(f"  indexing {len(documents)} held-out SQuAD paragraphs (once; cached)\n")
    index = VectorStoreIndex.from_documents(documents)
    for stale in CACHE_DIR.glob("squad-heldout-index-*"):
        if stale != folder and stale.is_dir():
            shutil.rmtree(stale)
    index.persist(folder)
    return index, True, time.perf_counter() - started


def ask_all(engine) -> list[Record]:
    """Every held-out question through ``engine``, as measured records."""
    from ragcore.present.answer_score import stated_score

    records = []
    for q in heldout_questions():
        response, answer, seconds = timed_query(engine, q.question)
        passages = [s.node.text for s in response.source_nodes]
        given = {s.node.ref_doc_id for s in response.source_nodes}
        records.append(Record(q.id, q.question, list(q.answers), answer, passages,
                              q.paragraph in given, seconds,
                              baseline=best_overlap_sentence(q.question, passages),
                              score=stated_score(response.trace)))
    return records


def run() -> tuple[list[Record], dict]:
    """The records of every held-out question and how the index was made."""
    from ragcore import ExtractiveLLM

    index, built, seconds = load_or_build_index()
    engine = index.as_query_engine(llm=ExtractiveLLM())
    engine.query("What is solar energy?").text  # loads the embedding model: not a question's cost
    how = {"built": built, "seconds": seconds, "nodes": len(index)}
    return ask_all(engine), how


def title(records: list[Record]) -> str:
    answerable = sum(r.answerable for r in records)
    return (f"SQuAD 2.0 held-out sample: {answerable} answerable + "
            f"{len(records) - answerable} unanswerable questions over "
            f"{len(heldout_paragraphs())} paragraphs (default as_query_engine, ExtractiveLLM)")


if __name__ == "__main__":
    from .answer_report import before_measures

    records, _ = run()
    print(markdown_table(title(records), measures(records), measures(records, baseline=True),
                         before_measures().get("squad")))
