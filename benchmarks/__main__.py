"""Run every benchmark, print one table with targets beside figures, and write it as JSON.

    python -m benchmarks            # the full run on the whole corpus (several minutes)
    python -m benchmarks --quick    # a smaller run: a corpus slice, fewer vectors
    python -m benchmarks --only search pipeline

Groups: pipeline (load, split, embed, persist, fresh-process load), search (top-5 vs bare
numpy), query (per-mode overhead, ``bench_query``), app (cold start, first answer token,
``bench_app``), answers (the offline answerer on the questions of ``benchmarks/answers``,
``bench_answers``), retrieval (nDCG@10, recall, MRR per retrieval mode, ``bench_retrieval``)
stores (numpy, Chroma, Postgres side by side at 10k/100k rows, ``bench_stores``) and
embedders (the packaged model on torch and ONNX, float32 and int8, exported and fused: texts
per CPU-second at 200 and 512 tokens against torch, agreement, nDCG@10, cold start; ``embedders``) and pdf_text (PDF text extractors: pages/s and
words split apart, ``bench_pdf_text``) and memory (peak RSS ingesting a 205 MB text with the
packaged model, in a fresh process, ``bench_memory``: group ingest_memory) and scale (10k/100k/1M
clustered vectors through the index: commit per batch, load, exact vs approximate top-10 and
recall, ``bench_scale``) and ingest_ratio (ingest time / bare encode time of 100k chunks
into a 100k-chunk index, ``bench_ingest_ratio``) and local_llm (the packaged language model:
first-token times at 2 and 4 threads, decode speed against the raw bindings, a fresh process to
its first token, memory, Stop; ``bench_local_llm``) and pg_index (an index wholly in Postgres
against the embedded index on the same 100k prose chunks: hybrid and keyword p50/p90 and their
ratios, load rate, bytes on the server, top-5 agreement; ``bench_pg_index``) and workers
(queued ingestion with 1, 2 and 4 ``ragcore worker`` processes against an embedder throttled to
a fixed time per batch: files/s and the speed-up; ``bench_workers``) and sessions (four
sessions asking at once through one shared two-slot packaged model: all answered, the place
each waiter was shown, whole-answer p50/max, first token per session; ``bench_sessions``) and
wait (what a person waits for, idle, beside two spinning programs and beside a second ragcore:
first content, first token and checked answer p50/p90, ragcore's own share, prompt tokens per
kind of question; ``bench_wait``) and fresh (the idle factoid answer in a new process on a
fresh machine's empty caches against this one's, every answer counted; ``bench_fresh``) and
query_fresh (``ragcore query`` in a fresh process against a warm answer to the same question,
its load printed; ``bench_query_fresh``) and conversation (one 20-question chat through the app's chat
turn with the packaged model: each turn's prompt tokens and whole answer against turn 2's;
``bench_conversation``) and two_at_once (two people's answers through the packaged model at
once against one after the other: each one's whole answer and the sum; ``bench_two_at_once``).
A group that fails (e.g. no Chromium for the app's browser figures) becomes a row saying why,
and the others still run.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import sys
import time
import traceback

from benchmarks.harness import Row, corpus_dir, format_table, machine_load, peak_memory_mb, write_results

# (group shown in the table, module under benchmarks/ by its wing, required?)
BENCHMARKS = (
    ("pipeline", "pipeline.bench_pipeline", True),
    ("search", "stores.bench_search", True),
    ("query", "pipeline.bench_query", False),
    ("app", "pipeline.bench_app", False),
    ("answers", "llm.bench_answers", False),
    ("retrieval", "retrieval.bench_retrieval", False),
    ("stores", "stores.bench_stores", False),
    ("embedders", "embedding.embedders", False),
    ("pdf_text", "ingest.bench_pdf_text", False),
    ("ingest_memory", "ingest.bench_memory", False),
    ("scale", "index.bench_scale", False),
    ("ingest_ratio", "ingest.bench_ingest_ratio", False),
    ("local_llm", "llm.bench_local_llm", False),
    ("pg_index", "stores.bench_pg_index", False),
    ("workers", "ingest.bench_workers", False),
    ("sessions", "llm.bench_sessions", False),
    ("busy", "llm.bench_busy", False),
    ("wait", "llm.bench_wait", False),
    ("fresh", "llm.bench_fresh", False),
    ("query_fresh", "llm.bench_query_fresh", False),
    ("conversation", "llm.bench_conversation", False),
    ("two_at_once", "llm.bench_two_at_once", False),
)


def _call_run(run, *, quick: bool) -> list:
    """Call a module's run() with the keyword arguments it accepts (quick, corpus)."""
    offered = {"quick": quick, "corpus": corpus_dir()}
    params = inspect.signature(run).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return list(run(**offered) or [])
    return list(run(**{k: v for k, v in offered.items() if k in params}) or [])


def run_group(group: str, module_name: str, required: bool, *, quick: bool) -> list[Row]:
    try:
        module = importlib.import_module(f"benchmarks.{module_name}")
    except ImportError as exc:
        if required:
            raise
        return [Row(group, f"{module_name}", None, note=f"not available ({exc})")]
    try:
        started = time.perf_counter()
        rows = [Row.from_any(item, group=group) for item in _call_run(module.run, quick=quick)]
    except Exception as exc:  # a benchmark that breaks must not hide the others' figures
        traceback.print_exc(file=sys.stderr)
        return [Row(group, f"{module_name}", None, note=f"failed: {type(exc).__name__}: {exc}")]
    sys.stderr.write(f"[{group}] done in {time.perf_counter() - started:.1f} s\n")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smaller, faster run")
    parser.add_argument("--only", nargs="+", metavar="GROUP",
                        choices=[g for g, _, _ in BENCHMARKS], help="run only these groups")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows: list[Row] = []
    for group, module_name, required in BENCHMARKS:
        if args.only and group not in args.only:
            continue
        sys.stderr.write(f"[{group}] running {module_name} ...\n")
        rows.extend(run_group(group, module_name, required, quick=args.quick))
    memory = peak_memory_mb()
    rows.append(Row("memory", "peak RSS (whole run)", memory, "MB",
                    note="1M-vector search dominates" if not args.quick else ""))
    seconds = time.perf_counter() - started
    path = write_results(rows, quick=args.quick, seconds=seconds)
    print(format_table(rows))
    load = machine_load()
    print(f"\n{len(rows)} figures in {seconds:.0f} s on {os.cpu_count()} CPUs"
          f"{f' (load average {load[0]:.1f} at the end)' if load else ''}; JSON written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
