"""The twentieth question as fast as the second (issue 65): one 20-question chat through the app's
chat turn, each turn's prompt tokens and whole-answer seconds against turn 2's.

A fresh workspace ingests three documents of the corpus (the State of the Union speech, PEP 8 and
PEP 20) with the packaged embedding model; one chat over them asks ``QUESTIONS`` in the default
chat mode (``TurnSettings()``: condense_plus_context, hybrid search) with the packaged model
(``LocalLLM()``), as the Chat page runs a turn: ``Conversation.ask`` inside one turn at the model
(``llms.one_turn``: its calls share one place, and the engine reloads with other threads only
before the first), the reply streamed and followed by ``chat.progress.turn_states``, checked
(what is shown as the answer), recorded; the first exchange titles the chat (not timed). Twelve questions stand on their own and eight are
follow-ups ("And GM?", "Why?", "Should they be on separate lines?"); turn 2 is a follow-up, the
costliest kind (a rewrite, then the answer). Per turn:

- prompt tokens: every recorded call's prompt (cl100k: the rewrite's and the answer's), and what
  llama.cpp read of them anew and took from its cache (its own token counts, every pass: the
  rewrite, the answer, the check's judge), what the check's passes read anew, and whether the
  engine reloaded (other threads: its slots' caches emptied, its primer read) during the turn;
- the answer's prompt as the packaged model reads it (ChatML, cl100k) and how many of its leading
  tokens the previous turn's answer prompt had too (what a slot holding it can reuse), and the
  reply as recorded;
- seconds: the model reading (llama.cpp's prompt time of every pass), first token and the whole
  answer (written and checked), and the whole answer against turn 2's (target <= 1.2x).

The turns' prompt tokens should be flat: what a prompt carries of the chat is bounded (an
answer carries the latest turn, ``ragcore.chat.context``; the memory's limit, ``ragcore.memory``,
bounds that), and only a follow-up is rewritten, from the latest turn
(``ragcore.chat.condense``). A reply's length still varies with its question (a "why" writes
more than a "how many"), so the seconds vary with it; the reading seconds show what grows with
the chat, if anything. The machine is as it is (load in the notes): run it idle to compare.

A turn over the target is asked again afterwards as the first question of a fresh chat (the
question it searched: a follow-up's rewrite), so its ratio to turn 2 is split into the chat's
length (the turn against that fresh answer) and the question's kind (the fresh answer against
turn 2): a "what does PEP 8 say about X" reads a summary's budget in any chat.

    python -m benchmarks --only conversation [--quick]     # --quick: the first 8 turns
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.harness import Row, corpus_dir, machine_load

GROUP = "conversation"
DOCUMENTS = ("state_of_the_union/state_of_the_union.txt", "python_peps/pep-0008.rst",
             "python_peps/pep-0020.rst")
# The two halves ask alike (three PEP 8 questions, one of PEP 20, four follow-ups each), so a
# later half costing more is the chat's length, not its topics.
QUESTIONS = (
    "How much is Ford investing to build electric vehicles?",
    "And GM?",
    "How many electric vehicle charging stations will the infrastructure law build?",
    "Where is Intel going to build its semiconductor mega site?",
    "How many jobs will it create?",
    "What does PEP 8 recommend for indentation?",
    "And what is the maximum line length it recommends?",
    "What does the Zen of Python say about errors?",
    "What does PEP 8 say about imports?",
    "Should they be on separate lines?",
    "At what monthly price did the President want to cap the cost of insulin?",
    "And how much does it cost to make?",
    "How old were Officer Wilbert Mora and Officer Jason Rivera?",
    "How many barrels of oil did the United States and 30 other countries agree to release?",
    "Why?",
    "What does PEP 8 say about naming constants?",
    "What about class names?",
    "According to the Zen of Python, is flat better than nested?",
    "What minimum tax rate for corporations did the President propose?",
    "Why did he propose it?",
)
QUICK_TURNS = 8
TARGET = 1.2  # every turn's whole answer against turn 2's


@dataclass(slots=True)
class Turn:
    """What one turn cost: prompts, the model's passes and the seconds a person waited."""

    question: str
    follow_up: str  # why it refers back ("" when it stands on its own)
    searched: str  # the question the search used
    prompt_tokens: dict[str, int]  # cl100k tokens of each recorded call's prompt, by purpose
    history: int = 0  # of the answer's prompt: the earlier conversation it carries
    reading_budget: int = 0  # passage tokens the question's kind was given (0: not told)
    kind: str = ""  # the question's kind as the reading budget saw it (factoid, list, ...)
    read: int = 0  # prompt tokens llama.cpp read anew, every pass of the turn
    cached: int = 0  # prompt tokens it took from the slot's cache
    written: int = 0
    reading_seconds: float = 0.0
    first_token: float = 0.0
    whole: float = 0.0
    threads: int = 0
    reloaded: bool = False  # the engine loaded its weights again during the turn
    fresh: Turn | None = None  # the searched question asked first in a fresh chat
    answer_prompt: list[int] = field(default_factory=list, repr=False)  # ``rendered``
    answer_messages: list[Any] = field(default_factory=list, repr=False)
    shared: int = 0  # leading tokens of the answer's prompt the previous turn's answer had too
    answer: str = ""  # the reply as recorded: the model's text
    shown: str = ""  # what a person is shown of it: the reply as the check allows it
    passes: list[dict[str, Any]] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return sum(self.prompt_tokens.values())

    @property
    def check_read(self) -> int:
        """Prompt tokens the one-token passes read anew: the check's judge (and the not-found
        gate's pass, before the answer)."""
        return sum(int(t.get("prompt_n", 0)) for t in self.passes
                   if int(t.get("predicted_n", 0)) <= 1)


