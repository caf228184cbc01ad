"""lab/profiling/bench_node_costs.py: its timed walks visit exactly the perft tree, whatever piece
of a node they call, and leave the position as they found it."""
import numpy as np

from lab.profiling import bench_node_costs as script
from engine.board import Board
from engine.session import Session
from engine.types import MAX_MOVES, MAX_PLY

FEN = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"


def test_every_walk_visits_the_perft_tree():
    board = Board(FEN)
    session = Session(profile="play", hash_mb=1)
    tree = sum(board.perft(depth, bulk=False) for depth in range(3))     # nodes at plies 0-2
    moves = np.zeros((MAX_PLY + 2) * MAX_MOVES, dtype=np.int32)
    for _, piece in script.PIECES:
        sink = np.zeros(1, dtype=np.int64)
        nodes = script.walk(board.P, board.T, session.table, session.searcher.S,
                            np.int64(2), np.int64(0), moves, np.int64(0), np.int64(piece), sink)
        assert nodes == tree, piece
        assert board.fen() == FEN
        if piece != script.PIECE_NONE:
            assert sink[0] != 0 or piece == 6, piece    # the piece ran (in-check may sum to 0)


def test_middle_game_positions_have_both_queens():
    import chess
    fens = script.middle_game_fens()
    assert len(fens) >= 10
    for fen in fens:
        board = chess.Board(fen)
        assert chess.popcount(board.queens) == 2 and not board.is_check()
