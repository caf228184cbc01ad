"""Time management: budgets from the clock, and the driver's decision to start no iteration
it cannot finish. Logic only, with the clock set by hand: no wall-clock assertions."""
import time

import pytest

from engine.driver import NEXT_ITERATION_GROWTH, Limits, Result, Searcher
from engine.timeman import HARD_SHARE, Clock, budgets


@pytest.mark.parametrize("clock_ms", [50, 150, 300, 1000, 10_000, 600_000])
@pytest.mark.parametrize("inc_ms", [0, 10, 50, 1000])
def test_a_move_never_plans_past_its_share_of_the_clock(clock_ms, inc_ms):
    """A bound, not a value: over a grid of clocks and increments no hard limit passes
    HARD_SHARE of what the clock holds beyond the overhead. The share is the tuned
    constant itself (no oracle outside the code exists for a tuning choice); the exact
    budgets are checked against hand-worked numbers in tests/test_go_behaviour.py."""
    overhead = 100
    soft, hard = budgets(clock_ms, inc_ms, None, None, overhead)
    left = max(0.001, (clock_ms - overhead) / 1000)
    assert 0 < soft <= hard
    assert hard <= max(0.001, left * HARD_SHARE) + 1e-12


def test_last_move_before_the_control_keeps_a_margin():
    soft, hard = budgets(2000, 0, 1, None, 100)
    assert hard < 1.9


def test_no_iteration_is_started_that_the_hard_limit_would_cut():
    searcher = Searcher()
    limits = Limits(soft_time=50.0, hard_time=100.0)
    searcher._clock = time.perf_counter() - 0.5            # half a second spent so far
    result = Result()
    # The next iteration would take about NEXT_ITERATION_GROWTH x the last one.
    assert searcher._should_stop(limits, result, 1.0, 20, last_iteration=60.0 / NEXT_ITERATION_GROWTH * 2)
    assert not searcher._should_stop(limits, result, 1.0, 20, last_iteration=1.0)


def test_movetime_is_a_hard_limit_only():
    assert budgets(None, None, None, 1000, 30) == (None, 0.97)
    assert budgets(5000, 100, None, 1000, 30) == (None, 0.97)   # movetime wins over a clock


def test_a_fixed_time_starts_every_iteration_until_the_hard_limit():
    # `go movetime`: there is no clock to keep time for, so an iteration the hard limit
    # will cut is still started (its first moves can improve the answer).
    searcher = Searcher()
    searcher._clock = time.perf_counter() - 0.5
    limits = Limits(hard_time=100.0)
    assert not searcher._should_stop(limits, Result(), 1.0, 20, last_iteration=90.0)
    assert not searcher._should_stop(limits, Result(), 1.0, 1, last_iteration=90.0)


def test_go_movetime_reaches_the_driver_without_a_soft_limit():
    from engine.facade import Engine
    seen = []
    engine = Engine()
    engine.session.search = lambda board, limits, *args, **kwargs: seen.append(limits) or Result()
    engine.go(Limits(clock=Clock(movetime=800)))
    engine.wait()
    overhead = engine.options["Move Overhead"] / 1000
    assert seen[0].soft_time is None
    # all of the 800 ms but a margin: at most the overhead, at most a tenth plus 10 ms
    assert 0.8 - overhead <= seen[0].hard_time < 0.8
    assert seen[0].hard_time >= 0.8 * 0.9 - 0.010


def test_the_clock_runs_from_when_go_arrived():
    from engine.board import Board
    from engine.tt import new_table
    searcher = Searcher()
    arrived = time.perf_counter() - 1000.0                  # a go that arrived long ago
    result = searcher.run(Board(), new_table(mb=1),
                          Limits(soft_time=999.0, hard_time=999.0, started_at=arrived))
    assert result.depth <= 2 and result.best_move != 0      # out of time at once, still a move


def test_lag_is_what_the_clock_lost_beyond_the_time_spent():
    from engine.timeman import LAG_FACTOR, LagTracker
    lag = LagTracker()
    lag.observe(10_000, 100, plies=0)
    lag.moved(10_000, 100, plies=0, spent_ms=400)
    lag.observe(9_650, 100, plies=2)          # expected 10,000 - 400 + 100 = 9,700: 50 ms lost
    assert lag.overhead_ms(30) == LAG_FACTOR * 50
    assert lag.overhead_ms(500) == 500        # never below the configured overhead
    lag.moved(9_650, 100, plies=2, spent_ms=100)
    lag.observe(20_000, 100, plies=4)         # time added at a control: no lag measured
    assert lag.overhead_ms(30) == LAG_FACTOR * 50
    lag.moved(20_000, 100, plies=4, spent_ms=100)
    lag.observe(19_000, 100, plies=8)         # not our next move (a different game): ignored
    assert lag.overhead_ms(30) == LAG_FACTOR * 50
    lag.reset()
    assert lag.overhead_ms(30) == 30


def test_the_engine_raises_its_overhead_when_the_gui_clock_runs_faster():
    """Two clock moves through the facade: the GUI's clock dropped 300 ms more than the
    engine spent, so the next move's budget keeps LAG_FACTOR x 300 ms back."""
    from engine.facade import Engine
    from engine.timeman import LAG_FACTOR
    from engine.uci import parse_go
    engine = Engine()
    engine.set_position(None, ["e2e4", "e7e5"])
    engine.go(parse_go(["wtime", "60000", "btime", "60000", "depth", "2"])[0])
    engine.wait()
    spent = engine.lag._last[3]
    engine.set_position(None, ["e2e4", "e7e5", "g1f3", "b8c6"])
    engine.go(parse_go(["wtime", str(int(60000 - spent - 300)), "btime", "60000", "depth", "2"])[0])
    engine.wait()
    assert abs(engine.lag.overhead_ms(0) - LAG_FACTOR * 300) <= LAG_FACTOR * 1


# Worked out by hand (overhead 100 ms, increment 10 ms, 40 moves to go): the clock holds
# (clock - 100) / 10 increments of a reserve of 10, so 0.75 x 10 ms x that / 10 of the
# increment is planned, on top of (clock - 100) / 40 ms. 110 ms: 0.25 + 0.75 = 1.0 ms;
# 130 ms: 0.75 + 2.25 = 3.0 ms; 160 ms: 1.5 + 4.5 = 6.0 ms. All below the 7.5 ms
# (three quarters of the increment) a full clock plans.
@pytest.mark.parametrize("clock_ms,soft_ms", [(110, 1.0), (130, 3.0), (160, 6.0)])
def test_a_low_clock_spends_less_than_its_increment(clock_ms, soft_ms):
    """Near the overhead the increment is not spent in full: whatever a move costs beyond
    the search comes out of it, and the reserve above the overhead stays."""
    soft, hard = budgets(clock_ms, 10, None, None, 100)
    assert soft == pytest.approx(soft_ms / 1000)
    assert soft < 0.0075


def test_a_full_clock_spends_three_quarters_of_its_increment():
    # 59.9 s left / 40 moves = 1.4975 s, plus 0.75 x 1 s of increment (59.9 increments
    # held, far above the reserve of 10).
    soft, _ = budgets(60_000, 1000, None, None, 100)
    assert soft == pytest.approx(2.2475)
