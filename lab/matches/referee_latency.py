#!/usr/bin/env python3
"""How long scripts/match.py's referee takes over a move, beyond what the engine was told to
spend: the pauses a game's clock charges to the engine that are not its search. The moves
are made the way a match makes them (match.py's Player, which waits for `readyok` before
any clock runs, and its `_play_with_deadline` thread), each a `go movetime MOVETIME`, along
one game of the engine's own moves (a random legal move one time in ten, so the positions
vary; a new game after 120 plies or at its end).

    python -m lab.matches.referee_latency --engine .venv/bin/twobig --moves 6000

Run it beside the load a match would have (another match, or `twobig perft 6` loops) to see
the pauses that load causes. With the default Move Overhead of 100 ms a `go movetime 30`
searches for the 1 ms minimum, so what is measured is almost all pipe, engine glue and
referee.
"""
import random
import statistics
import time

import chess
import chess.engine
import click

from scripts.match import Player, _play_with_deadline


def referee_times(engine: str, moves: int, movetime_ms: int, seed: int):
    """Seconds from the referee's call to the engine's move, one per move."""
    rng = random.Random(seed)
    player = Player("engine", engine, {})
    board = chess.Board()
    seconds = []
    try:
        for _ in range(moves):
            if board.is_game_over() or board.ply() >= 120:
                board = chess.Board()
            start = time.perf_counter()
            played = _play_with_deadline(player, board, chess.engine.Limit(time=movetime_ms / 1000),
                                         60.0, None)
            seconds.append(time.perf_counter() - start)
            board.push(played.move if rng.random() < 0.9 else rng.choice(list(board.legal_moves)))
    finally:
        player.close()
    return seconds


@click.command()
@click.option("--engine", default=".venv/bin/twobig", show_default=True)
@click.option("--moves", default=1000, show_default=True)
@click.option("--movetime-ms", default=30, show_default=True)
@click.option("--seed", default=1, show_default=True)
@click.option("--over-ms", default=100, show_default=True,
              help="List the moves whose referee time passed this many ms.")
def main(engine, moves, movetime_ms, seed, over_ms):
    seconds = referee_times(engine, moves, movetime_ms, seed)
    ms = sorted(1000 * s for s in seconds)
    slow = [(number, round(1000 * s)) for number, s in enumerate(seconds) if 1000 * s > over_ms]
    click.echo(f"{len(ms)} moves of go movetime {movetime_ms}: referee time median {statistics.median(ms):.1f} ms, "
               f"99th percentile {ms[int(0.99 * (len(ms) - 1))]:.1f} ms, max {ms[-1]:.1f} ms")
    click.echo(f"over {over_ms} ms: {len(slow)}" + (f" (move, ms): {slow[:20]}" if slow else ""))


if __name__ == "__main__":
    main()
