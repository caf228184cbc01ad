#!/usr/bin/env python3
"""A/B speed of checkouts of TwoBig: the bench positions searched to a fixed depth in each
checkout, in alternating rounds, as nodes per second of process time (CPU time: on a shared
machine the time other tenants take is not charged, which halves the spread of wall-clock
figures). Every checkout must search the same tree (the same node count) for the ratio to
mean speed; the script says so when they differ.

    python -m lab.profiling.bench_checkouts BASE_CHECKOUT OTHER_CHECKOUT... [--depth 11] [--rounds 3]

Each checkout runs in its own process with this interpreter, its own tree first on the
path; warm each one's numba cache first (`python uci_main.py warm` in it).
"""
import subprocess
import sys
from pathlib import Path

import click

PROBE = """
import time
from engine.bench import run_bench
run_bench(depth=3, echo=None)
start = time.process_time()
nodes, _ = run_bench(depth={depth}, echo=None)
print(nodes, nodes / (time.process_time() - start))
"""


def measure(checkout: Path, depth: int):
    """(nodes, nodes per second of process time) of one bench run in `checkout` (`-c` puts
    the working folder, the checkout, first on the path)."""
    code = PROBE.format(depth=depth)
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, capture_output=True,
                         text=True, check=True).stdout.split()
    return int(out[-2]), float(out[-1])


@click.command()
@click.argument("checkouts", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--depth", default=11, show_default=True)
@click.option("--rounds", default=3, show_default=True)
def main(checkouts, depth, rounds):
    checkouts = [c.resolve() for c in checkouts]
    header = " | ".join(c.name for c in checkouts)
    ratios = " | ".join(f"{c.name} / {checkouts[0].name}" for c in checkouts[1:])
    print(f"| round | {header} | {ratios} |")
    print("|" + "---|" * (1 + 2 * len(checkouts) - 1))
    best = [0.0] * len(checkouts)
    node_counts = set()
    for number in range(1, rounds + 1):
        speeds = []
        for i, checkout in enumerate(checkouts):
            nodes, speed = measure(checkout, depth)
            node_counts.add(nodes)
            speeds.append(speed)
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
