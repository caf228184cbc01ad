"""The robustness study: are the thesis' scheme comparisons properties of the schemes, or of
choices the thesis leaves open?

The rows of experiment "robustness" (lab.thesis.tt_experiments) run DEEP, BIG1, TwoDEEP
and TwoBig1 on the middle-game set under TwoBig's defaults and under each open choice
changed alone (engine/tt_research.py OPEN_CHOICES: ties to the stored entry, subtree sizes
without quiescence nodes, Figure 2.7's return at quiescence nodes, a refutation line per
root move as ALIBABA kept them), each with several
seeded Zobrist key sets. Each contrast (TwoBig1 against TwoDEEP, BIG1 against DEEP, the two
two-level schemes against the two one-level ones) is the relative difference of the node
totals, with a 95% hierarchical bootstrap interval: key sets, games and positions are
resampled (the positions of a game as one block when time stamping carries the table
through the game). A contrast's verdict at a point is "fewer" or "more" when its interval
excludes 0 and the difference is at least MATERIAL percent, else "within noise"; it is a
property of the schemes at that point when every choice gives the default's verdict.
"""
import collections
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from lab.statistics import (BOOTSTRAP_SEED, CONFIDENCE, FIRST_DEPTH, THESIS_DEPTHS,
                            THESIS_SIZES)

CHOICE_LABELS = {
    "": "TwoBig's defaults",
    "ties_new=0": "ties keep the stored entry",
    "size_qnodes=0": "subtree sizes without quiescence nodes",
    "leaf_cut=1": "Figure 2.7's return at quiescence nodes",
    "root_lines=1": "a refutation line per root move",
}
CONTRASTS = (
    ("TwoBig1 vs TwoDEEP", ("TwoBig1",), ("TwoDEEP",)),
    ("BIG1 vs DEEP", ("BIG1",), ("DEEP",)),
    ("two-level vs one-level", ("TwoBig1", "TwoDEEP"), ("BIG1", "DEEP")),
)
CONTRAST_SCHEMES = sorted({name for _, first, second in CONTRASTS for name in first + second})
METRIC_COLUMNS = {"thesis_nodes": "per_position_thesis", "nodes": "per_position"}
RESAMPLES = 4000
MATERIAL = 0.5   # percent: a smaller difference is "within noise" even with a tight interval
THESIS_DEPTH = THESIS_DEPTHS["middle"]   # where the thesis made its headline comparisons


def _counts(row, metric) -> np.ndarray:
    return np.array([int(x) for x in row[METRIC_COLUMNS[metric]].split()], dtype=np.float64)


def hierarchical_interval(a: np.ndarray, b: np.ndarray, games: Sequence[str], blocks: bool,
                          resamples: int = RESAMPLES,
                          seed: int = BOOTSTRAP_SEED) -> Tuple[float, float, float]:
    """(estimate, low, high) in percent of sum(a) / sum(b) - 1 for node counts a and b of
    shape [key sets, positions], resampling key sets, then games, then (unless `blocks`:
    whole games kept, as for stamped runs) the positions within each game drawn."""
    rng = np.random.default_rng(seed)
    keys, positions = a.shape
    game_of = np.array([list(dict.fromkeys(games)).index(g) for g in games])
    members = [np.flatnonzero(game_of == g) for g in range(game_of.max() + 1)]
    key_weights = np.zeros((resamples, keys))
    position_weights = np.zeros((resamples, positions))
    for r in range(resamples):
        np.add.at(key_weights[r], rng.integers(0, keys, keys), 1.0)
        for g in rng.integers(0, len(members), len(members)):
            block = members[g]
            picked = block if blocks else block[rng.integers(0, len(block), len(block))]
            np.add.at(position_weights[r], picked, 1.0)
    total_a = np.einsum("rk,kp,rp->r", key_weights, a, position_weights)
    total_b = np.einsum("rk,kp,rp->r", key_weights, b, position_weights)
    ratios = 100.0 * (total_a / total_b - 1.0)
    tail = (1.0 - CONFIDENCE) / 2.0
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return 100.0 * (a.sum() / b.sum() - 1.0), float(low), float(high)


def _verdict(estimate: float, low: float, high: float) -> str:
    """"fewer" or "more" when the interval excludes 0 and the difference is at least
    MATERIAL percent; else "within noise"."""
    if abs(estimate) < MATERIAL:
        return "within noise"
    if high < 0:
        return "fewer"
    if low > 0:
        return "more"
    return "within noise"


