"""The packaged model as a judge of one claim against one passage: its Yes/No chances, recorded.

    python -m benchmarks.grounding.judge_llm [--limit N]
    python -m benchmarks.grounding.judge_llm --follow-up [--limit N]

For every labelled claim (``claims.jsonl``) the default packaged model is asked whether the
passage states the claim (``ragcore.prompts.judge.CLAIM_CHECK``), and the share of "Yes" among
its first token's Yes/No chances is recorded with the seconds it took, in
``judge_llm_rows.jsonl`` beside this file (rows already there are kept: the run resumes). A
narrower task than answering: ``fit.py`` weighs it beside the verdict's other features.

With ``--follow-up`` the question is asked the way the verdict asks it after the model wrote
the answer itself (``ragcore.grounding.judge.FOLLOW_UP``): the answer prompt for the claim's
question over its passage (``prompts.answer.QA``, the passage as the engines give it), the claim
as the model's reply (a bold claim begins with the "**" the prompt opens the reply with), then
``CLAIM_FOLLOW_UP``; rows in ``judge_llm_followup_rows.jsonl``. The claims of one passage and
question share the prompt's head, as the live follow-up shares the answer's.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.grounding.claims_set import load_claims

ROWS = Path(__file__).with_name("judge_llm_rows.jsonl")
FOLLOW_UP_ROWS = Path(__file__).with_name("judge_llm_followup_rows.jsonl")


def follow_up_messages(claim) -> list:
    """The answer exchange the claim would end, then the judge's question (see above)."""
    from ragcore.prompts.answer import QA
    from ragcore.prompts.judge import CLAIM_FOLLOW_UP
    from ragcore.types import MetadataMode, Message, Node

    source = claim.source.split(":", 1)[-1]
    context = Node(text=claim.passage, metadata={"file_name": source.rsplit("/", 1)[-1]}
                   ).content(MetadataMode.LLM)
    messages = QA.format(context=context, question=claim.question)
    if messages[-1].role == "assistant":  # the "**" prefill: a bold claim begins with it
        messages = messages[:-1]
    return [*messages, Message("assistant", claim.claim.strip()),
            Message("user", CLAIM_FOLLOW_UP.format(claim=claim.claim.strip()))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--follow-up", action="store_true",
                        help="ask as the next turn of the answer exchange (the verdict's way)")
    args = parser.parse_args()
    from ragcore.grounding.judge import _yes, yes_share
    from ragcore.llms.resolve import resolve_llm

    llm = resolve_llm("local")
    rows = FOLLOW_UP_ROWS if args.follow_up else ROWS
    done = {json.loads(line)["id"] for line in rows.read_text().splitlines()} \
        if rows.exists() else set()
    claims = [c for c in load_claims() if c.id not in done][:args.limit]
    with rows.open("a", encoding="utf-8") as out:
        for claim in claims:
            started = time.perf_counter()
            share = (_yes(llm, follow_up_messages(claim)) if args.follow_up
                     else yes_share(llm, claim.passage, claim.claim))
            out.write(json.dumps({"id": claim.id, "p_yes": round(share, 4),
                                  "seconds": round(time.perf_counter() - started, 2)}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
