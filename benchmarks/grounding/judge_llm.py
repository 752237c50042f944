"""The packaged model as a judge of one claim against one passage: its Yes/No chances, recorded.

    python -m benchmarks.grounding.judge_llm [--limit N]
    python -m benchmarks.grounding.judge_llm --in-prompt [--limit N]

For every labelled claim (``claims.jsonl``) the default packaged model is asked whether the
passage states the claim (``ragcore.prompts.judge.CLAIM_CHECK``), and the share of "Yes" among
its first token's Yes/No chances is recorded with the seconds it took, in
``judge_llm_rows.jsonl`` beside this file (rows already there are kept: the run resumes). A
narrower task than answering: ``fit.py`` weighs it beside the verdict's other features.

With ``--in-prompt`` the question is asked the way the verdict asks it after the model wrote
the answer itself (``ragcore.grounding.judge.IN_PROMPT``): the answer prompt for the claim's
question over its passage (``prompts.answer.QA``, the passage as the engines give it) with its
cue line replaced by ``CLAIM_IN_PROMPT``; rows in ``judge_llm_in_prompt_rows.jsonl``. The claims
of one passage and question share all of the prompt but that line, as the live question shares
the answer's prompt.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.grounding.claims_set import load_claims

ROWS = Path(__file__).with_name("judge_llm_rows.jsonl")
IN_PROMPT_ROWS = Path(__file__).with_name("judge_llm_in_prompt_rows.jsonl")


def in_prompt_messages(claim) -> list:
    """The answer prompt for the claim's question and passage, asking about the claim (above)."""
    from ragcore.prompts.answer import QA, asked_instead
    from ragcore.prompts.judge import CLAIM_IN_PROMPT
    from ragcore.types import MetadataMode, Node

    source = claim.source.split(":", 1)[-1]
    context = Node(text=claim.passage, metadata={"file_name": source.rsplit("/", 1)[-1]}
                   ).content(MetadataMode.LLM)
    messages = QA.format(context=context, question=claim.question)
    if messages[-1].role == "assistant":  # the "**" prefill the answer is opened with
        messages = messages[:-1]
    return asked_instead(messages, CLAIM_IN_PROMPT.format(claim=claim.claim.strip()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--in-prompt", action="store_true",
                        help="ask in the answer's own prompt (the verdict's way after an answer)")
    args = parser.parse_args()
    from ragcore.grounding.judge import _yes, yes_share
    from ragcore.llms.resolve import resolve_llm

    llm = resolve_llm("local")
    rows = IN_PROMPT_ROWS if args.in_prompt else ROWS
    done = {json.loads(line)["id"] for line in rows.read_text().splitlines()} \
        if rows.exists() else set()
    claims = [c for c in load_claims() if c.id not in done][:args.limit]
    with rows.open("a", encoding="utf-8") as out:
        for claim in claims:
            started = time.perf_counter()
            share = (_yes(llm, in_prompt_messages(claim)) if args.in_prompt
                     else yes_share(llm, claim.passage, claim.claim))
            out.write(json.dumps({"id": claim.id, "p_yes": round(share, 4),
                                  "seconds": round(time.perf_counter() - started, 2)}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
