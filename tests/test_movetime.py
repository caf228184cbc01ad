"""`go movetime N` spends about N ms: the margin kept back grows with N and never exceeds
`Move Overhead`, so a short fixed time is not lost to the overhead (100 ms with the default
overhead of 100 ms used to leave 1 ms, a one-ply answer)."""
import pytest

from engine.timeman import budgets

DEFAULT_OVERHEAD_MS = 100


@pytest.mark.parametrize("movetime_ms", [50, 100, 300, 1000, 5000, 60000])
def test_a_fixed_time_is_spent_less_a_margin_that_scales(movetime_ms):
    soft, hard = budgets(None, None, None, movetime_ms, DEFAULT_OVERHEAD_MS)
    assert soft is None
    kept_ms = movetime_ms - hard * 1000
    assert kept_ms <= DEFAULT_OVERHEAD_MS + 1e-6
    assert kept_ms <= 0.1 * movetime_ms + 10 + 1e-6      # at most a tenth of N, plus the pipe
    assert kept_ms >= 0


def test_the_margin_never_exceeds_the_configured_overhead():
    for overhead in (0, 5, 30):
        _, hard = budgets(None, None, None, 2000, overhead)
        assert 2000 - hard * 1000 <= overhead + 1e-6

