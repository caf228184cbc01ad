"""docs/thesis_reproduction.md: every claim of Breuker's chapter 2 (section 2.7) in one table,
computed from the experiment CSV (docs/experiments/results.csv.gz), so that the document cannot
disagree with the experiments' report.

The thesis measures "the number of all nodes investigated, i.e. the sum of the interior
nodes and the leaves" without saying whether the leaves of its quiescence search are among
them. Each claim is therefore checked on two counts: interior nodes + horizon leaves (the
full-width tree) and TwoBig's total with quiescence nodes. Where the two verdicts differ,
the row gives both.

A difference between two configurations counts only when it is outside the noise: its 95%
paired bootstrap interval excludes 0 AND it is larger than the noise floor, the largest
spread of one cell's total over the seeded random Zobrist key sets (experiment "noise").
Everything else is "within noise". The bootstrap resamples positions where the table was
cleared before each position, and blocks of consecutive positions of one game (whole games
where a set has enough of them, lab.statistics.game_blocks) where time stamping kept it.
"""
import math
import os
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, List, NamedTuple, Optional, Sequence

import numpy as np

from lab.statistics import (MIN_BLOCKS, ONE_LEVEL, SCHEMES, TWO_LEVEL, Difference, as_number,
                            format_k, game_blocks, paired_bootstrap, per_position, position_games,
                            row_blocks, stamped)
from lab.thesis import robustness
from lab.thesis.experiments import RESULTS_CSV

METRICS = ("thesis_nodes", "nodes")
METRIC_LABEL = {"thesis_nodes": "interior + horizon leaves", "nodes": "all nodes"}


class Grid:
    """The CSV's rows indexed by what they ran; per-position counts, totals, paired
    differences and the noise floor per metric.

    `games(test_set)`: the game of each position of a test set (lab.statistics.position_games
    by default), for the block bootstrap of rows with time stamping. Test sets whose stamped
    rows it cannot place (unknown, or another number of positions) are resampled position by
    position and collected in `unplaced`, which the document names."""

    def __init__(self, rows: Sequence[dict], games: Callable = position_games):
        self.rows = list(rows)
        self.games = games
        self.unplaced = set()
        self._rows = {}
        for r in self.rows:
            key = (r["experiment"], r["test_set"], r["scheme"], int(r["positions_k"]),
                   r["stamping"] == "True", r["use"], int(r["key_bits"]),
                   r.get("key_seed") or "", int(r["depth"]), int(r.get("pv_plies") or 1))
            self._rows[key] = r
        self._floor = {}

    def row(self, experiment, test_set, scheme, size, stamping, depth, use="full",
            bits=64, seed="", pv_plies=1) -> Optional[dict]:
        if depth is None:          # e.g. the middle-game depth of a CSV without such rows
            return None
        return self._rows.get((experiment, test_set, scheme, int(size), bool(stamping), use,
                               int(bits), str(seed), int(depth), int(pv_plies)))

    def depths(self, experiment, test_set, stamping=None) -> List[int]:
        """The depths the experiment ran on the test set. A deepest depth with fewer cells
        than the depth before it is incomplete: it is left out until all its cells are in
        the CSV, so that no claim reads a part of it."""
        cells = self.cell_counts(experiment, test_set, stamping)
        found = sorted(cells)
        while len(found) > 1 and cells[found[-1]] < cells[found[-2]]:
            found.pop()
        return found

    def cell_counts(self, experiment, test_set, stamping=None) -> Counter:
        """{depth: cells of the experiment on the test set in the CSV}."""
        return Counter(k[8] for k in self._rows if k[0] == experiment and k[1] == test_set
                       and (stamping is None or k[4] == stamping))

    def sizes(self, experiment, test_set, depth, stamping=None) -> List[int]:
        return sorted({k[3] for k in self._rows if k[0] == experiment and k[1] == test_set
                       and k[8] == depth and (stamping is None or k[4] == stamping)})

    @staticmethod
    def counts(row, metric, subset=None) -> Optional[np.ndarray]:
        if row is None:
            return None
        values = per_position(row, metric)
        if values is None:
            return None
        return values if subset is None else values[subset]

    def total(self, row, metric, subset=None) -> float:
        values = self.counts(row, metric, subset)
        if values is not None:
            return float(values.sum())
        return as_number(row.get(metric)) if row is not None and subset is None else math.nan

    def diff(self, base, other, metric, subset=None) -> Optional[Difference]:
        a, b = self.counts(base, metric, subset), self.counts(other, metric, subset)
        if a is None or b is None or a.shape != b.shape or a.sum() <= 0:
            return None
        return paired_bootstrap(a, b, blocks=self.blocks(base, other, metric, subset))

    def blocks(self, base, other, metric, subset=None) -> Optional[np.ndarray]:
        """The bootstrap's blocks for a comparison: None (single positions) unless one of
        the rows ran with time stamping; then the games of its test set (`game_blocks`)."""
        row = base if stamped(base) else other if stamped(other) else None
        if row is None:
            return None
        blocks = row_blocks(row, len(self.counts(row, metric)), self.games)
        if blocks is None:
            self.unplaced.add(row["test_set"])
            return None
        return blocks if subset is None else blocks[subset]

    def floor(self, metric) -> float:
        """The noise floor (percent) of `metric`: the largest spread (max - min, percent of
        the mean) of a noise cell's totals over its key sets, the Polyglot-keyed schemes row
        included; 0 where no noise cells were run."""
        if metric not in self._floor:
            groups = defaultdict(list)
            for r in self.rows:
                if r["experiment"] == "noise":
                    groups[(r["test_set"], r["scheme"], r["positions_k"], r["stamping"],
                            r["depth"])].append(as_number(r.get(metric)))
            spread = 0.0
            for (test_set, scheme, size, stamping, depth), values in groups.items():
                base = self.row("schemes", test_set, scheme, size, stamping == "True", int(depth))
                values = values + ([as_number(base.get(metric))] if base else [])
                values = [v for v in values if not math.isnan(v)]
                if len(values) > 1:
                    spread = max(spread, (max(values) - min(values)) / np.mean(values) * 100)
            self._floor[metric] = spread
        return self._floor[metric]

    def clear(self, difference: Optional[Difference], metric) -> bool:
        """The difference is outside the noise (interval excludes 0 and above the floor)."""
        return (difference is not None and not difference.within_noise
                and abs(difference.percent) > self.floor(metric))

    def commits(self) -> List[str]:
        return sorted({r.get("commit") or "?" for r in self.rows})


def _pct(d: Optional[Difference]) -> str:
    return "n/a" if d is None else f"{d.percent:+.1f}% [{d.low:+.1f}, {d.high:+.1f}]"


def _sign(grid: Grid, d: Optional[Difference], metric) -> int:
    """-1: clearly fewer nodes, +1: clearly more, 0: within noise (or no data)."""
    if not grid.clear(d, metric):
        return 0
    return -1 if d.percent < 0 else 1


class Finding(NamedTuple):
    text: str          # what was measured, with intervals
    verdict: str       # yes / partly / no / not run


NOT_RUN = Finding("not run", "not run")


class Claim(NamedTuple):
    section: str
    claim: str
    thesis: str
    measure: Callable[[Grid, str], Finding]
    why: str           # how the comparison is made, and what differs from the thesis
    metric_free: bool = False


# -- the middle-game scheme comparisons ----------------------------------------------------
def _middle_depth(grid: Grid) -> Optional[int]:
    depths = grid.depths("schemes", "middle")
    return max(depths) if depths else None


def _points(grid: Grid, metric, test_set="middle", depth=None, stampings=(False, True)):
    """[(stamping, size, {scheme: row})] of a depth with every scheme present."""
    depth = depth or _middle_depth(grid)
    out = []
    if depth is None:
        return out
    for stamping in stampings:
        for size in grid.sizes("schemes", test_set, depth, stamping):
            rows = {s: grid.row("schemes", test_set, s, size, stamping, depth) for s in SCHEMES}
            if _usable(grid, rows.values(), metric):
                out.append((stamping, size, rows))
    return out


