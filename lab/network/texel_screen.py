#!/usr/bin/env python3
"""Screen candidate evaluation terms before writing them into the engine: each candidate is
a feature computed with python-chess (white's count minus black's), added alone to the
current evaluation with its own middle-game and end-game weight, fitted on the fitting
games (lab/network/texel.fit_new_term, K held) and judged by the error on the held-out
games. A candidate that lowers the held-out error is worth writing and matching; one that
does not is unlikely to win games.

    python -m lab.network.texel_screen                # the self-play matches, docs/gauntlet/sprt_*.pgn
    python -m lab.network.texel_screen --pgn games.pgn --limit 50000
    python -m lab.network.texel_screen --labels labels.txt   # judged against an engine's scores

The positions and the split are those of lab/network/texel_tune.py. The features are slow
(python-chess attack queries): about 1.5 ms a position.
"""
import time
from pathlib import Path

import chess
import click
import numpy as np

from lab.network import texel

ROOT = Path(__file__).resolve().parents[2]


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
    """Enemy pieces (not the king) attacked by `colour` that no enemy piece defends."""
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


def _check_squares(board: chess.Board, colour: chess.Color) -> dict:
    """Per piece type (knight to queen): the squares from which a piece of `colour` would
    check the enemy king."""
    king = board.king(not colour)
    occupied = board.occupied
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
                | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied])
    return {chess.KNIGHT: chess.BB_KNIGHT_ATTACKS[king], chess.BISHOP: diagonal,
            chess.ROOK: straight, chess.QUEEN: diagonal | straight}


def _checks(board, colour, unsafe):
    """(piece, square) pairs: a knight, bishop, rook or queen of `colour` attacks a square,
    not its own side's, from which it would check the enemy king, and `unsafe(square)` is
    false there."""
    count = 0
    own = board.occupied_co[colour]
    for piece_type, squares in _check_squares(board, colour).items():
        targets = squares & ~own
        for sq in board.pieces(piece_type, colour):
            for target in chess.SquareSet(board.attacks_mask(sq) & targets):
                if not unsafe(target):
                    count += 1
    return count


def safe_checks(board, colour):
    """Checks available to a piece on a square no enemy piece or pawn attacks."""
    return _checks(board, colour, lambda sq: board.is_attacked_by(not colour, sq))


def checks_off_pawns(board, colour):
    """Checks available to a piece on a square no enemy pawn attacks."""
    their_pawn_attacks = int(_pawn_attacks(board, not colour))
    return _checks(board, colour, lambda sq: their_pawn_attacks >> sq & 1)


def _passed(board, colour):
    """The passed pawns of `colour`: no enemy pawn ahead on their file or the files beside."""
    their_pawns = board.pieces(chess.PAWN, not colour)
    passers = []
    for sq in board.pieces(chess.PAWN, colour):
        file, rank = chess.square_file(sq), _relative_rank(sq, colour)
        if not any(abs(chess.square_file(p) - file) <= 1 and _relative_rank(p, colour) > rank
                   for p in their_pawns):
            passers.append(sq)
    return passers


def bishop_pawns(board, colour):
    """Own pawns on the squares of an own bishop's colour, summed over the bishops."""
    own_pawns = int(board.pieces(chess.PAWN, colour))
    count = 0
    for sq in board.pieces(chess.BISHOP, colour):
        squares = chess.BB_LIGHT_SQUARES if chess.BB_SQUARES[sq] & chess.BB_LIGHT_SQUARES \
            else chess.BB_DARK_SQUARES
        count += chess.popcount(own_pawns & squares)
    return count


def pawn_storm(board, colour):
    """Own pawns on the enemy king's file or beside it, on their 4th-6th rank."""
    king_file = chess.square_file(board.king(not colour))
    return sum(1 for sq in board.pieces(chess.PAWN, colour)
               if abs(chess.square_file(sq) - king_file) <= 1 and 3 <= _relative_rank(sq, colour) <= 5)


