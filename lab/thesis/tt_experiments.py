#!/usr/bin/env python3
"""Reproduce the experiments of Breuker's thesis chapter 2 (section 2.7) with TwoBig.

    python -m lab.thesis.tt_experiments --quick          # `make experiments-quick`, < 10 min
    python -m lab.thesis.tt_experiments                  # `make experiments`: the full grid on a
                                                      # local Dask cluster, one worker per core
    python -m lab.thesis.tt_experiments --jobs 16        # ... with 16 worker processes
    python -m lab.thesis.tt_experiments --scheduler tcp://HOST:8786   # on any Dask cluster
    python -m lab.thesis.tt_experiments --serial         # in this process, no Dask
    python -m lab.thesis.tt_experiments --report-only    # rebuild report + plots from the CSV
    python -m lab.thesis.tt_experiments --only move_score --scheme TwoBig1 --size 256 \
        --depth 8 --force                                # rerun one cell, replacing its rows
    python -m lab.thesis.tt_experiments --merge OTHER/docs/experiments/results.csv.gz --report-only
                                                      # add cells run in another checkout

The grid is a list of cells (lab.thesis.experiments.run_grid): each cell is one configuration
(test set, scheme, table size, time stamping, table use, key bits, Zobrist key set) over
its depths, deterministic, and runs as one dask.distributed task. By default the script
starts a LocalCluster on this machine (processes, one thread each, --jobs of them);
--scheduler sends the cells to the scheduler of a running cluster instead (start one with
`dask scheduler` and `dask worker tcp://HOST:8786 --nthreads 1` on each machine, TwoBig
installed there with `pip install -e '.[experiments]'`). Rows are appended to
DIR/results.csv.gz (DIR: docs/experiments, or docs/experiments/quick for --quick) as cells
finish, with the measured commit in each; a rerun skips the cells already there, so an
interrupted run resumes. A progress bar shows cells done and the time left. The report
DIR/README.md and the plots DIR/*.png are rebuilt from the CSV at the end.

Headline cells are repeated with --key-seeds seeded random Zobrist key sets (experiment
"noise"), which gives the noise floor that the report compares scheme differences with.
"""
import os
import time
from pathlib import Path

import click

from lab.statistics import FIRST_DEPTH, SCHEMES, THESIS_DEPTHS, THESIS_SIZES
from lab.thesis.experiments import (RESULTS_CSV, merge_rows, read_rows, rewrite_rows, run_grid,
                                     without_cells)

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

NOISE_SCHEMES_QUICK = ["DEEP", "TwoDEEP", "TwoBig1"]
NOISE_SCHEMES = ["DEEP", "BIG1", "TwoDEEP", "TwoBig1"]


EXTRAPOLATION_SET = "middle:16"   # the first 16 of the 94 positions (9 ply costs)
EXPERIMENTS = ["schemes", "schemes44", "endgame", "no_table", "move_score", "npv",
               "collisions", "type1", "noise", "extrapolation", "robustness"]

# The robustness study: the headline contrasts (TwoBig1 vs TwoDEEP, BIG1 vs DEEP, two-level
# vs one-level) under each choice the thesis leaves open, one at a time (engine/tt_research.py
# OPEN_CHOICES), with the Zobrist key set as a replicated factor.
ROBUST_SCHEMES = ["DEEP", "BIG1", "TwoDEEP", "TwoBig1"]
ROBUST_CHOICES = ["", "ties_new=0", "size_qnodes=0", "leaf_cut=1", "root_lines=1"]
ROBUST_KEY_SETS = 8


