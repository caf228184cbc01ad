"""Tables, plots and the thesis-versus-TwoBig comparison for lab/thesis/tt_experiments.py.

Scheme differences come with the paired bootstrap of lab/statistics.py; rows written before
per-position counts were kept have no interval.
"""
import math
import os
from collections import defaultdict
from pathlib import Path
from typing import List, Optional

from lab.thesis.experiments import RESULTS_CSV
from lab.thesis.reproduction import Grid, doubling_size, write as write_claims
from lab.statistics import RESAMPLES, SCHEMES, TWO_LEVEL, as_number, compare, format_k

USES = ["none", "move", "score", "exact", "bounds", "full"]
USE_LABEL = {"none": "no table", "move": "move only", "score": "score only",
             "exact": "exact scores only", "bounds": "bounds only", "full": "move and score"}
METRIC_NAME = {"nodes": "all nodes", "thesis_nodes": "interior + horizon leaves"}


def _index(rows, experiment, seeded: bool = False):
    """{(test_set, stamping, depth): {(scheme, size_k, use, bits): row}} of the rows with the
    Polyglot keys (seeded=False) or of those with a seeded key set (key: (..., bits, seed))."""
    out = defaultdict(dict)
    for r in rows:
        seed = r.get("key_seed") or ""
        if r["experiment"] != experiment or bool(seed) != seeded:
            continue
        if seeded:
            out[(r["test_set"], r["stamping"] == "True", int(r["depth"]))][
                (r["scheme"], int(r["positions_k"]), r["use"], int(r["key_bits"]), int(seed))] = r
            continue
        out[(r["test_set"], r["stamping"] == "True", int(r["depth"]))][
            (r["scheme"], int(r["positions_k"]), r["use"], int(r["key_bits"]))] = r
    return out


def size_axis(ax, sizes):
    """Thesis-style x axis: table size on a log2 scale."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([format_k(s) for s in sizes])
    ax.set_xlabel("table size (positions)")
    ax.grid(True, alpha=0.3)


def save_plot(fig, path) -> None:
    """Write a figure as a PNG of at most 256 colours (a third of the full-colour file for
    these line plots, with no visible difference; Pillow comes with matplotlib) and close it."""
    import io

    import matplotlib.pyplot as plt
    from PIL import Image
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    buffer.seek(0)
    with Image.open(buffer) as image:
        image.convert("RGB").quantize(colors=256).save(path, optimize=True)


def _finish(fig, ax, sizes, title, path):
    size_axis(ax, sizes)
    ax.set_ylabel("nodes (millions)")
    ax.set_ylim(bottom=0)          # from zero: small differences are not blown up
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    save_plot(fig, path)


def _plot_schemes(cell, sizes, title, path, metric, none_row=None, floor=0.0):
    """Left: each scheme's total of `metric` from zero, with the no-table total as a line.
    Right: each scheme against TwoBig1 in percent with its 95% paired bootstrap interval,
    over a grey band of +-`floor` (the key-set noise floor)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for scheme in SCHEMES:
        points = [(size, cell[(scheme, size, "full", 64)]) for size in sizes
                  if (scheme, size, "full", 64) in cell]
        if not points:
            continue
        style = "-o" if scheme in TWO_LEVEL else "--."
        ax.plot([p[0] for p in points], [as_number(p[1].get(metric)) / 1e6 for p in points], style,
                label=scheme)
        if scheme == "TwoBig1":
            continue
        xs, ys, errors = [], [], [[], []]
        for size, row in points:
            base = cell.get(("TwoBig1", size, "full", 64))
            other = compare(base, row, metric) if base else None
            if other is None:
                continue
            xs.append(size * (1 + 0.03 * (SCHEMES.index(scheme) - 3)))   # spread the bars
            ys.append(other.percent)
            errors[0].append(other.percent - other.low)
            errors[1].append(other.high - other.percent)
        if xs:
            right.errorbar(xs, ys, yerr=errors, fmt=style[-1] if style[-1] == "o" else ".",
                           capsize=2, label=scheme)
    if none_row is not None:
        ax.axhline(as_number(none_row.get(metric)) / 1e6, color="k", linestyle=":", label="no table")
    if floor > 0:
        right.axhspan(-floor, floor, color="0.85", label="key-set noise")
    right.axhline(0, color="k", linewidth=0.8)
    size_axis(right, sizes)
    right.set_ylabel("nodes against TwoBig1 (%)")
    right.set_title("against TwoBig1, 95% intervals")
    if right.get_legend_handles_labels()[0]:
        right.legend(fontsize="small")
    _finish(fig, ax, sizes, title, path)