def _usable(grid: Grid, rows, metric) -> bool:
    """Every row is there and has per-position counts of `metric` (rows of older layouts
    have none: they cannot be compared with an interval and are left out)."""
    return all(r is not None and grid.counts(r, metric) is not None for r in rows)


def _label(stamping, size):
    return f"{format_k(size)}{' ts' if stamping else ''}"


def twobig_best(grid, metric, test_set="middle", depth=None):
    points = _points(grid, metric, test_set, depth)
    if not points:
        return NOT_RUN
    best = better = worse = 0
    for stamping, size, rows in points:
        totals = {s: grid.total(r, metric) for s, r in rows.items()}
        rival = min((s for s in SCHEMES if s != "TwoBig1"), key=totals.get)
        best += totals["TwoBig1"] < totals[rival]
        sign = _sign(grid, grid.diff(rows[rival], rows["TwoBig1"], metric), metric)
        better += sign < 0
        worse += sign > 0
    n = len(points)
    verdict = ("yes" if best * 2 > n and better and not worse else
               "partly" if better > worse or (best * 2 > n and not worse) else "no")
    return Finding(f"TwoBig1 has the fewest nodes at {best} of {n} points; clearly fewer than "
                   f"the best other scheme at {better}, clearly more at {worse}", verdict)


TWO_LEVEL_RULE = ("'yes' when the best two-level scheme is clearly below the best one-level "
                  "one at most points and clearly above it at none, 'partly' when it is "
                  "clearly below at more points than clearly above, 'no' otherwise")


def two_beat_one(grid, metric, test_set="middle", depth=None, stampings=(False, True)):
    points = _points(grid, metric, test_set, depth, stampings)
    if not points:
        return NOT_RUN
    wins = losses = 0
    worst = None
    for stamping, size, rows in points:
        totals = {s: grid.total(r, metric) for s, r in rows.items()}
        two = min(TWO_LEVEL, key=totals.get)
        one = min(ONE_LEVEL, key=totals.get)
        d = grid.diff(rows[one], rows[two], metric)
        sign = _sign(grid, d, metric)
        wins += sign < 0
        losses += sign > 0
        if d is not None and (worst is None or d.percent < worst[1].percent):
            worst = (_label(stamping, size), d)
    n = len(points)
    verdict = "yes" if wins * 2 > n and losses == 0 else "partly" if wins > losses else "no"
    biggest = f"; largest gain {_pct(worst[1])} at {worst[0]}" if worst else ""
    return Finding(f"best two-level clearly below best one-level at {wins} of {n} points, "
                   f"clearly above at {losses}{biggest}", verdict)


def old_new_worst(grid, metric):
    points = _points(grid, metric)
    if not points:
        return NOT_RUN
    held = clear = 0
    for stamping, size, rows in points:
        totals = {s: grid.total(r, metric) for s, r in rows.items()}
        better_old_new = min(("OLD", "NEW"), key=totals.get)
        worst_rest = max(("DEEP", "BIG1", "BIGALL"), key=totals.get)
        held += totals[better_old_new] > totals[worst_rest]
        clear += _sign(grid, grid.diff(rows[worst_rest], rows[better_old_new], metric), metric) > 0
    n = len(points)
    verdict = "yes" if clear * 2 > n else "partly" if held * 2 > n else "no"
    return Finding(f"OLD and NEW both above DEEP, BIG1 and BIGALL at {held} of {n} points "
                   f"(outside the noise at {clear})", verdict)


def big1_bigall(grid, metric):
    points = _points(grid, metric)
    if not points:
        return NOT_RUN
    diffs = [grid.diff(rows["BIG1"], rows["BIGALL"], metric) for _, _, rows in points]
    diffs = [d for d in diffs if d is not None]
    if not diffs:
        return NOT_RUN
    inside = sum(not grid.clear(d, metric) for d in diffs)
    mean = np.mean([abs(d.percent) for d in diffs])
    verdict = "yes" if inside >= 0.75 * len(diffs) else "partly" if inside else "no"
    return Finding(f"mean absolute difference {mean:.2f}%; within noise at {inside} of {len(diffs)} "
                   f"points", verdict)


BIG_VS_DEEP = (("BIG1", "DEEP"), ("BIGALL", "DEEP"), ("TwoBig1", "TwoDEEP"))


def big_beats_deep(grid, metric, test_set="middle", depth=None, stampings=(False, True)):
    """(points, {"BIG1 vs DEEP": [clear wins of BIG, clear losses, [percents]], ...})."""
    points = _points(grid, metric, test_set, depth, stampings)
    if not points:
        return None
    tally = {f"{big} vs {deep}": [0, 0, []] for big, deep in BIG_VS_DEEP}
    for _, _, rows in points:
        for big, deep in BIG_VS_DEEP:
            d = grid.diff(rows[deep], rows[big], metric)
            entry = tally[f"{big} vs {deep}"]
            sign = _sign(grid, d, metric)
            if sign:
                entry[sign > 0] += 1
            entry[2].append(d.percent)
    return len(points), tally


def _big_text(n, tally):
    return "; ".join(f"{name}: mean {np.mean(p):+.1f}%, BIG clearly fewer at {w}, clearly more "
                     f"at {l} of {n}" for name, (w, l, p) in tally.items())


def big_middle(grid, metric):
    got = big_beats_deep(grid, metric)
    if not got:
        return NOT_RUN
    n, tally = got
    comparisons = n * len(tally)
    wins = sum(w for w, _, _ in tally.values())
    losses = sum(l for _, l, _ in tally.values())
    verdict = ("yes" if wins * 2 > comparisons and wins > 2 * losses else
               "partly" if wins > losses else "no")
    return Finding(_big_text(n, tally), verdict)


BIG_ENDGAME_RULE = ("'not testable' when row 5 finds no middle-game edge (its verdict 'no'): "
                    "an edge that was not there cannot disappear; else 'yes' when the endgame's "
                    "clear differences are at most half of the comparisons, or point both ways "
                    "about equally (the fewer of BIG's clear wins and clear losses at least half "
                    "the more), 'partly' when BIG's mean difference against DEEP is less in "
                    "BIG's favour in the endgame than in the middle game (stamping), 'no' "
                    "otherwise")


def big_endgame(grid, metric):
    """The thesis' claim is relative: BIG's edge over DEEP in the middle game has gone in
    the endgame. It can only be judged where row 5 finds that edge (BIG_ENDGAME_RULE)."""
    depths = grid.depths("schemes", "endgame", True)
    if not depths:
        return NOT_RUN
    got = big_beats_deep(grid, metric, "endgame", depths[-1], (True,))
    if not got:
        return NOT_RUN
    n, tally = got
    wins = sum(w for w, _, _ in tally.values())
    losses = sum(l for _, l, _ in tally.values())
    end_mean = np.mean([x for _, _, p in tally.values() for x in p])
    middle = big_beats_deep(grid, metric, stampings=(True,))
    middle_mean = (np.mean([x for _, _, p in middle[1].values() for x in p]) if middle
                   else math.nan)
    text = f"{depths[-1]} ply: " + _big_text(n, tally) + \
        (f"; mean BIG against DEEP: endgame {end_mean:+.1f}%, middle game (stamping) "
         f"{middle_mean:+.1f}%" if not math.isnan(middle_mean) else "")
    edge = big_middle(grid, metric).verdict
    if edge == "not run":
        return Finding(text + "; no middle-game rows to compare with", "not run")
    if edge == "no":
        return Finding(text + "; no middle-game edge to lose (row 5: no)", "not testable")
    if (wins + losses) * 2 <= n * len(tally) or min(wins, losses) * 2 >= max(wins, losses):
        verdict = "yes"
    elif not math.isnan(middle_mean) and end_mean > middle_mean:
        verdict = "partly"
    else:
        verdict = "no"
    return Finding(text, verdict)


def _spread(grid, metric, size, stamping=False):
    depth = _middle_depth(grid)
    rows = {s: grid.row("schemes", "middle", s, size, stamping, depth) for s in SCHEMES}
    if not depth or not _usable(grid, rows.values(), metric):
        return None
    totals = {s: grid.total(r, metric) for s, r in rows.items()}
    best, worst = min(totals, key=totals.get), max(totals, key=totals.get)
    return best, worst, grid.diff(rows[best], rows[worst], metric)


