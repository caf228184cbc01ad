#!/usr/bin/env python3
"""Label positions with Stockfish's static network evaluation, fast enough for millions.

lab/network/label_positions.py searches each position (5,000 nodes: about 140 positions a
second per process). Stockfish 15.1's `eval` command prints its network's static
evaluation of a position without searching ("NNUE evaluation  +0.23 (white side)"): about
4,500 positions a second per process, so a two-core machine labels a million positions in
a few minutes. That network was itself trained on the scores of searches, so its static
value is a search-informed label of a quiet position.

Positions: from every game of the PGN files, each position past `--skip-plies` with the
side to move not in check and a quiet move played from it (lab/network/texel.py's filter), and,
with `--perturb`, positions one random legal quiet move away from it (moves that do not
give check; `--perturb 2` two of them, by different moves): positions a search visits are
less balanced than the ones played. Each output line is `FEN;score;game;result`:
lab/network/label_positions.py's format (centipawns from white's view, the game's index)
and the game's result from white's view (1, 0.5 or 0; left out with the `;` when the PGN
has none), which lab/network/nnue_train.py's `--result-weight` blends into the target.

    python -m lab.network.label_static --out static.txt                 # docs/gauntlet/*.pgn
    python -m lab.network.label_static --pgn a.pgn --jobs 2 --perturb 0.5 --out static.txt
"""
import random
import re
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import chess
import chess.pgn
import click

from lab.network import texel
from lab.network.label_positions import _engine_path

ROOT = Path(__file__).resolve().parents[2]

NNUE_LINE = re.compile(r"^NNUE evaluation\s+([+-]?\d+\.\d+)")
GAMES_PER_FILE = 1_000_000     # game index = file number x this + the game's place in it
BATCH = 256                    # positions sent to the engine before reading its answers


def _perturbed_count(perturb: float, rng: random.Random) -> int:
    """How many perturbed children a played position gets: `perturb` on average, its whole
    part always and one more with the probability of its fraction (0.5: half the positions
    get one; 2.5: every position two, half of them three)."""
    if not perturb:
        return 0
    whole = int(perturb)
    return whole + (1 if rng.random() < perturb - whole else 0)


RESULTS = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}   # PGN result -> white's score


def positions_of(path: Path, skip_plies: int, perturb: float, rng: random.Random,
                 played: bool = True):
    """Yield (game's place in the file, FEN, white's result: "1", "0.5", "0" or "" when the
    game has none) for the positions described above; without `played`, only the perturbed
    ones (a second pass over files already labelled)."""
    with open(path) as handle:
        place = 0
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            board = game.board()
            result = RESULTS.get(game.headers.get("Result", "*"), "")
            for ply, move in enumerate(game.mainline_moves()):
                if texel.is_quiet_sample(board, move, ply, skip_plies):
                    if played:
                        yield place, board.fen(), result
                    count = _perturbed_count(perturb, rng)
                    if count:
                        quiet = [m for m in board.legal_moves
                                 if not board.is_capture(m) and m.promotion is None
                                 and not board.gives_check(m)]
                        # One child by rng.choice: with `--perturb` up to 1 a seed labels the
                        # positions it always did (the shipped network's labels); more
                        # children are distinct moves.
                        if not quiet:
                            chosen = []
                        elif count == 1:
                            chosen = [rng.choice(quiet)]
                        else:
                            chosen = rng.sample(quiet, min(count, len(quiet)))
                        for child in chosen:
                            board.push(child)
                            yield place, board.fen(), result
                            board.pop()
                board.push(move)
            place += 1


class StaticEvaluator:
    """One Stockfish process answering `eval` for batches of FENs (centipawns, white's view;
    None where it prints no network value)."""

    def __init__(self, path: str):
        self.process = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self._send("uci\nisready\n")
        self._read_until_ready()

    def _send(self, text: str):
        self.process.stdin.write(text)
        self.process.stdin.flush()

    def _read_until_ready(self):
        lines = []
        for line in self.process.stdout:
            if line.startswith("readyok"):
                return lines
            lines.append(line)
        raise RuntimeError("the engine closed its output")

    def scores(self, fens):
        self._send("".join(f"position fen {fen}\neval\nisready\n" for fen in fens))
        out = []
        for _ in fens:
            value = None
            for line in self._read_until_ready():
                found = NNUE_LINE.match(line)
                if found:
                    value = round(float(found.group(1)) * 100)
            out.append(value)
        return out

    def close(self):
        self._send("quit\n")
        self.process.wait()