def _matrix(cells: Dict[tuple, dict], schemes, point, choice, seeds, metric) -> Optional[np.ndarray]:
    """Summed counts of `schemes` at one point and choice: [key sets, positions]."""
    out = None
    for scheme in schemes:
        rows = [cells.get((scheme,) + point + (choice, seed)) for seed in seeds]
        if any(row is None for row in rows):
            return None
        counts = np.stack([_counts(row, metric) for row in rows])
        out = counts if out is None else out + counts
    return out


def _all_cells(rows: Sequence[dict]) -> Dict[tuple, dict]:
    """The robustness rows by (scheme, size, stamping, depth, choice, key set)."""
    cells = {}
    for r in rows:
        if r["experiment"] != "robustness":
            continue
        point = (int(r["positions_k"]), r["stamping"] == "True", int(r["depth"]))
        cells[(r["scheme"],) + point + (r.get("choices") or "", r["key_seed"])] = r
    return cells


def partial_points(cells: Dict[tuple, dict]) -> Dict[tuple, int]:
    """{(size, stamping, depth): cells present} for the points that lack a cell: a scheme of
    the contrasts under a choice varied anywhere in the rows, at a key set run at the point.
    A grid stopped part-way leaves such points; they are reported once complete, so that
    every figure rests on the same key sets for every scheme and choice."""
    choices = {key[4] for key in cells}
    present = collections.defaultdict(set)
    for scheme, *point, choice, seed in cells:
        if scheme in CONTRAST_SCHEMES:
            present[tuple(point)].add((scheme, choice, seed))
    partial = {}
    for point, have in present.items():
        seeds = {seed for _, _, seed in have}
        if len(have) < len(CONTRAST_SCHEMES) * len(choices) * len(seeds):
            partial[point] = len(have)
    return partial


def _cells(rows: Sequence[dict]) -> Dict[tuple, dict]:
    """The robustness rows of the complete points (partial_points leaves out the others)."""
    cells = _all_cells(rows)
    partial = partial_points(cells)
    return {key: row for key, row in cells.items() if key[1:4] not in partial}


def _seeds(cells, point, choice) -> List[str]:
    return sorted({key[5] for key in cells if key[1:4] == point and key[4] == choice},
                  key=lambda s: int(s) if s else 0)


def choice_effects(rows: Sequence[dict], games: Sequence[str], metric: str = "thesis_nodes"):
    """{(size, stamping, depth, choice): (estimate, low, high)}: the nodes the four schemes
    searched together under a choice against under the defaults, on the key sets both ran."""
    cells = _cells(rows)
    out = {}
    for point in sorted({key[1:4] for key in cells}):
        for choice in CHOICE_LABELS:
            if not choice:
                continue
            seeds = sorted(set(_seeds(cells, point, choice)) & set(_seeds(cells, point, "")),
                           key=lambda s: int(s) if s else 0)
            a = _matrix(cells, CONTRAST_SCHEMES, point, choice, seeds, metric) if seeds else None
            b = _matrix(cells, CONTRAST_SCHEMES, point, "", seeds, metric) if seeds else None
            if a is not None and b is not None:
                out[point + (choice,)] = hierarchical_interval(a, b, games, blocks=point[1])
    return out


def analyse(rows: Sequence[dict], games: Sequence[str], metric: str = "thesis_nodes"):
    """{(contrast, size, stamping, depth, choice): (estimate, low, high, key sets)} over the
    robustness rows (each point needs every scheme of the contrast at every key set)."""
    cells = _cells(rows)
    points = sorted({key[1:4] for key in cells})
    choices = [c for c in CHOICE_LABELS if any(key[4] == c for key in cells)]
    out = {}
    for point in points:
        for choice in choices:
            seeds = _seeds(cells, point, choice)
            if not seeds:
                continue
            for name, first, second in CONTRASTS:
                a = _matrix(cells, first, point, choice, seeds, metric)
                b = _matrix(cells, second, point, choice, seeds, metric)
                if a is None or b is None:
                    continue
                estimate, low, high = hierarchical_interval(a, b, games, blocks=point[1])
                out[(name,) + point + (choice,)] = (estimate, low, high, len(seeds))
    return out