def spread_small(grid, metric):
    got = _spread(grid, metric, 8)
    if not got:
        return NOT_RUN
    best, worst, d = got
    verdict = ("yes" if d and d.percent >= 10 and best == "TwoBig1" and worst == "OLD"
               else "partly" if d and d.percent >= 10 else "no")
    return Finding(f"{_pct(d)} ({worst} against {best}, {_middle_depth(grid)} ply, no stamping)",
                   verdict)


def spread_big(grid, metric):
    parts = []
    ok = True
    for size in (512, 1024):
        got = _spread(grid, metric, size)
        if got:
            best, worst, d = got
            parts.append(f"{format_k(size)}: {_pct(d)} ({worst} vs {best})")
            ok &= d is not None and d.percent <= 5
    if not parts:
        return NOT_RUN
    return Finding("; ".join(parts), "yes" if ok else "no")


def twodeep_vs_deep(grid, metric):
    depth = _middle_depth(grid)
    parts, inside, negative = [], 0, 0
    for size in (8, 16, 32, 64):
        a = grid.row("schemes", "middle", "DEEP", size, False, depth)
        b = grid.row("schemes", "middle", "TwoDEEP", size, False, depth)
        d = grid.diff(a, b, metric)
        if d is not None:
            parts.append(f"{format_k(size)}: {_pct(d)}")
            inside += -10.5 <= d.percent <= -4.5
            negative += d.percent < 0
    if not parts:
        return NOT_RUN
    verdict = "yes" if inside == len(parts) else "partly" if negative == len(parts) else "no"
    return Finding("; ".join(parts), verdict)


def stamping_saves(grid, metric):
    depth = _middle_depth(grid)
    savings, clear, n = [], 0, 0
    for scheme in SCHEMES:
        for size in grid.sizes("schemes", "middle", depth, True):
            on = grid.row("schemes", "middle", scheme, size, True, depth)
            off = grid.row("schemes", "middle", scheme, size, False, depth)
            d = grid.diff(off, on, metric)
            if d is None:
                continue
            n += 1
            savings.append(-d.percent)
            clear += _sign(grid, d, metric) < 0
    if not n:
        return NOT_RUN
    verdict = "yes" if 0.5 <= np.mean(savings) <= 5 and clear * 2 > n else "partly" \
        if np.mean(savings) > 0 else "no"
    return Finding(f"mean saving {np.mean(savings):.1f}% (from {min(savings):+.1f}% to "
                   f"{max(savings):+.1f}% per point; positive: fewer nodes with stamping) "
                   f"over {n} scheme-size points at {depth} ply; clearly fewer nodes at {clear}",
                   verdict)


def order_invariant(grid, metric):
    """The order of merit with and without stamping (Kendall tau per size), and whether
    TwoBig1 is first in both."""
    depth = _middle_depth(grid)
    taus, first = [], 0
    for size in grid.sizes("schemes", "middle", depth, True):
        orders = []
        for stamping in (False, True):
            rows = {s: grid.row("schemes", "middle", s, size, stamping, depth) for s in SCHEMES}
            if not _usable(grid, rows.values(), metric):
                break
            totals = {s: grid.total(r, metric) for s, r in rows.items()}
            orders.append(sorted(SCHEMES, key=totals.get))
        if len(orders) == 2:
            taus.append(_kendall(*orders))
            first += orders[0][0] == orders[1][0] == "TwoBig1"
    if not taus:
        return NOT_RUN
    n = len(taus)
    verdict = ("yes" if min(taus) >= 0.6 and first * 2 > n else
               "partly" if np.mean(taus) >= 0.6 else "no")
    return Finding(f"rank agreement (Kendall tau) with and without stamping {min(taus):+.2f} to "
                   f"{max(taus):+.2f} over {n} sizes; TwoBig1 first in both at {first} of {n}",
                   verdict)


def doubling_size(grid, metric, test_set, depth, stamping, scheme="TwoBig1"):
    """The first table size whose doubling saves under 1% of `metric` (the thesis' rule)."""
    sizes = grid.sizes("schemes", test_set, depth, stamping)
    totals = [grid.total(grid.row("schemes", test_set, scheme, s, stamping, depth), metric)
              for s in sizes]
    if len(sizes) < 2 or any(math.isnan(t) for t in totals):
        return None
    for i in range(len(sizes) - 1):
        if sizes[i + 1] != 2 * sizes[i]:
            return None        # not a doubling series (the quick grid's sizes step by 4)
        if (totals[i] - totals[i + 1]) / totals[i] < 0.01:
            return f"<={format_k(sizes[i])}" if i == 0 else format_k(sizes[i])
    return f">={format_k(sizes[-1])}"


THESIS_DOUBLING_MIDDLE = {3: "<=8K", 4: "16K", 5: "32K", 6: "32K", 7: "256K"}
THESIS_DOUBLING_END = {3: "<=8K", 4: "<=8K", 5: "<=8K", 6: "32K", 7: "64K", 8: "512K",
                       9: ">=1M", 10: ">=1M"}


def _steps_apart(a: str, b: str) -> int:
    def size(text):
        text = text.lstrip("<>=")
        return int(text[:-1]) * (1024 if text.endswith("M") else 1)
    return abs(int(round(math.log2(size(a) / size(b)))))


DOUBLING_RULE = ("'yes' when the size found at every depth measured is within one doubling "
                 "of the thesis' size at that depth, 'partly' when at least half of the depths "
                 "are, 'no' otherwise; an open-ended size (<=8K: the smallest size run already "
                 "gains under 1%; >=1M: even the largest still gains more) counts as its "
                 "bound. The thesis' 1% step is smaller than the key-set noise floor, so the "
                 "size found can move by a doubling with the keys; hence the one-doubling "
                 "tolerance")


def _doubling(grid, metric, test_set, stamping, thesis):
    """The first size whose doubling saves under 1% at each depth of `thesis` that was
    measured, against the thesis' size at that depth, judged by DOUBLING_RULE."""
    parts, apart, measured = [], [], []
    for depth in grid.depths("schemes", test_set, stamping):
        ours = doubling_size(grid, metric, test_set, depth, stamping)
        if ours and depth in thesis:
            measured.append(depth)
            parts.append(f"{depth} ply: {ours} (thesis {thesis[depth]})")
            apart.append(_steps_apart(ours, thesis[depth]))
    if not parts:
        return NOT_RUN
    near = sum(steps <= 1 for steps in apart)
    verdict = ("yes" if near == len(apart) else "partly" if near * 2 >= len(apart) else "no")
    missing = [str(d) for d in thesis if d not in measured]
    return Finding(", ".join(parts) + f"; within one doubling at {near} of {len(apart)} depths"
                   + (f"; not measured at {', '.join(missing)} ply" if missing else ""), verdict)


def doubling_middle(grid, metric):
    return _doubling(grid, metric, "middle", False, THESIS_DOUBLING_MIDDLE)


def doubling_endgame(grid, metric):
    return _doubling(grid, metric, "endgame", True, THESIS_DOUBLING_END)


def endgame_two_level(grid, metric):
    depths = grid.depths("schemes", "endgame", True)
    if not depths:
        return NOT_RUN
    return two_beat_one(grid, metric, "endgame", depths[-1], (True,))