def plan(quick: bool, max_depth: int = None, key_seeds: int = None, endgame_depth: int = None):
    """The grid's cells: [(experiment, RunConfig without depth as a dict, depths)].
    max_depth: deepest middle-game depth (default: the thesis' 7; 5 quick); endgame_depth:
    the endgame depth (default: the thesis' 10; 6 quick); key_seeds: how many seeded Zobrist
    key sets repeat the headline cells (default 2 quick, 3 full; 0: none)."""
    runs = []
    if quick:
        max_depth = max_depth or 5
        endgame_depth = endgame_depth or 6
        sizes, sizes44, depth44 = [8, 32, 128, 512], [], None
        end_sizes = [8, 64, 512]
        mv_sizes, mv_depth, mv_end_depth = [8, 64, 256], 6, 7
        col_depth = 4
        noise_schemes, noise_sizes = NOISE_SCHEMES_QUICK, [8]
        extrapolation = None
        npv_plies, npv_sizes = [3, 5], [8, 256]
    else:
        max_depth = max_depth or THESIS_DEPTHS["middle"]
        endgame_depth = endgame_depth or THESIS_DEPTHS["endgame"]
        sizes = list(THESIS_SIZES)
        sizes44, depth44 = [16, 64, 256, 1024], max_depth + 1
        end_sizes = sizes
        mv_sizes = [8, 16, 32, 64, 128, 256]
        mv_depth, mv_end_depth = max_depth + 1, endgame_depth
        col_depth = 5
        noise_schemes, noise_sizes = NOISE_SCHEMES, [8]
        extrapolation = (EXTRAPOLATION_SET, max_depth + 2, 256)
        npv_plies, npv_sizes = [2, 3, 4, 5], mv_sizes
    depths = list(range(FIRST_DEPTH, max_depth + 1))
    if key_seeds is None:
        key_seeds = 2 if quick else 3
    for stamping in (True, False):
        for scheme in SCHEMES:
            for size in sizes:
                runs.append(("schemes", dict(test_set="middle", scheme=scheme, positions_k=size,
                                             stamping=stamping), depths))
            for size in sizes44:
                runs.append(("schemes", dict(test_set="middle44", scheme=scheme,
                                             positions_k=size, stamping=stamping), [depth44]))
    # The endgame from 3 ply (Figure 2.11's depths; with stamping each depth is a pass).
    for scheme in SCHEMES:
        for size in end_sizes:
            runs.append(("schemes", dict(test_set="endgame", scheme=scheme, positions_k=size,
                                         stamping=True),
                         list(range(FIRST_DEPTH, endgame_depth + 1))))
    # Figure 2.10 and the no-table line of the plots: the search without a table (one search
    # per position gives every depth).
    runs.append(("no_table", dict(test_set="middle", scheme="TwoBig1", positions_k=sizes[0],
                                  stamping=False, use="none"), depths))
    for test_set, depth in (("middle44", depth44), ("endgame", endgame_depth)):
        if depth:
            runs.append(("no_table", dict(test_set=test_set, scheme="TwoBig1",
                                          positions_k=sizes[0], stamping=False, use="none"), [depth]))
    for test_set, depth in (("short", mv_depth), ("endgame21", mv_end_depth)):
        runs.append(("move_score", dict(test_set=test_set, scheme="TwoBig1", positions_k=mv_sizes[0],
                                        stamping=True, use="none"), [depth]))
        for use in ("move", "score", "exact", "bounds", "full"):
            for size in mv_sizes:
                runs.append(("move_score", dict(test_set=test_set, scheme="TwoBig1",
                                                positions_k=size, stamping=True, use=use), [depth]))
    # Section 2.7.3: n-ply lines in the entries (n = 1 is the move_score "full" row).
    for test_set, depth in (("short", mv_depth), ("endgame21", mv_end_depth)):
        for plies in npv_plies:
            for size in npv_sizes:
                runs.append(("npv", dict(test_set=test_set, scheme="TwoBig1", positions_k=size,
                                         stamping=True, pv_plies=plies), [depth]))
    for size in sizes:
        runs.append(("collisions", dict(test_set="middle", scheme="DEEP", positions_k=size,
                                        stamping=False), [col_depth]))
    for bits in (32, 24, 16):
        for size in (sizes[0], sizes[-1]):
            runs.append(("type1", dict(test_set="middle", scheme="DEEP", positions_k=size,
                                       stamping=False, key_bits=bits), [col_depth]))
    # The noise floor: the headline cells (middle game, time stamping, deepest depth) again
    # with seeded random key sets; the Polyglot-keyed cell is the "schemes" one.
    for seed in range(1, key_seeds + 1):
        for scheme in noise_schemes:
            for size in noise_sizes:
                runs.append(("noise", dict(test_set="middle", scheme=scheme, positions_k=size,
                                           stamping=True, key_seed=seed), [depths[-1]]))
    # The thesis' extrapolation: its 7-ply 16K point stands for 9 ply at 256K. Measured here
    # on a subset without time stamping (Figure 2.8's conditions), so that the 7-ply counts of
    # the same positions can be read from the "schemes" rows' per-position column.
    if extrapolation:
        test_set, depth, size = extrapolation
        for scheme in SCHEMES:
            runs.append(("extrapolation", dict(test_set=test_set, scheme=scheme,
                                               positions_k=size, stamping=False), [depth]))
    robust_sets = 2 if quick else ROBUST_KEY_SETS
    for stamping in ((False,) if quick else (True, False)):
        for choices in ROBUST_CHOICES:
            for seed in range(1, robust_sets + 1):
                for scheme in ROBUST_SCHEMES:
                    for size in (sizes[:1] if quick else sizes):
                        runs.append(("robustness", dict(
                            test_set="middle", scheme=scheme, positions_k=size,
                            stamping=stamping, key_seed=seed, choices=choices),
                            [depths[-1]] if stamping else depths))
    return runs


def select(cells, schemes=None, sizes=None, depths=None, stamping=None, uses=None):
    """The cells of the given schemes, sizes (K), stamping and table uses, cut to the given
    depths (cells left without a depth are dropped); None selects all."""
    out = []
    for experiment, cfg, cell_depths in cells:
        if uses and cfg.get("use", "full") not in uses:
            continue
        if schemes and cfg["scheme"].upper() not in {s.upper() for s in schemes}:
            continue
        if sizes and cfg["positions_k"] not in sizes:
            continue
        if stamping is not None and cfg["stamping"] != stamping:
            continue
        kept = [d for d in cell_depths if not depths or d in depths]
        if kept:
            out.append((experiment, cfg, kept))
    return out


