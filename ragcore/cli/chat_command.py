"""``ragcore chat``: a terminal REPL over an index with streamed answers and sources.

Commands inside the REPL: /reset (forget the conversation), /mode NAME (switch chat mode and
keep the conversation), /trace (show how the last answer was made), /help, /quit.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import RagcoreError
from ..retrieval.retrievers import DEFAULT_MODE
from .index_commands import add_index_option, note_model_load
from .query_command import RESPONSE_MODES, add_llm_options, check_top_k, choose_llm, describe
from .render import write_reply, write_trace

if TYPE_CHECKING:
    from ..trace import Trace
    from ..workspace.chats import SavedChat
    from .context import CliContext

CHAT_MODES = ("simple", "condense_question", "context", "condense_plus_context", "react", "best")
HELP = ("Commands: /reset forget the conversation, /mode NAME switch chat mode "
        f"({', '.join(CHAT_MODES)}), /trace show how the last answer was made, /quit leave.\n")


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    chat = commands.add_parser(
        "chat", parents=[common], help="chat with an index in the terminal",
        description="A conversation over an index. " + HELP)
    add_index_option(chat)
    chat.add_argument("--mode", "-m", default="condense_plus_context", choices=CHAT_MODES,
                      help="chat mode (default: condense_plus_context)")
    chat.add_argument("--response-mode", default="compact", choices=RESPONSE_MODES,
                      help="response mode for condense_question and react (default: compact)")
    chat.add_argument("--save", action="store_true",
                      help="save the conversation in the workspace (as the app does)")
    add_llm_options(chat)
    chat.set_defaults(run=run_chat)


@dataclass(slots=True)
class ChatSession:
    """The REPL's state: the engine for the current mode, the memory, the last trace."""

    index: Any
    llm: Any
    mode: str
    response_mode: str
    top_k: int
    retrieval: str = DEFAULT_MODE
    memory: Any = None
    engine: Any = None
    last_trace: Trace | None = None
    saved: SavedChat | None = None
    workspace: Any = None

    def build(self) -> None:
        self.engine = self.index.as_chat_engine(
            chat_mode=self.mode, llm=self.llm, similarity_top_k=self.top_k,
            response_mode=self.response_mode, retrieval_mode=self.retrieval)


def run_chat(args: argparse.Namespace, context: CliContext) -> int:
    from ..memory import ChatMemory

    check_top_k(args.top_k)
    workspace = context.workspace()
    index = workspace.load_index(args.index)
    llm = choose_llm(args, context)
    session = ChatSession(index=index, llm=llm, mode=args.mode, response_mode=args.response_mode,
                          top_k=args.top_k, retrieval=args.retrieval,
                          memory=ChatMemory.from_llm(llm))
    session.build()
    note_model_load(index, args.retrieval)
    if args.save:
        session.workspace = workspace
        session.saved = _new_saved_chat(args, llm)
    sys.stdout.write(f"Chatting with index {args.index!r} ({len(index)} chunks) in mode "
                     f"{args.mode}, answers by {describe(llm)}.\n{HELP}")
    while True:
        try:
            line = input("you> ")
        except EOFError:
            sys.stdout.write("\n")
            return 0
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            if not handle_command(line, session):
                return 0
            continue
        answer_turn(line, session, show_trace=args.trace)


def handle_command(line: str, session: ChatSession) -> bool:
    """Run a /command; returns False when the REPL should end."""
    command, _, argument = line.partition(" ")
    command, argument = command.lower(), argument.strip()
    if command in ("/quit", "/exit", "/q"):
        return False
    if command == "/reset":
        session.memory.reset()
        sys.stdout.write("Conversation forgotten.\n")
    elif command == "/mode":
        _switch_mode(session, argument)
    elif command == "/trace":
        if session.last_trace is None:
            sys.stdout.write("No answer yet: ask something first.\n")
        else:
            write_trace(sys.stdout, session.last_trace)
    elif command == "/help":
        sys.stdout.write(HELP)
    else:
        sys.stdout.write(f"Unknown command {command}. {HELP}")
    return True


def _switch_mode(session: ChatSession, mode: str) -> None:
    if mode not in CHAT_MODES:
        sys.stdout.write(f"Choose a mode: /mode NAME with NAME one of {', '.join(CHAT_MODES)}.\n")
        return
    previous = session.mode
    session.mode = mode
    try:
        session.build()
    except RagcoreError as exc:
        session.mode = previous
        sys.stdout.write(f"Could not switch to {mode}: {exc}\n")
        return
    if session.saved is not None:
        session.saved.chat_mode = mode
    sys.stdout.write(f"Chat mode is now {mode}; the conversation is kept.\n")


def answer_turn(message: str, session: ChatSession, *, show_trace: bool) -> None:
    """Stream one answer with its sources; an error is shown and the REPL goes on."""
    from ..trace import Trace

    trace = Trace()
    session.last_trace = trace
    sys.stdout.write("assistant> ")
    try:
        response = session.engine.chat(message, session.memory, trace=trace)
        write_reply(sys.stdout, response, retrieval_mode=session.retrieval,
                    embedder=session.index.embedder, ranked_with=_ranked_with(session))
    except RagcoreError as exc:
        sys.stdout.write("\n")
        sys.stderr.write(f"error: {exc}\n")
        return
    if show_trace:
        write_trace(sys.stdout, trace)
    _save_turn(session, message, response, trace)


def _ranked_with(session: ChatSession) -> str | None:
    from ..present.answer_score import ranked_with

    return ranked_with(session.index.embed_model_name, session.retrieval)


def _new_saved_chat(args: argparse.Namespace, llm: Any) -> SavedChat:
    from ..workspace.chats import SavedChat

    return SavedChat(index=args.index, chat_mode=args.mode, response_mode=args.response_mode,
                     llm=describe(llm), settings={"similarity_top_k": args.top_k,
                                                  "retrieval_mode": args.retrieval,
                                                  "llm": args.llm or "settings"})


def _save_turn(session: ChatSession, message: str, response: Any, trace: Trace) -> None:
    if session.saved is None:
        return
    from ..present.answer_score import THRESHOLD_KEY, TRACE_KEY, not_found_threshold, stated_score

    score = stated_score(trace)  # saved as the app saves it: in the trace
    data = trace.to_dict()
    if score is not None:
        data.update({TRACE_KEY: score,
                     THRESHOLD_KEY: not_found_threshold(_ranked_with(session))})
    session.saved.add_message("user", message)
    session.saved.add_message("assistant", response.text, sources=response.source_nodes,
                              trace=data)
    path = session.workspace.save_chat(session.saved)
    sys.stderr.write(f"(saved to {path})\n")
