"""The play profile's improving flag and lazy evaluation:
a position that got worse than two plies before is pruned harder, never less; quiescence
computes the positional terms only when material and piece-square values do not already
decide the stand-pat against the window. The fifth: the table's score, where its bound makes
it the better guess, stands in for the static evaluation in the pruning decisions."""
import math

import numpy as np
import pytest

from engine.bench import BENCH_FENS
from engine.board import Board
from engine.eval import material_pst_eval
from engine.nnue import network_eval_fresh
from engine.search import (
    BOUND_LOWER, BOUND_UPPER, FUTILITY_MAX_DEPTH, K_NODES, K_PROFILE, LAZY_MARGIN, LMR_BASE,
    LMR_DIVISOR, LMR_MIN_DEPTH, LMR_MIN_MOVES, NO_EVAL, PROFILE_PAPER, PROFILE_PLAY, RFP_MARGIN,
    RFP_MAX_DEPTH, STACK_EVAL, futility_reduction, late_move_reduction, late_move_reduction_applies,
    new_search_state, quiesce, search,
)
from engine.tt import new_table, tt_store
from engine.types import MAX_MOVES, MAX_PLY

NO, YES = np.int64(0), np.int64(1)


def nodes_at_ply_two(fen, depth, alpha, earlier_eval):
    """Nodes of a zero-window play search of `fen` as a node at ply 2 (a fresh 1 MB table), with the
    static evaluation recorded two plies before set to `earlier_eval`."""
    board = Board(fen)
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PLAY
    S.stack[0, STACK_EVAL] = earlier_eval
    search(board.P, board.T, new_table(mb=1), S, np.int64(depth), np.int64(alpha),
           np.int64(alpha + 1), np.int64(2), NO, YES, NO)
    return int(S.ctrl[K_NODES])


@pytest.mark.parametrize("fen", BENCH_FENS[:12])
def test_a_worsening_position_is_pruned_at_least_as_hard(fen):
    board = Board(fen)
    if board.in_check():
        pytest.skip("no static evaluation in check")
    static = int(network_eval_fresh(board.P, board.T))
    depth, alpha = 5, static + 60    # a fail-low zone where futility and late-move pruning act
    improving = nodes_at_ply_two(fen, depth, alpha, np.int64(static - 500))
    worsening = nodes_at_ply_two(fen, depth, alpha, np.int64(static + 500))
    unknown = nodes_at_ply_two(fen, depth, alpha, np.int64(NO_EVAL))
    assert worsening <= improving
    assert unknown == improving     # no evaluation two plies before: counted as improving


def test_the_worsening_flag_prunes_somewhere():
    """Over the bench positions the flag must cut some nodes (else it does nothing)."""
    saved = 0
    for fen in BENCH_FENS[:12]:
        board = Board(fen)
        if board.in_check():
            continue
        static = int(network_eval_fresh(board.P, board.T))
        saved += (nodes_at_ply_two(fen, 5, static + 60, np.int64(static - 500))
                  - nodes_at_ply_two(fen, 5, static + 60, np.int64(static + 500)))
    assert saved > 0


def stand_pat(fen, alpha, beta, profile):
    board = Board(fen)
    S = new_search_state()
    S.ctrl[K_PROFILE] = profile
    return int(quiesce(board.P, board.T, new_table(mb=1), S, np.int64(alpha), np.int64(beta),
                       np.int64(0)))


# White to move, a queen up, no capture available to either side's benefit beyond it.
QUEEN_UP = "4k3/8/8/8/8/8/3QPPPP/4K3 w - - 0 1"


def test_lazy_stand_pat_returns_the_material_score_far_above_the_window():
    board = Board(QUEEN_UP)
    quick = int(material_pst_eval(board.P))
    full = int(network_eval_fresh(board.P, board.T))
    assert quick != full   # the network differs from material + PST here: the test can tell
    assert stand_pat(QUEEN_UP, -20, -10, PROFILE_PLAY) == quick
    assert quick - LAZY_MARGIN >= -10


def test_stand_pat_inside_the_margin_uses_the_network():
    board = Board(QUEEN_UP)
    full = int(network_eval_fresh(board.P, board.T))
    # A window around the full value: the stand-pat is exact (no capture here improves it).
    assert stand_pat(QUEEN_UP, full - 1, full + 1, PROFILE_PLAY) == full
    assert stand_pat(QUEEN_UP, -20, -10, PROFILE_PAPER) == int(material_pst_eval(board.P))


def search_over_stored_bound(board, depth, beta, bound, stored):
    """A zero-window PLAY search below `beta` of `board` as a node at ply 2, over a fresh 1 MB
    table holding (unless `bound` is None) a depth-1 entry for it with that bound and score
    `stored`: (score, nodes, the static evaluation recorded at ply 2)."""
    tt = new_table(mb=1)
    if bound is not None:
        tt_store(tt, np.uint64(board.key), np.int64(2), np.int64(0), np.int64(stored),
                 np.int64(1), np.int64(bound), np.int64(1))
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PLAY
    score = search(board.P, board.T, tt, S, np.int64(depth), np.int64(beta - 1),
                   np.int64(beta), np.int64(2), NO, YES, NO)
    return int(score), int(S.ctrl[K_NODES]), int(S.stack[2, STACK_EVAL])


