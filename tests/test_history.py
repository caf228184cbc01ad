"""The play profile's history (issue 13): bounded ("gravity") updates, a malus for the quiet
moves searched before the best one, and late-move reductions that shrink or grow with a
quiet move's history. The paper profile keeps the thesis' counter (depth per cut-off)."""
import numpy as np
from hypothesis import given, settings, strategies as st

from engine.bench import BENCH_FENS
from engine.board import Board
from engine.codec import move_pack
from engine.driver import Limits, Searcher
from engine.movepick import HISTORY_BONUS_MAX, HISTORY_LIMIT, history_bonus, update_history
from engine.search import PROFILE_PAPER, PROFILE_PLAY, lmr_history_adjustment, new_search_state
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
    assert lmr_history_adjustment(0) == 0
    assert lmr_history_adjustment(5999) == 0
    assert lmr_history_adjustment(-5999) == 0     # a small malus does not reduce more
    assert lmr_history_adjustment(6000) == 1
    assert lmr_history_adjustment(-6000) == -1
    assert lmr_history_adjustment(HISTORY_LIMIT) == 2
    assert lmr_history_adjustment(-HISTORY_LIMIT) == -2


def history_after_search(profile, fen=BENCH_FENS[1], depth=6):
    searcher = Searcher()
    searcher.profile = profile
    searcher.run(Board(fen), new_table(mb=4), Limits(depth=depth))
    return searcher.S.history.copy()


def test_play_searches_give_a_malus_and_stay_bounded():
    history = history_after_search(PROFILE_PLAY)
    assert (history < 0).any()          # the malus ran
    assert (history > 0).any()
    assert np.abs(history).max() <= HISTORY_LIMIT


def test_paper_searches_keep_the_thesis_counter():
    history = history_after_search(PROFILE_PAPER)
    assert (history >= 0).all()         # no malus
    assert (history > 0).any()
