#!/usr/bin/env python3
"""Nanoseconds per full evaluation (`reference_eval`), for one checkout or for several
compared in alternating rounds.

The positions are the bench positions and random descendants of them (fixed seed, 6 plies
deep, so middle games and end games both appear); a jitted loop evaluates each one many
times, and the best round counts. Each checkout runs in its own process with its own
engine package, so two versions of engine/eval.py can be set side by side on a noisy
machine: rounds alternate between them. The checksum (the sum of every evaluation) shows
whether two versions compute the same values.

    python -m lab.profiling.bench_eval_speed                       # this checkout
    python -m lab.profiling.bench_eval_speed OLD_CHECKOUT .        # alternating rounds, both
"""
import os
import subprocess
import sys
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parents[2]
DESCENDANTS = 8        # random descendants per bench position...
PLIES = 6              # ...this many plies after it
CALLS = 2000           # evaluations of a position per timed call


def measure(repeats: int) -> tuple:
    """(positions, best ns per evaluation, checksum) for the engine package on sys.path."""
    import random
    import time

    import chess
    import numba
    from engine.bench import BENCH_FENS
    from engine.board import Board
    from engine.eval import reference_eval

    # Not cached (unlike the engine's kernels): numba's cache would not notice that another
    # checkout's reference_eval is inlined here, and would hand back the first one compiled.
    @numba.njit
    def evaluate_many(P, T, calls):
        total = 0
        for _ in range(calls):
            total += reference_eval(P, T)
        return total

    rng = random.Random(1)
    boards = []
    for fen in BENCH_FENS:
        for _ in range(DESCENDANTS):
            board = chess.Board(fen)
            for _ in range(PLIES):
                moves = list(board.legal_moves)
                if not moves:
                    break
                board.push(rng.choice(moves))
            if not board.is_game_over():
                boards.append(Board(board.fen()))
    evaluate_many(boards[0].P, boards[0].T, 1)          # compile or load, untimed
    best = float("inf")
    checksum = 0
    for _ in range(repeats):
        start = time.perf_counter()
        checksum = sum(int(evaluate_many(b.P, b.T, CALLS)) for b in boards)
        best = min(best, (time.perf_counter() - start) / (len(boards) * CALLS) * 1e9)
    return len(boards), best, checksum


def run_in(checkout: Path, repeats: int) -> tuple:
    """measure() in a fresh process whose engine package is the checkout's (PYTHONPATH; -P:
    nothing else put before it), read from this file, which another checkout may lack."""
    code = f"import runpy; print(*runpy.run_path({__file__!r})['measure']({repeats}))"
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-P", "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[0]), float(out[1]), int(out[2])


@click.command()
@click.argument("checkouts", nargs=-1, type=click.Path(exists=True, file_okay=False))
@click.option("--rounds", default=3, show_default=True, help="alternating rounds")
@click.option("--repeats", default=3, show_default=True, help="timed passes per round (best kept)")
def main(checkouts, rounds, repeats):
    paths = [Path(c).resolve() for c in checkouts] or [ROOT]
    best = {p: float("inf") for p in paths}
    sums = {}
    positions = 0
    for r in range(rounds):
        for path in paths:
            positions, ns, checksum = run_in(path, repeats)
            best[path] = min(best[path], ns)
            sums[path] = checksum
            print(f"round {r + 1}: {path}: {ns:.1f} ns", flush=True)
    print(f"\n{positions} positions, best of {rounds} rounds x {repeats} passes")
    print("| checkout | ns per reference_eval | ratio to the first | checksum |")
    print("|---|---|---|---|")
    for path in paths:
        print(f"| {path} | {best[path]:.1f} | {best[path] / best[paths[0]]:.3f} | {sums[path]} |")


if __name__ == "__main__":
    main()
