#!/usr/bin/env python3
"""Perft speed of TwoBig against python-chess, measured in the same run (start-up times and
the comparison with Stockfish's `go perft` are in scripts/bench.py, the table of `make bench`).

    python scripts/bench_perft.py
    python scripts/bench_perft.py --quick    # shallower, for a smoke test

Reports nodes/s (leaves per second) bulk-counted (the last ply counted from the move list)
and not (every leaf made and unmade), and the ratio against python-chess's perft on the
same positions.
"""
import os
import sys
import time

import click


POSITIONS = [
    ("start", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 4),
    ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 3),
]


def python_chess_perft(board, depth):
    """Perft with python-chess, bulk-counting the last ply like TwoBig's bulk perft."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


@click.command()
@click.option("--quick", is_flag=True, help="Shallower perfts.")
def main(quick):
    from engine.board import Board
    import chess

    click.echo(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, one thread\n")
    click.echo("| position | depth | mode | leaves | seconds | leaves/s |")
    click.echo("|---|---|---|---|---|---|")
    ratios = []
    for name, fen, depth, oracle_depth in POSITIONS:
        if quick:
            depth, oracle_depth = depth - 2, oracle_depth - 1
        board = Board(fen)
        board.perft(2)  # load the kernels before timing
        bulk, t_bulk = timed(board.perft, depth, True)
        full, t_full = timed(board.perft, depth - 1, False)
        ref, t_ref = timed(python_chess_perft, chess.Board(fen), oracle_depth)
        assert ref == board.perft(oracle_depth)
        mine_ref, t_mine_ref = timed(board.perft, oracle_depth, True)
        for mode, d, n, t in (("TwoBig bulk", depth, bulk, t_bulk),
                              ("TwoBig make/unmake every leaf", depth - 1, full, t_full),
                              ("python-chess bulk", oracle_depth, ref, t_ref)):
            click.echo(f"| {name} | {d} | {mode} | {n:,} | {t:.3f} | {n / t / 1e6:.2f} M |")
        ratio = (bulk / t_bulk) / (ref / t_ref)
        ratios.append(ratio)
        click.echo(f"| {name} | | ratio TwoBig bulk / python-chess bulk | | | **{ratio:.0f}x** |")


if __name__ == "__main__":
    main()
