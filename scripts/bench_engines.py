#!/usr/bin/env python3
"""Nodes per second against other engines, per position.

Each engine searches each middle-game position for a fixed time (`go movetime`, one
thread, 16 MB hash, a fresh game per position), one engine at a time, alternating the
order per position so that a noisy machine disturbs both alike. The figure is the last
`info` line's nodes and time (the engine's own count). Node counts of different engines
measure different things (what a node is, what is pruned), so the ratio says how fast a
node is, not how strong the search is.

    python scripts/bench_engines.py [--engine toga2=/usr/games/toga2] [--seconds 5]
"""
import shlex
import sys
from pathlib import Path

import chess
import chess.engine
import click

ROOT = Path(__file__).resolve().parent.parent

# Middle-game positions: a Ruy Lopez, a Queen's Gambit Declined and a Sicilian, each
# about 15 moves in, with every piece type still on the board.
POSITIONS = [
    "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BPP1N2/PP3PPP/RNBQR1K1 w - - 0 9",
    "r2q1rk1/pp1nbppp/2p1pn2/3p4/2PP1B2/2N1PN2/PPQ2PPP/R3KB1R w KQ - 0 9",
    "r1b1k2r/1pqpbppp/p1n1pn2/8/3NP3/2N1B3/PPP1BPPP/R2QK2R w KQkq - 0 9",
]


def speed(command, fen, seconds):
    """(nodes, nodes per second) of one fixed-time search."""
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(command))
    try:
        options = {name: value for name, value in (("Threads", 1), ("Hash", 16))
                   if name in engine.options}
        engine.configure(options)
        info = engine.analyse(chess.Board(fen), chess.engine.Limit(time=seconds),
                              info=chess.engine.INFO_BASIC)
    finally:
        engine.quit()
    nodes = info.get("nodes", 0)
    elapsed = info.get("time") or seconds
    return nodes, int(info.get("nps") or nodes / elapsed)


@click.command()
@click.option("--twobig", default=str(ROOT / ".venv" / "bin" / "twobig"), show_default=True)
@click.option("--engine", "others", multiple=True, default=["toga2=/usr/games/toga2"],
              show_default=True,
              help="NAME=COMMAND of an engine to compare with (a command line: arguments allowed).")
@click.option("--seconds", default=5.0, show_default=True)
def main(twobig, others, seconds):
    engines = [("twobig", twobig)] + [tuple(item.split("=", 1)) for item in others]
    click.echo(f"{seconds:g} s per search, one thread each; nodes/s (nodes)")
    click.echo("| position | " + " | ".join(name for name, _ in engines)
               + " | " + " | ".join(f"twobig / {name}" for name, _ in engines[1:]) + " |")
    click.echo("|---" * (2 * len(engines)) + "|")
    for number, fen in enumerate(POSITIONS, 1):
        order = engines if number % 2 else engines[::-1]
        figures = {name: speed(command, fen, seconds) for name, command in order}
        cells = [f"{figures[name][1]:,} ({figures[name][0]:,})" for name, _ in engines]
        ratios = [f"{figures['twobig'][1] / max(1, figures[name][1]):.2f}" for name, _ in engines[1:]]
        click.echo(f"| {number} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    sys.exit(main())