def section(rows: Sequence[dict], games: Sequence[str]) -> List[str]:
    """The document's robustness section (empty when no robustness rows exist)."""
    results = analyse(rows, games)
    if not results:
        return []
    points = sorted({key[1:4] for key in results})
    partial = partial_points(_all_cells(rows))
    choices = [c for c in CHOICE_LABELS if any(key[4] == c for key in results)]
    key_sets = sorted({value[3] for value in results.values()})
    lines = [
        "## Robustness: the schemes, or one engine's choices?", "",
        "The thesis leaves some choices open. Each is changed alone here, and the headline "
        "contrasts are measured again on the 94 middle-game positions with "
        f"{'/'.join(map(str, key_sets))} seeded Zobrist key sets per cell. The choices: "
        + "; ".join(_choice_sentences(choices)) + ". "
        + "Figures: the "
        "thesis' count (interior nodes + horizon leaves), relative difference of the totals in "
        "percent with a 95% hierarchical bootstrap interval over key sets, games and "
        "positions (whole games with time stamping); negative: the first named searched "
        "fewer nodes. A verdict is \"fewer\" or \"more\" when the interval excludes 0 and "
        f"the difference is at least {MATERIAL:g}%, else \"within noise\" (judged on the "
        "unrounded figures, so +0.5% can read \"within noise\"); a contrast is a "
        "property of the schemes at a point when every choice gives the defaults' verdict. "
        "Generated by `lab/thesis/robustness.py`.", "", _scope(points, partial), ""]
    header = "| contrast | size | stamping | depth | " + " | ".join(
        CHOICE_LABELS[c] for c in choices) + " | verdict |"
    lines += [header, "|---" * (5 + len(choices)) + "|"]
    holds, depends = [], []
    for name, _, _ in CONTRASTS:
        for point in points:
            size, stamping, depth = point
            values = [results.get((name,) + point + (c,)) for c in choices]
            if any(v is None for v in values):
                continue
            verdicts = [_verdict(*v[:3]) for v in values]
            cells = [f"{v[0]:+.1f}% [{v[1]:+.1f}, {v[2]:+.1f}] {d}" for v, d in zip(values, verdicts)]
            changed = [CHOICE_LABELS[c] for c, d in zip(choices, verdicts) if d != verdicts[0]]
            verdict = ("the same under every choice" if not changed
                       else "changes with: " + ", ".join(changed))
            (depends if changed else holds).append((name, point, verdicts[0], changed))
            lines.append(f"| {name} | {size}K | {'on' if stamping else 'off'} | {depth} | "
                         + " | ".join(cells) + f" | {verdict} |")
    lines += ["", "**Answer.** " + _answer(holds, depends), ""]
    lines += _effects_table(choice_effects(rows, games), choices[1:])
    return lines


def _choice_sentences(choices) -> List[str]:
    """What each varied choice does, against TwoBig's default."""
    out = ["ties between a candidate and a stored entry of equal importance go to the stored "
           "one (TwoBig gives them to the candidate, the thesis' \">=\")",
           "subtree sizes count only interior nodes and horizon leaves (TwoBig counts "
           "quiescence nodes too)",
           "a stored score at a quiescence node returns as Figure 2.7 does at every node "
           "(TwoBig replaces or bounds the stand-pat with it)"]
    if "root_lines=1" in choices:
        out.append("a refutation line per root move, as ALIBABA kept them: each root move's "
                   "search follows the line its last search returned, and a failing-low node "
                   "returns its best move's line too, so a refuted move's line reaches past "
                   "the refutation move (TwoBig follows the previous iteration's principal "
                   "variation only)")
    else:
        out.append("the refutation line per root move that ALIBABA kept is not varied "
                   "(TwoBig keeps the principal variation only)")
    return out


def _effects_table(effects, choices) -> List[str]:
    """Each choice's own effect on the tree, beside the contrasts it leaves alone."""
    if not effects:
        return []
    lines = ["Each choice's own effect on the tree: the nodes DEEP, BIG1, TwoDEEP and TwoBig1 "
             "searched together under it against under TwoBig's defaults (the same key sets, "
             "the same interval; negative: fewer nodes).", "",
             "| size | stamping | depth | " + " | ".join(CHOICE_LABELS[c] for c in choices)
             + " |", "|---" * (3 + len(choices)) + "|"]
    for point in sorted({key[:3] for key in effects}):
        size, stamping, depth = point
        values = [effects.get(point + (c,)) for c in choices]
        lines.append(f"| {size}K | {'on' if stamping else 'off'} | {depth} | " + " | ".join(
            "-" if v is None else f"{v[0]:+.1f}% [{v[1]:+.1f}, {v[2]:+.1f}]" for v in values)
            + " |")
    return lines + [""]