def _plot_uses(cells, sizes, title, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    none = [r for r in cells.values() if r["use"] == "none"]
    for use in USES[1:]:
        xs, ys = [], []
        for size in sizes:
            row = cells.get(("TwoBig1", size, use, 64))
            if row:
                xs.append(size)
                ys.append(as_number(row["nodes"]) / 1e6)
        if xs:
            ax.plot(xs, ys, "-o", label=USE_LABEL[use])
    if none:
        ax.axhline(as_number(none[0]["nodes"]) / 1e6, color="k", linestyle=":", label="no table")
    _finish(fig, ax, sizes, title, path)


def _cell_values(cell, size, metric):
    return {s: as_number(cell[(s, size, "full", 64)].get(metric)) for s in SCHEMES
            if (s, size, "full", 64) in cell and not math.isnan(as_number(cell[(s, size, "full", 64)].get(metric)))}


def _scheme_table(cell, sizes, metric):
    """Markdown rows of one (test set, stamping, depth) cell in `metric`, with the spread
    and TwoBig1 against the best other scheme (intervals where per-position data exists)."""
    lines = ["| size | " + " | ".join(SCHEMES) + " | spread (worst vs best) | TwoBig1 vs best other |",
             "|---|" + "---|" * (len(SCHEMES) + 2)]
    for size in sizes:
        values = _cell_values(cell, size, metric)
        if not values:
            continue
        best_scheme = min(values, key=values.get)
        worst_scheme = max(values, key=values.get)
        best = values[best_scheme]
        spread = compare(cell[(best_scheme, size, "full", 64)], cell[(worst_scheme, size, "full", 64)], metric)
        spread_text = spread.text() if spread else f"{(values[worst_scheme] - best) / best * 100:.1f}%"
        versus = ""
        others = {s: v for s, v in values.items() if s != "TwoBig1"}
        if "TwoBig1" in values and others:
            rival = min(others, key=others.get)
            diff = compare(cell[(rival, size, "full", 64)], cell[("TwoBig1", size, "full", 64)], metric)
            pct = (values["TwoBig1"] - others[rival]) / others[rival] * 100
            versus = f"{rival}: " + (diff.text() if diff else f"{pct:+.1f}%")
        lines.append(f"| {format_k(size)} | " + " | ".join(
            (f"**{values[s] / 1e6:.2f}M**" if values.get(s) == best else f"{values[s] / 1e6:.2f}M")
            if s in values else "" for s in SCHEMES) + f" | {spread_text} | {versus} |")
    return lines


def _section_schemes(rows, out_dir, lines):
    """Section 1: a table (both counts) and a plot per (test set, stamping, depth)."""
    grid = Grid(rows)
    schemes = _index(rows, "schemes")
    no_table = _index(rows, "no_table")
    lines += ["## 1. Replacement schemes (thesis 2.7.1, Figures 2.8-2.11)", "",
              "Each table: total nodes per scheme; the spread between the worst and the best "
              "scheme; TwoBig1 against the best other scheme (negative: TwoBig1 searched fewer "
              "nodes), with 95% paired bootstrap intervals where the rows keep per-position "
              "counts. Where the rows also have the thesis' count (interior nodes + horizon "
              "leaves, no quiescence), a second table gives it, and the plots show it. Plots: "
              "totals from zero, with the no-table total as a dotted line where that cell was "
              "run; on the right each "
              "scheme against TwoBig1 with its interval, over the key-set noise floor (grey).",
              ""]
    for (test_set, stamping, depth) in sorted(schemes):
        cell = schemes[(test_set, stamping, depth)]
        sizes = sorted({k[1] for k in cell})
        lines += [f"### {test_set}, depth {depth}, time stamping {'on' if stamping else 'off'}", ""]
        complete = grid.depths("schemes", test_set, stamping)
        if depth not in complete:
            cells = grid.cell_counts("schemes", test_set, stamping)
            lines += [f"{cells[depth]} of its cells are in the CSV, against "
                      f"{cells[complete[-1]]} at {complete[-1]} ply: its tables and plot, as "
                      "the claims, wait until all are.", ""]
            continue
        lines += _scheme_table(cell, sizes, "nodes") + [""]
        metric = "nodes"
        if any(as_number(r.get("thesis_nodes")) > 0 for r in cell.values()):
            metric = "thesis_nodes"
            lines += ["The thesis' count (interior nodes + horizon leaves):", ""]
            lines += _scheme_table(cell, sizes, "thesis_nodes") + [""]
        none = next(iter(no_table.get((test_set, False, depth), {}).values()), None)
        png = f"schemes_{test_set}_d{depth}_{'stamp' if stamping else 'clear'}.png"
        try:
            _plot_schemes(cell, sizes, f"{test_set}, {depth} ply, time stamping "
                          f"{'on' if stamping else 'off'} ({METRIC_NAME[metric]})", out_dir / png,
                          metric, none, grid.floor(metric))
            lines += [f"![{png}]({png})", ""]
        except ImportError:
            lines += ["(matplotlib not installed: no plot)", ""]

    lines += ["### Table size beyond which doubling gains less than 1% (TwoBig1)", "",
              "| test set | depth | time stamping | interior + horizon leaves | all nodes |",
              "|---|---|---|---|---|"]
    for (test_set, stamping, depth) in sorted(schemes):
        if depth not in grid.depths("schemes", test_set, stamping):
            continue
        lines.append(f"| {test_set} | {depth} | {'on' if stamping else 'off'} | "
                     + " | ".join(doubling_size(grid, m, test_set, depth, stamping) or "n/a"
                                  for m in ("thesis_nodes", "nodes")) + " |")
    lines.append("")


def _section_uses(rows, out_dir, lines):
    """Section 2: each use of the entry against no table."""
    uses = _index(rows, "move_score")
    lines += ["## 2. Merits of move and score (thesis 2.7.2, Figures 2.13-2.14)", "",
              "Nodes with each part of the entry in use, and the change against no table "
              "(95% interval where per-position counts exist).", ""]
    for (test_set, stamping, depth), cells in sorted(uses.items()):
        sizes = sorted({k[1] for k in cells if k[2] != "none"})
        none = [r for r in cells.values() if r["use"] == "none"]
        base = as_number(none[0]["nodes"]) if none else math.nan
        lines += [f"### {test_set}, depth {depth} (TwoBig1, time stamping); no table: {base / 1e6:.2f}M nodes", "",
                  "| size | " + " | ".join(USE_LABEL[u] for u in USES[1:]) + " |",
                  "|---|" + "---|" * (len(USES) - 1)]
        for size in sizes:
            cols = []
            for use in USES[1:]:
                row = cells.get(("TwoBig1", size, use, 64))
                if row:
                    nodes = as_number(row["nodes"])
                    diff = compare(none[0], row) if none else None
                    pct = (nodes - base) / base * 100
                    cols.append(f"{nodes / 1e6:.2f}M ({diff.text(0) if diff else f'{pct:+.0f}%'})")
                else:
                    cols.append("")
            lines.append(f"| {format_k(size)} | " + " | ".join(cols) + " |")
        cut = [r for r in cells.values() if r["use"] == "full"]
        if cut:
            r = max(cut, key=lambda r: int(r["positions_k"]))
            lines += ["", f"Full table at {format_k(int(r['positions_k']))}: probes {int(as_number(r['probes'])):,}, "
                      f"hits {int(as_number(r['hits'])):,}, cut-offs by exact scores {int(as_number(r['cut_exact'])):,}, "
                      f"by lower bounds {int(as_number(r['cut_lower'])):,}, by upper bounds {int(as_number(r['cut_upper'])):,}."]
        lines.append("")
        png = f"move_score_{test_set}_d{depth}.png"
        try:
            _plot_uses(cells, sizes, f"{test_set}, {depth} ply: move versus score", out_dir / png)
            lines += [f"![{png}]({png})", ""]
        except ImportError:
            pass


def _section_npv(rows, lines):
    """Section 3: n-ply lines in the entries against the best move alone (the move_score
    experiment's full-table row at the same size and depth)."""
    lines += ["## 3. n-ply principal variation in the entry (thesis 2.7.3, Figures 2.15-2.16)", ""]
    npv = [r for r in rows if r["experiment"] == "npv"]
    if not npv:
        lines += ["Not run in this grid (experiment `npv`).", ""]
        return
    lines += ["Each entry keeps the first n moves of its best line (the thesis' n-ply PV); a "
              "position missing from the table is ordered by the move an ancestor's line "
              "gives for it. Nodes on the thesis' count (interior nodes + horizon leaves) "
              "against the 1-ply PV (the best move only: the full-table cell of section 2, "
              "whose table gives all nodes) at the same size, with 95% intervals; TwoBig1, time "
              "stamping. `ancestor moves`: nodes where the table had no move and an ancestor's "
              "line gave one.", ""]
    base = {(r["test_set"], int(r["positions_k"]), int(r["depth"])): r for r in rows
            if r["experiment"] == "move_score" and r["use"] == "full" and r["scheme"] == "TwoBig1"}
    plies = sorted({int(r.get("pv_plies") or 1) for r in npv})
    for test_set, depth in sorted({(r["test_set"], int(r["depth"])) for r in npv}):
        lines += [f"### {test_set}, depth {depth}", "",
                  "| size | 1-ply | " + " | ".join(f"{n}-ply" for n in plies) + " |",
                  "|---|---|" + "---|" * len(plies)]
        for size in sorted({int(r["positions_k"]) for r in npv if r["test_set"] == test_set}):
            one = base.get((test_set, size, depth))
            cols = []
            for n in plies:
                row = next((r for r in npv if r["test_set"] == test_set and int(r["depth"]) == depth
                            and int(r["positions_k"]) == size and int(r.get("pv_plies") or 1) == n), None)
                if row is None:
                    cols.append("")
                    continue
                diff = compare(one, row, "thesis_nodes") if one else None
                used = as_number(row.get("line_moves"))
                cols.append(f"{as_number(row['thesis_nodes']) / 1e6:.2f}M"
                            + (f" ({diff.text()})" if diff else "")
                            + (f", ancestor moves {int(used):,}" if not math.isnan(used) else ""))
            lines.append(f"| {format_k(size)} | "
                         + (f"{as_number(one['thesis_nodes']) / 1e6:.2f}M" if one else "") + " | "
                         + " | ".join(cols) + " |")
        lines.append("")


def _section_collisions(rows, lines):
    lines += ["## 4. Collisions against Feldmann's formula (thesis 2.4.2, equation 2.2)", "",
              "One-level DEEP table, cleared before each position. For each search, M = the "
              "distinct positions it stored (counted by the table itself: a position stored, "
              "overwritten and stored again counts once) and N = entries give the expected "
              "type-2 collisions E = M - N(1 - e^(-M/N)); M and E are summed over the "
              "positions." + (" Rows from before the distinct-key counter used M = non-empty "
              "entries + collisions, which is partly made of the collisions it predicts; their "
              "M column is marked *." if any(r.get("distinct") in (None, "") for r in rows
                                             if r["experiment"] == "collisions") else "")
              + " The measured collisions count every store that met another "
              "position in its slot, so a position that loses its slot and is stored again "
              "counts again; M - filled (the distinct positions stored that no longer have an "
              "entry, summed over the positions) counts each such position once, as equation "
              "2.2 does, and is what claims row 28 compares with E.", "",
              "| size | depth | measured collisions | M | E (equation 2.2) | measured / E "
              "| M - filled | (M - filled) / E |", "|---|---|---|---|---|---|---|---|"]
    for (test_set, stamping, depth), cells in sorted(_index(rows, "collisions").items()):
        for (scheme, size, use, bits), r in sorted(cells.items(), key=lambda kv: kv[0][1]):
            distinct = r.get("distinct")
            m_total = as_number(distinct) if distinct not in (None, "") else \
                as_number(r["filled"]) + as_number(r["collisions"])
            expected = as_number(r.get("expected_collisions"))   # equation 2.2 per search, summed
            star = "" if distinct not in (None, "") else "*"
            unfilled = m_total - as_number(r["filled"])   # each position that lost its slot, once
            lost = "- | -" if star else f"{int(unfilled):,} | {unfilled / max(expected, 1e-9):.2f}"
            lines.append(f"| {format_k(size)} | {depth} | {int(as_number(r['collisions'])):,} | {int(m_total):,}{star} | "
                         f"{expected:,.0f} | {as_number(r['collisions']) / max(expected, 1e-9):.2f} | {lost} |")
    from lab.thesis.experiments import thesis_worked_example
    ex = thesis_worked_example()
    lines += ["", "The thesis' worked example (216 million positions stored), recomputed exactly: "
              f"with 32-bit keys P(at least one type-1 error) = {ex['p_error_32']:.6f}; "
              f"{ex['bits_for_one_percent']} bits bring it under 1% (thesis: 62); with 64 bits "
              f"it is {ex['p_error_64']:.2e} (thesis: about 1e-3). The expected number of errors "
              f"with 64 bits, by Feldmann's exact formula, is {ex['expected_errors_64']:.2e}; the "
              "thesis says about 0.05, which its own equation does not give (E is about "
              "M^2/2N here, the same as the probability)."]
    lines += ["", "Type-1 errors with shortened keys (verification on the top k key bits only; "
              "the index adds log2(entries) bits): retrievals of another position's entry, and "
              "how many of their moves the legality check refused.", "",
              "| key bits | size | hash bits | probes | wrong-position hits | refused moves |", "|---|---|---|---|---|---|"]
    for (test_set, stamping, depth), cells in sorted(_index(rows, "type1").items()):
        for (scheme, size, use, bits), r in sorted(cells.items(), key=lambda kv: (kv[0][3], kv[0][1])):
            hash_bits = bits + int(math.log2(as_number(r["entries"])))
            lines.append(f"| {bits} | {format_k(size)} | {hash_bits} | {int(as_number(r['probes'])):,} | "
                         f"{int(as_number(r['type1'])):,} | {int(as_number(r['type1_caught'])):,} |")
    lines.append("")


def _section_noise(rows, lines):
    """Section 5: cells repeated with seeded Zobrist key sets, and the noise floor
    (lab.thesis.reproduction.Grid.floor: the largest spread of one cell's totals over them)."""
    seeded = _index(rows, "noise", seeded=True)
    if not seeded:
        return
    polyglot = _index(rows, "schemes")
    lines += ["## 5. Noise floor: the same cells with seeded random Zobrist keys", "",
              "Headline cells searched again with random 64-bit key sets (numpy's generator "
              "seeded 1, 2, ...) instead of the Polyglot keys. The keys change only which "
              "positions share a bucket, so the spread of a cell's totals over its key sets is "
              "how far luck alone moves a total. A scheme difference smaller than this floor is "
              "noise, whatever its bootstrap interval.", ""]
    for (test_set, stamping, depth), cells in sorted(seeded.items()):
        seeds = sorted({k[4] for k in cells})
        base_cell = polyglot.get((test_set, stamping, depth), {})
        lines += [f"### {test_set}, depth {depth}, time stamping {'on' if stamping else 'off'}", "",
                  "| size | scheme | Polyglot | " + " | ".join(f"seed {s}" for s in seeds) +
                  " | mean | spread |", "|---|---|---|" + "---|" * (len(seeds) + 2)]
        totals = {}
        for scheme, size in sorted({(k[0], k[1]) for k in cells}, key=lambda k: (k[1], SCHEMES.index(k[0]))):
            reference = base_cell.get((scheme, size, "full", 64))
            values = [as_number(reference["nodes"])] if reference else []
            by_seed = [as_number(cells[(scheme, size, "full", 64, s)]["nodes"]) if (scheme, size, "full", 64, s) in cells
                       else math.nan for s in seeds]
            values += [v for v in by_seed if not math.isnan(v)]
            totals[(scheme, size)] = ([reference] if reference else [None]) + \
                [cells.get((scheme, size, "full", 64, s)) for s in seeds]
            mean = sum(values) / len(values)
            spread = (max(values) - min(values)) / mean * 100
            lines.append(f"| {format_k(size)} | {scheme} | "
                         + (f"{values[0] / 1e6:.3f}M" if reference else "") + " | "
                         + " | ".join(f"{v / 1e6:.3f}M" if not math.isnan(v) else "" for v in by_seed)
                         + f" | {mean / 1e6:.3f}M | {spread:.2f}% |")
        lines.append("")
        pairs = [(scheme, size) for (scheme, size) in totals if scheme != "TwoBig1" and ("TwoBig1", size) in totals]
        if pairs:
            lines += ["TwoBig1 against each scheme, key set by key set (Polyglot first):", ""]
            for scheme, size in sorted(pairs, key=lambda k: (k[1], SCHEMES.index(k[0]))):
                diffs = []
                for mine, theirs in zip(totals[("TwoBig1", size)], totals[(scheme, size)]):
                    if mine and theirs:
                        diffs.append((as_number(mine["nodes"]) - as_number(theirs["nodes"])) / as_number(theirs["nodes"]) * 100)
                if diffs:
                    sign = ("always fewer nodes" if max(diffs) < 0 else "always more nodes" if min(diffs) > 0
                            else "the sign depends on the keys")
                    lines.append(f"- {format_k(size)}, vs {scheme}: " + ", ".join(f"{d:+.2f}%" for d in diffs)
                                 + f" ({sign})")
            lines.append("")
    grid = Grid(rows)
    lines += [f"Noise floor: the key set alone moved a cell's total by up to "
              f"{grid.floor('nodes'):.2f}% on all nodes (the largest spread above) and "
              f"{grid.floor('thesis_nodes'):.2f}% on the thesis' count (interior nodes + "
              "horizon leaves); the claims table takes these as its floors.", ""]


def write_report(rows, out_dir: Path, quick: bool, claims_path: Optional[Path] = None) -> None:
    """Write out_dir/README.md (and the plots) from the CSV's rows, and the claims table
    (lab.thesis.reproduction) to `claims_path` (default out_dir/claims.md)."""
    out_dir = Path(out_dir)
    lines = ["# Breuker's transposition-table experiments, run again with TwoBig", ""]
    lines += [
        "Generated by `python -m lab.thesis.tt_experiments`" + (" --quick" if quick else "") +
        f" from `{RESULTS_CSV}` in this folder. Search: the `paper` profile (the thesis' ALIBABA "
        "conditions: iterative deepening, aspiration windows of one pawn, PVS, quiescence on "
        "captures and promotions, ordering by the previous iteration's principal variation "
        "(ALIBABA's refutation line per root move is the open choice root_lines), TT move, "
        "MVV-LVA, promotions, history). Nodes = interior + leaves + quiescence nodes, summed over the test set; "
        "the thesis' count (interior nodes + horizon leaves, no quiescence) is given beside it "
        "where the rows have it. Intervals: 95% paired bootstrap over the positions "
        f"({RESAMPLES:,} resamples), over blocks of consecutive positions of a game where time "
        "stamping carries the table from one position to the next (lab/statistics.py "
        "`row_blocks`); \"within noise\" where the interval includes 0 (the claims table "
        "is stricter: a difference is clear there only when it also exceeds the key-set noise "
        "floor of section 5; the robustness section asks at least 0.5%). "
        "Test sets: middle game = the thesis' 94 positions (Kasparov, VSB Amsterdam 1994); "
        "endgame = 104 positions of 10 of Kasparov's 1994 games (`endgame_set.epd`), the "
        "thesis' own endgame games being unavailable; `short` = the 18 Kasparov-Short "
        "positions; `endgame21` = 21 consecutive positions of one endgame.", ""]
    _section_schemes(rows, out_dir, lines)
    _section_uses(rows, out_dir, lines)
    _section_npv(rows, lines)
    _section_collisions(rows, lines)
    _section_noise(rows, lines)
    claims = Path(claims_path) if claims_path else out_dir / "claims.md"
    write_claims(rows, claims, out_dir)
    link = os.path.relpath(claims, out_dir)
    lines += ["## The thesis' claims", "",
              f"Every claim of the chapter, checked against these rows: [{claims.name}]({link}) "
              "(generated with this report).", ""]
    lines += _data_dictionary()
    (out_dir / "README.md").write_text("\n".join(lines) + "\n")


def _data_dictionary() -> List[str]:
    """The columns of results.csv.gz and what each holds (lab.thesis.experiments.COLUMNS)."""
    from lab.thesis.experiments import COLUMNS
    lines = [f"## The columns of {RESULTS_CSV}", "",
             "One row per cell and depth. A cell is one configuration (the columns from "
             "`experiment` to `key_seed`, with `pv_plies` and `choices`) over its depths; "
             "`python -m lab.thesis.tt_experiments --only E --scheme S --size K --depth D "
             "--force` runs one again, replacing its rows; `--merge OTHER.csv` adds the cells another "
             "checkout or machine ran (the rows both hold must agree); a grid stopped part-way can be "
             "merged and resumed, since a robustness point enters the figures only once every "
             "scheme, choice and key set is in. Counters cover the deepest depth "
             "of a cell only where it searched all its depths in one pass (no time stamping). "
             "Empty version columns: rows measured before those columns existed.", "",
             "| column | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in COLUMNS]
    return lines + [""]
