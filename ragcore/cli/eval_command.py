"""``ragcore eval``: measure which retriever and response mode answer an index's questions best.

    ragcore eval --index papers --questions mine.csv --modes compact refine \
        --retrievers hybrid keyword
    ragcore eval --index papers --generate 20 --save-questions papers-20.json
    ragcore eval --index papers --generate 20 --writer ollama:llama3.1 --retrievers similarity hybrid

The questions come from a file (a saved question set as .json, or the user's .csv / .jsonl:
``ragcore.evaluation.questions.imported``) or are generated offline from the index's passages
(``--generate N``; ``--writer SPEC`` has a model write them). The run is ``ragcore.evaluation.start_evaluation`` (its report is saved in
the workspace); progress goes to stderr, Ctrl-C stops it and keeps the answers so far, and the
leaderboard is printed as Markdown.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError
from .index_commands import add_index_option
from .query_command import RESPONSE_MODES, check_top_k, choose_llm, describe

if TYPE_CHECKING:
    from ..evaluation import EmbeddingQAFinetuneDataset, EvaluationJob
    from .context import CliContext

POLL_SECONDS = 0.2
LINE_EVERY = 10.0  # seconds between progress lines when stderr is no terminal


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    from ..evaluation.setups import SEARCH_MODES
    from ..engines.by_name import CHOICES

    parser = commands.add_parser(
        "eval", parents=[common], help="compare retrievers and response modes on questions",
        description="Answer a question set with every retriever x response mode and print a "
                    "leaderboard (retrieval hit rate, MRR, nDCG; faithfulness, relevancy, "
                    "correctness, similarity: judged by --judge, else offline proxies).")
    add_index_option(parser)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--questions", metavar="FILE",
                        help="a question set (.json) or your questions (.csv / .jsonl with a "
                             "'question' column, optionally 'expected_answer', "
                             "'expected_source')")
    source.add_argument("--generate", type=int, metavar="N",
                        help="make N questions offline from the index's passages")
    parser.add_argument("--seed", type=int, default=0, help="seed of --generate (default 0)")
    parser.add_argument("--style", choices=("key_phrase", "sentence"), default="key_phrase",
                        help="--generate's questions: the rarest words of a sentence "
                             "(key_phrase, the default) or the whole sentence")
    parser.add_argument("--writer", metavar="SPEC",
                        help="with --generate: a language model writes the questions, one per "
                             "passage drawn at random (a fairer test of search by meaning)")
    parser.add_argument("--save-questions", metavar="FILE",
                        help="save the question set used as JSON (to reuse with --questions)")
    parser.add_argument("--modes", nargs="+", default=["compact"], choices=RESPONSE_MODES,
                        metavar="MODE", help="response modes (default: compact)")
    parser.add_argument("--retrievers", nargs="+", default=["hybrid"], metavar="NAME",
                        help=f"search modes ({', '.join(SEARCH_MODES)}) or advanced retrievers "
                             f"({', '.join(CHOICES)}); default: hybrid")
    parser.add_argument("--llm", metavar="SPEC", help="the LLM that answers (as for query)")
    parser.add_argument("--base-url", metavar="URL", help="server URL for --llm / --judge")
    parser.add_argument("--judge", metavar="SPEC",
                        help="an LLM that grades the answers (default: offline proxies)")
    parser.add_argument("--top-k", type=int, default=4, metavar="N",
                        help="passages retrieved per question (default 4)")
    parser.add_argument("--csv", metavar="FILE", help="also write every answer's row as CSV")
    parser.set_defaults(run=run_eval)


def load_question_set(args: argparse.Namespace, index, context: CliContext
                      ) -> EmbeddingQAFinetuneDataset:
    """--questions FILE, or --generate N questions from the index's passages."""
    from ..evaluation import EmbeddingQAFinetuneDataset, generate_offline_questions
    from ..evaluation import generate_question_context_pairs, import_questions, sample_passages

    if args.writer and args.generate is None:
        raise ConfigError("--writer writes the questions of --generate N: add --generate")
    if args.generate is not None and args.writer:
        passages = sample_passages(list(index.all_nodes()), args.generate, seed=args.seed)
        return generate_question_context_pairs(passages, _resolve(args.writer, args, context),
                                               num_questions_per_chunk=1)
    if args.generate is not None:
        return generate_offline_questions(list(index.all_nodes()), num_questions=args.generate,
                                          seed=args.seed, style=args.style)
    path = Path(args.questions)
    if path.suffix.lower() == ".json":
        return EmbeddingQAFinetuneDataset.from_json(path)
    if path.suffix.lower() not in (".csv", ".jsonl", ".ndjson"):
        raise ConfigError(f"--questions {path}: use a .json question set, or a .csv or .jsonl "
                          "file of questions")
    return import_questions(path)


def run_eval(args: argparse.Namespace, context: CliContext) -> int:
    from ..evaluation import start_evaluation

    check_top_k(args.top_k)
    workspace = context.workspace()
    index = workspace.load_index(args.index)
    dataset = load_question_set(args, index, context)
    if args.save_questions:
        dataset.save_json(args.save_questions)
    for problem in dataset.problems:
        sys.stderr.write(f"note: {problem}\n")
    llm = choose_llm(args, context)
    judge = _resolve(args.judge, args, context) if args.judge else None
    sys.stderr.write(f"Evaluating {len(dataset)} questions x {len(args.modes)} modes x "
                     f"{len(args.retrievers)} retrievers on index {args.index!r}, answers by "
                     f"{describe(llm)}, graded by "
                     f"{describe(judge) if judge else 'offline proxies'}\n")
    job = start_evaluation(workspace, args.index, dataset, llm=llm, modes=args.modes,
                           retrievers=args.retrievers, judge=judge, top_k=args.top_k)
    _follow(job)
    if job.state == "failed":
        raise ConfigError(f"the evaluation failed: {job.error}")
    report = job.report
    sys.stdout.write(report.to_markdown())  # its notes list skipped retrievers too
    if args.csv:
        Path(args.csv).write_text(report.to_csv(), encoding="utf-8")
    sys.stderr.write(f"Saved as evaluation {job.evaluation_id} in "
                     f"{workspace.root / 'evaluations'}\n")
    return 0


def _resolve(spec: str, args: argparse.Namespace, context: CliContext):
    """The LLM of --judge or --writer (at --base-url, else the saved server addresses)."""
    from ..llms.resolve import resolve_llm
    from ..workspace.backends import saved_urls

    return resolve_llm(spec, base_url=args.base_url,
                       saved_urls=saved_urls(context.workspace().settings))


def _follow(job: EvaluationJob) -> None:
    """Progress on stderr until the job ends; Ctrl-C cancels it and keeps the rows done."""
    interactive = sys.stderr.isatty()
    last_line = 0.0
    try:
        while job.active:
            job.wait(POLL_SECONDS)
            progress = job.progress
            if progress is None:
                continue
            text = f"{progress.done}/{progress.total} answered ({progress.setup})"
            if interactive:
                sys.stderr.write(f"\r{text:<78}")
            elif time.monotonic() - last_line >= LINE_EVERY or not job.active:
                sys.stderr.write(text + "\n")
                last_line = time.monotonic()
    except KeyboardInterrupt:
        sys.stderr.write("\nStopping after the answer under way ...\n")
        job.cancel()
        job.wait()
    if interactive:
        sys.stderr.write("\n")
