#!/usr/bin/env python3
"""What the paper profile's branches cost the play profile.

The play and paper profiles share one search kernel (engine/search.py): every node reads
ctrl[K_PROFILE] and branches on it. This benchmark builds a second copy of that module in
a temporary folder with the profile fixed to PLAY at compile time (`paper = False`, so
numba removes every paper branch), then searches the bench positions with both kernels,
alternating, and reports nodes per second. Node counts must be identical (the same
search); the speed ratio says what the shared kernel costs.

    python -m lab.profiling.bench_profiles [--depth 8] [--rounds 3]
"""
import importlib.util
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]

PROFILE_READ = re.compile(r"paper = (S\.)?ctrl\[K_PROFILE\] == PROFILE_PAPER")


def play_only_module(folder: Path):
    """engine.search with the profile read replaced by the constant False."""
    source = (ROOT / "engine" / "search.py").read_text()
    fixed, count = PROFILE_READ.subn("paper = False", source)
    if count == 0:
        raise SystemExit("no profile read found in engine/search.py: update this script")

    path = folder / "search_play_only.py"
    path.write_text(fixed)
    spec = importlib.util.spec_from_file_location("search_play_only", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module     # numba resolves recursive calls through it
    spec.loader.exec_module(module)
    return module, count


def bench_kernel(kernel: str, depth: int):
    """(nodes, seconds) of the bench positions searched with one kernel, in this process."""
    import engine.driver as driver
    from engine.bench import BENCH_FENS
    from engine.board import Board
    from engine.session import Session

    with tempfile.TemporaryDirectory() as folder:
        if kernel == "play-only":
            driver.search_root = play_only_module(Path(folder))[0].search_root
        session = Session(profile="play", hash_mb=16)
        session.search(Board(), driver.Limits(depth=2))     # compile / load untimed
        nodes, seconds = 0, 0.0
        for fen in BENCH_FENS:
            session.new_table()
            start = time.perf_counter()
            nodes += session.search(Board(fen), driver.Limits(depth=depth)).nodes
            seconds += time.perf_counter() - start
    return nodes, seconds


@click.command()
@click.option("--depth", default=8, show_default=True)
@click.option("--rounds", default=3, show_default=True, help="alternating rounds per kernel")
@click.option("--kernel", type=click.Choice(["shared", "play-only"]), default=None,
              help="measure one kernel in this process (used by the alternating runs)")
def main(depth, rounds, kernel):
    if kernel:
        nodes, seconds = bench_kernel(kernel, depth)
        print(f"{nodes} {seconds}")
        return
    # Each measurement in its own process: two modules of recursive kernels with the same
    # names in one process confuse numba's linking of cached code.
    totals = {"shared": [0, 0.0], "play-only": [0, 0.0]}
    for round_number in range(rounds):
        order = ["shared", "play-only"] if round_number % 2 == 0 else ["play-only", "shared"]
        for name in order:
            out = subprocess.run([sys.executable, "-m", "lab.profiling.bench_profiles", "--kernel",
                                  name, "--depth", str(depth)], cwd=ROOT,
                                 check=True, capture_output=True, text=True).stdout.split()
            nodes, seconds = int(out[-2]), float(out[-1])
            totals[name][0] += nodes
            totals[name][1] += seconds
            print(f"round {round_number + 1} {name:9s} nodes {nodes:>10d} "
                  f"{nodes / seconds:>10.0f} nodes/s", flush=True)
    (shared_nodes, shared_s), (play_nodes, play_s) = totals["shared"], totals["play-only"]
    if shared_nodes != play_nodes:
        raise SystemExit(f"node counts differ ({shared_nodes} vs {play_nodes}): not the same search")
    ratio = (play_nodes / play_s) / (shared_nodes / shared_s)
    print(f"shared kernel {shared_nodes / shared_s:.0f} nodes/s, play-only {play_nodes / play_s:.0f} "
          f"nodes/s: play-only / shared = {ratio:.3f}")


if __name__ == "__main__":
    main()
