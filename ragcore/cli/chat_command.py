"""``ragcore chat``: a terminal REPL over an index with streamed answers and sources.

A turn is the Chat page's (``workspace.conversation``): a request for a summary is answered
with the summary, and with ``--save`` each turn is recorded in a saved chat the app can open.

Commands inside the REPL: /reset (forget the conversation), /mode NAME (switch chat mode and
keep the conversation), /trace (show how the last answer was made), /help, /quit.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ..errors import RagcoreError
from .index_commands import add_index_option, note_model_load
from .query_command import (RESPONSE_MODES, add_llm_options, check_top_k, choose_llm,
                            describe, write_fresh_hint)
from .render import write_reply, write_trace

if TYPE_CHECKING:
    from ..trace import Trace
    from ..workspace.conversation import Conversation, TurnSettings
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
    """The REPL's state: the conversation (the app's: ``workspace.conversation``), the settings
    of its next turn, whether turns are saved, and the last trace."""

    conversation: Conversation
    settings: TurnSettings
    save: bool = False
    last_trace: Trace | None = None


def run_chat(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.conversation import Conversation, TurnSettings, chat_engine, start_chat

    check_top_k(args.top_k)
    workspace = context.workspace()
    index = workspace.load_index(args.index)
    llm = choose_llm(args, context)
    settings = TurnSettings(chat_mode=args.mode, similarity_top_k=args.top_k,
                            retrieval_mode=args.retrieval, response_mode=args.response_mode)
    chat_engine(index, settings, llm)  # a mode this backend cannot run fails before the REPL
    chat = start_chat(args.index, args.mode, llm_label=describe(llm))
    session = ChatSession(Conversation(workspace, chat, index, llm), settings, save=args.save)
    note_model_load(index, args.retrieval)
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


def _answer(message: str, session: ChatSession, trace: Any) -> Any:
    """Ask, then write the reply with its sources (checked as it is written); the response."""
    from ..engines.from_index import answer_check
    from ..present.answer_score import ranked_with
    from .progress import follow_turn

    talk = session.conversation
    response = talk.ask(message, session.settings, trace=trace)
    if response.source_nodes:  # checked before it is written: meanwhile, how far it got
        follow_turn(response, talk.llm)
    sys.stdout.write("assistant> ")
    if unread_reply(response):  # read no passage: said so first, as the Chat page says it
        sys.stdout.write(response.shown + "\n")
    else:
        write_reply(sys.stdout, response, retrieval_mode=session.settings.retrieval_mode,
                    embedder=talk.index.embedder,
                    ranked_with=ranked_with(talk.index.embed_model_name,
                                            session.settings.retrieval_mode),
                    # a follow-up is checked as the standalone question it was rewritten to
                    question=trace.notes.get("condensed_question") or message,
                    check=answer_check(talk.index, talk.llm, session.settings.retrieval_mode))
    return response


def handle_command(line: str, session: ChatSession) -> bool:
    """Run a /command; returns False when the REPL should end."""
    command, _, argument = line.partition(" ")
    command, argument = command.lower(), argument.strip()
    if command in ("/quit", "/exit", "/q"):
        return False
    if command == "/reset":
        session.conversation.memory.reset()
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
    from ..workspace.conversation import chat_engine

    if mode not in CHAT_MODES:
        sys.stdout.write(f"Choose a mode: /mode NAME with NAME one of {', '.join(CHAT_MODES)}.\n")
        return
    settings = replace(session.settings, chat_mode=mode)
    talk = session.conversation
    try:
        chat_engine(talk.index, settings, talk.llm)
    except RagcoreError as exc:
        sys.stdout.write(f"Could not switch to {mode}: {exc}\n")
        return
    session.settings = settings
    sys.stdout.write(f"Chat mode is now {mode}; the conversation is kept.\n")


def unread_reply(response: Any) -> bool:
    """Whether a reply read no passage and is not a summary or the model alone's: drained to
    know (an agent's passages come in while it runs), then shown as such."""
    from ..chat.sourceless import written_as_is

    if response.source_nodes or written_as_is(response.trace.notes, response.mode):
        return False
    response.text  # noqa: B018 - read to its end
    return not response.source_nodes


def answer_turn(message: str, session: ChatSession, *, show_trace: bool) -> None:
    """Stream one answer (a summary, if it asks for one) with its sources, then record the turn
    as the app does; an error is shown and the REPL goes on."""
    from ..llms.slots import one_turn
    from ..trace import Trace
    from .progress import tell_found

    talk, trace = session.conversation, Trace(found=tell_found())
    session.last_trace = trace
    try:
        with one_turn():  # its rewrite, answer and check in one place at the model, as the app's
            response = _answer(message, session, trace)
    except RagcoreError as exc:
        talk.forget_unrecorded()
        sys.stdout.write("\n")
        sys.stderr.write(f"error: {exc}\n")
        return
    write_fresh_hint(sys.stderr, trace)
    if show_trace:
        write_trace(sys.stdout, trace)
    talk.record(message, response, session.settings)
    if session.save:
        path = talk.workspace.save_chat(talk.chat)
        sys.stderr.write(f"(saved to {path})\n")