def eight_ply(grid, metric):
    """The 8-ply results on the 44 positions: do they confirm the 7-ply conclusions, and do
    7-ply sizes s scale to 8-ply sizes 4s (the thesis' factor of four per ply)?"""
    depths = grid.depths("schemes", "middle44")
    if not depths:
        return NOT_RUN
    depth = depths[-1]
    confirmed = two_beat_one(grid, metric, "middle44", depth)
    mid = _middle_depth(grid)
    subset = _subset("middle44")
    ratios, taus, same_best = [], [], 0
    pairs = 0
    for stamping in (False, True):
        for size in (16, 64, 256):
            seven = {s: grid.row("schemes", "middle", s, size, stamping, mid) for s in SCHEMES}
            eight = {s: grid.row("schemes", "middle44", s, size * 4, stamping, depth) for s in SCHEMES}
            if not (_usable(grid, seven.values(), metric) and _usable(grid, eight.values(), metric)):
                continue
            t7 = {s: grid.total(r, metric, subset) for s, r in seven.items()}
            t8 = {s: grid.total(r, metric) for s, r in eight.items()}
            pairs += 1
            ratios.append(t8["TwoBig1"] / t7["TwoBig1"])
            same_best += min(t7, key=t7.get) == min(t8, key=t8.get)
            taus.append(_kendall(sorted(SCHEMES, key=t7.get), sorted(SCHEMES, key=t8.get)))
    if confirmed.verdict == "not run":
        return NOT_RUN
    text = f"{depth} ply: {confirmed.text}"
    scales = None
    if pairs:
        scales = same_best * 2 > pairs and min(taus) >= 0.4
        text += (f"; 8 ply at 4s against 7 ply at s on the same 44 positions (s = 16K, 64K, "
                 f"256K): TwoBig1 grows {min(ratios):.1f}-{max(ratios):.1f}x, the same best "
                 f"scheme at {same_best} of {pairs} pairs, rank agreement (Kendall tau) "
                 f"{min(taus):+.2f} to {max(taus):+.2f}")
    if confirmed.verdict == "yes" and scales is not False:
        verdict = "yes"
    elif confirmed.verdict in ("yes", "partly") or scales:
        verdict = "partly"
    else:
        verdict = "no"
    return Finding(text, verdict)


def _subset(test_set: str) -> Optional[np.ndarray]:
    """Indices, within the 94 middle-game positions, of a subset test set."""
    from lab.thesis.experiments import positions_for

    full = positions_for("middle")
    part = positions_for(test_set)
    index = {(p.fen, p.game, p.move_number): i for i, p in enumerate(full)}
    return np.array([index[(p.fen, p.game, p.move_number)] for p in part])


