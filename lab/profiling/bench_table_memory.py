#!/usr/bin/env python3
"""What the transposition table's memory costs the search: one position searched to a fixed
depth with tables of several sizes, in alternating rounds, as nodes per second of process
time. A table that fits the processor's caches shows the search's speed without memory
stalls; the gap to the play default (16 MB) bounds what hiding the table's latency better
could gain. The trees differ (a smaller table stores less), so this compares speeds, not
node counts.

    python -m lab.profiling.bench_table_memory [--fen FEN] [--depth 20] [--sizes 1,16,256] [--rounds 3]
"""
import time

import click

from engine.board import Board
from engine.driver import Limits, Searcher
from engine.tt import new_table

ROOK_ENDGAME = "8/1p3pk1/p1r3p1/8/P2R4/6P1/1P3PK1/8 w - - 0 40"   # `make bench`'s endgame


def measure(searcher, fen, depth, mb):
    """(nodes, nodes per second of process time) of one search with a new table of `mb` MB."""
    table = new_table(mb=mb)
    start = time.process_time()
    result = searcher.run(Board(fen), table, Limits(depth=depth))
    return result.nodes, result.nodes / (time.process_time() - start)


@click.command()
@click.option("--fen", default=ROOK_ENDGAME, show_default=True)
@click.option("--depth", default=20, show_default=True)
@click.option("--sizes", default="1,16,256", show_default=True, help="Table sizes in MB.")
@click.option("--rounds", default=3, show_default=True)
def main(fen, depth, sizes, rounds):
    sizes = [int(mb) for mb in sizes.split(",")]
    searcher = Searcher()
    searcher.run(Board(fen), new_table(mb=1), Limits(depth=4))   # compile before timing
    print("| round | " + " | ".join(f"{mb} MB nodes/s" for mb in sizes) + " |")
    print("|" + "---|" * (len(sizes) + 1))
    for number in range(1, rounds + 1):
        speeds = [measure(searcher, fen, depth, mb)[1] for mb in sizes]
        print(f"| {number} | " + " | ".join(f"{s:,.0f}" for s in speeds) + " |", flush=True)


if __name__ == "__main__":
    main()
