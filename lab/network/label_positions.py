#!/usr/bin/env python3
"""Label quiet positions with a stronger engine's score, for Texel tuning against scores
instead of game results (lab/network/texel_tune.py --labels).

A game result labels all of a game's positions alike: a position from which the loser
stood well is marked lost. A strong engine's shallow search scores each position on its
own, so the same number of positions carries far more signal.

    python -m lab.network.label_positions --out labels.txt                # Stockfish, 5,000 nodes
    python -m lab.network.label_positions --count 20000 --engine stockfish --nodes 20000 --jobs 2

Positions: the quiet positions of lab/network/texel.py (the side to move not in check, a quiet
move played from it, past the opening plies) of the given games (default: the self-play
matches, docs/gauntlet/sprt_*.pgn), `--count` of them drawn at random (`--seed`). Each
output line is `FEN;score;game`: the engine's score in centipawns from white's point of
view (a mate is written as +-MATE_CP), and the index of the game the position came from
(the tuner holds whole games out). Needs the engine (Debian: `apt-get install stockfish`;
the binary is /usr/games/stockfish, not on PATH).
"""
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import chess
import chess.engine
import click
import numpy as np

from lab.network import texel

ROOT = Path(__file__).resolve().parents[2]

MATE_CP = 3000


def _engine_path(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/games")
    if found is None:
        raise click.ClickException(f"{name} not found (Debian: apt-get install {name})")
    return found


def _label(path: str, nodes: int, hash_mb: int, boards):
    """Scores (white's view) of `boards`, one engine process, searched one after another
    with the table cleared before each (every label is independent of the order)."""
    scores = []
    with chess.engine.SimpleEngine.popen_uci(path) as engine:
        engine.configure({"Threads": 1, "Hash": hash_mb})
        for board in boards:
            info = engine.analyse(board, chess.engine.Limit(nodes=nodes), game=object())
            scores.append(info["score"].white().score(mate_score=MATE_CP))
    return scores


@click.command()
@click.option("--pgn", "pgns", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="PGN file of games (repeatable); default: docs/gauntlet/sprt_*.pgn")
@click.option("--skip-plies", default=16, show_default=True, help="opening plies left out")
@click.option("--count", default=100_000, show_default=True, help="positions drawn")
@click.option("--seed", default=0, show_default=True)
@click.option("--engine", "engine_name", default="stockfish", show_default=True)
@click.option("--nodes", default=5000, show_default=True, help="nodes per position")
@click.option("--hash", "hash_mb", default=16, show_default=True)
@click.option("--jobs", default=2, show_default=True, help="engine processes")
@click.option("--out", required=True, type=click.Path(dir_okay=False))
def main(pgns, skip_plies, count, seed, engine_name, nodes, hash_mb, jobs, out):
    from tqdm import tqdm

    path = _engine_path(engine_name)
    samples, source = texel.load_samples(ROOT, pgns, skip_plies)
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(len(samples), size=min(count, len(samples)), replace=False))
    samples = [samples[i] for i in chosen]
    print(f"{len(samples):,} of the quiet positions {source}, "
          f"{engine_name} at {nodes:,} nodes, {jobs} processes", file=sys.stderr)
    chunk = 500
    pieces = [samples[i:i + chunk] for i in range(0, len(samples), chunk)]
    with open(out, "w") as handle, ThreadPoolExecutor(jobs) as pool, \
            tqdm(total=len(samples), unit="pos") as bar:
        # Each piece gets its own engine process: the pool runs `jobs` of them at a time.
        futures = [pool.submit(_label, path, nodes, hash_mb, [b for _, b, _ in piece])
                   for piece in pieces]
        for piece, future in zip(pieces, futures):
            for (game, board, _), score in zip(piece, future.result()):
                handle.write(f"{board.fen()};{score};{game}\n")
            bar.update(len(piece))


if __name__ == "__main__":
    main()
