"""Static exchange evaluation on hand-checked exchanges."""
import numpy as np
import pytest

from engine.board import Board
from engine.movepick import see_at_least


def see(fen, uci, threshold=0):
    board = Board(fen)
    return bool(see_at_least(board.P, board.T, np.int64(board.parse_uci(uci)), np.int64(threshold)))


@pytest.mark.parametrize("fen,uci,threshold,expected", [
    # Pawn takes an undefended knight: +320.
    ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 0, True),
    ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320, True),
    ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 321, False),
    # Queen takes a pawn defended by a pawn: loses the queen.
    ("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 0, False),
    # Rook takes a pawn defended by a rook, with a second rook behind (x-ray): R x p, R x R,
    # R x R: +100 for white.
    ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 0, True),
    ("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5", 101, False),
    # Same without the second white rook: R x p, R x R loses the exchange.
    ("3rk3/8/8/3p4/8/8/3R4/4K3 w - - 0 1", "d2d5", 0, False),
    # Knight takes a pawn defended only by the king, which cannot recapture into the
    # bishop's defence.
    ("8/8/4k3/3p4/8/4N3/8/4K2B w - - 0 1", "e3d5", 0, True),
    ("8/8/4k3/3p4/8/4N3/8/4K3 w - - 0 1", "e3d5", 0, False),
    # A quiet move to an attacked square counts as losing the mover.
    ("4k3/8/8/8/3p4/8/8/2N1K3 w - - 0 1", "c1b3", 0, True),
    ("4k3/8/8/8/8/3p4/8/2N1K3 w - - 0 1", "c1e2", -320, True),
])
def test_see(fen, uci, threshold, expected):
    assert see(fen, uci, threshold) == expected


@pytest.mark.parametrize("fen,uci,gain", [
    ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320),     # a knight
    ("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1", "e4d5", 900),     # a queen
    ("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100),     # en passant: the square is empty
    ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4e5", 0),       # a quiet move
])
def test_capture_gain_is_the_victims_exchange_value(fen, uci, gain):
    from engine.movepick import capture_gain
    board = Board(fen)
    assert capture_gain(board.P, np.int64(board.parse_uci(uci))) == gain
