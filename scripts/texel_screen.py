#!/usr/bin/env python3
"""Screen candidate evaluation terms before writing them into the engine: each candidate is
a feature computed with python-chess (white's count minus black's), added alone to the
current evaluation with its own middle-game and end-game weight, fitted on the fitting
games (lab/texel.fit_new_term, K held) and judged by the error on the held-out games.
A candidate that lowers the held-out error is worth writing and matching; one that does
not is unlikely to win games.

    python scripts/texel_screen.py                 # the self-play matches, docs/gauntlet/sprt_*.pgn
    python scripts/texel_screen.py --pgn games.pgn --limit 50000

The positions and the split are those of scripts/texel_tune.py. The features are slow
(python-chess attack queries): about 1.5 ms a position.
"""
import sys
import time
from pathlib import Path

import chess
import click
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import texel  # noqa: E402


def _relative_rank(square: int, colour: chess.Color) -> int:
    rank = chess.square_rank(square)
    return rank if colour == chess.WHITE else 7 - rank


def _pawn_attacks(board: chess.Board, colour: chess.Color) -> chess.SquareSet:
    squares = chess.SquareSet()
    for square in board.pieces(chess.PAWN, colour):
        squares |= board.attacks(square)
    return squares


def tempo(board, colour):
    return 1 if board.turn == colour else 0


def rook_on_seventh(board, colour):
    return sum(1 for sq in board.pieces(chess.ROOK, colour) if _relative_rank(sq, colour) == 6)


def knight_outposts(board, colour):
    """Knights on their 4th-6th rank, defended by a pawn, that no enemy pawn can chase."""
    own_pawns = board.pieces(chess.PAWN, colour)
    their_pawns = board.pieces(chess.PAWN, not colour)
    count = 0
    for sq in board.pieces(chess.KNIGHT, colour):
        rank = _relative_rank(sq, colour)
        if 3 <= rank <= 5 and board.attackers(colour, sq) & own_pawns:
            file = chess.square_file(sq)
            if not any(abs(chess.square_file(p) - file) == 1 and _relative_rank(p, colour) > rank
                       for p in their_pawns):
                count += 1
    return count


def supported_pawns(board, colour):
    own_pawns = board.pieces(chess.PAWN, colour)
    return sum(1 for sq in own_pawns if board.attackers(colour, sq) & own_pawns)


def pawn_phalanx(board, colour):
    """Pawns with an own pawn beside them on the same rank."""
    own_pawns = board.pieces(chess.PAWN, colour)
    return sum(1 for sq in own_pawns
               if any(chess.square_rank(o) == chess.square_rank(sq)
                      and abs(chess.square_file(o) - chess.square_file(sq)) == 1 for o in own_pawns))


def pawn_threats(board, colour):
    """Enemy pieces (not pawns or the king) attacked by our pawns."""
    targets = (chess.SquareSet(board.occupied_co[not colour])
               - board.pieces(chess.PAWN, not colour) - board.pieces(chess.KING, not colour))
    return len(_pawn_attacks(board, colour) & targets)


def hanging_pieces(board, colour):
    """Enemy pieces (not the king) we attack that no enemy piece defends."""
    return sum(1 for sq in chess.SquareSet(board.occupied_co[not colour])
               if board.piece_type_at(sq) != chess.KING and board.is_attacked_by(colour, sq)
               and not board.is_attacked_by(not colour, sq))


def backward_pawns(board, colour):
    """Pawns behind every own pawn of the neighbouring files, whose next square an enemy
    pawn attacks."""
    own_pawns = board.pieces(chess.PAWN, colour)
    their_pawns = board.pieces(chess.PAWN, not colour)
    count = 0
    for sq in own_pawns:
        file, rank = chess.square_file(sq), _relative_rank(sq, colour)
        neighbours = [p for p in own_pawns if abs(chess.square_file(p) - file) == 1]
        step = sq + 8 if colour == chess.WHITE else sq - 8
        if (neighbours and all(_relative_rank(p, colour) > rank for p in neighbours)
                and 0 <= step < 64 and board.attackers(not colour, step) & their_pawns):
            count += 1
    return count


def king_pawn_distance(board, colour):
    """Minus the king's mean distance to every pawn on the board."""
    pawns = board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK)
    if not pawns:
        return 0.0
    king = board.king(colour)
    return -sum(chess.square_distance(king, sq) for sq in pawns) / len(pawns)


CANDIDATES = {
    "tempo (side to move)": tempo,
    "rook on the seventh rank": rook_on_seventh,
    "knight outpost": knight_outposts,
    "pawn defended by a pawn": supported_pawns,
    "pawn phalanx": pawn_phalanx,
    "piece attacked by a pawn": pawn_threats,
    "hanging piece": hanging_pieces,
    "backward pawn": backward_pawns,
    "king's mean distance to the pawns": king_pawn_distance,
}


def candidate_features(boards) -> np.ndarray:
    """positions x candidates: each candidate's white value minus black's."""
    rows = []
    for board in boards:
        rows.append([f(board, chess.WHITE) - f(board, chess.BLACK) for f in CANDIDATES.values()])
    return np.array(rows, dtype=np.float64).reshape(-1, len(CANDIDATES))


@click.command()
@texel.game_set_options
@click.option("--limit", default=0, help="use only the first N positions (0: all)")
def main(pgns, skip_plies, held_out, seed, limit):
    from engine import eval as ev

    paths = [Path(p) for p in pgns] or texel.default_pgns(ROOT)
    start = time.perf_counter()
    samples = list(texel.quiet_positions(paths, skip_plies))
    if limit:
        samples = samples[:limit]
    features = texel.extract(samples)
    extra = candidate_features(board for _, board, _ in samples)
    print(f"{len(samples):,} quiet positions from {len(paths)} files "
          f"({time.perf_counter() - start:.0f} s)")
    mask = texel.held_out_mask(features, held_out, seed)
    fitting, kept_out = texel.subset(features, ~mask), texel.subset(features, mask)
    ones = np.ones(len(ev.TERM_NAMES))
    k = texel.fit_k(fitting, ones, ones)
    before = texel.mean_error(kept_out, ones, ones, k)
    print(f"K = {k:.4f}; held-out error of the current evaluation {before:.6f}\n")
    print("| candidate | fitted mg weight | fitted eg weight | held-out error | change |")
    print("|---|---|---|---|---|")
    for column, name in enumerate(CANDIDATES):
        w_mg, w_eg = texel.fit_new_term(fitting, extra[~mask, column], k)
        predicted = texel.win_probability(
            texel.with_new_term(kept_out, extra[mask, column], w_mg, w_eg), k)
        after = float(np.mean((kept_out.result - predicted) ** 2))
        print(f"| {name} | {w_mg:.1f} | {w_eg:.1f} | {after:.6f} | {(after - before) / before:+.2%} |")


if __name__ == "__main__":
    main()
