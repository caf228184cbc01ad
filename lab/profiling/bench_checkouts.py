#!/usr/bin/env python3
"""A/B speed of checkouts of TwoBig: the bench positions searched to a fixed depth in each
checkout, in alternating rounds, as nodes per second of process time (CPU time: on a shared
machine the time other tenants take is not charged, which halves the spread of wall-clock
figures). Every checkout must search the same tree (the same node count) for the ratio to
mean speed; the script says so when they differ.

    python -m lab.profiling.bench_checkouts BASE_CHECKOUT OTHER_CHECKOUT... [--depth 11] [--rounds 3]
    python -m lab.profiling.bench_checkouts BASE OTHER --fen FEN --depth 22 [--hash 16]

With `--fen` one position is searched instead of the bench, from a new table of `--hash`
MB. The checkouts take turns in each round, in reverse order every other round, so that a
drift in the machine's load does not favour one of them. Each checkout runs in its own
process with this interpreter, its own tree first on the path; warm each one's numba cache
first (`python uci_main.py warm` in it).
"""
import subprocess
import sys
from pathlib import Path

import click

PROBE = """
import time
from engine.bench import run_bench
options = {options!r}
run_bench(depth=3, echo=None, **options)
start = time.process_time()
nodes, _ = run_bench(depth={depth}, echo=None, **options)
print(nodes, nodes / (time.process_time() - start))
"""


def measure(checkout: Path, depth: int, fen=None, hash_mb=16):
    """(nodes, nodes per second of process time) of one bench run in `checkout`, or of one
    search of `fen` (`-c` puts the working folder, the checkout, first on the path)."""
    options = {} if fen is None else dict(fens=[fen], hash_mb=hash_mb)
    code = PROBE.format(depth=depth, options=options)
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[-2]), float(out[-1])


@click.command()
@click.argument("checkouts", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--depth", default=11, show_default=True)
@click.option("--rounds", default=3, show_default=True)
@click.option("--fen", default=None, help="Search this position instead of the bench.")
@click.option("--hash", "hash_mb", default=16, show_default=True, help="Table MB with --fen.")
def main(checkouts, depth, rounds, fen, hash_mb):
    checkouts = [c.resolve() for c in checkouts]
    header = " | ".join(c.name for c in checkouts)
    ratios = " | ".join(f"{c.name} / {checkouts[0].name}" for c in checkouts[1:])
    print(f"| round | {header} | {ratios} |")
    print("|" + "---|" * (1 + 2 * len(checkouts) - 1))
    best = [0.0] * len(checkouts)
    node_counts = set()
    for number in range(1, rounds + 1):
        speeds = [0.0] * len(checkouts)
        turns = list(enumerate(checkouts))
        for i, checkout in (turns if number % 2 else turns[::-1]):
            nodes, speed = measure(checkout, depth, fen, hash_mb)
            node_counts.add(nodes)
            speeds[i] = speed
            best[i] = max(best[i], speed)
        cells = " | ".join(f"{s:,.0f}" for s in speeds)
        rel = " | ".join(f"{s / speeds[0]:.3f}" for s in speeds[1:])
        print(f"| {number} | {cells} | {rel} |", flush=True)
    cells = " | ".join(f"{s:,.0f}" for s in best)
    rel = " | ".join(f"{s / best[0]:.3f}" for s in best[1:])
    print(f"| best | {cells} | {rel} |")
    if len(node_counts) > 1:
        print(f"the checkouts searched different trees (nodes: {sorted(node_counts)}): "
              "the ratios mix speed with search changes")


if __name__ == "__main__":
    main()
