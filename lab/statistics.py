"""What the thesis' report (lab/thesis/experiments_report.py) and its claims table
(lab/thesis/reproduction.py) share: the scheme lists, a row's per-position counts, and the
paired bootstrap over test positions.

Scheme differences come with a paired bootstrap over the test positions
(`paired_bootstrap`): the positions are resampled with replacement, both schemes' totals
are taken over the same resampled positions, and the 2.5% and 97.5% quantiles of the ratio
give a 95% interval for the percent difference. A difference whose interval includes 0 is
reported as "within noise". The resampling is seeded, so a report is the same on every
rebuild.
"""
import functools
import math
from typing import NamedTuple, Optional

import numpy as np

from engine.tt_registry import THESIS_ONE_LEVEL, THESIS_SCHEMES, THESIS_TWO_LEVEL

SCHEMES = list(THESIS_SCHEMES)        # the seven schemes of thesis 2.7.1, in registry order
ONE_LEVEL = list(THESIS_ONE_LEVEL)
TWO_LEVEL = list(THESIS_TWO_LEVEL)
METRICS = {"nodes": "per_position", "thesis_nodes": "per_position_thesis"}
RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_240_616
CONFIDENCE = 0.95


def as_number(value):
    """A CSV cell as a float; NaN where it is empty or not a number."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


# -- paired bootstrap ------------------------------------------------------------------------
class Difference(NamedTuple):
    """`other` against `base` over the same positions: 100 * (sum(other) / sum(base) - 1)
    and its bootstrap interval (percent)."""
    percent: float
    low: float
    high: float

    @property
    def within_noise(self) -> bool:
        return self.low <= 0.0 <= self.high

    def text(self, digits: int = 1) -> str:
        note = ", within noise" if self.within_noise else ""
        return (f"{self.percent:+.{digits}f}% [{self.low:+.{digits}f}, "
                f"{self.high:+.{digits}f}]{note}")


@functools.lru_cache(maxsize=32)
def _resample_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """How often each of n positions is drawn in each resample: (resamples, n) counts of
    n draws with replacement (a multinomial), so that a resampled total is one dot product."""
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.float64)
    counts.flags.writeable = False
    return counts


def paired_bootstrap(base, other, resamples: int = RESAMPLES, seed: int = BOOTSTRAP_SEED,
                     confidence: float = CONFIDENCE) -> Difference:
    """Percent difference of the total of `other` against the total of `base`, two arrays
    of per-position counts of the same positions in the same order, with a `confidence`
    interval from `resamples` paired bootstrap resamples of the positions (seeded).

    Raises ValueError for arrays of different or zero length, or a zero base total."""
    base = np.asarray(base, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    if base.ndim != 1 or base.shape != other.shape or base.size == 0:
        raise ValueError(f"need two equally long lists of counts, got {base.shape} and {other.shape}")
    if base.sum() <= 0:
        raise ValueError("the base total is zero")
    counts = _resample_counts(base.size, int(resamples), int(seed))
    base_totals = counts @ base
    ratios = (counts @ other) / np.where(base_totals > 0, base_totals, np.nan)
    tail = (1.0 - confidence) / 2.0
    low, high = np.nanquantile(ratios, [tail, 1.0 - tail])
    point = other.sum() / base.sum()
    return Difference(100.0 * (point - 1.0), 100.0 * (low - 1.0), 100.0 * (high - 1.0))


def per_position(row, metric: str = "nodes") -> Optional[np.ndarray]:
    """A row's per-position counts of `metric` ("nodes" or "thesis_nodes"), None if the row
    has none (rows of older runs)."""
    text = (row.get(METRICS[metric]) or "").strip() if row else ""
    if not text:
        return None
    return np.array(text.split(), dtype=np.float64)


def compare(base_row, other_row, metric: str = "nodes") -> Optional[Difference]:
    """`other_row` against `base_row` (the same positions) with its interval; None where
    either row lacks per-position counts."""
    a, b = per_position(base_row, metric), per_position(other_row, metric)
    if a is None or b is None or a.shape != b.shape:
        return None
    return paired_bootstrap(a, b)


def format_k(k):
    """A table size in K positions as the thesis writes it: 512K, 1M."""
    return f"{k}K" if k < 1024 else f"{k // 1024}M"
