#!/usr/bin/env python3
"""Two matches on the same openings, compared game for game: did engine A score more than
engine B against the same opponent, and by more than the noise?

Each match is a PGN that scripts/match.py (or cutechess-cli) wrote, with the engine of
interest named in it. A game's opening is the position where the engines took over (the
moves before the first `[%clk]` comment; in a game without clock comments, the first
--book-plies plies); games are paired by opening and by the colour the engine had, in the
order they appear. For each pair the difference of the engine's points (-1 .. +1) is
counted, and its mean over the pairs gives the difference with a 95% interval: the pairing
removes the part of the noise that comes from the openings themselves.

    python -m lab.matches.compare_matches A.pgn ENGINE_A B.pgn ENGINE_B [--book-plies 16]
"""
import math
from collections import defaultdict
from typing import Dict, List, NamedTuple, Tuple

import chess.pgn
import click

from scripts.match import elo_from_score

WHITE_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class Game(NamedTuple):
    opening: Tuple[str, Tuple[str, ...]]   # (starting FEN, book moves in UCI)
    white: bool                            # the engine had white
    points: float                          # the engine's points: 1, 0.5 or 0


def opening_of(game: chess.pgn.Game, book_plies: int) -> Tuple[str, Tuple[str, ...]]:
    """(starting FEN, the moves played before the first clock comment), or the first
    `book_plies` moves when the game has no clock comment."""
    moves = []
    timed = False
    for node in game.mainline():
        if node.clock() is not None:
            timed = True
            break
        moves.append(node.move.uci())
    if not timed:
        moves = moves[:book_plies]
    return game.board().fen(), tuple(moves)


def load_games(path: str, engine: str, book_plies: int = 16) -> List[Game]:
    """The finished games of `engine` in the PGN at `path`, in file order.

    Raises ValueError when the engine plays in none of them."""
    games = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                break
            result = game.headers.get("Result", "*")
            if result not in WHITE_POINTS:
                continue
            white = game.headers.get("White") == engine
            if not white and game.headers.get("Black") != engine:
                continue
            points = WHITE_POINTS[result] if white else 1.0 - WHITE_POINTS[result]
            games.append(Game(opening_of(game, book_plies), white, points))
    if not games:
        raise ValueError(f"no finished game of {engine!r} in {path}")
    return games


def pair_games(a: List[Game], b: List[Game]) -> List[Tuple[Game, Game]]:
    """Games of `a` and `b` with the same opening and colour, the k-th occurrence of each
    (opening, colour) in `a` with the k-th in `b`; the unpaired ones are left out."""
    waiting: Dict[tuple, List[Game]] = defaultdict(list)
    for game in reversed(b):   # each list ends with its first occurrence: pop() takes it
        waiting[(game.opening, game.white)].append(game)
    pairs = []
    for game in a:
        same = waiting[(game.opening, game.white)]
        if same:
            pairs.append((game, same.pop()))
    return pairs


class Comparison(NamedTuple):
    pairs: int
    points_a: float
    points_b: float
    better: int          # pairs where A scored more
    worse: int
    same: int
    mean_diff: float     # A's points minus B's per game
    half_width: float    # of the 95% interval of mean_diff


def compare(pairs: List[Tuple[Game, Game]]) -> Comparison:
    """The paired difference of points (A - B) over `pairs`, with a normal 95% interval."""
    if not pairs:
        raise ValueError("no game of the two matches shares an opening and a colour")
    diffs = [x.points - y.points for x, y in pairs]
    n = len(diffs)
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return Comparison(n, sum(x.points for x, _ in pairs), sum(y.points for _, y in pairs),
                      sum(d > 0 for d in diffs), sum(d < 0 for d in diffs),
                      sum(d == 0 for d in diffs), mean, 1.96 * math.sqrt(variance / n))


def _describe(name: str, points: float, games: int) -> str:
    share = points / games
    return f"{name}: {points:g} / {games} ({100 * share:.1f}%, {elo_from_score(share):+.0f} Elo)"


@click.command()
@click.argument("pgn_a")
@click.argument("engine_a")
@click.argument("pgn_b")
@click.argument("engine_b")
@click.option("--book-plies", default=16, show_default=True,
              help="Opening length for games without clock comments (8moves_v3: 16).")
def main(pgn_a, engine_a, pgn_b, engine_b, book_plies):
    """Compare ENGINE_A's games in PGN_A with ENGINE_B's in PGN_B, opening for opening."""
    a = load_games(pgn_a, engine_a, book_plies)
    b = load_games(pgn_b, engine_b, book_plies)
    result = compare(pair_games(a, b))
    print(f"paired games: {result.pairs} (of {len(a)} and {len(b)})")
    print(_describe(engine_a, result.points_a, result.pairs))
    print(_describe(engine_b, result.points_b, result.pairs))
    print(f"{engine_a} better in {result.better}, worse in {result.worse}, the same in {result.same}")
    print(f"difference: {100 * result.mean_diff:+.1f} points per 100 games "
          f"[{100 * (result.mean_diff - result.half_width):+.1f}, "
          f"{100 * (result.mean_diff + result.half_width):+.1f}] (95%)")


if __name__ == "__main__":
    main()
