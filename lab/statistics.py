"""What the thesis' report (lab/thesis/experiments_report.py) and its claims table
(lab/thesis/reproduction.py) share: the scheme lists, a row's per-position counts, and the
paired bootstrap over test positions.

Scheme differences come with a paired bootstrap over the test positions
(`paired_bootstrap`): the positions are resampled with replacement, both schemes' totals
are taken over the same resampled positions, and the 2.5% and 97.5% quantiles of the ratio
give a 95% interval for the percent difference. A difference whose interval includes 0 is
reported as "within noise". The resampling is seeded, so a report is the same on every
rebuild.

With time stamping the table is carried from one position of a game to the next, so the
counts of consecutive positions are not independent. For such rows the bootstrap
resamples blocks instead of positions (`blocks=`, `game_blocks`): whole games, with
replacement, where the test set has at least MIN_BLOCKS games; in a set of fewer games
(one game: `short`, `endgame21`; three: `middle44`) each game is cut into runs of
consecutive positions of about equal length, at most ceil(n / MIN_BLOCKS) long, so that
there are at least MIN_BLOCKS blocks (a single block would give an interval of width 0).
"""
import functools
import math
from typing import NamedTuple, Optional, Sequence, Tuple

import numpy as np

from engine.tt_registry import THESIS_ONE_LEVEL, THESIS_SCHEMES, THESIS_TWO_LEVEL

SCHEMES = list(THESIS_SCHEMES)        # the seven schemes of thesis 2.7.1, in registry order
ONE_LEVEL = list(THESIS_ONE_LEVEL)
TWO_LEVEL = list(THESIS_TWO_LEVEL)
# The thesis' depths (section 2.7): middle game 3-7 ply on the 94 positions, 8 ply on the 44
# of games 1-3 at 16K/64K/256K/1024K, endgame 10 ply, section 2.7.2 at 8 (middle) and 10
# (endgame) ply, and the 9-ply check of the thesis' extrapolation from 7 ply.
THESIS_DEPTHS = dict(middle=7, middle44=8, endgame=10, move_score=8, move_score_end=10,
                     extrapolation=9)
FIRST_DEPTH = 3   # the shallowest depth of Figures 2.8-2.11, middle game and endgame
# The thesis' table sizes in K positions (Figures 2.3-2.6: 8K to 1024K, doubling).
THESIS_SIZES = [8, 16, 32, 64, 128, 256, 512, 1024]
METRICS = {"nodes": "per_position", "thesis_nodes": "per_position_thesis"}
RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_240_616
CONFIDENCE = 0.95
MIN_BLOCKS = 6       # the fewest blocks a block bootstrap resamples (the middle game: 6 games)


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
                     confidence: float = CONFIDENCE, blocks=None) -> Difference:
    """Percent difference of the total of `other` against the total of `base`, two arrays
    of per-position counts of the same positions in the same order, with a `confidence`
    interval from `resamples` paired bootstrap resamples (seeded).

    `blocks`: None resamples single positions; else one label per position (e.g. from
    `game_blocks`), and the resamples draw whole blocks with replacement, as many as there
    are blocks, each bringing all its positions' counts of both arrays.

    Raises ValueError for arrays of different or zero length, or a zero base total."""
    base = np.asarray(base, dtype=np.float64)
    other = np.asarray(other, dtype=np.float64)
    if base.ndim != 1 or base.shape != other.shape or base.size == 0:
        raise ValueError(f"need two equally long lists of counts, got {base.shape} and {other.shape}")
    if base.sum() <= 0:
        raise ValueError("the base total is zero")
    if blocks is not None:
        labels = np.asarray(blocks)
        if labels.shape != base.shape:
            raise ValueError(f"need one block label per position, got {labels.shape} for {base.shape}")
        _, index = np.unique(labels, return_inverse=True)
        base = np.bincount(index, weights=base)          # the blocks' totals, in label order
        other = np.bincount(index, weights=other)
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


def compare(base_row, other_row, metric: str = "nodes",
            by_game: bool = True) -> Optional[Difference]:
    """`other_row` against `base_row` (the same positions) with its interval; None where
    either row lacks per-position counts. With `by_game`, rows with time stamping are
    resampled by block (`row_blocks`); without, position by position."""
    a, b = per_position(base_row, metric), per_position(other_row, metric)
    if a is None or b is None or a.shape != b.shape:
        return None
    blocks = None
    if by_game:
        stamped_row = next((r for r in (base_row, other_row) if stamped(r)), None)
        blocks = row_blocks(stamped_row, a.size) if stamped_row else None
    return paired_bootstrap(a, b, blocks=blocks)


# -- blocks of consecutive positions of one game ---------------------------------------------
def stamped(row) -> bool:
    """The row ran with time stamping: its table was kept from one position to the next."""
    return bool(row) and str(row.get("stamping")) == "True"


def game_of(label: str) -> str:
    """The game of a position's label; the endgame set's EPD ids name the move as well
    ("Kasparov-Benjamin 3 move 24")."""
    return label.rsplit(" move ", 1)[0]


@functools.lru_cache(maxsize=32)
def position_games(test_set: str) -> Optional[Tuple[str, ...]]:
    """The game of each position of a test set, in test-set order (the order of a row's
    per-position counts); None for a set lab.thesis.experiments does not know."""
    from lab.thesis.experiments import positions_for

    try:
        return tuple(game_of(p.game) for p in positions_for(test_set))
    except (ValueError, OSError):
        return None


def game_blocks(games: Sequence[str], min_blocks: int = MIN_BLOCKS) -> np.ndarray:
    """A block number per position: the runs of consecutive positions of one game, each a
    block where there are at least `min_blocks` runs; else every run cut into pieces of
    about equal length, at most ceil(n / min_blocks) positions each."""
    n = len(games)
    runs = []                     # [start, length] of each run of one game
    for i, game in enumerate(games):
        if runs and games[runs[-1][0]] == game:
            runs[-1][1] += 1
        else:
            runs.append([i, 1])
    longest = n if len(runs) >= min_blocks else math.ceil(n / min_blocks)
    out = np.empty(n, dtype=np.int64)
    block = 0
    for start, length in runs:
        for piece in np.array_split(np.arange(start, start + length), math.ceil(length / longest)):
            out[piece] = block
            block += 1
    return out


def row_blocks(row, n: int, games=position_games) -> Optional[np.ndarray]:
    """The blocks of a row's `n` per-position counts (`game_blocks` of its test set), or
    None where `games(test_set)` is unknown or names another number of positions."""
    names = games(row["test_set"])
    if names is None or len(names) != n:
        return None
    return game_blocks(names)


def format_k(k):
    """A table size in K positions as the thesis writes it: 512K, 1M."""
    return f"{k}K" if k < 1024 else f"{k // 1024}M"