def experiment_of(cell) -> str:
    """The --only name of a cell: its experiment, with the 8-ply subset and the endgame
    scheme runs named apart (they are the costly ones)."""
    experiment, cfg, _ = cell
    if experiment == "schemes" and cfg["test_set"] != "middle":
        return "schemes44" if cfg["test_set"] == "middle44" else "endgame"
    return experiment


def source_commit() -> str:
    """The commit the runs measure (with -dirty when the engine differs from it)."""
    import subprocess
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "engine"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


@click.command()
@click.option("--quick", is_flag=True, help="Depths up to 5 and a subset of sizes (< 10 min).")
@click.option("--jobs", default=os.cpu_count() or 1, show_default=True,
              help="Worker processes of the local Dask cluster.")
@click.option("--scheduler", default=None, metavar="tcp://HOST:8786",
              help="Run the cells on the Dask cluster of this scheduler (no local cluster).")
@click.option("--serial", is_flag=True, help="Run the cells one by one in this process (no Dask).")
@click.option("--max-depth", default=None, type=int,
              help="Deepest middle-game depth [default: the thesis' 7; 5 with --quick].")
@click.option("--endgame-depth", default=None, type=int,
              help="Endgame depth [default: the thesis' 10; 6 with --quick].")
@click.option("--only", default=None, metavar="NAME[,NAME]",
              help="Run only these parts of the grid: " + ", ".join(EXPERIMENTS) + ".")
@click.option("--stamping", type=click.Choice(["on", "off"]), default=None,
              help="Run only the cells with time stamping on (or off).")
@click.option("--size", "--sizes", "sizes", default=None, metavar="K[,K]",
              help="Run only the cells of these table sizes (in K positions).")
@click.option("--scheme", "schemes", default=None, metavar="NAME[,NAME]",
              help="Run only the cells of these schemes.")
@click.option("--depth", "depths", default=None, metavar="D[,D]",
              help="Run only these depths of the cells.")
@click.option("--use", "uses", default=None, metavar="USE[,USE]",
              help="Run only the cells of these table uses (2.7.2: none, move, score, exact, "
                   "bounds, full).")
@click.option("--force", is_flag=True,
              help="Run the selected cells again, replacing their rows in the CSV.")
@click.option("--key-seeds", default=None, type=int,
              help="Seeded Zobrist key sets repeating the headline cells [default: 2 quick, 3 full].")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder.")
@click.option("--merge", "merge_from", multiple=True, metavar="CSV",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="First add the rows of this CSV (cells run in another checkout or on another "
                   "machine) that the grid's CSV lacks; the rows both hold must agree. Repeatable.")
@click.option("--report-only", is_flag=True, help="Only rebuild the report from the CSV.")
def main(quick, jobs, scheduler, serial, max_depth, endgame_depth, only, stamping, sizes,
         schemes, depths, uses, force, key_seeds, out, merge_from, report_only):
    out_dir = Path(out) if out else DOCS / "experiments" / ("quick" if quick else "")
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / RESULTS_CSV
    for other in merge_from:
        try:
            merged, added = merge_rows(read_rows(csv_path), read_rows(other))
        except ValueError as exc:
            raise click.BadParameter(f"{other}: {exc}", param_hint="--merge")
        rewrite_rows(csv_path, merged)
        click.echo(f"--merge: {added} rows added from {other}")
    if not report_only:
        started = time.perf_counter()
        where = ("this process" if serial else f"the Dask scheduler at {scheduler}" if scheduler
                 else f"a local Dask cluster of {jobs} workers")
        cells = plan(quick, max_depth, key_seeds, endgame_depth)
        if only:
            wanted = set(only.split(","))
            unknown = wanted - set(EXPERIMENTS)
            if unknown:
                raise click.BadParameter(f"unknown: {', '.join(sorted(unknown))}", param_hint="--only")
            cells = [cell for cell in cells if experiment_of(cell) in wanted]
        cells = select(cells, schemes.split(",") if schemes else None,
                       {int(k) for k in sizes.split(",")} if sizes else None,
                       {int(d) for d in depths.split(",")} if depths else None,
                       None if stamping is None else stamping == "on",
                       set(uses.split(",")) if uses else None)
        if force:
            kept = without_cells(read_rows(csv_path), cells)
            click.echo(f"--force: {len(read_rows(csv_path)) - len(kept)} rows replaced")
            rewrite_rows(csv_path, kept)
        ran = run_grid(cells, csv_path, scheduler=scheduler,
                       workers=jobs, serial=serial, commit=source_commit(), echo=click.echo)
        if ran:
            click.echo(f"wall time {time.perf_counter() - started:.0f} s for {ran} cells on {where}")
    from lab.thesis.experiments_report import write_report
    # The full grid in its home folder also writes the one-table summary of the chapter.
    claims = DOCS / "thesis_reproduction.md" if out_dir.resolve() == (DOCS / "experiments").resolve() \
        else out_dir / "claims.md"
    write_report(read_rows(csv_path), out_dir, quick, claims)
    click.echo(f"report: {out_dir / 'README.md'}, claims: {claims}")


if __name__ == "__main__":
    main()
