"""The play profile's singular-extension check: a search of the node that skips the table
move (the search stack's STACK_EXCLUDED column), run at the same ply before the node's own
moves are generated. It must never search the skipped move, never store or cut on the
node's own table entry, and treat a node whose only move is the skipped one as failing low
(not as mate or stalemate)."""
import chess
import numpy as np
import pytest

from engine.bench import BENCH_FENS
from engine.board import Board, move_to_uci
from engine.search import (
    K_PROFILE, PROFILE_PLAY, new_search_state, search,
)
from engine.tt import new_table, tt_probe
from engine.types import INFINITE, MATE_BOUND, STACK_EXCLUDED, STACK_PV_LEN

NO, YES = np.int64(0), np.int64(1)


def play_search(board, tt, depth, alpha, beta, ply, excluded=0):
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PLAY
    S.stack[ply, STACK_EXCLUDED] = excluded
    score = search(board.P, board.T, tt, S, np.int64(depth), np.int64(alpha), np.int64(beta),
                   np.int64(ply), NO, YES, NO)
    return int(score), S


def best_move(board, tt, depth):
    _, S = play_search(board, tt, depth, -INFINITE, INFINITE, 0)
    assert S.stack[0, STACK_PV_LEN] > 0
    return int(S.pv[0, 0])


@pytest.mark.parametrize("fen", BENCH_FENS[:8])
def test_the_singular_search_never_plays_the_skipped_move(fen):
    board = Board(fen)
    skipped = best_move(board, new_table(mb=1), 4)
    score, S = play_search(board, new_table(mb=1), 4, -INFINITE, INFINITE, 0, skipped)
    assert S.stack[0, STACK_PV_LEN] > 0
    assert S.pv[0, 0] != skipped
    assert chess.Move.from_uci(move_to_uci(int(S.pv[0, 0]))) in chess.Board(fen).legal_moves


@pytest.mark.parametrize("fen", BENCH_FENS[:4])
def test_the_singular_search_stores_nothing_for_its_own_node(fen):
    board = Board(fen)
    key = np.uint64(board.key)
    skipped = best_move(board, new_table(mb=1), 3)
    tt = new_table(mb=1)
    play_search(board, tt, 4, -50, -49, 2, skipped)
    assert not tt_probe(tt, key, np.int64(2))[0]
    play_search(board, tt, 4, -INFINITE, INFINITE, 2)   # the plain search does store it
    assert tt_probe(tt, key, np.int64(2))[0]


# White's king has one move (Kg1): the rook on a2 holds the second rank.
ONE_MOVE = "k7/8/8/8/8/8/r7/7K w - - 0 1"


def test_skipping_the_only_move_fails_low_instead_of_scoring_mate_or_stalemate():
    assert chess.Board(ONE_MOVE).legal_moves.count() == 1
    board = Board(ONE_MOVE)
    only = best_move(board, new_table(mb=1), 3)
    plain, _ = play_search(board, new_table(mb=1), 3, -30, -29, 2)
    skipped, _ = play_search(board, new_table(mb=1), 3, -30, -29, 2, only)
    assert skipped == -30               # alpha: "no other move reaches the bound"
    assert abs(plain) < MATE_BOUND      # the position itself is neither mate nor stalemate