class Passes:
    """llama.cpp's timings of every pass while the block runs (``pace.record`` listened to)."""

    def __init__(self, llm: Any) -> None:
        self.pace, self.taken = llm._engine.pace, []

    def __enter__(self) -> Passes:
        record = self.pace.record

        def heard(timings: dict, threads: int) -> None:
            self.taken.append({**timings, "threads": threads})
            record(timings, threads)

        self.pace.record = heard
        return self

    def __exit__(self, *exc: object) -> None:
        del self.pace.record  # the class's own method again

    def since(self, start: int) -> list[dict[str, Any]]:
        return self.taken[start:]


def build(root: Path, corpus: Path) -> tuple[Any, Any]:
    """A workspace holding the index "docs" (the packaged embedder), and the packaged model."""
    from ragcore.llms.local import LocalLLM
    from ragcore.workspace import Workspace

    workspace = Workspace(root / "ws")
    report = workspace.ingest("docs", [corpus / name for name in DOCUMENTS])
    if report.failed:
        raise RuntimeError(f"{report.failed} of the documents could not be ingested")
    return workspace, LocalLLM()


def ask(talk: Any, llm: Any, passes: Passes, question: str) -> Turn:
    """One turn as the Chat page runs it (one turn at the model): asked, followed to its
    check, recorded."""
    from ragcore.chat import refers_back
    from ragcore.chat.progress import Checked, Draft, reading_rate, turn_states
    from ragcore.llms import one_turn
    from ragcore.prompts import message_tokens
    from ragcore.workspace.conversation import TurnSettings

    settings, start = TurnSettings(), len(passes.taken)
    loaded = llm._engine._loaded_at
    began = time.perf_counter()
    with one_turn():
        response = talk.ask(question, settings)
        first = None
        for state in turn_states(response, lambda text: response.checked,
                                 sources=response.source_nodes, rate=lambda: reading_rate(llm)):
            if isinstance(state, Draft) and first is None:
                first = time.perf_counter() - began
            if isinstance(state, Checked):
                whole = time.perf_counter() - began
    reply = talk.record(question, response, settings, title=False).content
    trace, taken = response.trace, passes.since(start)
    prompts: dict[str, int] = {}
    for call in trace.llm_calls:
        prompts[call.purpose] = prompts.get(call.purpose, 0) + call.tokens_in
    answer = next((c.messages for c in trace.llm_calls if c.purpose == "context chat"), [])
    return Turn(question, refers_back(question) if len(talk.chat.messages) > 2 else "",
                str(trace.notes.get("condensed_question", question)), prompts,
                read=sum(int(t.get("prompt_n", 0)) for t in taken),
                cached=sum(int(t.get("cache_n", 0)) for t in taken),
                written=sum(int(t.get("predicted_n", 0)) for t in taken),
                reading_seconds=sum(float(t.get("prompt_ms", 0.0)) for t in taken) / 1000,
                first_token=first if first is not None else whole, whole=whole,
                threads=max((int(t["threads"]) for t in taken), default=0), passes=taken,
                reloaded=llm._engine._loaded_at != loaded,
                history=sum(map(message_tokens, carried_history(answer))), answer_prompt=rendered(answer),
                answer_messages=answer, answer=reply, shown=response.shown,
                reading_budget=int(trace.notes.get("reading_budget") or 0),
                kind=str(trace.notes.get("question_kind", "")))


