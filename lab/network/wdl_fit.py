"""Fit the win/draw/loss model of engine/wdl.py to the engine's own games.

Every sampled position of the games (PGN, plain or .xz) is searched by the engine to a
fixed node count; its score (side to move), its material and the game's result from the
side to move's view make one row. The model's four constants are then fitted by maximum
likelihood (scipy), and printed with the fit's figures:

    python -m lab.network.wdl_fit docs/gauntlet/*.pgn.xz docs/soak/slow.pgn.xz --positions 12000

Positions are sampled with a seeded generator, from ply MIN_PLY on, so the fit is
reproducible from the same games.
"""
import argparse
import random
import sys
import time
from pathlib import Path
from typing import Iterator, List, Tuple

import numpy as np

MIN_PLY = 16             # the opening book's moves and the first moves out of it are left out
SEARCH_NODES = 4000      # about what a 10 s + 0.1 s game's early iterations see
Row = Tuple[int, int, float]   # (score, material, result for the side to move: 1, 0.5, 0)


def game_positions(paths: List[Path]) -> Iterator[Tuple[str, int, float]]:
    """(FEN, material, result for the side to move) of every position from MIN_PLY on of
    every decided or drawn game."""
    import chess

    from engine.wdl import material_points
    from lab.network.texel import decided_games

    for game, white_score in decided_games(paths):
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            board.push(move)
            if ply + 1 < MIN_PLY or board.is_game_over():
                continue
            material = material_points(
                [len(board.pieces(kind, chess.WHITE)) + len(board.pieces(kind, chess.BLACK))
                 for kind in chess.PIECE_TYPES])
            result = white_score if board.turn else 1.0 - white_score
            yield board.fen(), material, result


def score_positions(samples, nodes: int = SEARCH_NODES, echo=print) -> List[Row]:
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session
    from engine.types import MATE_BOUND

    session = Session(profile="play", hash_mb=16)
    rows = []
    start = time.perf_counter()
    for index, (fen, material, result) in enumerate(samples):
        score = session.search(Board(fen), Limits(nodes=nodes)).score
        if abs(score) < MATE_BOUND:
            rows.append((int(score), int(material), float(result)))
        if (index + 1) % 1000 == 0:
            echo(f"{index + 1} positions scored ({time.perf_counter() - start:.0f} s)")
    return rows


def probabilities(params, score, t):
    """Win and loss probabilities of the model (engine/wdl.py) for arrays of scores and
    material shares t."""
    a0, a1, b0, b1 = params
    a = a0 + a1 * t
    b = np.maximum(b0 + b1 * t, 1.0)
    win = 1.0 / (1.0 + np.exp(np.clip((a - score) / b, -50, 50)))
    loss = 1.0 / (1.0 + np.exp(np.clip((a + score) / b, -50, 50)))
    return win, loss


def negative_log_likelihood(params, score, t, result) -> float:
    win, loss = probabilities(params, score, t)
    draw = np.clip(1.0 - win - loss, 1e-9, 1.0)
    p = np.where(result == 1.0, win, np.where(result == 0.0, loss, draw))
    return float(-np.sum(np.log(np.clip(p, 1e-9, 1.0))))


def fit(rows: List[Row]):
    """(A0, A1, B0, B1) maximising the likelihood of the rows' results."""
    from scipy.optimize import minimize

    from engine.wdl import MATERIAL_START

    data = np.array(rows, dtype=float)
    score, t, result = data[:, 0], np.clip(data[:, 1] / MATERIAL_START, 0, 1), data[:, 2]
    best = minimize(negative_log_likelihood, x0=np.array([150.0, 100.0, 60.0, 40.0]),
                    args=(score, t, result), method="Nelder-Mead",
                    options=dict(maxiter=4000, xatol=0.05, fatol=1e-4))
    return tuple(float(x) for x in best.x), best.fun / len(rows)


def outcome_table(rows: List[Row], params) -> List[Tuple[str, int, float, float, float, float]]:
    """Observed against predicted win and draw rates by score band (all material)."""
    from engine.wdl import MATERIAL_START

    data = np.array(rows, dtype=float)
    score, t, result = data[:, 0], np.clip(data[:, 1] / MATERIAL_START, 0, 1), data[:, 2]
    win, loss = probabilities(params, score, t)
    out = []
    for low, high in ((-10000, -300), (-300, -100), (-100, -25), (-25, 25), (25, 100), (100, 300),
                      (300, 10000)):
        mask = (score >= low) & (score < high)
        if mask.sum():
            out.append((f"{low}..{high}", int(mask.sum()), float((result[mask] == 1).mean()),
                        float(win[mask].mean()), float((result[mask] == 0.5).mean()),
                        float((1 - win[mask] - loss[mask]).mean())))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pgn", nargs="+", type=Path)
    parser.add_argument("--positions", type=int, default=12000, help="positions sampled")
    parser.add_argument("--nodes", type=int, default=SEARCH_NODES, help="nodes per search")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    every = list(game_positions(args.pgn))
    random.Random(args.seed).shuffle(every)
    samples = every[:args.positions]
    print(f"{len(every)} positions in {len(args.pgn)} files; {len(samples)} sampled")
    rows = score_positions(samples, args.nodes)
    params, loss = fit(rows)
    print(f"rows {len(rows)}; mean negative log-likelihood {loss:.4f}")
    print("A0, A1 = {:.1f}, {:.1f}\nB0, B1 = {:.1f}, {:.1f}".format(*params))
    print("| score band | positions | wins seen | wins model | draws seen | draws model |")
    print("|---|---|---|---|---|---|")
    for band, count, w_seen, w_model, d_seen, d_model in outcome_table(rows, params):
        print(f"| {band} | {count} | {w_seen:.3f} | {w_model:.3f} | {d_seen:.3f} | {d_model:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
