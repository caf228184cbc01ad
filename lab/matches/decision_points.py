#!/usr/bin/env python3
"""Where an engine's lost games were decided, and whether it saw it, from the engines' own
scores in cutechess-cli's move comments (`{+0.32/18 2.1s}`); no referee engine is run.

For each game the examined engine lost, the opponent's scores are read from the examined
engine's side. The decision point is the opponent's first move from which every later
score of the opponent stays below -THRESHOLD pawns; its phase is that of the position
before that move (lab/matches/loss_profile.py's phases). The examined engine's own score
at its last move before the decision point says whether it saw the loss coming: below
-SAW pawns it did, at -BLIND or above it did not (a blind spot), between is neither. The
lag is how many of its own moves later, counted from that move, its score first falls
below -THRESHOLD.

    python -m lab.matches.decision_points --pgn games.pgn --engine TwoBig
"""
import statistics
from collections import Counter
from typing import List, Optional

import chess
import chess.pgn
import click

from lab.matches.loss_profile import PHASES, non_pawn_material, phase_of
from lab.matches.time_usage import read_games, cutechess_comment

THRESHOLD = 1.0   # pawns: the opponent holds the game won from here on
SAW = 0.5         # the examined engine's own score below -SAW: it saw the loss coming
BLIND = 0.3       # at -BLIND or above: it did not


def decision(game: chess.pgn.Game, engine: str) -> Optional[dict]:
    """The decision point of `game` if `engine` played and lost it, else None: a dict of
    move (the full move number of the opponent's deciding move), phase, own (the engine's
    score at its last move before it, None when it had made none) and lag (its own moves
    until its score fell below -THRESHOLD, None if it never did)."""
    white = game.headers.get("White") == engine
    if not white and game.headers.get("Black") != engine:
        return None
    if game.headers.get("Result") != ("0-1" if white else "1-0"):
        return None
    board = game.board()
    ours: List[float] = []            # the engine's own scores, in order
    theirs = []                       # (score from the engine's side, phase, move, own count)
    for ply, node in enumerate(game.mainline()):
        found = cutechess_comment(node.comment)
        mover_is_engine = board.turn == (chess.WHITE if white else chess.BLACK)
        if found:
            if mover_is_engine:
                ours.append(found[0])
            else:
                theirs.append((-found[0], phase_of(ply, non_pawn_material(board)),
                               board.fullmove_number, len(ours)))
        board.push(node.move)
    start = None
    for index in range(len(theirs) - 1, -1, -1):   # the last run of scores below -THRESHOLD
        if theirs[index][0] >= -THRESHOLD:
            break
        start = index
    if start is None:
        return None
    _, phase, move, before = theirs[start]
    own = ours[before - 1] if before else None
    lag = next((k for k, score in enumerate(ours[max(before - 1, 0):]) if score < -THRESHOLD),
               None)
    return dict(move=move, phase=phase, own=own, lag=lag)


def summary(points: List[dict]) -> List[str]:
    """The report's lines: losses by phase at the decision, saw / between / blind, the lag."""
    phases = Counter(point["phase"] for point in points)
    known = [point["own"] for point in points if point["own"] is not None]
    saw = sum(score < -SAW for score in known)
    blind = sum(score >= -BLIND for score in known)
    lags = [point["lag"] for point in points if point["lag"] is not None]
    lines = [f"lost games with a decision point: {len(points)}",
             "decided in: " + ", ".join(f"{phase} {phases[phase]}" for phase in PHASES),
             f"own score at its move before the decision ({len(known)} games): below "
             f"-{SAW:.2f} {saw}, between {len(known) - saw - blind}, -{BLIND:.2f} or above "
             f"(not seen) {blind}"]
    if lags:
        lines.append(f"own moves until its score fell below -{THRESHOLD:.2f}: mean "
                     f"{statistics.mean(lags):.1f}, median {statistics.median(lags):g} "
                     f"({len(lags)} games)")
    if points:
        lines.append(f"decisive move: mean {statistics.mean(p['move'] for p in points):.1f}, "
                     f"median {statistics.median(p['move'] for p in points):g}")
    return lines


@click.command()
@click.option("--pgn", "pgns", multiple=True, required=True,
              type=click.Path(exists=True, dir_okay=False), help="cutechess-cli PGN (repeatable)")
@click.option("--engine", required=True, help="the player whose lost games are examined")
def main(pgns, engine):
    points = [point for path in pgns for game in read_games(path)
              if (point := decision(game, engine)) is not None]
    click.echo("\n".join(summary(points)))


if __name__ == "__main__":
    main()