def carried_history(answer: list[Any]) -> list[Any]:
    """The earlier turns an answer's prompt carries: its messages between the system message and
    the person's message, the reply's opening ("**", a final assistant message) left out."""
    asked = answer[:-1] if answer and answer[-1].role == "assistant" else answer
    return [m for m in asked[1:-1] if m.role in ("user", "assistant")]


def converse(corpus: Path, questions: tuple[str, ...]) -> tuple[list[Turn], list[Any]]:
    """Every question of one chat, in order, then each turn over the target asked first in a
    fresh chat; and the load before and after."""
    from ragcore.types import Message
    from ragcore.workspace.conversation import Conversation

    with tempfile.TemporaryDirectory(prefix="ragcore-conversation-") as folder:
        workspace, llm = build(Path(folder), corpus)
        index = workspace.load_index("docs")
        index.as_retriever(similarity_top_k=1).retrieve("warm-up: loads the embedding model")
        llm.first_token_logprobs([Message("user", "Warm-up: loads the model.")])
        talk = Conversation(workspace, _new_chat(), index, llm)
        loads, turns = [machine_load()], []
        with Passes(llm) as passes:
            for number, question in enumerate(questions, 1):
                turns.append(turn := ask(talk, llm, passes, question))
                if number > 1:
                    turn.shared = shared_prefix(turns[-2].answer_prompt, turn.answer_prompt)
                sys.stderr.write(f"[{GROUP}] turn {number}/{len(questions)}: {turn.whole:.1f} s, "
                                 f"{turn.tokens} prompt tokens (history {turn.history}, "
                                 f"passages up to {turn.reading_budget}: {turn.kind}; "
                                 f"{turn.read} read anew, {turn.cached} cached, check read "
                                 f"{turn.check_read}{', reloaded' if turn.reloaded else ''}; "
                                 f"answer prompt {len(turn.answer_prompt)}, {turn.shared} shared "
                                 f"with the last), searched {turn.searched!r}: "
                                 f"{turn.answer[:160]!r}\n")
                if number == 1:  # as the page does once the first reply is on screen
                    talk.title_chat(question, talk.chat.messages[-1].content)
            for number, turn in over_target(turns):
                alone = Conversation(workspace, _new_chat(), index, llm)
                turn.fresh = ask(alone, llm, passes, turn.searched)
                sys.stderr.write(f"[{GROUP}] turn {number} first in a fresh chat: "
                                 f"{turn.fresh.whole:.1f} s, {turn.fresh.read} read anew "
                                 f"({turn.fresh.check_read} by the check), wrote "
                                 f"{turn.fresh.written}\n")
        loads.append(machine_load())
    return turns, loads


def rendered(messages: list[Any]) -> list[int]:
    """The answer's prompt as a ChatML model reads it (the packaged model's template), in
    cl100k tokens: what a slot compares with the prompt it holds."""
    from ragcore.tokens import get_tokenizer

    text = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)
    return get_tokenizer().encode_ordinary(text + "<|im_start|>assistant\n") if messages else []


def shared_prefix(before: list[int], now: list[int]) -> int:
    """How many leading tokens ``now`` shares with ``before`` (a slot reuses these)."""
    return len(os.path.commonprefix([before, now]))


def _anew(turn: Turn) -> int:
    return len(turn.answer_prompt) - turn.shared


def over_target(turns: list[Turn]) -> list[tuple[int, Turn]]:
    """The later turns (numbered from 1) whose whole answer took over ``TARGET`` x turn 2's."""
    return [(number, turn) for number, turn in enumerate(turns[2:], 3)
            if turn.whole > TARGET * turns[1].whole]


def _new_chat() -> Any:
    from ragcore.workspace.conversation import start_chat

    return start_chat("docs", "condense_plus_context")


