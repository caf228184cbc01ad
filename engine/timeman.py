"""Time management: UCI `go` clock parameters -> soft and hard time budgets (seconds).

soft: no new iteration is started after it (the driver stretches it when the best move
      changes or the score drops); hard: the search is stopped at it, whatever it is doing.
Both leave `Move Overhead` for the GUI and the pipe. `go movetime N` has no soft limit: with
no clock to save time for, the search runs until the hard limit, N less a margin that grows
with N and never exceeds `Move Overhead` (the driver plays a cut iteration's move only if it
beat the last best move at full depth or failed high).
"""
from collections import deque
from dataclasses import dataclass
from typing import Optional, Tuple

DEFAULT_MOVES_TO_GO = 40   # sudden death: plan as if this many moves remained (40 scored
                           # +24 Elo against 30, 22 -55, at 5 s + 0.05 s: README's tables;
                           # against Glaurung at 10 s + 0.1 s, side by side on the same
                           # 150 openings, 40 scored 46.3% and 30 44.0%: README's time row)
SOFT_SHARE = 0.4           # never plan to use more than this share of the clock on a move...
HARD_SHARE = 0.5           # ...nor let a move run past this share of it (a Python engine
                           # on a loaded machine overshoots a limit by tens of ms)
HARD_OVER_IDEAL = 3.0      # the hard limit may exceed the ideal time this many times
MIN_BUDGET = 0.001
MAX_MOVES_TO_GO = 50       # a longer `movestogo` plans as if this many moves remained
LAST_MOVE_SOFT = 0.6       # the move before a time control: this share of the ideal and of
LAST_MOVE_HARD = 0.85      # the clock (soft), and of the clock at most (hard)
INC_SHARE = 0.75           # share of the increment a move plans to spend...
INC_RESERVE = 10           # ...once the clock holds this many increments beyond the overhead;
                           # below that the share shrinks in proportion, so that a move's
                           # fixed cost (the pipe, a descheduled process) is paid from the
                           # increment and the reserve does not drain to nothing
REPAIRED_GO_MOVETIME_MS = 1000   # a go left with nothing to end its search searches this long
MOVETIME_MARGIN_MS = 10    # `go movetime N` keeps this much back for the pipe...
MOVETIME_MARGIN_SHARE = 0.05   # ...plus this share of N, at most `Move Overhead` in all: the
                           # whole overhead taken from a short fixed time left a 100 ms
                           # search a one-ply answer


def budgets(time_ms: Optional[int], inc_ms: Optional[int], movestogo: Optional[int],
            movetime_ms: Optional[int], overhead_ms: int) -> Tuple[Optional[float], Optional[float]]:
    """(soft, hard) in seconds; (None, None) when nothing limits time, (None, hard) for a
    fixed time per move."""
    if movetime_ms is not None:
        margin = min(overhead_ms, MOVETIME_MARGIN_MS + MOVETIME_MARGIN_SHARE * movetime_ms)
        return None, max(MIN_BUDGET, (movetime_ms - margin) / 1000.0)
    if time_ms is None:
        return None, None
    left = max(MIN_BUDGET, (time_ms - overhead_ms) / 1000.0)
    inc = max(0, inc_ms or 0) / 1000.0
    moves = max(1, min(movestogo or DEFAULT_MOVES_TO_GO, MAX_MOVES_TO_GO))
    inc_share = INC_SHARE * min(1.0, left / (INC_RESERVE * inc)) if inc > 0 else 0.0
    ideal = left / moves + inc_share * inc
    if moves == 1:
        # The last move before the time control: the whole clock is there, keep a margin.
        return min(ideal * LAST_MOVE_SOFT, left * LAST_MOVE_SOFT), left * LAST_MOVE_HARD
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

    def lacks_side_to_move(self, white: bool) -> bool:
        """A clock was given, but neither the side to move's time nor a time per move: the
        GUI waits for a move, and nothing would end the search (`go btime 500` with white
        to move)."""
        given = any(value is not None
                    for value in (self.wtime, self.btime, self.winc, self.binc, self.movestogo))
        return given and (self.wtime if white else self.btime) is None and self.movetime is None

    def budgets(self, white: bool, overhead_ms: int) -> Tuple[Optional[float], Optional[float]]:
        """(soft, hard) seconds for the side to move (white or not)."""
        return budgets(self.wtime if white else self.btime, self.winc if white else self.binc,
                       self.movestogo, self.movetime, overhead_ms)


LAG_MOVES = 8          # the lag of this many recent moves is remembered
LAG_FACTOR = 2         # Move Overhead is raised to this many times the worst recent lag
MAX_PLAUSIBLE_LAG_MS = 5000


class LagTracker:
    """The time a GUI's clock loses on our moves beyond what the engine measures (the
    pipe both ways, waiting to be scheduled on a loaded machine, the GUI itself). From two
    consecutive `go` commands of one game: the clock should now read the last one, minus
    what the engine spent, plus the increment; the shortfall is the lag. The effective overhead is
    then at least LAG_FACTOR x the worst of the last LAG_MOVES lags."""

    def __init__(self):
        self._lags = deque(maxlen=LAG_MOVES)
        self._last = None     # (clock_ms, inc_ms, plies played, ms spent) of our last move

    def reset(self) -> None:
        self._lags.clear()
        self._last = None

    def observe(self, clock_ms: Optional[int], inc_ms: Optional[int], plies: int) -> None:
        """A clock `go` arrived for our move at game length `plies`."""
        if self._last is not None and clock_ms is not None:
            last_clock, last_inc, last_plies, spent = self._last
            if plies == last_plies + 2:
                lag = last_clock - spent + (last_inc or 0) - clock_ms
                if 0 <= lag <= MAX_PLAUSIBLE_LAG_MS:   # below 0: time added (movestogo)
                    self._lags.append(lag)
        self._last = None

    def moved(self, clock_ms: Optional[int], inc_ms: Optional[int], plies: int,
              spent_ms: float) -> None:
        """Our bestmove went out `spent_ms` after its `go` (clock searches only)."""
        self._last = None if clock_ms is None else (clock_ms, inc_ms, plies, spent_ms)

    def overhead_ms(self, configured: int) -> int:
        worst = max(self._lags) if self._lags else 0
        return max(configured, int(LAG_FACTOR * worst))
