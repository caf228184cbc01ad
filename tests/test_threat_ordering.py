"""Play-profile move ordering by threats: a quiet knight or bishop move is ordered lower
when an enemy pawn attacks its target square and higher when it leaves such a square for a
safe one; a rook is judged by the enemy pawns and minor pieces, the queen by those and the
rooks. The squares come from `threat_sets`, held here to python-chess's attack maps."""
import chess
import numpy as np
import pytest

from engine.bench import BENCH_FENS
from engine.board import Board, move_to_uci
from engine.movepick import ORDER_KILLER, THREAT_ORDER, score_moves, threat_sets
from engine.search import new_search_state

KNIGHT_ON_E5 = "4k3/8/3p4/4N3/8/8/8/4K3 w - - 0 1"        # the d6 pawn attacks it
KNIGHT_ON_D3 = "4k3/8/3p4/8/8/3N4/8/4K3 w - - 0 1"        # c5 and e5 are the pawn's
ROOK_AND_QUEEN = "3bk3/8/2n5/8/1Q6/8/8/R6K w - - 0 1"    # the knight attacks b4, d4, a5
                                                          # and a7; the bishop a5


def _attacked(board, colour, piece_types):
    squares = 0
    for piece_type in piece_types:
        for sq in board.pieces(piece_type, colour):
            squares |= int(board.attacks_mask(sq))
    return squares


@pytest.mark.parametrize("fen", list(BENCH_FENS) + [KNIGHT_ON_E5, ROOK_AND_QUEEN])
def test_threat_sets_match_python_chess(fen):
    oracle = chess.Board(fen)
    board = Board(fen)
    for them, colour in ((0, chess.WHITE), (1, chess.BLACK)):
        by_pawn, by_minor, by_rook = (int(x) for x in threat_sets(board.P, board.T, them))
        assert by_pawn == _attacked(oracle, colour, [chess.PAWN])
        assert by_minor == _attacked(oracle, colour, [chess.PAWN, chess.KNIGHT, chess.BISHOP])
        assert by_rook == _attacked(oracle, colour,
                                    [chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK])


def _scores(fen, play):
    """Ordering score of every legal move, with an empty history and no killers."""
    board = Board(fen)
    moves = np.array(board.legal_moves(), dtype=np.int32)
    scores = np.zeros(len(moves), dtype=np.int64)
    score_moves(board.P, board.T, new_search_state(), moves, scores, 0, len(moves), 0, 0, 0,
                board.turn, play)
    return {move_to_uci(int(m)): int(s) for m, s in zip(moves, scores)}


def test_a_knight_attacked_by_a_pawn_moves_to_safety_first():
    play = _scores(KNIGHT_ON_E5, True)
    assert play["e5c4"] == play["e5f7"] == THREAT_ORDER
    assert play["e1d1"] == 0                 # the king is not judged
    assert max(play.values()) < ORDER_KILLER
    assert set(_scores(KNIGHT_ON_E5, False).values()) == {0}   # paper: history alone


def test_a_knight_moving_onto_a_pawn_attacked_square_comes_last():
    play = _scores(KNIGHT_ON_D3, True)
    assert play["d3c5"] == play["d3e5"] == -THREAT_ORDER
    assert play["d3f4"] == 0


def test_rook_and_queen_fear_cheaper_pieces():
    play = _scores(ROOK_AND_QUEEN, True)
    assert play["a1a5"] == play["a1a7"] == -THREAT_ORDER   # onto a minor piece's square
    assert play["a1a3"] == 0
    assert play["b4b3"] == play["b4f4"] == THREAT_ORDER    # the queen away from the knight
    assert play["b4d4"] == -THREAT_ORDER                   # ...but not to another of its squares
