#!/usr/bin/env python3
"""Transposition-table speed: stores + probes per second on random keys, per scheme and
table size (1 MB, 64 MB, 1 GB: cache effects), and the nodes the table saves on the bench
positions.

    python scripts/bench_tt.py [--sizes 1,64,1024] [--ops 2000000] [--depth 7]
"""
import time

import click
import numpy as np

from engine._jit import jit
from engine import tt as T
from engine.tt_registry import REGISTRY


@jit
def _hammer(table, keys, rounds):
    """Store then probe every key, `rounds` times; returns hits (so nothing is optimised away)."""
    hits = 0
    for r in range(rounds):
        for i in range(keys.shape[0]):
            T.tt_store(table, keys[i], 0, i & 0xFFF, i & 0x3FF, (i + r) & 31, 3, i)
        for i in range(keys.shape[0]):
            found, move, score, depth, bound, size = T.tt_probe(table, keys[i], 0)
            hits += found
    return hits


@click.command()
@click.option("--sizes", default="1,64,1024", show_default=True, help="Table sizes in MB.")
@click.option("--ops", default=2_000_000, show_default=True, help="Random keys per measurement.")
@click.option("--depth", default=7, show_default=True, help="Depth for the node comparison.")
def main(sizes, ops, depth):
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 2 ** 63, size=ops, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(1)
    warm = T.new_table(positions=1024)
    _hammer(warm, keys[:1000], 1)
    click.echo("| scheme | table | allocate | stores+probes/s | hit rate |")
    click.echo("|---|---|---|---|---|")
    for mb in (int(s) for s in sizes.split(",")):
        for index, scheme in enumerate(REGISTRY):
            start = time.perf_counter()
            table = T.new_table(mb=mb, scheme=index)
            allocate = time.perf_counter() - start
            T.tt_new_search(table)
            start = time.perf_counter()
            hits = _hammer(table, keys, 1)
            elapsed = time.perf_counter() - start
            click.echo(f"| {scheme.name} | {mb} MB | {allocate * 1000:.1f} ms | "
                       f"{2 * ops / elapsed / 1e6:.1f} M | {hits / ops:.1%} |")
            del table
    start = time.perf_counter()
    big = T.new_table(mb=1024)
    big = T.clear_table(big)
    click.echo(f"\n1 GB table allocated and cleared twice in {time.perf_counter() - start:.3f} s")

    from engine.bench import BENCH_FENS
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session
    click.echo(f"\nnodes on the {len(BENCH_FENS)} bench positions at depth {depth}:")
    for label in ("play", "paper"):
        totals = []
        for use in ("full", "none"):
            session = Session(profile=label, hash_mb=64, use=use)
            total = 0
            for fen in BENCH_FENS:
                session.new_table()
                total += session.search(Board(fen), Limits(depth=depth)).nodes
            totals.append(total)
        click.echo(f"  {label}: with table {totals[0]:,}, without {totals[1]:,} "
                   f"({(totals[0] - totals[1]) / totals[1]:+.1%})")


if __name__ == "__main__":
    main()