def extrapolation(grid, metric):
    rows9 = {r["scheme"]: r for r in grid.rows if r["experiment"] == "extrapolation"}
    if not rows9:
        return NOT_RUN
    sample = next(iter(rows9.values()))
    depth9, size9, test_set = int(sample["depth"]), int(sample["positions_k"]), sample["test_set"]
    mid = _middle_depth(grid)
    subset = _subset(test_set)
    seven = {s: grid.row("schemes", "middle", s, size9 // 16, False, mid) for s in SCHEMES}
    if not all(seven.values()) or len(rows9) < len(SCHEMES):
        return NOT_RUN
    t9 = {s: grid.total(rows9[s], metric) for s in SCHEMES}
    t7 = {s: grid.total(seven[s], metric, subset) for s in SCHEMES}
    rank9 = sorted(SCHEMES, key=t9.get)
    rank7 = sorted(SCHEMES, key=t7.get)
    rival9 = min((s for s in SCHEMES if s != "TwoBig1"), key=t9.get)
    d9 = grid.diff(rows9[rival9], rows9["TwoBig1"], metric)
    rival7 = min((s for s in SCHEMES if s != "TwoBig1"), key=t7.get)
    d7 = grid.diff(seven[rival7], seven["TwoBig1"], metric, subset)
    tau = _kendall(rank7, rank9)
    wins = _sign(grid, d9, metric) < 0
    text = (f"{len(subset)} positions, {depth9} ply at {format_k(size9)}: order "
            f"{' < '.join(rank9)}; TwoBig1 vs {rival9} {_pct(d9)}. At {mid} ply and "
            f"{format_k(size9 // 16)}: order {' < '.join(rank7)}; TwoBig1 vs {rival7} {_pct(d7)}. "
            f"Rank agreement (Kendall tau) {tau:+.2f}; growth {t9['TwoBig1'] / t7['TwoBig1']:.1f}x "
            f"(thesis assumes 16x)")
    holds = tau >= 0.6 and rank9[0] in TWO_LEVEL
    verdict = ("yes" if holds and wins else "partly" if holds or wins else "no")
    return Finding(text, verdict)


def _kendall(a: List[str], b: List[str]) -> float:
    pos_b = {s: i for i, s in enumerate(b)}
    concordant = discordant = 0
    for i in range(len(a)):
        for j in range(i + 1, len(a)):
            if pos_b[a[i]] < pos_b[a[j]]:
                concordant += 1
            else:
                discordant += 1
    return (concordant - discordant) / max(concordant + discordant, 1)


# -- Figure 2.10, 2.7.2, 2.7.3 ---------------------------------------------------------------
def figure_2_10(grid, metric):
    """TwoBig1 1024K with stamping against no table, per depth: the thesis has the table
    costing nodes at 3 ply (a clear increase), saving from 4 ply, and at least halving the
    search from 6 ply."""
    parts, ratios, three_costs = [], {}, None
    for depth in grid.depths("no_table", "middle"):
        none = grid.row("no_table", "middle", "TwoBig1", 8, False, depth, use="none")
        sizes = grid.sizes("schemes", "middle", depth, True)
        if not sizes:
            continue
        table = grid.row("schemes", "middle", "TwoBig1", sizes[-1], True, depth)   # 1M in full
        if not _usable(grid, (none, table), metric):
            continue
        ratios[depth] = grid.total(table, metric) / grid.total(none, metric)
        d = grid.diff(none, table, metric)
        parts.append(f"{depth} ply ({format_k(sizes[-1])}): {ratios[depth]:.2f} {_pct(d)}")
        if depth == 3:
            three_costs = _sign(grid, d, metric) > 0
    if not parts or 3 not in ratios:
        return NOT_RUN if not parts else Finding("; ".join(parts), "not run")
    deeper = [r for d, r in ratios.items() if d >= 4]
    halved = [r <= 0.5 for d, r in ratios.items() if d >= 6]
    saves = all(r < 1 for r in deeper)
    if three_costs and saves and halved and all(halved):
        verdict = "yes"
    elif saves and (any(halved) or not halved):
        verdict = "partly"
    else:
        verdict = "no"
    return Finding("nodes with the table / without: " + "; ".join(parts), verdict)


def _uses(grid, test_set, metric):
    """(depth, size, no-table row, {use: row}) of section 2.7.2's runs on `test_set` at the
    largest size, or None unless all six runs are there with per-position counts."""
    rows = [r for r in grid.rows if r["experiment"] == "move_score" and r["test_set"] == test_set]
    nones = [r for r in rows if r["use"] == "none"]
    if not rows or not nones:
        return None
    depth = max(int(r["depth"]) for r in rows)
    sizes = [int(r["positions_k"]) for r in rows if r["use"] != "none"]
    if not sizes:
        return None
    size = max(sizes)
    none = grid.row("move_score", test_set, "TwoBig1", int(nones[0]["positions_k"]), True,
                    depth, use="none")
    by_use = {u: grid.row("move_score", test_set, "TwoBig1", size, True, depth, use=u)
              for u in ("move", "score", "exact", "bounds", "full")}
    if not _usable(grid, [none, *by_use.values()], metric):
        return None
    return depth, size, none, by_use


def _score_against_move(grid, test_set, metric):
    """(depth, size, move only and score only against no table, score only against move
    only) of a 2.7.2 test set, or None where its rows are missing."""
    got = _uses(grid, test_set, metric)
    if not got:
        return None
    depth, size, none, by_use = got
    return (depth, size, grid.diff(none, by_use["move"], metric),
            grid.diff(none, by_use["score"], metric),
            grid.diff(by_use["move"], by_use["score"], metric))


def move_vs_score(test_set, stronger_than=None):
    """Score only against move only. With `stronger_than` (the middle game's set), the
    endgame's "more pronounced": its score-over-move gain larger than that set's."""
    def measure(grid, metric):
        got = _score_against_move(grid, test_set, metric)
        if got is None:
            return NOT_RUN
        depth, size, dm, ds, d = got
        text = (f"{depth} ply, {format_k(size)}: move only {_pct(dm)}, score only "
                f"{_pct(ds)} against no table; score only against move only {_pct(d)}")
        clear = _sign(grid, d, metric) < 0
        other = _score_against_move(grid, stronger_than, metric) if stronger_than else None
        if other is None:
            return Finding(text, "yes" if clear else "no")
        middle = other[-1]   # the middle game's score only against move only
        more = d.percent < middle.percent
        text += (f"; {'more' if more else 'less'} pronounced than in the middle game "
                 f"({middle.percent:+.1f}%)")
        return Finding(text, "yes" if clear and more else "partly" if clear else "no")
    return measure


def _count(row, name) -> int:
    value = as_number(row.get(name)) if row else math.nan
    return 0 if math.isnan(value) else int(value)


def bounds_vs_exact(test_set):
    def measure(grid, metric):
        got = _uses(grid, test_set, metric)
        if not got:
            return NOT_RUN
        depth, size, none, by_use = got
        de, db = grid.diff(none, by_use["exact"], metric), grid.diff(none, by_use["bounds"], metric)
        full = by_use["full"]
        exact_cuts = _count(full, "cut_exact")
        bound_cuts = _count(full, "cut_lower") + _count(full, "cut_upper")
        d = grid.diff(by_use["exact"], by_use["bounds"], metric)
        verdict = "yes" if _sign(grid, d, metric) < 0 and bound_cuts > 100 * exact_cuts else \
            "partly" if _sign(grid, d, metric) < 0 else "no"
        skipped = ""
        if by_use["exact"].get("unused_kind") and by_use["bounds"].get("unused_kind"):
            skipped = ("; stores of the unused kind skipped: "
                       f"{_count(by_use['exact'], 'unused_kind'):,} "
                       f"bounds (exact only), {_count(by_use['bounds'], 'unused_kind'):,} exact "
                       "scores (bounds only)")
        return Finding(f"{depth} ply, {format_k(size)}: exact only {_pct(de)}, bounds only "
                       f"{_pct(db)}; cut-offs in the full table: {exact_cuts:,} by exact scores, "
                       f"{bound_cuts:,} by bounds{skipped}", verdict)
    return measure


def cutoff_share(grid, metric):
    """Share of table hits whose score cuts off (exact, or a bound that closes the window)."""
    parts, shares = [], []
    for test_set in ("short", "endgame21"):
        got = _uses(grid, test_set, metric)
        if not got:
            continue
        full = got[3]["full"]
        hits = _count(full, "hits")
        cuts = _count(full, "cut_exact") + _count(full, "cut_lower") + _count(full, "cut_upper")
        if hits:
            shares.append(cuts / hits * 100)
            parts.append(f"{test_set}: {shares[-1]:.0f}% of {hits:,} hits")
    if not parts:
        return NOT_RUN
    verdict = "yes" if all(35 <= x <= 65 for x in shares) else "partly" if any(
        20 <= x <= 80 for x in shares) else "no"
    return Finding("; ".join(parts), verdict)


SAVINGS_RULE = ("'yes' when both savings are within 10 points of the thesis', 'partly' when "
                "move only saves nodes (its estimate below 0, clear or not) and move and score saves "
                "more (the thesis' order), "
                "'no' otherwise")


def savings(test_set, move_thesis, full_thesis):
    def measure(grid, metric):
        got = _uses(grid, test_set, metric)
        if not got:
            return NOT_RUN
        depth, size, none, by_use = got
        dm, df = grid.diff(none, by_use["move"], metric), grid.diff(none, by_use["full"], metric)
        close = abs(dm.percent - move_thesis) <= 10 and abs(df.percent - full_thesis) <= 10
        same_order = dm.percent < 0 and df.percent < dm.percent
        return Finding(f"{depth} ply, {format_k(size)}: move only {_pct(dm)}, move and score "
                       f"{_pct(df)}", "yes" if close else "partly" if same_order else "no")
    return measure


def endgame_profits_more(grid, metric):
    middle, end = _uses(grid, "short", metric), _uses(grid, "endgame21", metric)
    if not (middle and end):
        return NOT_RUN
    parts, more = [], 0
    for use in ("move", "full"):
        dm = grid.diff(middle[2], middle[3][use], metric)
        de = grid.diff(end[2], end[3][use], metric)
        parts.append(f"{use}: middle game {dm.percent:+.0f}%, endgame {de.percent:+.0f}%")
        more += de.percent < dm.percent
    return Finding("; ".join(parts), "yes" if more == 2 else "partly" if more else "no")


NPV_CLOSE = 0.5    # a gain within this share of the thesis' own (5%: 2.5-7.5%) reads "yes"
NPV_RULE = (f"'yes' when the 5-ply gain is clear and within {NPV_CLOSE:.0%} of the thesis' "
            "own, 'partly' when it is clear but further from it, 'no' when there is no clear "
            "gain; the share of nodes ordered by an ancestor's line is given beside it, not "
            "judged")


def npv(test_set, thesis_gain):
    def measure(grid, metric):
        rows = [r for r in grid.rows if r["experiment"] == "npv" and r["test_set"] == test_set]
        if not rows:
            return NOT_RUN
        depth = max(int(r["depth"]) for r in rows)
        size = max(int(r["positions_k"]) for r in rows)
        one = grid.row("move_score", test_set, "TwoBig1", size, True, depth, use="full")
        parts, five = [], None
        for plies in sorted({int(r.get("pv_plies") or 1) for r in rows}):
            row = grid.row("npv", test_set, "TwoBig1", size, True, depth, pv_plies=plies)
            d = grid.diff(one, row, metric)
            if d is not None:
                parts.append(f"{plies}-ply {_pct(d)}")
                if plies == 5:
                    five = (d, row)
        if not parts or five is None:
            return NOT_RUN
        d, row = five
        # Lines order full-width nodes only, so the share is of the column's own count.
        share = _count(row, "line_moves") / max(_count(row, metric), 1) * 100
        text = (f"{depth} ply, {format_k(size)}, against the best move alone: " + ", ".join(parts)
                + f"; nodes ordered by an ancestor's line (5-ply): {share:.3f}%")
        if _sign(grid, d, metric) >= 0:
            verdict = "no"          # no clear gain (NPV_RULE)
        elif abs(d.percent - thesis_gain) <= NPV_CLOSE * abs(thesis_gain):
            verdict = "yes"
        else:
            verdict = "partly"
        return Finding(text, verdict)
    return measure


# -- collisions -------------------------------------------------------------------------------
FELDMANN_BAND = (0.9, 1.1)     # the formula "predicts" the collisions within 10%
FELDMANN_ORDER = (0.5, 2.0)    # ... or at least their order of magnitude
FELDMANN_RULE = ("per size, a 95% interval for (distinct keys stored - entries filled) / E "
                 "from the count's Poisson counting noise ((sqrt(count) +- 1.96/2)^2, the "
                 "searches being independent with the table cleared); 'yes' when every "
                 "size's interval lies inside 0.9-1.1, 'no' when some size's interval lies "
                 "wholly outside 0.5-2, 'partly' otherwise")


def _poisson_interval(count: float, z: float = 1.96):
    """A `z` interval of a Poisson count on the square-root scale, where its spread is
    about 1/2 whatever the mean."""
    root = math.sqrt(max(count, 0.0))
    return max(root - z / 2, 0.0) ** 2, (root + z / 2) ** 2


def equation_2_2(grid, metric):
    """Equation 2.2 gives the expected number of the M positions stored that find their
    entry taken: M - (entries ever filled). Measured per search as distinct keys stored -
    filled entries (a one-level table never empties an entry), summed over the searches,
    against E summed likewise; judged by FELDMANN_RULE on intervals, so that no verdict
    hangs on the third decimal of a ratio."""
    rows = [r for r in grid.rows if r["experiment"] == "collisions" and r.get("distinct")]
    if not rows:
        return NOT_RUN
    found = []
    for r in sorted(rows, key=lambda r: int(r["positions_k"])):
        count = as_number(r["distinct"]) - as_number(r["filled"])
        expected = max(as_number(r["expected_collisions"]), 1e-9)
        low, high = _poisson_interval(count)
        found.append((int(r["positions_k"]), count / expected, low / expected, high / expected))
    inside = sum(FELDMANN_BAND[0] <= low and high <= FELDMANN_BAND[1] for _, _, low, high in found)
    wrong = sum(high < FELDMANN_ORDER[0] or low > FELDMANN_ORDER[1] for _, _, low, high in found)
    off = [format_k(k) for k, _, low, high in found if not low <= 1.0 <= high]
    verdict = "yes" if inside == len(found) else "no" if wrong else "partly"
    return Finding(f"(distinct keys stored - entries filled) / E at {len(found)} sizes (depth "
                   f"{rows[0]['depth']}, one search per position): "
                   + ", ".join(f"{format_k(k)} {ratio:.3f} [{low:.3f}, {high:.3f}]"
                               for k, ratio, low, high in found)
                   + f"; inside 0.9-1.1 at {inside} of {len(found)} sizes"
                   + (f"; a ratio of 1 lies outside the 95% interval at {', '.join(off)}" if off
                      else ""), verdict)


def type1_errors(grid, metric):
    """Type-1 errors (two positions, one hash value) against the hash bits: the rows with
    shortened keys (verification on k bits + log2(entries) index bits)."""
    rows = [r for r in grid.rows if r["experiment"] == "type1"]
    if not rows:
        return NOT_RUN
    found = {}
    for r in rows:
        bits = int(r["key_bits"]) + int(math.log2(max(as_number(r["entries"]), 1)))
        found[bits] = (_count(r, "type1"), _count(r, "probes"))
    full = [r for r in grid.rows if r["experiment"] == "collisions"]
    errors64 = sum(_count(r, "type1") for r in full)
    text = ", ".join(f"{bits} bits: {errors:,} in {probes:,} probes"
                     for bits, (errors, probes) in sorted(found.items()))
    text += f"; 64-bit keys (the collision rows): {errors64} type-1 errors"
    fewest = [found[b][0] for b in sorted(found)]
    falls = all(x >= y for x, y in zip(fewest, fewest[1:]))
    return Finding(text, "yes" if falls and fewest[0] > 0 and errors64 == 0 else
                   "partly" if errors64 == 0 else "no")


def worked_example(grid, metric):
    from lab.thesis.experiments import thesis_worked_example
    ex = thesis_worked_example()
    ok = ex["bits_for_one_percent"] == 62 and 0.5e-3 < ex["p_error_64"] < 2e-3
    return Finding(f"P(error, 32 bits) {ex['p_error_32']:.4f}; {ex['bits_for_one_percent']} bits "
                   f"for < 1%; P(error, 64 bits) {ex['p_error_64']:.2e}; expected errors with 64 "
                   f"bits {ex['expected_errors_64']:.2e}", "partly" if ok else "no")


CLAIMS = [
    Claim("2.7.1, Fig. 2.8-2.9", "TwoBig1 is the best scheme", "\"For most data points, "
          "TwoBIG1 is better than TwoDEEP\"; \"TwoBIG1 appears to have a persistent edge\" "
          "(7 ply, 94 positions)", twobig_best,
          "each (size, stamping) point at 7 ply: TwoBig1 against the best other scheme; 'yes' "
          "when TwoBig1 has the fewest nodes at most points, is clearly below the best other "
          "scheme at one point at least and clearly above it at none; 'partly' when it is "
          "clearly below at more points than clearly above, or has the fewest nodes at most "
          "points and is clearly above at none; 'no' otherwise"),
    Claim("2.7.1", "two-level schemes beat one-level ones", "\"The two-level-table schemes "
          "outperform those with one level only\" (7 ply)", two_beat_one,
          "best two-level against best one-level scheme at each 7-ply point (8 ply: row 15); "
          + TWO_LEVEL_RULE),
    Claim("2.7.1", "OLD and NEW are the worst", "worse than DEEP, BIG1 and BIGALL",
          old_new_worst, "the better of OLD/NEW against the worst of the other one-level "
          "schemes; 'yes' when it is clearly above at most points, 'partly' when its total is "
          "above at most points, 'no' otherwise"),
    Claim("2.7.1", "BIG1 and BIGALL hardly differ", "\"hardly any difference\"", big1_bigall,
          "BIGALL against BIG1 at each point; 'yes' when within noise at 75% of the points or "
          "more, 'partly' when within noise at some, 'no' at none"),
    Claim("2.7.1, Fig. 2.8-2.9", "BIG beats DEEP in the middle game", "BIG1, BIGALL < DEEP; "
          "TwoBig1 < TwoDEEP", big_middle,
          "BIG1 and BIGALL against DEEP, TwoBig1 against TwoDEEP, at each 7-ply point; 'yes' "
          "when BIG is clearly below DEEP in most of these comparisons and its clear wins are "
          "more than twice its clear losses, 'partly' when its clear wins outnumber its clear "
          "losses, 'no' otherwise"),
    Claim("2.7.1, Fig. 2.11", "... but not in the endgame", "\"the difference between the "
          "two concepts has disappeared in the endgame\" (10 ply, stamping)", big_endgame,
          "as above on the endgame set at its deepest depth; " + BIG_ENDGAME_RULE),
    Claim("2.7.1, Fig. 2.8", "spread at 8K", "21% between TwoBig1 (best) and OLD (worst)",
          spread_small, "worst against best scheme at 8K, no time stamping; 'yes' when the "
          "spread is 10% or more with TwoBig1 best and OLD worst, 'partly' when it is 10% or "
          "more between other schemes, 'no' otherwise"),
    Claim("2.7.1, Fig. 2.8", "spread from 512K up", "about 3%", spread_big,
          "worst against best scheme; 'yes' when 5% or less at every size, 'no' otherwise"),
    Claim("2.7.1", "TwoDEEP against DEEP at 8K-64K", "5-10% fewer nodes (Ebeling)",
          twodeep_vs_deep, "TwoDEEP against DEEP, no time stamping; 'yes' when TwoDEEP "
          "saves 4.5-10.5% at every size, 'partly' when it has fewer nodes at every size, "
          "'no' otherwise"),
    Claim("2.7.1, Fig. 2.9", "time stamping saves", "some 2%", stamping_saves,
          "each scheme and size: stamping on against off, same positions; 'yes' when the "
          "mean saving is 0.5-5% and stamping clearly saves at most scheme-size points, "
          "'partly' when the mean saving is above 0, 'no' otherwise"),
    Claim("2.7.1, Fig. 2.9", "stamping does not change the order of merit", "\"invariant "
          "for time stamping\"; TwoBig1 keeps its edge", order_invariant,
          "the schemes' order with and without stamping, per size; 'yes' when Kendall's tau "
          "is 0.6 or more at every size and TwoBig1 is first in both orders at most sizes, "
          "'partly' when the mean tau is 0.6 or more, 'no' otherwise"),
    Claim("2.7.1", "doubling the table gains < 1% beyond (middle game, Fig. 2.8)",
          "3-7 ply: <=8K, 16K, 32K, 32K, 256K", doubling_middle,
          "TwoBig1 without stamping: the first size whose doubling saves under 1%, at each "
          "depth; " + DOUBLING_RULE),
    Claim("2.7.1, Fig. 2.11", "... in the endgame", "3-10 ply: <=8K, <=8K, <=8K, 32K, 64K, "
          "512K, >=1M, >=1M", doubling_endgame, "TwoBig1 with stamping, at each endgame depth "
          "measured; " + DOUBLING_RULE),
    Claim("2.7.1, Fig. 2.11", "two-level beats one-level in the endgame",
          "\"the conclusions given for the middle-game experiment also hold for the "
          "endgame\"", endgame_two_level, "as for the middle game (row 2), stamping on, at "
          "the deepest endgame depth; " + TWO_LEVEL_RULE),
    Claim("2.7.1, App. C", "8 ply (44 positions) confirms 7 ply; 7-ply size s scales to "
          "8-ply size 4s", "\"inspection of the results verifies this\"", eight_ply,
          "two-level against one-level at 8 ply; 8-ply totals at 4s against the 7-ply totals "
          "at s of the same 44 positions (from the per-position counts); the pairs agree when "
          "the same scheme is best in most pairs and Kendall's tau is 0.4 or more in all; "
          "'yes' when row 2's rule gives 'yes' at 8 ply and the pairs do not disagree, "
          "'partly' when it gives 'partly' or better, or the pairs agree, 'no' otherwise"),
    Claim("2.7.1", "the 7-ply 16K point stands for 9 ply at 256K, where TwoBig1 is a clear "
          "winner", "\"This shows TwoBIG1 to "
          "be a clear winner\" (extrapolated, never measured)", extrapolation,
          "9 ply at 256K measured on a subset without stamping; the 7-ply 16K counts of the "
          "same positions from the 94-position rows; 'yes' when the orders agree (Kendall's "
          "tau 0.6 or more) with a two-level scheme first at 9 ply and TwoBig1 is clearly "
          "below the best other scheme at 9 ply, 'partly' when one of the two holds, 'no' "
          "otherwise"),
    Claim("2.7.1, Fig. 2.10", "benefit of the table against depth", "counterproductive at 3 "
          "ply; at least 2x fewer nodes from 6 ply (TwoBig1, 1024K, stamping)", figure_2_10,
          "TwoBig1 1024K with stamping against the search without a table; 'yes' when the "
          "table clearly costs nodes at 3 ply, has fewer nodes at every depth from 4 ply and "
          "at most half at every depth from 6 ply, 'partly' when it has fewer nodes at every "
          "depth from 4 ply and at most half at some depth from 6 ply (or none measured), "
          "'no' otherwise"),
    Claim("2.7.2, Fig. 2.13", "the score matters more than the move (middle game)",
          "score only saves more than move only (8 ply, 18 positions, 256K)",
          move_vs_score("short"), "each use against no table; score only against move only; "
          "'yes' when score only is clearly below move only, 'no' otherwise"),
    Claim("2.7.2, Fig. 2.14", "... and in the endgame", "\"analogous ... but more "
          "pronounced\" (10 ply, 21 positions)", move_vs_score("endgame21", stronger_than="short"),
          "as above; 'yes' when score only is clearly below move only and gains more over "
          "it than in the middle game (row 18; \"more pronounced\"), 'partly' when it is "
          "clearly below only, 'no' otherwise"),
    Claim("2.7.2", "a retrieved score cuts off in about half the hits", "\"about 50% of the "
          "cases\"", cutoff_share, "cut-offs (exact, lower, upper) / hits, full table, "
          "largest size; 'yes' when 35-65% in both sets, 'partly' when 20-80% in one at "
          "least, 'no' otherwise", metric_free=True),
    Claim("2.7.2", "bounds matter much more than exact values (middle game)", "exact values "
          "met \"tens of times\", bounds \"tens of thousands\"", bounds_vs_exact("short"),
          "exact-only and bounds-only tables, each storing only what it uses; 'yes' when "
          "bounds-only saves clearly more and bounds cut 100x more often, 'partly' when only "
          "the first holds, 'no' otherwise"),
    Claim("2.7.2", "... and in the endgame", "as in the middle game", bounds_vs_exact("endgame21"),
          "as above (the same rule: 'yes' when bounds-only saves clearly more and bounds cut "
          "100x more often)"),
    Claim("2.7.2, Fig. 2.13", "savings in the middle game (256K)", "move only -36%, move and "
          "score -68%", savings("short", -36, -68), "against no table; " + SAVINGS_RULE),
    Claim("2.7.2, Fig. 2.14", "savings in the endgame (256K)", "move only -65%, move and "
          "score -89% (10 ply, 21 positions)", savings("endgame21", -65, -89),
          "against no table; " + SAVINGS_RULE),
    Claim("2.7.2", "the table profits more in the endgame", "\"more profitable in endgames "
          "than in middle games\"", endgame_profits_more,
          "the savings of rows 23 and 24 side by side; 'yes' when the endgame saves more with "
          "move only and with move and score, 'partly' when with one of them, 'no' otherwise"),
    Claim("2.7.3, Fig. 2.15", "a 5-ply PV per entry (middle game)", "wins roughly 5% at 256K "
          "(preliminary); an ancestor's PV helps at < 0.1% of the nodes", npv("short", -5),
          "n-ply lines against the best move alone, same table size; " + NPV_RULE + ". The "
          "thesis' comparison with doubling to 512K needs a 512K row, which 2.7.2's sizes "
          "(to 256K) do not have"),
    Claim("2.7.3, Fig. 2.16", "a 5-ply PV per entry (endgame)", "some 12% at 256K",
          npv("endgame21", -12), "as above, endgame positions (the same rule: 'yes' when the "
          f"5-ply gain is clear and within {NPV_CLOSE:.0%} of the thesis' own)"),
    Claim("2.4.2, eq. 2.2", "Feldmann's formula predicts the collisions", "E = M - N(1 - "
          "e^(-M/N))", equation_2_2, "one-level DEEP tables cleared per position; M = distinct "
          "keys stored, counted by the table; " + FELDMANN_RULE, metric_free=True),
    Claim("2.4.2, eq. 2.1", "too few hash bits give type-1 errors", "\"a hash value of 32 bits "
          "clearly is too small\"; 64 bits suffice", type1_errors,
          "DEEP tables verifying only k key bits (k = 16, 24, 32) at 8K and 1M, so that a "
          "hash value has k + log2(entries) bits (the thesis' 32 bits lie between the 29 "
          "and 36 measured); 'yes' when "
          "the errors never rise as the hash bits grow, the fewest bits show errors and the "
          "64-bit keys none, 'partly' when the 64-bit keys show none, 'no' otherwise",
          metric_free=True),
    Claim("2.4.2", "the worked example (216M positions stored)", "62 bits for P < 1%; "
          "P = 1e-3 and 0.05 expected errors with 64 bits", worked_example,
          "recomputed in exact decimal arithmetic; the thesis' 0.05 expected errors does not "
          "follow from its own formula, so never 'yes': 'partly' when 62 bits and P = 0.5e-3 "
          "to 2e-3 are recomputed, 'no' otherwise", metric_free=True),
]


def _verdict_cell(main: Finding, total: Optional[Finding]) -> str:
    if total is None or total.verdict == main.verdict:
        return f"**{main.verdict}**"
    return f"**{main.verdict}** (interior + horizon leaves) / **{total.verdict}** (all nodes)"


def domineering_lines(page_link: str) -> List[str]:
    """The domineering half of the chapter (Figure 2.12's claims) from lab.thesis.domineering's CSV,
    by the rules written out in its page; empty where no domineering rows exist."""
    from lab.thesis import domineering

    if not domineering.GRID_CSV.exists():
        return []
    grid = domineering._rows(domineering.GRID_CSV)
    boards = sorted({r["board"] for r in grid if r["experiment"] == "schemes"},
                    key=lambda b: [int(x) for x in b.split("x")])
    split = "".join(f" {board} ({search}, not the thesis' search, split at the root): {value}, "
                    f"the thesis' {thesis}." for board, search, value, thesis
                    in domineering.split_values(domineering._rows(domineering.SPLIT_CSV)))
    lines = ["", "## Domineering (2.5.2, 2.7.1: Figure 2.12, Table 2.1)", "",
             f"The chapter's second game, solved on the engine's own table policies: [the page]"
             f"({page_link}) has the solver, Table 2.1 (33 of the 34 boards solved with the "
             "thesis' search agree with the thesis; 3x3 is a first-player win by exhaustive "
             f"minimax, where the thesis prints H) and every cell of Figure 2.12 run.{split} "
             "The two claims, by the rules stated there:", ""]
    for board in boards:
        lines += [f"**{board}.** " + domineering.claims_section(grid, board), ""]
    return lines


def build(rows: Sequence[dict], csv_link: str = "experiments/" + RESULTS_CSV,
          report_link: str = "experiments/README.md",
          domineering_link: Optional[str] = None, games: Callable = position_games) -> str:
    """The markdown of docs/thesis_reproduction.md from the experiment CSV's rows (links
    relative to where the document is written); `games` as for Grid."""
    grid = Grid(rows, games)
    table = []
    for number, claim in enumerate(CLAIMS, 1):
        main = claim.measure(grid, "thesis_nodes")
        total = None if claim.metric_free else claim.measure(grid, "nodes")
        other = "(the same)" if claim.metric_free else total.text
        cells = [str(number), claim.section, claim.claim, claim.thesis, main.text,
                 _verdict_cell(main, total), other, claim.why]
        table.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    noise_run = any(r["experiment"] == "noise" for r in grid.rows)
    floors = (", ".join(f"{METRIC_LABEL[m]} {grid.floor(m):.2f}%" for m in METRICS)
              if noise_run else "not measured: no seeded key sets in these rows, so no floor "
              "is applied")
    # A cell's rows (one per depth it searched) all carry the cell's seconds; one
    # configuration run again at another depth (the endgame at 7, then 8 ply) is another
    # cell with its own seconds, so the seconds are part of the key.
    cell_seconds = set()
    for r in grid.rows:
        seconds = as_number(r.get("seconds"))
        if not math.isnan(seconds):
            cell_seconds.add((r["experiment"], r["test_set"], r["scheme"], r["positions_k"],
                              r["stamping"], r["use"], r["key_bits"], r.get("key_seed"),
                              r.get("pv_plies"), r.get("choices"), seconds))
    cpu = sum(cell[-1] for cell in cell_seconds)
    lines = [
        "# Breuker's chapter 2, run again: every claim in one table", "",
        "Generated by `python -m lab.thesis.tt_experiments` (`--report-only` rebuilds it) from "
        f"[{RESULTS_CSV}]({csv_link}); do not edit by hand. The tables, plots and per-cell "
        f"figures behind each row are in [the experiments' report]({report_link}). "
        f"{len(grid.rows)} rows, measured at commit(s) {', '.join(grid.commits())}; "
        f"{cpu / 3600:.1f} hours of single-threaded cells (their wall-clock times added up). "
        + (SAME_TREE if SAME_TREE_COMMIT in grid.commits() else ""), "",
        "**How to read it.** The thesis counts \"all nodes investigated, i.e. the sum of the "
        "interior nodes and the leaves\" and does not say whether its quiescence nodes are "
        "among them, so every claim is checked on two counts: interior nodes + horizon "
        "leaves (the full-width tree) and TwoBig's total with quiescence nodes. Where the "
        "two verdicts differ, both are given. Intervals are 95% paired bootstrap intervals, "
        "in percent (negative: fewer nodes). " + _bootstrap_method(grid) +
        " A difference is *clear* only "
        "when its interval excludes 0 and it exceeds the noise floor (" + floors + "; the "
        "floor is the largest spread of one cell's total over its key sets, the Polyglot "
        "keys and seeded random ones, in the noise cells of the experiments' report, "
        "section 5, and it is applied to every comparison). Sizes are in positions (K = "
        "1024, M = 1024K). A point = one (table size, "
        "time stamping) pair. The last column states the rule each verdict follows; a claim "
        "about a change (an edge that disappears) reads *not testable* where the data lack "
        "what would change.", "",
        "| # | section | claim | the thesis | TwoBig (interior + horizon leaves) | "
        "reproduced? | TwoBig (all nodes) | how compared |",
        "|---|---|---|---|---|---|---|---|", *table]
    lines += ["", *_differences(grid)]
    games = position_games("middle")
    if games:
        lines += [""] + robustness.section(grid.rows, games)
    if domineering_link:
        lines += domineering_lines(domineering_link)
    return "\n".join(lines) + "\n"


def _bootstrap_method(grid: Grid) -> str:
    """How the intervals were resampled, with the blocks of each stamped test set (called
    after the table, so that the sets whose stamped rows could not be placed are known)."""
    sets = []
    for test_set in sorted({r["test_set"] for r in grid.rows if stamped(r)} - grid.unplaced):
        names = grid.games(test_set)
        if names:
            games = len(set(game_blocks(names, min_blocks=1).tolist()))   # runs of one game
            blocks = len(set(game_blocks(names).tolist()))
            sets.append(f"{test_set} {games} game{'s' if games > 1 else ''}"
                        + (f" in {blocks} blocks" if blocks != games else ""))
    text = ("Rows without time stamping (the table cleared before each position) resample "
            "the positions. With time stamping the table is carried from one position of a "
            "game to the next, so the positions of a game are not independent: those rows "
            "resample blocks of consecutive positions of one game, with replacement: whole "
            f"games where the test set has at least {MIN_BLOCKS}, and in a set of fewer games "
            "each game cut into runs of about equal length, at most "
            f"ceil(positions / {MIN_BLOCKS}) long, so that at least {MIN_BLOCKS} blocks are "
            "resampled" + (f" ({'; '.join(sets)})" if sets else "") + ". Few blocks make "
            "rough intervals.")
    if grid.unplaced:
        text += (" The stamped rows of " + ", ".join(sorted(grid.unplaced)) + " could not "
                 "be placed in games (no game list of their length): resampled by position.")
    return text


# Why rows of different commits compare: a cell measured again later searched the same tree.
SAME_TREE_COMMIT = "a36105c"
SAME_TREE = ("Rows of different commits compare where the paper profile's tree is the same; "
             "a check: 2.7.2's no-table cell (18 positions, 8 ply), measured at "
             f"{SAME_TREE_COMMIT}, searched the same "
             "333,861,678 nodes (117,439,736 on the thesis' count) when run again at dc32fdb "
             "on 2026-12-07 (`python -m lab.thesis.tt_experiments --only move_score --use "
             "none --depth 8 --out <an empty folder>`).")


def _differences(grid: Grid) -> List[str]:
    end = grid.depths("schemes", "endgame")
    end21 = sorted({int(r["depth"]) for r in grid.rows if r["test_set"] == "endgame21"})
    depths = (f"Endgame rows: the scheme comparison at {', '.join(map(str, end)) or 'no'} ply, "
              f"2.7.2/2.7.3's 21 positions at {', '.join(map(str, end21)) or 'no'} ply, where "
              "the thesis searched 10. The grid's plan has both at 10 ply; `python -m "
              "lab.thesis.tt_experiments --only move_score,npv` runs the 10-ply cells not yet "
              "in the CSV.")
    cells = grid.cell_counts("schemes", "endgame")
    for depth in sorted(d for d in cells if end and d > end[-1]):
        depths += (f" {depth} ply: {cells[depth]} of its cells are in the CSV, against "
                   f"{cells[end[-1]]} at {end[-1]} ply; the rows keep to {end[-1]} ply "
                   "until it is complete.")
    return [
        "## How TwoBig's runs differ from the thesis'", "",
        "- **Search.** The `paper` profile: iterative deepening, aspiration window of one pawn, "
        "PVS, quiescence on captures and promotions (all moves in check), no extensions or "
        "pruning beyond alpha-beta, quiescence nodes not stored. Ordering: the previous "
        "iteration's principal variation (ALIBABA kept a refutation line per root move: the "
        "open choice root_lines, varied in the robustness study), the "
        "table move, MVV-LVA, promotions, history. Aspiration: one pawn either side of the last "
        "value, as ALIBABA; on a failure TwoBig opens the failing side to infinity and keeps the "
        "other bound, where ALIBABA searched (-inf, value) after a fail low and (value, +inf) "
        "after a fail high. Table entries are used at any ply where the stored depth suffices, "
        "and quiescence nodes are not stored (the thesis' rules as far as it states them).",
        "- **Evaluation.** Material and PeSTO piece-square tables (tapered); ALIBABA's own tables "
        "are not published. Different trees, so totals differ; the comparisons between schemes "
        "are what is reproduced.",
        "- **Test sets.** The middle-game set is the thesis' 94 positions. The thesis' endgame "
        "games are not available: the endgame set is 104 positions from 10 of Kasparov's 1994 "
        "games with the thesis' material rule, and `endgame21` is 21 consecutive positions of "
        "one of them.",
        "- **Depths.** " + depths,
    ]


def write(rows: Sequence[dict], path: Path, report_dir: Path) -> None:
    """Write the document to `path`, linking the CSV and the report in `report_dir`."""
    path = Path(path)
    where = path.resolve().parent
    link = lambda name: os.path.relpath(Path(report_dir).resolve() / name, where)
    page = Path(__file__).resolve().parents[2] / "docs" / "domineering.md"
    path.write_text(build(rows, link(RESULTS_CSV), link("README.md"),
                          os.path.relpath(page, where)))