def label_file(job):
    """Worker: label one PGN file into its own part file; returns the positions written."""
    number, path, out, skip_plies, perturb, seed, engine, played = job
    rng = random.Random(seed * 7919 + number)
    evaluator = StaticEvaluator(engine)
    written = 0
    pending = []

    def flush(handle):
        nonlocal written
        for (place, fen, result), score in zip(pending,
                                               evaluator.scores([f for _, f, _ in pending])):
            if score is not None:
                tail = f";{result}" if result else ""
                handle.write(f"{fen};{score};{number * GAMES_PER_FILE + place}{tail}\n")
                written += 1
        pending.clear()

    with open(out, "w") as handle:
        for item in positions_of(Path(path), skip_plies, perturb, rng, played):
            pending.append(item)
            if len(pending) == BATCH:
                flush(handle)
        flush(handle)
    evaluator.close()
    return written


def game_results(paths, first_number: int = 0) -> dict:
    """{game index: white's result ("1", "0.5", "0"; games without one left out)} of the
    PGN files, numbered as main numbers them when it labels the same list."""
    out = {}
    for number, path in enumerate(paths, start=first_number):
        with open(path) as handle:
            place = 0
            while (headers := chess.pgn.read_headers(handle)) is not None:
                result = RESULTS.get(headers.get("Result", "*"))
                if result:
                    out[number * GAMES_PER_FILE + place] = result
                place += 1
    return out


def add_results(labels: Path, results: dict, out: Path) -> int:
    """Copy a `FEN;score;game` file to `out` with each line's game result appended (a line
    whose game has none, or that has one already, is copied as it is); returns the lines
    given a result."""
    given = 0
    with open(labels) as source, open(out, "w") as handle:
        for line in source:
            text = line.rstrip("\n")
            parts = text.split(";")
            result = results.get(int(parts[2])) if len(parts) == 3 and parts[2].isdigit() else None
            if result:
                handle.write(f"{text};{result}\n")
                given += 1
            else:
                handle.write(line)
    return given


@click.command()
@click.option("--pgn", "pgns", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="PGN file of games (repeatable); default: docs/gauntlet/*.pgn")
@click.option("--skip-plies", default=12, show_default=True, help="opening plies left out")
@click.option("--perturb", default=0.5, show_default=True,
              help="perturbed positions per played one, on average: each a different random "
                   "quiet move away (0.5: half the positions get one; 2: every position two)")
@click.option("--seed", default=0, show_default=True)
@click.option("--engine", "engine_name", default="stockfish", show_default=True,
              help="Stockfish 15.x (its `eval` prints the network's value)")
@click.option("--perturbed-only", is_flag=True,
              help="label only the perturbed positions (files labelled before, another --seed)")
@click.option("--first-number", default=0, show_default=True,
              help="number of the first file in game indices (keeps runs' indices apart)")
@click.option("--jobs", default=2, show_default=True, help="engine processes")
@click.option("--add-results", "labels_in", type=click.Path(exists=True, dir_okay=False),
              help="label nothing: copy this label file (written from the same --pgn files "
                   "and --first-number) to --out with each game's result appended")
@click.option("--out", required=True, type=click.Path(dir_okay=False))
def main(pgns, skip_plies, perturb, seed, engine_name, perturbed_only, first_number, jobs,
         labels_in, out):
    from tqdm import tqdm

    paths = [Path(p) for p in pgns] or sorted((ROOT / "docs" / "gauntlet").glob("*.pgn"))
    if labels_in:
        given = add_results(Path(labels_in), game_results(paths, first_number), Path(out))
        print(f"{given:,} lines given their game's result in {out}", file=sys.stderr)
        return
    engine = _engine_path(engine_name)
    parts = [f"{out}.part{n}" for n in range(len(paths))]
    jobs_list = [(first_number + n, str(p), part, skip_plies, perturb, seed, engine,
                  not perturbed_only)
                 for n, (p, part) in enumerate(zip(paths, parts))]
    # The largest files first, so that the last file to finish is a short one.
    jobs_list.sort(key=lambda job: -Path(job[1]).stat().st_size)
    total = 0
    with ProcessPoolExecutor(jobs) as pool, tqdm(total=len(paths), unit="file") as bar:
        for written in pool.map(label_file, jobs_list):
            total += written
            bar.update(1)
    with open(out, "w") as handle:
        for part in parts:
            with open(part) as piece:
                handle.write(piece.read())
            Path(part).unlink()
    print(f"{total:,} positions of {len(paths)} files written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