def _depths(depths) -> str:
    """3, 4, 5 -> "3-5"; 6 -> "6"; 3, 5 -> "3, 5"."""
    if len(depths) > 1 and depths == list(range(depths[0], depths[-1] + 1)):
        return f"{depths[0]}-{depths[-1]}"
    return ", ".join(map(str, depths))


def _sizes(sizes) -> str:
    """8, 16 -> "8K, 16K"."""
    return ", ".join(f"{s:g}K" for s in sizes)


def _scope(points, partial=None) -> str:
    """What the table covers, size by size (sizes measured at the same depths share a
    clause), what of the grid's plan (every size without time stamping at 3 ply to the
    thesis' depth, and with it at that depth) it does not, and the points whose cells are
    partly in the CSV (`partial`: {point: cells present})."""
    sizes = sorted({p[0] for p in points})
    depths_of = {}   # size -> (depths without time stamping, depths with it)
    for size in sizes:
        depths_of[size] = tuple(tuple(sorted({p[2] for p in points if p[:2] == (size, stamped)}))
                                for stamped in (False, True))
    clauses = []
    for signature in dict.fromkeys(depths_of.values()):
        group = [size for size in sizes if depths_of[size] == signature]
        off, on = signature
        where = [f"{label} at {_depths(list(depths))} ply"
                 for label, depths in (("without time stamping", off), ("with it", on))
                 if depths]
        clauses.append(f"tables of {_sizes(group)} positions, "
                       f"{' and '.join(where)}")
    text = f"Measured: {'; '.join(clauses)}."
    deepest = max(p[2] for p in points)
    if deepest < THESIS_DEPTH:
        missing = [f"the thesis' own depth, {THESIS_DEPTH} ply"]
    else:
        missing = []
        for label, index in (("without time stamping", 0), ("with time stamping", 1)):
            short = [size for size in sizes if THESIS_DEPTH not in depths_of[size][index]]
            if short:
                at = "" if short == sizes else f" at {_sizes(short)}"
                missing.append(f"{THESIS_DEPTH} ply {label}{at}")
    # Without time stamping the plan also has every shallower depth, from FIRST_DEPTH up
    shallow = {}   # shallower depths a size lacks without time stamping -> those sizes
    for size in sizes:
        lacking = tuple(d for d in range(FIRST_DEPTH, THESIS_DEPTH)
                        if d not in depths_of[size][0])
        if lacking:
            shallow.setdefault(lacking, []).append(size)
    for lacking, group in shallow.items():
        at = "" if group == sizes else f" at {_sizes(group)}"
        missing.append(f"{_depths(list(lacking))} ply without time stamping{at}")
    other_sizes = [s for s in THESIS_SIZES if s not in sizes]
    if other_sizes:
        missing.append(f"tables of {_sizes(other_sizes)} positions")
    if missing:
        text += (f" The grid's plan (`python -m lab.thesis.tt_experiments --only robustness`) "
                 f"has every table size without time stamping at {FIRST_DEPTH}-{THESIS_DEPTH} "
                 f"ply and with it at {THESIS_DEPTH} ply; not in the table: "
                 f"{'; '.join(missing)}, so the answer below is about the points in the table "
                 f"only.")
    if partial:
        text += (" Partly measured, and left out until every scheme, choice and key set is in: "
                 + "; ".join(f"{size:g}K {'with' if stamped else 'without'} time stamping at "
                             f"{depth} ply ({count} cells)"
                             for (size, stamped, depth), count in sorted(partial.items()))
                 + ".")
    return text


def _answer(holds, depends) -> str:
    parts = []
    for name, _, _ in CONTRASTS:
        mine_holds = [h for h in holds if h[0] == name]
        mine_depends = [d for d in depends if d[0] == name]
        if not mine_holds and not mine_depends:
            continue
        if not mine_depends:
            counts = collections.Counter(h[2] for h in mine_holds)
            parts.append(f"{name}: a property of the schemes at every point measured ("
                         + ", ".join(f"{v} under every choice at {counts[v]}"
                                     for v in sorted(counts)) + ")")
        else:
            choices = sorted({c for d in mine_depends for c in d[3]})
            parts.append(f"{name}: depends on the engine's choices at {len(mine_depends)} of "
                         f"{len(mine_depends) + len(mine_holds)} points ({'; '.join(choices)})")
    return "; ".join(parts) + "."
