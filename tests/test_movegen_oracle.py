"""Every position reached in a perft to depth 3 from every suite position, against
python-chess: the legal move set, the captures+promotions set and the rest, the Polyglot
key, the FEN, which moves give check (tested without making them), and exact restoration
of the arrays by unmake; and the incremental evaluation sums against a from-scratch recomputation."""
import chess
import chess.polyglot
import numpy as np
import pytest

from engine._jit import jit
from engine.board import Board, move_to_uci
from engine.movegen import generate_all, is_legal
from engine.position import check_info, gives_check_with
from engine.eval import scratch_sums
from engine.types import ST_EG, ST_MG, ST_PHASE
from tests.conftest import load_script

CASES = load_script("perft_suites").load_perft_suites()
ORACLE_DEPTH = 3


@jit
def _gives_check_with_info(P, T, move):
    """The search's check test: check_info of the position, then gives_check_with."""
    return gives_check_with(P, T, move, check_info(P, T))


def _snapshot(board):
    P = board.P
    ply = board.ply
    return (P.bb.copy(), P.board.copy(), P.st[ply].copy(), int(P.keys[ply]), ply)


def _assert_restored(board, snap):
    bb, mailbox, row, key, ply = snap
    P = board.P
    assert board.ply == ply
    assert np.array_equal(P.bb, bb)
    assert np.array_equal(P.board, mailbox)
    assert np.array_equal(P.st[ply], row)
    assert int(P.keys[ply]) == key


def _walk(board, oracle, depth):
    assert board.key == chess.polyglot.zobrist_hash(oracle), oracle.fen()
    row = board.P.st[board.ply]
    assert scratch_sums(board.P, board.T) == (row[ST_MG], row[ST_EG], row[ST_PHASE])
    if depth == 0:
        return 1
    mine = sorted(move_to_uci(m) for m in board.legal_moves())
    theirs = sorted(m.uci() for m in oracle.legal_moves)
    assert mine == theirs, oracle.fen()
    # perft's last ply counts moves without writing them (movegen.count_moves)
    assert board.perft(1) == len(theirs), oracle.fen()
    noisy = sorted(move_to_uci(m) for m in board.noisy_moves())
    noisy_oracle = sorted(m.uci() for m in oracle.legal_moves
                          if oracle.is_capture(m) or m.promotion)
    assert noisy == noisy_oracle, oracle.fen()
    quiet = sorted(move_to_uci(m) for m in board.quiet_moves())
    quiet_oracle = sorted(m.uci() for m in oracle.legal_moves
                          if not oracle.is_capture(m) and not m.promotion)
    assert quiet == quiet_oracle, oracle.fen()
    assert board.fen() == oracle.fen(en_passant="xfen"), oracle.fen()
    assert sorted(board.checkers()) == sorted(oracle.checkers())
    snap = _snapshot(board)
    count = 0
    for move in board.legal_moves():
        oracle_move = chess.Move.from_uci(move_to_uci(move))
        checks = oracle.gives_check(oracle_move)
        assert board.gives_check(move) == checks, (oracle.fen(), oracle_move)
        assert _gives_check_with_info(board.P, board.T, np.int64(move)) == checks, (
            oracle.fen(), oracle_move)
        board.push(move)
        oracle.push(oracle_move)
        count += _walk(board, oracle, depth - 1)
        oracle.pop()
        board.pop()
        _assert_restored(board, snap)
    return count


@pytest.mark.parametrize("case", CASES, ids=[c.source for c in CASES])
def test_tree_matches_python_chess(case):
    board = Board(case.fen)
    oracle = chess.Board(case.fen)
    leaves = _walk(board, oracle, ORACLE_DEPTH)
    if ORACLE_DEPTH in case.counts:
        assert leaves == case.counts[ORACLE_DEPTH]


@jit
def _is_legal_disagreements(P, T, moves, listed):
    """Codes among all 65,536 16-bit moves where movegen.is_legal differs from membership
    in generate_all's list (written to moves[:end]; is_legal works past it). `listed`:
    65,536 cleared flags."""
    end = generate_all(P, T, moves, 0)
    for i in range(end):
        listed[moves[i]] = True
    wrong = 0
    for code in range(1 << 16):
        if is_legal(P, T, np.int64(code), moves, end) != listed[code]:
            wrong += 1
    return wrong, end


@pytest.mark.parametrize("case", CASES, ids=[c.source for c in CASES])
def test_is_legal_agrees_with_the_generator_for_every_move_code(case):
    """The search checks a table move with is_legal instead of generating every move: its
    answer must be generate_all's for any code (pins, checks, en passant, castling in
    standard chess and Chess960), here in the suite's positions and their children."""
    board = Board(case.fen)
    for move in [None] + board.legal_moves():
        if move is not None:
            board.push(move)
        wrong, count = _is_legal_disagreements(board.P, board.T, board._moves,
                                               np.zeros(1 << 16, dtype=np.bool_))
        assert wrong == 0 and count == len(board.legal_moves()), board.fen()
        if move is not None:
            board.pop()
