"""How close a rebuilt weights.json is to the shipped one, model by model.

``train`` rounds span weights to 4 decimals and answer weights to 5, so a rebuild on another
numpy or BLAS matches the shipped file to rounding at best: this counts the weights that are
identical, the largest difference, the names only one file holds and the thresholds. Only the
models and variants the rebuilt file holds are compared (``train --variant lexical`` writes one).

    python -m training.answerer.compare /tmp/lexical.json   # against the shipped weights.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from training.answerer.train import WEIGHTS


def differences(rebuilt: dict, shipped: dict) -> list[dict]:
    """One row per model and variant of ``rebuilt``: weights both hold, identical ones, the
    largest difference, names only in one file, and both thresholds (answer model only)."""
    out = []
    for model in ("span", "span_typed", "found"):
        for which, weights in sorted(rebuilt.get(model, {}).items()):
            theirs = shipped.get(model, {}).get(which, {})
            row = {"model": f"{model}.{which}"}
            if model == "found":
                row["threshold"] = (weights["threshold"], theirs.get("threshold"))
                weights, theirs = weights["weights"], theirs.get("weights", {})
            both = weights.keys() & theirs.keys()
            gaps = [abs(weights[name] - theirs[name]) for name in both]
            out.append({**row, "rebuilt": len(weights), "shipped": len(theirs),
                        "identical": sum(gap == 0 for gap in gaps),
                        "max_diff": max(gaps, default=0.0),
                        "only_rebuilt": sorted(weights.keys() - both),
                        "only_shipped": sorted(theirs.keys() - both)})
    return out


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: python -m training.answerer.compare REBUILT.json [SHIPPED.json]",
              file=sys.stderr)
        return 2
    rebuilt, shipped = (json.loads(Path(p).read_text(encoding="utf-8"))
                        for p in (argv[0], argv[1] if len(argv) > 1 else WEIGHTS))
    for row in differences(rebuilt, shipped):
        print(f"{row['model']}: {row['rebuilt']} weights rebuilt, {row['shipped']} shipped, "
              f"{row['identical']} identical, max difference {row['max_diff']:.5f}")
        if "threshold" in row:
            print(f"  threshold {row['threshold'][0]} rebuilt, {row['threshold'][1]} shipped")
        for side in ("only_rebuilt", "only_shipped"):
            if row[side]:
                shown = ", ".join(row[side][:8]) + (" ..." if len(row[side]) > 8 else "")
                print(f"  {len(row[side])} {side.replace('_', ' ')}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
