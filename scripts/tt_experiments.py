#!/usr/bin/env python3
"""Reproduce the experiments of Breuker's thesis chapter 2 (section 2.7) with TwoBig.

    python scripts/tt_experiments.py --quick          # `make experiments-quick`, < 10 min
    python scripts/tt_experiments.py --jobs 16        # the full grid (hours on 2 cores)
    python scripts/tt_experiments.py --report-only    # rebuild report + plots from the CSV

Every run appends rows to DIR/results.csv (DIR: docs/experiments, or docs/experiments/quick
for --quick); a rerun skips the runs already there, so an interrupted run resumes. The
report DIR/README.md and the plots DIR/*.png are rebuilt from the CSV at the end.
Runs go to worker processes (--jobs); each loads the compiled kernels from the cache once.
"""
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab.experiments import RunConfig  # noqa: E402

SCHEMES = ["DEEP", "NEW", "OLD", "BIG1", "BIGALL", "TwoDEEP", "TwoBig1"]
FIELDS = ["experiment", "test_set", "scheme", "positions_k", "stamping", "use", "key_bits",
          "depth", "positions", "nodes", "qnodes", "probes", "hits", "cut_exact", "cut_lower",
          "cut_upper", "window", "stores", "updates", "collisions", "replaced", "refused",
          "empty_fills", "type1", "type1_caught", "filled", "entries", "expected_collisions",
          "seconds", "commit"]


def plan(quick: bool, max_depth: int):
    """[(experiment, RunConfig-without-depth as dict, depths)]"""
    runs = []
    if quick:
        sizes, depths = [8, 32, 128, 512], [3, 4, 5]
        end_sizes, end_depths = [8, 64, 512], [6]
        mv_sizes, mv_depth, mv_end_depth = [8, 64, 256], 6, 7
        col_depth = 4
    else:
        sizes = [8, 16, 32, 64, 128, 256, 512, 1024]
        depths = list(range(3, max_depth + 1))
        end_sizes, end_depths = sizes, [max_depth + 1]
        mv_sizes, mv_depth, mv_end_depth = [8, 16, 32, 64, 128, 256], max_depth + 1, max_depth + 2
        col_depth = 5
    for stamping in (True, False):
        for scheme in SCHEMES:
            for size in sizes:
                runs.append(("schemes", dict(test_set="middle", scheme=scheme, positions_k=size,
                                             stamping=stamping), depths))
    for scheme in SCHEMES:
        for size in end_sizes:
            runs.append(("schemes", dict(test_set="endgame", scheme=scheme, positions_k=size,
                                         stamping=True), end_depths))
    for test_set, depth in (("short", mv_depth), ("endgame21", mv_end_depth)):
        runs.append(("move_score", dict(test_set=test_set, scheme="TwoBig1", positions_k=mv_sizes[0],
                                        stamping=True, use="none"), [depth]))
        for use in ("move", "score", "exact", "bounds", "full"):
            for size in mv_sizes:
                runs.append(("move_score", dict(test_set=test_set, scheme="TwoBig1",
                                                positions_k=size, stamping=True, use=use), [depth]))
    for size in sizes:
        runs.append(("collisions", dict(test_set="middle", scheme="DEEP", positions_k=size,
                                        stamping=False), [col_depth]))
    for bits in (32, 24, 16):
        for size in (sizes[0], sizes[-1]):
            runs.append(("type1", dict(test_set="middle", scheme="DEEP", positions_k=size,
                                       stamping=False, key_bits=bits), [col_depth]))
    return runs


def row_key(experiment, cfg, depth):
    return (experiment, cfg["test_set"], cfg["scheme"], int(cfg["positions_k"]),
            str(bool(cfg["stamping"])), cfg.get("use", "full"), int(cfg.get("key_bits", 64)), int(depth))


def existing_rows(path: Path):
    if not path.exists():
        return []
    with open(path) as handle:
        return list(csv.DictReader(handle))


def key_of(row):
    return (row["experiment"], row["test_set"], row["scheme"], int(row["positions_k"]),
            row["stamping"], row["use"], int(row["key_bits"]), int(row["depth"]))


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


def execute(job):
    experiment, cfg, depths = job
    start = time.perf_counter()
    config = RunConfig(depth=max(depths), **cfg)
    from lab.experiments import run_config
    results = run_config(config, depths)
    seconds = time.perf_counter() - start
    rows = []
    for depth, values in results.items():
        row = {"experiment": experiment, "depth": depth, "seconds": round(seconds, 1),
               "use": cfg.get("use", "full"), "key_bits": cfg.get("key_bits", 64), **cfg}
        row["stamping"] = str(bool(cfg["stamping"]))
        row.update(values)
        rows.append(row)
    return rows


@click.command()
@click.option("--quick", is_flag=True, help="Depths up to 5 and a subset of sizes (< 10 min).")
@click.option("--jobs", default=os.cpu_count() or 1, show_default=True, help="Worker processes.")
@click.option("--max-depth", default=6, show_default=True, help="Deepest middle-game depth (full run).")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Output folder.")
@click.option("--report-only", is_flag=True, help="Only rebuild the report from the CSV.")
def main(quick, jobs, max_depth, out, report_only):
    out_dir = Path(out) if out else ROOT / "docs" / "experiments" / ("quick" if quick else "")
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "results.csv"
    if not report_only:
        done = {key_of(r) for r in existing_rows(csv_path)}
        todo = [job for job in plan(quick, max_depth)
                if any(row_key(job[0], job[1], d) not in done for d in job[2])]
        click.echo(f"{len(todo)} runs to do ({len(plan(quick, max_depth)) - len(todo)} already in {csv_path})")
        from engine.warmup import warm_all
        warm_all()   # fill the compile cache once, before the workers start
        from tqdm import tqdm
        new_file = not csv_path.exists()
        with open(csv_path, "a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
            if new_file:
                writer.writeheader()
            started = time.perf_counter()
            commit = source_commit()
            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(execute, job) for job in todo]
                for future in tqdm(as_completed(futures), total=len(futures), unit="run"):
                    for row in future.result():
                        writer.writerow(dict(row, commit=commit))
                    handle.flush()
            click.echo(f"wall time {time.perf_counter() - started:.0f} s with {jobs} workers")
    from lab.experiments_report import write_report
    write_report(existing_rows(csv_path), out_dir, quick)
    click.echo(f"report: {out_dir / 'README.md'}")


if __name__ == "__main__":
    main()