def open_files_at_king(board, colour):
    """Files at or beside the enemy king with no pawn of either colour."""
    king_file = chess.square_file(board.king(not colour))
    pawns = int(board.pieces(chess.PAWN, chess.WHITE) | board.pieces(chess.PAWN, chess.BLACK))
    return sum(1 for f in range(max(king_file - 1, 0), min(king_file + 1, 7) + 1)
               if not pawns & chess.BB_FILES[f])


def blocked_passers(board, colour):
    """Enemy passed pawns whose next square one of our pieces occupies (a blockade)."""
    count = 0
    for sq in _passed(board, not colour):
        step = sq + 8 if colour == chess.BLACK else sq - 8
        if 0 <= step < 64 and board.color_at(step) == colour:
            count += 1
    return count


def rook_behind_passer(board, colour):
    """Own rooks on an own passed pawn's file, behind it."""
    count = 0
    for sq in _passed(board, colour):
        for rook in board.pieces(chess.ROOK, colour):
            if (chess.square_file(rook) == chess.square_file(sq)
                    and _relative_rank(rook, colour) < _relative_rank(sq, colour)):
                count += 1
    return count


def king_zone_attacks(board, colour):
    """Attacks of our knights, bishops, rooks and queens on the enemy king's zone (its
    square and neighbours), whatever the number of attackers."""
    king = board.king(not colour)
    zone = chess.BB_KING_ATTACKS[king] | chess.BB_SQUARES[king]
    return sum(chess.popcount(board.attacks_mask(sq) & zone)
               for piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN)
               for sq in board.pieces(piece_type, colour))


CANDIDATES = {
    "own pawns on an own bishop's colour": bishop_pawns,
    "pawn storm (own pawns near the enemy king, 4th-6th rank)": pawn_storm,
    "open file at the enemy king": open_files_at_king,
    "enemy passed pawn blockaded": blocked_passers,
    "rook behind an own passed pawn": rook_behind_passer,
    "attacks on the enemy king's zone": king_zone_attacks,
    "safe check (square not attacked by the enemy)": safe_checks,
    "check from a square no enemy pawn attacks": checks_off_pawns,
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


def candidate_features(boards, candidates=CANDIDATES) -> np.ndarray:
    """positions x candidates: each candidate's white value minus black's."""
    rows = []
    for board in boards:
        rows.append([f(board, chess.WHITE) - f(board, chess.BLACK) for f in candidates.values()])
    return np.array(rows, dtype=np.float64).reshape(-1, len(candidates))


@click.command()
@texel.game_set_options
@click.option("--limit", default=0, help="use only the first N positions (0: all)")
@click.option("--only", default="", help="screen only the candidates whose name contains one of "
              "these |-separated parts")
def main(pgns, skip_plies, held_out, seed, labels, limit, only):
    from engine import eval as ev

    chosen = {name: feature for name, feature in CANDIDATES.items()
              if any(part in name for part in only.split("|"))}

    start = time.perf_counter()
    samples, source = texel.load_samples(ROOT, pgns, skip_plies, labels)
    if limit:
        samples = samples[:limit]
    features = texel.extract(samples)
    extra = candidate_features((board for _, board, _ in samples), chosen)
    print(f"{len(samples):,} quiet positions {source} "
          f"({time.perf_counter() - start:.0f} s)")
    mask = texel.held_out_mask(features, held_out, seed)
    fitting, kept_out = texel.subset(features, ~mask), texel.subset(features, mask)
    ones = np.ones(len(ev.TERM_NAMES))
    k = texel.fit_k(fitting, ones, ones)
    before = texel.mean_error(kept_out, ones, ones, k)
    print(f"K = {k:.4f}; held-out error of the current evaluation {before:.6f}\n")
    print("| candidate | fitted mg weight | fitted eg weight | held-out error | change |")
    print("|---|---|---|---|---|")
    for column, name in enumerate(chosen):
        w_mg, w_eg = texel.fit_new_term(fitting, extra[~mask, column], k)
        predicted = texel.win_probability(
            texel.with_new_term(kept_out, extra[mask, column], w_mg, w_eg), k)
        after = float(np.mean((kept_out.result - predicted) ** 2))
        print(f"| {name} | {w_mg:.1f} | {w_eg:.1f} | {after:.6f} | {(after - before) / before:+.2%} |")


if __name__ == "__main__":
    main()
