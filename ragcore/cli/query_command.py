"""``ragcore query``: answer one question from an index, streaming to the terminal.

A fresh process loads the index, the language model and the embedding model before it can
answer; it says how long that took on stderr, apart from the answer's own time, since each
``ragcore query`` pays it again (``ragcore chat`` loads them once for many questions). When a
``ragcore serve`` of the workspace runs, the query asks it instead (``warm_socket``), and the
warm process writes the answer with this module's ``answer_query``.
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


def choose_llm(args: argparse.Namespace, context: CliContext, err: TextIO | None = None) -> LLM:
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
    write_fallback_note(err or sys.stderr)
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
    check_top_k(args.top_k)
    status = ask_warm_process(args, context, sys.stdout, sys.stderr)
    if status is not None:
        return status
    started = time.perf_counter()
    index = context.workspace().load_index(args.index)
    llm = choose_llm(args, context)
    return answer_query(args, context, index, llm, sys.stdout, sys.stderr,
                        loading=time.perf_counter() - started)


def answer_query(args: argparse.Namespace, context: CliContext, index, llm: LLM, out: TextIO,
                 err: TextIO, *, loading: float | None = None) -> int:
    """Answer with the index and model at hand, written to ``out`` (the answer) and ``err`` (what
    happens meanwhile): a terminal's streams here, a socket's in a warm process. ``loading``:
    the seconds this process spent loading them, said with the embedder's (None: warm)."""
    from ..engines.from_index import answer_check
    from ..llms.slots import one_turn
    from ..trace import Trace
    from .progress import tell_found

    err.write(f"Answering with {describe(llm)}, mode {args.mode}, "
              f"index {args.index!r}, retrieval {args.retrieval}\n")
    if answer_summary(args, context, index, llm, out, err):
        return 0
    engine = index.as_query_engine(llm=llm, response_mode=args.mode,
                                   similarity_top_k=args.top_k, retrieval_mode=args.retrieval)
    embedding = time.perf_counter()
    load_embedder(index, args.retrieval, err)
    if loading is not None:
        write_load_time(err, loading, time.perf_counter() - embedding)
    trace = Trace(found=tell_found(err))
    with one_turn():  # the answer and its check in one place at the model, as the app asks
        response = engine.query(args.question, trace=trace)
        write_reply(out, response, retrieval_mode=args.retrieval, embedder=index.embedder,
                    ranked_with=ranked_with(index.embed_model_name, args.retrieval),
                    question=args.question, check=answer_check(index, llm, args.retrieval))
    if args.trace:
        write_trace(out, trace)
    return 0


def ask_warm_process(args: argparse.Namespace, context: CliContext, out: TextIO,
                     err: TextIO) -> int | None:
    """The exit status of the answer a running ``ragcore serve`` of this workspace wrote to
    ``out`` and ``err``; None when none answers (said on ``err`` when one should have)."""
    from .warm_socket import ProtocolError, ask, query_request, socket_path, too_long

    root = context.workspace().root
    path = socket_path(root)
    if too_long(path) or not path.exists():
        return None
    request = query_request(args, root, tty=out.isatty())
    try:
        return ask(path, request, out, err).status
    except (ConnectionRefusedError, FileNotFoundError):
        err.write(f"note: {path} is left by a `ragcore serve` that no longer runs; answering "
                  "here (`ragcore serve` replaces it, `ragcore serve --stop` removes it)\n")
    except (ProtocolError, TimeoutError) as exc:
        reason = exc if isinstance(exc, ProtocolError) else "it said nothing for 10 s"
        err.write(f"note: the warm process at {path} did not answer ({reason}); "
                  "answering here\n")
    return None


def load_embedder(index, retrieval: str, err: TextIO | None = None) -> None:
    """The embedding model loaded now (said on stderr), so that its seconds are told apart from
    the answer's; nothing to load for a keyword search."""
    note_model_load(index, retrieval, err)
    if retrieval != "keyword" and getattr(index.embedder, "loaded", True) is False:
        index.embedder.embed_batch(["warm up"])


def write_load_time(out: TextIO, models: float, embedder: float) -> None:
    """What this process spent loading before it could answer, and how not to pay it again."""
    out.write(f"Loaded in {models + embedder:.1f} s (index and language model {models:.1f} s, "
              f"embedding model {embedder:.1f} s); every `ragcore query` loads them again, "
              "`ragcore chat` once for many questions\n")
    out.write("hint: `ragcore serve` in this workspace (another terminal) keeps them loaded, "
              "and `ragcore query` asks it instead\n")


def answer_summary(args: argparse.Namespace, context: CliContext, index, llm: LLM,
                   out: TextIO, err: TextIO) -> bool:
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
    err.write(f"Answered from the {'index' if route.document is None else 'file'}'s "
              f"summary: {route.reason}\n")
    for chunk in reply.chunks:
        out.write(chunk)
        out.flush()
    out.write("\n")
    write_fresh_hint(err, trace)
    if args.trace:
        write_trace(out, trace)
    return True


def write_fresh_hint(out, trace) -> None:
    """Under a summary given at once (the abstract, one kept from before): how to ask the model
    for a fresh one."""
    from ..summaries.parts import READ_NOTE
    from ..workspace.conversation.summary_reply import OFFER_NOTE

    offer = trace.notes.get(OFFER_NOTE)
    if offer and READ_NOTE not in trace.notes:
        out.write(f"(for a summary the model writes now, part by part, ask: {offer})\n")