def turn_rows(turns: list[Turn]) -> list[Row]:
    second = turns[1]
    rows = []
    for number, turn in enumerate(turns, 1):
        ratio = turn.whole / second.whole
        kind = "follow-up" if turn.follow_up else "standalone"
        prompts = ", ".join(f"{purpose} {tokens}" for purpose, tokens in turn.prompt_tokens.items())
        rows.append(Row(GROUP, f"turn {number:2d} ({kind}) prompt tokens", turn.tokens, "tokens",
                        note=f"{prompts} (history {turn.history}, passages up to "
                             f"{turn.reading_budget}: {turn.kind}); llama.cpp read {turn.read} "
                             f"anew ({turn.check_read} by the check), {turn.cached} cached, wrote "
                             f"{turn.written}; the answer's prompt {len(turn.answer_prompt)}, "
                             f"{turn.shared} shared with the last turn's; searched: "
                             f"{turn.searched!r}; answered: {turn.answer[:200]!r}; shown: "
                             f"{turn.shown[:200]!r}"))
        alone = turn.fresh
        fresh = ("" if alone is None else f"; first in a fresh chat {alone.whole:.1f} s "
                 f"({alone.whole / second.whole:.2f}x turn 2; this turn "
                 f"{turn.whole / alone.whole:.2f}x it; read {alone.read} anew, "
                 f"{alone.check_read} by the check, wrote {alone.written})")
        rows.append(Row(GROUP, f"turn {number:2d} whole answer", turn.whole, "s",
                        f"<= {TARGET}x turn 2" if number > 2 else "",
                        ratio <= TARGET if number > 2 else None,
                        note=f"{ratio:.2f}x turn 2; first token {turn.first_token:.1f} s; model "
                             f"reading {turn.reading_seconds:.1f} s; {turn.threads} thread(s)"
                             f"{'; the engine reloaded' if turn.reloaded else ''}{fresh}"))
    return rows


def summary_rows(turns: list[Turn], loads: list[Any]) -> list[Row]:
    second, later = turns[1], turns[2:]
    load = "/".join(f"{x[0]:.1f}" for x in loads if x) or "n/a"
    half = len(turns) // 2
    early, late = turns[1:half], turns[half + 1:]  # alike: each half less its first turn
    worst = max(t.whole / second.whole for t in later)
    follow_ups = [t for t in turns[1:] if t.follow_up]
    most = max(t.tokens for t in follow_ups)
    return [
        Row(GROUP, "slowest later turn / turn 2 (whole answer)", worst, "x", f"<= {TARGET}",
            worst <= TARGET, note=f"load {load} (1 min, start/end)"),
        Row(GROUP, f"median whole answer, turns {half + 2}-{len(turns)} / turns 2-{half}",
            statistics.median(t.whole for t in late) / statistics.median(t.whole for t in early),
            "x", "~1 (no growth)"),
        Row(GROUP, f"median model reading, turns {half + 2}-{len(turns)} / turns 2-{half}",
            statistics.median(t.reading_seconds for t in late)
            / max(1e-9, statistics.median(t.reading_seconds for t in early)), "x",
            "~1 (no growth)"),
        Row(GROUP, "largest follow-up's prompt tokens / turn 2's", most / second.tokens, "x",
            "<= 1.2 (flat)", most / second.tokens <= TARGET,
            note=f"{most} / {second.tokens} tokens; the rewrite and the answer"),
        Row(GROUP, "answer prompt's opening shared with the last turn's, median of turns 2-"
            f"{len(turns)}", statistics.median(t.shared for t in turns[1:]), "tokens",
            "more than the instructions", note="its tokens beyond that opening, median of turns "
            f"2-{half} / {half + 2}-{len(turns)}: {statistics.median(map(_anew, early)):.0f} / "
            f"{statistics.median(map(_anew, late)):.0f} (cl100k over the ChatML prompt; what a "
            "slot holding the last answer's prompt reads anew)"),
        Row(GROUP, "largest history an answer carried, turns 3 on / turn 2's",
            max(t.history for t in later) / max(1, second.history), "x",
            note=f"{max(t.history for t in later)} / {second.history} tokens (the latest turn, "
                 "within the memory's limit of 256 with the question)"),
        Row(GROUP, "largest check's read anew / its turn's prompt tokens",
            max(t.check_read / max(1, t.tokens) for t in turns), "x", "small (in the "
            "answer's cached prompt)", note="turns the engine reloaded in: "
            f"{[n for n, t in enumerate(turns, 1) if t.reloaded] or 'none'}"),
        Row(GROUP, "rewrites: follow-ups rewritten / standalone questions rewritten",
            sum(1 for t in follow_ups if "condense" in t.prompt_tokens), "",
            note=f"of {len(follow_ups)} follow-ups; standalone rewritten: "
                 f"{sum(1 for t in turns if not t.follow_up and 'condense' in t.prompt_tokens)}"),
    ]


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    questions = QUESTIONS[:QUICK_TURNS] if quick else QUESTIONS
    turns, loads = converse(corpus or corpus_dir(), questions)
    return turn_rows(turns) + summary_rows(turns, loads)


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table(run()))
