#!/usr/bin/env python3
"""What two search threads can reach on this machine: nodes/s of one one-thread TwoBig
process alone, of two such processes searching at once (their sum: the machine's ceiling
for two threads, whatever the engine does), and of one process with Threads 2, each as a
ratio to the first. The middle-game position of scripts/bench.py, a new process each time.

    python -m lab.profiling.thread_ceiling [--seconds 5] [--rounds 3]
"""
import sys
import threading
from pathlib import Path

import chess
import chess.engine
import click

ROOT = Path(__file__).resolve().parents[2]
TWOBIG = [sys.executable, str(ROOT / "uci_main.py")]
MIDDLE_GAME = "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BPP1N2/PP3PPP/RNBQR1K1 w - - 0 9"


def nodes_per_second(seconds: float, threads: int = 1) -> float:
    """nodes/s of one search of the middle game: the `nps` of the engine's last iteration
    line (as scripts/bench.py reads it; a `currmove` line's node count comes without time)."""
    with chess.engine.SimpleEngine.popen_uci(TWOBIG, cwd=ROOT) as engine:
        engine.configure({"Threads": threads, "Hash": 16})
        info = engine.analyse(chess.Board(MIDDLE_GAME), chess.engine.Limit(time=seconds))
    return float(info["nps"])


def two_at_once(seconds: float) -> float:
    """The summed nodes/s of two one-thread processes searching at the same time."""
    speeds = [0.0, 0.0]

    def run(index):
        speeds[index] = nodes_per_second(seconds)

    workers = [threading.Thread(target=run, args=(index,)) for index in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(speeds)


@click.command()
@click.option("--seconds", default=5.0, show_default=True, help="Each search's time.")
@click.option("--rounds", default=3, show_default=True)
def main(seconds, rounds):
    click.echo("| round | one process, Threads 1 (nodes/s) | two processes at once | Threads 2 |")
    click.echo("|---|---|---|---|")
    for number in range(1, rounds + 1):
        alone = nodes_per_second(seconds)
        pair = two_at_once(seconds)
        threaded = nodes_per_second(seconds, threads=2)
        click.echo(f"| {number} | {alone:,.0f} | {pair / alone:.2f}x | {threaded / alone:.2f}x |")


if __name__ == "__main__":
    main()