def test_a_stored_lower_bound_above_the_evaluation_replaces_it_for_pruning():
    """A table entry too shallow to cut, whose lower bound lies far above the static
    evaluation, lets reverse futility prune at once and return halfway from it to beta;
    "improving" still compares the evaluation itself."""
    board = Board(BENCH_FENS[1])
    static = int(network_eval_fresh(board.P, board.T))
    depth, beta = 3, static + 2 * RFP_MARGIN * 3

    def searched(bound, stored):
        return search_over_stored_bound(board, depth, beta, bound, stored)

    high = static + 3 * RFP_MARGIN * 3
    score, nodes, recorded = searched(BOUND_LOWER, high)
    assert (score, nodes, recorded) == ((high + beta) // 2, 1, static)
    # An upper bound above the evaluation says nothing new: the search goes on as without one.
    assert searched(BOUND_UPPER, high)[:2] == searched(None, 0)[:2]
    assert searched(None, 0)[1] > 1


def test_reverse_futility_prunes_to_its_depth_limit_and_no_further():
    """With a stored lower bound far above beta (too shallow to cut, and enough to keep the
    internal iterative reduction off), reverse futility returns at once at every depth up to
    RFP_MAX_DEPTH; one ply deeper the node searches on (null move and moves)."""
    board = Board(BENCH_FENS[1])
    beta = int(network_eval_fresh(board.P, board.T))
    high = beta + 2 * RFP_MARGIN * (RFP_MAX_DEPTH + 1)   # above the margin at every depth tried

    def nodes(depth):
        return search_over_stored_bound(board, depth, beta, BOUND_LOWER, high)[1]

    assert [nodes(d) for d in range(2, RFP_MAX_DEPTH + 1)] == [1] * (RFP_MAX_DEPTH - 1)
    assert nodes(RFP_MAX_DEPTH + 1) > 1


# (depth, moves searched before) -> the logarithmic reduction 0.8 + ln(depth) ln(moves) / 2.4,
# worked out by hand with a calculator, then rounded down: the tuned formula at a few points
# (the formula's constants are tuning choices: a change to them changes these numbers).
LMR_BY_HAND = {(3, 2): 1, (12, 2): 1, (5, 3): 1, (10, 10): 3, (6, 20): 3, (8, 30): 3,
               (20, 40): 5, (3, 200): 3, (1, 63): 0, (2, 5): 1, (40, 1): 0}


def test_futility_is_tested_at_the_late_move_reduced_depth():
    """A quiet move's futility test takes its logarithmic late-move reduction off the node's
    depth (none where late-move reductions do not apply, never below one ply), and the
    search's reductions start from the same formula."""
    assert (LMR_BASE, LMR_DIVISOR, LMR_MIN_DEPTH, LMR_MIN_MOVES) == (0.8, 2.4, 3, 2)
    for (depth, searched), plies in LMR_BY_HAND.items():
        assert late_move_reduction(depth, searched) == plies, (depth, searched)
        applies = depth >= 3 and searched >= 2
        expected = min(depth - 1, plies) if applies else 0
        assert futility_reduction(depth, searched) == expected, (depth, searched)
    assert futility_reduction(3, 200) == 2                   # capped: one ply is left
    # Properties of the whole table (engine.search.LMR_TABLE): never negative, more
    # depth or more moves searched never reduce less, and the futility depth stays >= 1.
    table = np.array([[late_move_reduction(d, m) for m in range(1, MAX_MOVES + 1)]
                      for d in range(1, MAX_PLY + 1)])
    assert table.min() == 0
    formula = np.array([[int(LMR_BASE + math.log(d) * math.log(m) / LMR_DIVISOR)
                         for m in range(1, MAX_MOVES + 1)] for d in range(1, MAX_PLY + 1)])
    assert (table == formula).all()
    assert (np.diff(table, axis=0) >= 0).all() and (np.diff(table, axis=1) >= 0).all()
    for depth in range(1, 24):
        for searched in range(0, 64):
            assert 0 <= futility_reduction(depth, searched) <= max(0, depth - 1)
    # Late moves of a depth-8 node are tested as at depth 5 or less: the old limit's depth.
    assert 8 - futility_reduction(8, 30) <= FUTILITY_MAX_DEPTH


def test_late_move_reductions_start_at_the_third_move():
    """The late-move reduction's start (9e7b73c, 2026-11-28: +13 Elo against starting at the
    fourth move): the third quiet move searched is reduced, the second is not, and none is
    at depths 1-2."""
    for depth in range(LMR_MIN_DEPTH, MAX_PLY + 1):
        assert late_move_reduction_applies(depth, 2), depth
        assert not late_move_reduction_applies(depth, 1), depth
    for depth in range(1, LMR_MIN_DEPTH):
        assert not late_move_reduction_applies(depth, 30), depth
    assert LMR_MIN_DEPTH == 3
    # Where the logarithmic formula gives a ply for the third move, the futility test takes
    # it off as well (the same gate).
    assert futility_reduction(12, 2) == late_move_reduction(12, 2) == 1
