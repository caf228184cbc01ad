#!/usr/bin/env python3
"""Lazy SMP scaling: nodes per second and time to depth for 1, 2, 4... threads.

Each position is searched to a fixed depth with a fresh table, once per thread count,
the thread counts alternating so that a change in the machine's load hits them alike.
Reported per thread count: total nodes, seconds, nodes/s and the ratios to one thread.

    python scripts/bench_threads.py [--threads 1,2] [--depth 12] [--positions 8] [--rounds 2]
"""
import time

import click

from engine.bench import BENCH_FENS

# Middle-game bench positions (the start position and endgames left out).
MIDDLE_GAME = [BENCH_FENS[i] for i in (1, 5, 6, 7, 8, 11, 13, 14, 15, 17, 19, 25)]


@click.command()
@click.option("--threads", "thread_list", default="1,2", show_default=True)
@click.option("--depth", default=12, show_default=True)
@click.option("--positions", default=8, show_default=True)
@click.option("--rounds", default=2, show_default=True)
@click.option("--hash-mb", default=64, show_default=True)
def main(thread_list, depth, positions, rounds, hash_mb):
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session

    counts = [int(t) for t in thread_list.split(",")]
    fens = MIDDLE_GAME[:positions]
    session = Session(hash_mb=hash_mb)
    session.search(Board(), Limits(depth=2))              # load the kernels untimed
    totals = {t: [0, 0.0] for t in counts}
    for round_number in range(rounds):
        order = counts if round_number % 2 == 0 else counts[::-1]
        for fen_number, fen in enumerate(fens, 1):
            for threads in order:
                session.set_threads(threads)
                session.new_table()
                start = time.perf_counter()
                result = session.search(Board(fen), Limits(depth=depth))
                seconds = time.perf_counter() - start
                totals[threads][0] += result.nodes
                totals[threads][1] += seconds
                print(f"round {round_number + 1} position {fen_number} threads {threads:3d} "
                      f"nodes {result.nodes:>10d} time {seconds:7.2f} s "
                      f"{result.nodes / seconds:>10.0f} nodes/s", flush=True)
    base_nodes, base_seconds = totals[counts[0]]
    print(f"\ndepth {depth}, {len(fens)} middle-game positions x {rounds} rounds")
    print("threads      nodes    seconds     nodes/s   nps ratio   time-to-depth ratio")
    for threads in counts:
        nodes, seconds = totals[threads]
        print(f"{threads:7d} {nodes:10d} {seconds:10.2f} {nodes / seconds:11.0f} "
              f"{(nodes / seconds) / (base_nodes / base_seconds):11.2f} "
              f"{seconds / base_seconds:21.2f}")


if __name__ == "__main__":
    main()
