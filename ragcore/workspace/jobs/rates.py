"""How fast this computer embeds: rates measured per embedding model, kept in the workspace.

``estimate.py`` counts the work of a job in chunks; this module knows how many chunks a second
this machine turns into vectors. Every finished (or cancelled) ingest adds its measured rate to
``<workspace>/embedding-rates.json`` (plain JSON: the last few jobs per model), and the rate of
a model is the chunks over the seconds of those jobs. A model with no job measured yet gets a
short calibration: a few representative chunks embedded once, timed (about ``CALIBRATION``
seconds, after one call that loads the model).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Sequence

from ..files import read_json, write_json_atomic

logger = logging.getLogger(__name__)

RATES_FILE = "embedding-rates.json"
FORMAT = "ragcore-embedding-rates/1"
KEEP = 5  # measured jobs kept per model
CALIBRATION = 1.5  # seconds spent timing a calibration (at most)
ENOUGH = 64  # chunks that tell a fast embedder's rate (in a sixth of that time)
BATCH = 16  # texts per timed call: an ingest embeds hundreds per call, which batching speeds up
MIN_CHUNKS, MIN_SECONDS = 100, 2.0  # a job shorter than this says little about the rate
FILLER = ("The committee reviewed the quarterly figures and asked for a plan that explains each "
          "change, who decides it, and when the next review takes place. ")


class RateBook:
    """Measured embedding rates of this computer, per model (``<root>/embedding-rates.json``)."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / RATES_FILE

    def rate(self, model: str) -> float | None:
        """Chunks per second of the recent jobs with ``model``; None if none was measured."""
        runs = self._load().get(model, [])
        chunks = sum(run["chunks"] for run in runs)
        seconds = sum(run["seconds"] for run in runs)
        return chunks / seconds if chunks and seconds > 0 else None

    def record(self, model: str, chunks: int, seconds: float, *, source: str = "job") -> bool:
        """Keep one measurement (False: too short to say anything, not kept)."""
        if source == "job" and (chunks < MIN_CHUNKS or seconds < MIN_SECONDS):
            return False
        if chunks <= 0 or seconds <= 0:
            return False
        models = self._load()
        runs = [r for r in models.get(model, []) if r.get("source") == "job" or source != "job"]
        runs.append({"chunks": int(chunks), "seconds": round(float(seconds), 3),
                     "source": source, "at": time.strftime("%Y-%m-%dT%H:%M:%S")})
        models[model] = runs[-KEEP:]
        try:
            write_json_atomic(self.path, {"format": FORMAT, "models": models})
        except OSError as exc:  # an estimate is not worth failing a job for
            logger.info("could not save the embedding rate in %s: %s", self.path, exc)
            return False
        return True

    def _load(self) -> dict[str, list[dict[str, Any]]]:
        if not self.path.exists():
            return {}
        try:
            data = read_json(self.path, what="embedding rates")
        except Exception as exc:  # noqa: BLE001 - a damaged file: measure again
            logger.info("ignoring %s: %s", self.path, exc)
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return {}
        models = data.get("models", {})
        return {k: [r for r in v if _sound(r)] for k, v in models.items() if isinstance(v, list)}


def _sound(run: Any) -> bool:
    return (isinstance(run, dict) and isinstance(run.get("chunks"), int)
            and isinstance(run.get("seconds"), (int, float)) and run["seconds"] > 0)


def calibrate(embedder: Any, samples: Sequence[str] = (), *,
              seconds: float = CALIBRATION) -> tuple[int, float]:
    """Embed representative chunks for about ``seconds``; returns (chunks, seconds taken).

    A first call of the same size (which may load the model) is not timed. ``samples`` are
    chunks of the files to come; without them, filler text of a typical chunk's length."""
    texts = [t for t in samples if t.strip()] or [FILLER * 5]
    batch = BATCH
    # Untimed: it loads the model, and a model's first call of a size runs slower than the rest.
    embedder.embed_batch([texts[i % len(texts)] for i in range(batch)])
    done, taken = 0, 0.0
    while taken < seconds and not (done >= ENOUGH and taken >= seconds / 6):
        piece = [texts[(done + i) % len(texts)] for i in range(batch)]
        started = time.perf_counter()
        embedder.embed_batch(piece)
        taken += time.perf_counter() - started
        done += len(piece)
    return done, taken


def machine_rate(root: Path, embedder: Any, samples: Sequence[str] = ()) -> float:
    """The measured rate of ``embedder``'s model on this computer, calibrating if none is kept."""
    book = RateBook(root)
    model = getattr(embedder, "model_name", type(embedder).__name__)
    known = book.rate(model)
    if known is not None:
        return known
    chunks, seconds = calibrate(embedder, samples)
    book.record(model, chunks, seconds, source="calibration")
    return chunks / max(seconds, 1e-6)
