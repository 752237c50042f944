"""The packaged model as a judge of one claim against one passage: its Yes/No chances, recorded.

    python -m benchmarks.grounding.judge_llm [--limit N]

For every labelled claim (``claims.jsonl``) the default packaged model is asked whether the
passage states the claim (``ragcore.prompts.judge.CLAIM_CHECK``), and the share of "Yes" among
its first token's Yes/No chances is recorded with the seconds it took, in
``judge_llm_rows.jsonl`` beside this file (rows already there are kept: the run resumes). A
narrower task than answering: ``fit.py`` weighs it beside the verdict's other features.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.grounding.claims_set import load_claims

ROWS = Path(__file__).with_name("judge_llm_rows.jsonl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    from ragcore.grounding.judge import yes_share
    from ragcore.llms.resolve import resolve_llm

    llm = resolve_llm("local")
    done = {json.loads(line)["id"] for line in ROWS.read_text().splitlines()} \
        if ROWS.exists() else set()
    claims = [c for c in load_claims() if c.id not in done][:args.limit]
    with ROWS.open("a", encoding="utf-8") as out:
        for claim in claims:
            started = time.perf_counter()
            share = yes_share(llm, claim.passage, claim.claim)
            out.write(json.dumps({"id": claim.id, "p_yes": round(share, 4),
                                  "seconds": round(time.perf_counter() - started, 2)}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
