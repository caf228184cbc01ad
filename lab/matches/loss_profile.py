#!/usr/bin/env python3
"""Where an engine loses its games: a referee engine scores every position of a match's
games (fixed nodes), and each move's loss is the mover's score before it minus the
mover's score after it. The report splits the moves of both players by game phase
(opening plies, then the non-pawn material left on the board) and, for each game the
profiled engine lost, names the phase of its first decisive drop (from above -150 cp to
below -300) or counts the loss as gradual (no single such move).

    python -m lab.matches.loss_profile --pgn docs/gauntlet/gauntlet_stockfish2400_0946a76.pgn \\
        --engine TwoBig --referee /usr/games/stockfish --nodes 50000 --scores scores.json

Scoring takes the referee's time (Stockfish at 50,000 nodes: about 0.15 s a position);
`--scores` keeps the per-move scores so that `--from-scores` can report them again.
"""
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, List

import chess
import chess.engine
import chess.pgn
import click

OPENING_PLIES = 20         # the first plies are book-like: their own phase
MIDDLEGAME_MATERIAL = 27   # non-pawn material (N, B 3, R 5, Q 9, both sides) from here up...
LATE_MIDDLEGAME_MATERIAL = 13   # ...the late middle game from here up, then the end game
DECIDED = 600              # moves played with the score already beyond this are left out
CAP = 1000                 # scores are capped here (mates included) before the difference
DROP = 100                 # a move losing more than this counts as a mistake...
BLUNDER = 300              # ...more than this as a blunder
DECISIVE_FROM = -150       # a lost game's decisive drop: from above this...
DECISIVE_TO = -300         # ...to below this in one move
MATE_SCORE = 3000
PHASES = ("opening", "middlegame", "late middlegame", "endgame")
PIECE_VALUES = {chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}


def non_pawn_material(board: chess.Board) -> int:
    return sum(len(board.pieces(kind, colour)) * value
               for kind, value in PIECE_VALUES.items() for colour in chess.COLORS)


def phase_of(ply: int, material: int) -> str:
    if ply < OPENING_PLIES:
        return "opening"
    if material >= MIDDLEGAME_MATERIAL:
        return "middlegame"
    return "late middlegame" if material >= LATE_MIDDLEGAME_MATERIAL else "endgame"


def score_games(pgn_paths, referee: chess.engine.SimpleEngine, nodes: int, progress=None) -> List[dict]:
    """One row per move: game number, ply, mover's name, the game's result, the mover's
    colour, the position's phase and the referee's scores (mover's view) before and after."""
    rows = []
    number = 0
    limit = chess.engine.Limit(nodes=nodes)

    def white_score(board):
        if board.is_checkmate():
            return -MATE_SCORE if board.turn == chess.WHITE else MATE_SCORE
        if board.is_game_over(claim_draw=False):
            return 0
        return referee.analyse(board, limit)["score"].white().score(mate_score=MATE_SCORE)

    for path in pgn_paths:
        with open(path) as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                number += 1
                board = game.board()
                before = white_score(board)
                for ply, move in enumerate(game.mainline_moves()):
                    white = board.turn == chess.WHITE
                    phase = phase_of(ply, non_pawn_material(board))
                    board.push(move)
                    after = white_score(board)
                    sign = 1 if white else -1
                    rows.append(dict(game=number, ply=ply,
                                     mover=game.headers["White" if white else "Black"],
                                     white=white, result=game.headers.get("Result", "*"),
                                     phase=phase, before=sign * before, after=sign * after))
                    before = after
                if progress:
                    progress(number)
    return rows


def loss(row: dict) -> int:
    capped = lambda score: max(-CAP, min(CAP, score))  # noqa: E731
    return capped(row["before"]) - capped(row["after"])


def phase_table(rows: List[dict]) -> Dict[tuple, dict]:
    """(mover, phase) -> moves, mean loss (gains count 0), mistakes, blunders; moves
    played in a position already decided (|score| > DECIDED) are left out."""
    table = defaultdict(lambda: dict(moves=0, lost=0, mistakes=0, blunders=0))
    for row in rows:
        if abs(row["before"]) > DECIDED:
            continue
        entry = table[(row["mover"], row["phase"])]
        drop = loss(row)
        entry["moves"] += 1
        entry["lost"] += max(drop, 0)
        entry["mistakes"] += drop > DROP
        entry["blunders"] += drop > BLUNDER
    for entry in table.values():
        entry["mean"] = entry["lost"] / entry["moves"]
    return dict(table)


def lost_games(rows: List[dict], engine: str) -> Counter:
    """For each game `engine` lost: the phase of its first decisive drop, or "gradual"."""
    games = defaultdict(list)
    for row in rows:
        games[row["game"]].append(row)
    verdicts = Counter()
    for moves in games.values():
        ours = [row for row in moves if row["mover"] == engine]
        if not ours:
            continue
        result = moves[0]["result"]
        if result != ("0-1" if ours[0]["white"] else "1-0"):
            continue
        decisive = next((row for row in ours
                         if row["before"] > DECISIVE_FROM and row["after"] < DECISIVE_TO), None)
        verdicts[decisive["phase"] if decisive else "gradual"] += 1
    return verdicts


def report(rows: List[dict], engine: str) -> List[str]:
    table = phase_table(rows)
    lines = [f"{'player':12s} {'phase':16s} {'moves':>6s} {'mean loss':>10s} "
             f"{'>' + str(DROP):>12s} {'>' + str(BLUNDER):>12s}"]
    for mover in sorted({mover for mover, _ in table}):
        for phase in PHASES:
            entry = table.get((mover, phase))
            if entry is None:
                continue
            n = entry["moves"]
            lines.append(f"{mover:12s} {phase:16s} {n:6d} {entry['mean']:10.1f} "
                         f"{entry['mistakes']:5d} ({100 * entry['mistakes'] / n:4.1f}%) "
                         f"{entry['blunders']:4d} ({100 * entry['blunders'] / n:4.1f}%)")
    verdicts = lost_games(rows, engine)
    parts = [f"{phase} {verdicts[phase]}" for phase in PHASES + ("gradual",) if verdicts[phase]]
    lines.append(f"{engine}'s lost games, {sum(verdicts.values())}: "
                 f"first decisive drop by phase: {', '.join(parts) or 'none'}")
    return lines


@click.command()
@click.option("--pgn", "pgns", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="PGN file of games (repeatable)")
@click.option("--engine", required=True, help="the player whose lost games are examined")
@click.option("--referee", default="/usr/games/stockfish", show_default=True,
              help="UCI engine command that scores the positions")
@click.option("--nodes", default=50000, show_default=True, help="referee nodes per position")
@click.option("--scores", type=click.Path(dir_okay=False), help="write the per-move scores here")
@click.option("--from-scores", type=click.Path(exists=True, dir_okay=False),
              help="report scores written by --scores instead of scoring again")
def main(pgns, engine, referee, nodes, scores, from_scores):
    if from_scores:
        rows = json.loads(Path(from_scores).read_text())
    else:
        if not pgns:
            raise click.UsageError("give --pgn or --from-scores")
        with chess.engine.SimpleEngine.popen_uci(referee.split()) as judge:
            if "Threads" in judge.options:
                judge.configure({"Threads": 1})
            rows = score_games(pgns, judge, nodes,
                               lambda n: print(f"{n} games scored", file=sys.stderr, flush=True))
        if scores:
            Path(scores).write_text(json.dumps(rows))
    print("\n".join(report(rows, engine)))


if __name__ == "__main__":
    main()
