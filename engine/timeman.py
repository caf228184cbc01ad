"""Time management: UCI `go` clock parameters -> soft and hard time budgets (seconds).

soft: no new iteration is started after it (the driver stretches it when the best move
      changes or the score drops); hard: the search is stopped at it, whatever it is doing.
Both leave `Move Overhead` for the GUI and the pipe.
"""
from dataclasses import dataclass
from typing import Optional, Tuple

DEFAULT_MOVES_TO_GO = 30   # sudden death: plan as if this many moves remained
SOFT_SHARE = 0.4           # never plan to use more than this share of the clock on a move...
HARD_SHARE = 0.5           # ...nor let a move run past this share of it (a Python engine
                           # on a loaded machine overshoots a limit by tens of ms)
HARD_OVER_IDEAL = 3.0      # the hard limit may exceed the ideal time this many times
MIN_BUDGET = 0.001


def budgets(time_ms: Optional[int], inc_ms: Optional[int], movestogo: Optional[int],
            movetime_ms: Optional[int], overhead_ms: int) -> Tuple[Optional[float], Optional[float]]:
    """(soft, hard) in seconds; (None, None) when nothing limits time."""
    if movetime_ms is not None:
        budget = max(MIN_BUDGET, (movetime_ms - overhead_ms) / 1000.0)
        return budget, budget
    if time_ms is None:
        return None, None
    left = max(MIN_BUDGET, (time_ms - overhead_ms) / 1000.0)
    inc = max(0, inc_ms or 0) / 1000.0
    moves = max(1, min(movestogo or DEFAULT_MOVES_TO_GO, 50))
    ideal = left / moves + 0.75 * inc
    if moves == 1:
        # The last move before the time control: the whole clock is there, keep a margin.
        return min(ideal * 0.6, left * 0.6), left * 0.85
    soft = min(ideal, left * SOFT_SHARE)
    hard = min(ideal * HARD_OVER_IDEAL, left * HARD_SHARE)
    return max(MIN_BUDGET, soft), max(MIN_BUDGET, hard)


@dataclass
class Clock:
    """The clock part of a UCI `go`, in milliseconds as the GUI sent it."""
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    movetime: Optional[int] = None

    def budgets(self, white: bool, overhead_ms: int) -> Tuple[Optional[float], Optional[float]]:
        """(soft, hard) seconds for the side to move (white or not)."""
        return budgets(self.wtime if white else self.btime, self.winc if white else self.binc,
                       self.movestogo, self.movetime, overhead_ms)
