"""Bootstrap confidence intervals of a mean: how far a leaderboard's difference can be trusted.

The questions are resampled with replacement ``resamples`` times (numpy, seeded, so the same
results give the same interval) and the interval is the middle ``confidence`` share of the
resampled means (the percentile bootstrap). With 20 questions an interval is wide; two setups
whose intervals overlap much are not told apart by this question set.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import ConfigError

RESAMPLES = 1000
CONFIDENCE = 0.95


def bootstrap_interval(values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0,
                       confidence: float = CONFIDENCE) -> tuple[float, float] | None:
    """The percentile-bootstrap interval of the mean of ``values``; None for no values."""
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence ({confidence}) must be between 0 and 1, e.g. 0.95")
    if resamples < 1:
        raise ConfigError(f"resamples ({resamples}) must be at least 1")
    data = np.asarray([v for v in values if v is not None], dtype=np.float64)
    if data.size == 0:
        return None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, data.size, size=(resamples, data.size))
    means = data[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)
