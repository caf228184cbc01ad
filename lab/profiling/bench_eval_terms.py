#!/usr/bin/env python3
"""What each evaluation term costs in nodes per second.

engine/eval.py switches its positional terms with a compile-time tuple, TERMS_ON (numba
freezes it into the kernels, so a term switched off is compiled out). This benchmark copies
the engine package once per variant into a temporary folder with TERMS_ON rewritten: all
terms on (the engine as it ships), each term off in turn, and every term off (material and
piece-square values only). Each variant searches the bench positions to a fixed depth in
its own process with its own numba cache, in alternating rounds, and the script reports
nodes per second and the ratio to the engine as it ships.

A term switched off also changes the evaluation, so the tree differs: the node counts are
printed beside the speed. The ratio is what a user would see (nodes per second of a real
search), not the time of the term alone.

    python -m lab.profiling.bench_eval_terms [--depth 10] [--rounds 2]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
SWITCHES = re.compile(r"^TERMS_ON = \(.*\)$", re.MULTILINE)


def term_names():
    """TERM_NAMES of the checkout's engine (the copies are made from it)."""
    from engine.eval import TERM_NAMES
    return list(TERM_NAMES)


def variants():
    """(label, TERMS_ON tuple) for the shipped engine, each term off, and all terms off."""
    names = term_names()
    rows = [("all terms", (True,) * len(names))]
    for index, name in enumerate(names):
        rows.append((f"without {name}", tuple(i != index for i in range(len(names)))))
    rows.append(("material + PST only", (False,) * len(names)))
    return rows


def build_variant(folder: Path, switches) -> Path:
    """A copy of the engine package under `folder` with TERMS_ON set to `switches`."""
    target = folder / "engine"
    shutil.copytree(ROOT / "engine", target, ignore=shutil.ignore_patterns("__pycache__"))
    source = (target / "eval.py").read_text()
    fixed, count = SWITCHES.subn(f"TERMS_ON = {switches!r}", source)
    if count != 1:
        raise SystemExit("no TERMS_ON line found in engine/eval.py: update this script")
    (target / "eval.py").write_text(fixed)
    return folder


def measure_here(depth: int):
    """(nodes, seconds) of the bench positions in this process, with whatever engine package
    PYTHONPATH put first."""
    import engine.eval
    from engine.bench import BENCH_FENS
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session

    print(f"# engine from {Path(engine.eval.__file__).parent}, TERMS_ON {engine.eval.TERMS_ON}",
          file=sys.stderr)
    session = Session(profile="play", hash_mb=16)
    session.search(Board(), Limits(depth=2))        # compile or load the kernels, untimed
    nodes, seconds = 0, 0.0
    for fen in BENCH_FENS:
        session.new_table()
        start = time.perf_counter()
        nodes += session.search(Board(fen), Limits(depth=depth)).nodes
        seconds += time.perf_counter() - start
    return nodes, seconds


def run_variant(folder: Path, depth: int):
    """Measure one variant in a fresh interpreter that imports the copy, not the checkout
    (-P: the script's own folder is not put on sys.path)."""
    env = dict(os.environ, PYTHONPATH=str(folder), TWOBIG_CACHE_DIR=str(folder / "cache"))
    out = subprocess.run([sys.executable, "-P", __file__, "--measure", "--depth", str(depth)],
                         env=env, check=True, capture_output=True, text=True).stdout.split()
    return int(out[-2]), float(out[-1])


@click.command()
@click.option("--depth", default=10, show_default=True)
@click.option("--rounds", default=2, show_default=True,
              help="rounds over all variants, in alternating order")
@click.option("--measure", is_flag=True, help="measure the engine on PYTHONPATH (internal)")
def main(depth, rounds, measure):
    if measure:
        nodes, seconds = measure_here(depth)
        print(f"{nodes} {seconds}")
        return
    rows = variants()
    totals = {label: [0, 0.0] for label, _ in rows}
    with tempfile.TemporaryDirectory() as scratch:
        folders = {}
        for number, (label, switches) in enumerate(rows):
            folders[label] = build_variant(Path(scratch) / f"variant{number}", switches)
        # The first round also compiles each copy (untimed: measure_here warms up first).
        for round_number in range(rounds):
            order = rows if round_number % 2 == 0 else rows[::-1]
            for label, _ in order:
                nodes, seconds = run_variant(folders[label], depth)
                totals[label][0] += nodes
                totals[label][1] += seconds
                print(f"round {round_number + 1} {label:28s} nodes {nodes:>10d} "
                      f"{nodes / seconds:>10.0f} nodes/s", flush=True)
    base_nodes, base_seconds = totals["all terms"]
    base_speed = base_nodes / base_seconds
    print(f"\nbench positions at depth {depth}, {rounds} rounds; ratio = nodes/s / all terms' nodes/s")
    print(f"| variant | nodes (one round) | nodes/s | ratio |")
    print(f"|---|---|---|---|")
    for label, _ in rows:
        nodes, seconds = totals[label]
        print(f"| {label} | {nodes // rounds:,} | {nodes / seconds:,.0f} | {nodes / seconds / base_speed:.3f} |")


if __name__ == "__main__":
    main()
