"""``ragcore query``: answer one question from an index, streaming to the terminal.

A fresh process loads the index, the language model and the embedding model before it can
answer; it says how long that took on stderr, apart from the answer's own time, since each
``ragcore query`` pays it again (``ragcore chat`` loads them once for many questions).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, TextIO

from ..errors import ConfigError
from ..present.answer_score import ranked_with
from .index_commands import add_index_option, add_retrieval_option, note_model_load
from .render import write_reply, write_trace

if TYPE_CHECKING:
    from ..llms.base import LLM
    from .context import CliContext

RESPONSE_MODES = ("refine", "compact", "simple_summarize", "tree_summarize", "generation",
                  "no_text", "accumulate", "compact_accumulate")


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    from ..llms.resolve import spec_forms  # the registered LLM backends

    parser.add_argument(
        "--llm", metavar="SPEC",
        help=f"{' | '.join(spec_forms())} (default: the workspace settings, "
             "$RAGCORE_LLM, a local Ollama if running, else the packaged model; extractive "
             "only if it cannot load)")
    parser.add_argument("--base-url", metavar="URL",
                        help="server URL for --llm (Ollama or an OpenAI-compatible /v1 URL)")
    parser.add_argument("--top-k", type=int, default=4, metavar="N",
                        help="how many chunks the answer reads (default 4; the packaged "
                             "model picks their sentences among at least 12 retrieved)")
    add_retrieval_option(parser)
    parser.add_argument("--trace", action="store_true",
                        help="show stages, timings and every LLM call after the answer")


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    query = commands.add_parser(
        "query", parents=[common], help="answer a question from an index",
        description="Retrieve passages and answer with the chosen response mode, streaming.")
    query.add_argument("question")
    add_index_option(query)
    query.add_argument("--mode", "-m", default="compact", choices=RESPONSE_MODES,
                       help="response mode (default: compact)")
    add_llm_options(query)
    query.set_defaults(run=run_query)


def choose_llm(args: argparse.Namespace, context: CliContext) -> LLM:
    """--llm/--base-url if given, else the workspace settings (auto by default); says on
    stderr why, when auto-detection fell back to extractive answers."""
    from ..workspace.backends import llm_from_settings, saved_urls

    settings = context.workspace().settings
    if args.llm:
        from ..llms.resolve import resolve_llm

        # the address: --base-url, else $RAGCORE_LLM_BASE_URL, else the settings' (server_url)
        llm = resolve_llm(args.llm, base_url=args.base_url, saved_urls=saved_urls(settings))
    elif args.base_url:
        raise ConfigError("--base-url needs --llm (e.g. --llm openai:MODEL --base-url URL)")
    else:
        llm = llm_from_settings(settings)
    write_fallback_note(sys.stderr)
    return llm


def write_fallback_note(out: TextIO) -> None:
    """One line saying why answers are quoted: the packaged model could not load."""
    from ..llms.resolve import fallback_reason

    reason = fallback_reason()
    if reason:
        out.write(f"note: {reason}\n")


def describe(llm: LLM) -> str:
    from ..llms.resolve import describe_llm

    return describe_llm(llm)


def check_top_k(top_k: int) -> None:
    if top_k < 1:
        raise ConfigError(f"--top-k ({top_k}) must be at least 1")


def run_query(args: argparse.Namespace, context: CliContext) -> int:
    from ..trace import Trace
    from .progress import tell_found

    check_top_k(args.top_k)
    started = time.perf_counter()
    index = context.workspace().load_index(args.index)
    llm = choose_llm(args, context)
    models = time.perf_counter()
    sys.stderr.write(f"Answering with {describe(llm)}, mode {args.mode}, "
                     f"index {args.index!r}, retrieval {args.retrieval}\n")
    if answer_summary(args, context, index, llm):
        return 0
    engine = index.as_query_engine(llm=llm, response_mode=args.mode,
                                   similarity_top_k=args.top_k, retrieval_mode=args.retrieval)
    load_embedder(index, args.retrieval)
    write_load_time(sys.stderr, models - started, time.perf_counter() - models)
    trace = Trace(found=tell_found())
    response = engine.query(args.question, trace=trace)
    write_reply(sys.stdout, response, retrieval_mode=args.retrieval, embedder=index.embedder,
                ranked_with=ranked_with(index.embed_model_name, args.retrieval),
                question=args.question, judge=llm)
    if args.trace:
        write_trace(sys.stdout, trace)
    return 0


def load_embedder(index, retrieval: str) -> None:
    """The embedding model loaded now (said on stderr), so that its seconds are told apart from
    the answer's; nothing to load for a keyword search."""
    note_model_load(index, retrieval)
    if retrieval != "keyword" and getattr(index.embedder, "loaded", True) is False:
        index.embedder.embed_batch(["warm up"])


def write_load_time(out: TextIO, models: float, embedder: float) -> None:
    """One line: what this process spent loading before it could answer."""
    out.write(f"Loaded in {models + embedder:.1f} s (index and language model {models:.1f} s, "
              f"embedding model {embedder:.1f} s); every `ragcore query` loads them again, "
              "`ragcore chat` once for many questions\n")


def answer_summary(args: argparse.Namespace, context: CliContext, index, llm: LLM) -> bool:
    """A request for a summary ("summarise X") answered as the Chat page answers it: at once
    from what is kept, or written part by part when asked for fresh; False: not one."""
    from ..trace import Trace
    from ..workspace.conversation import route_for
    from ..workspace.conversation.summary_reply import summary_reply

    trace = Trace()
    route = route_for(index, args.question)
    reply = summary_reply(context.workspace(), args.index, index, llm, args.question, trace,
                          route)
    if reply is None:
        return False
    sys.stderr.write(f"Answered from the {'index' if route.document is None else 'file'}'s "
                     f"summary: {route.reason}\n")
    for chunk in reply.chunks:
        sys.stdout.write(chunk)
        sys.stdout.flush()
    sys.stdout.write("\n")
    write_fresh_hint(sys.stderr, trace)
    if args.trace:
        write_trace(sys.stdout, trace)
    return True


def write_fresh_hint(out, trace) -> None:
    """Under a summary given at once (the abstract, one kept from before): how to ask the model
    for a fresh one."""
    from ..summaries.parts import READ_NOTE
    from ..workspace.conversation.summary_reply import OFFER_NOTE

    offer = trace.notes.get(OFFER_NOTE)
    if offer and READ_NOTE not in trace.notes:
        out.write(f"(for a summary the model writes now, part by part, ask: {offer})\n")
