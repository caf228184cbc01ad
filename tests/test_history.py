"""The play profile's history: bounded ("gravity") updates, a malus for the quiet
moves searched before the best one, continuation histories (after the moves one and two
plies back), and late-move reductions that shrink or grow with a quiet move's ordering
score. The paper profile keeps the thesis' counter (depth per cut-off)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from engine.bench import BENCH_FENS
from engine.board import Board
from engine.codec import move_pack
from engine.driver import Limits, Searcher
from engine.movegen import generate_all
from engine.movepick import (
    CONTINUATION_NONE, HISTORY_BONUS_MAX, HISTORY_LIMIT, continuation_index, history_bonus,
    score_moves, update_history, update_quiet_histories,
)
from engine.types import MAX_MOVES, STACK_MOVED
from engine.search import (
    LMR_HISTORY, PROFILE_PAPER, PROFILE_PLAY, lmr_history_adjustment, new_search_state,
)
from engine.tt import new_table

MOVE = move_pack(12, 28, 0)   # e2e4, a quiet move


def test_the_bonus_grows_with_depth_up_to_its_cap():
    bonuses = [history_bonus(depth) for depth in range(1, 20)]
    assert bonuses == sorted(bonuses)
    assert bonuses[0] > 0
    assert bonuses[-1] == HISTORY_BONUS_MAX


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=-HISTORY_BONUS_MAX, max_value=HISTORY_BONUS_MAX),
                max_size=300))
def test_history_never_leaves_its_bounds(bonuses):
    S = new_search_state()
    for bonus in bonuses:
        before = S.history[0, 12, 28]
        update_history(S, 0, MOVE, bonus)
        after = S.history[0, 12, 28]
        assert -HISTORY_LIMIT <= after <= HISTORY_LIMIT
        if bonus > 0:
            assert after >= before
        elif bonus < 0:
            assert after <= before


def test_a_repeated_bonus_saturates_below_the_limit():
    S = new_search_state()
    for _ in range(1000):
        update_history(S, 1, MOVE, HISTORY_BONUS_MAX)
    assert HISTORY_LIMIT - HISTORY_BONUS_MAX < S.history[1, 12, 28] <= HISTORY_LIMIT
    for _ in range(1000):
        update_history(S, 1, MOVE, -HISTORY_BONUS_MAX)
    assert -HISTORY_LIMIT <= S.history[1, 12, 28] < -HISTORY_LIMIT + HISTORY_BONUS_MAX


def test_the_reduction_adjustment_rounds_towards_zero_and_is_capped():
    """The adjustment is one ply per LMR_HISTORY of ordering score, rounded towards zero,
    at most two: the inputs are written in units of the tuned constants (nothing outside
    the code says what they should be), so this pins the rounding and the cap, not the
    constants."""
    assert lmr_history_adjustment(0) == 0
    assert lmr_history_adjustment(LMR_HISTORY - 1) == 0
    assert lmr_history_adjustment(1 - LMR_HISTORY) == 0     # a small malus does not reduce more
    assert lmr_history_adjustment(LMR_HISTORY) == 1
    assert lmr_history_adjustment(-LMR_HISTORY) == -1
    assert lmr_history_adjustment(3 * HISTORY_LIMIT) == 2
    assert lmr_history_adjustment(-3 * HISTORY_LIMIT) == -2


def histories_after_search(profile, fen=BENCH_FENS[1], depth=6):
    searcher = Searcher()
    searcher.profile = profile
    searcher.run(Board(fen), new_table(mb=4), Limits(depth=depth))
    return searcher.S.history.copy(), searcher.S.cont_history.copy()


def test_play_searches_give_a_malus_and_stay_bounded():
    history, continuation = histories_after_search(PROFILE_PLAY)
    for table in (history, continuation):
        assert (table < 0).any()          # the malus ran
        assert (table > 0).any()
        assert np.abs(table.astype(np.int64)).max() <= HISTORY_LIMIT


def test_paper_searches_keep_the_thesis_counter():
    history, continuation = histories_after_search(PROFILE_PAPER)
    assert (history >= 0).all()         # no malus
    assert (history > 0).any()
    assert not continuation.any()       # no continuation history


def test_continuation_updates_follow_the_moves_one_and_two_plies_back():
    board = Board()   # e2e4 is a white pawn to e4 in the start position
    S = new_search_state()
    S.stack[0, STACK_MOVED] = 5 * 64 + 33      # some earlier moves of the line
    S.stack[1, STACK_MOVED] = 9 * 64 + 40
    piece_to = continuation_index(board.P, MOVE)
    assert piece_to == 0 * 64 + 28
    update_quiet_histories(board.P, S, 2, 0, MOVE, 500)
    assert S.cont_history[9 * 64 + 40, piece_to] == 500
    assert S.cont_history[5 * 64 + 33, piece_to] == 500
    assert np.count_nonzero(S.cont_history) == 2
    assert S.history[0, 12, 28] == 500
    update_quiet_histories(board.P, S, 0, 0, MOVE, -300)   # the root: no move before it
    assert np.count_nonzero(S.cont_history) == 2
    update_quiet_histories(board.P, S, 1, 0, MOVE, -300)   # one move before it
    assert S.cont_history[5 * 64 + 33, piece_to] == 500 - 300 - 500 * 300 // HISTORY_LIMIT
    assert S.cont_history[9 * 64 + 40, piece_to] == 500


def test_quiet_ordering_adds_the_continuation_histories_in_play_only():
    board = Board()
    knight_move = move_pack(6, 21, 0)   # g1f3
    S = new_search_state()
    ply = 2
    S.stack[0, STACK_MOVED] = CONTINUATION_NONE
    S.stack[1, STACK_MOVED] = 7 * 64 + 21
    start = ply * MAX_MOVES
    end = generate_all(board.P, board.T, S.moves, start)
    index = [i for i in range(start, end) if S.moves[i] == knight_move][0]
    piece_to = continuation_index(board.P, knight_move)
    S.history[0, 6, 21] = 100
    S.cont_history[7 * 64 + 21, piece_to] = 40
    S.cont_history[CONTINUATION_NONE, piece_to] = -7
    score_moves(board.P, board.T, S, S.moves, S.scores, start, end, 0, 0, ply, 0, True)
    assert S.scores[index] == 100 + 40 - 7
    score_moves(board.P, board.T, S, S.moves, S.scores, start, end, 0, 0, ply, 0, False)
    assert S.scores[index] == 100
