"""Iterative deepening with aspiration windows over the jitted root search (Python glue).

`Searcher.run` searches one position: it orders the root moves, calls
`engine.search.search_root` once per iteration (more often when the aspiration window
fails, and once per line with MultiPV), reports each iteration through a callback, and
decides when to stop (depth, nodes, mate-in-N, time, or an external stop). The jitted
search does all the per-node work; this module only loops over iterations.

Threads (Lazy SMP, engine.threads): with `threads` > 1 (play profile only) helper threads
search the same root at the same time; the main thread's result is the answer unless the
threads' last finished iterations vote for another move, which then comes with that
thread's line. Node counts are sums.
"""
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import numpy as np

from engine.memory import touch_pages
from engine.movepick import score_moves
from engine.search import (
    K_CURRMOVE, K_CURRMOVE_NUMBER, K_MAX_NODES, K_NODES, K_PREV_PV_LEN, K_PROFILE,
    K_ROOT_BEST, K_ROOT_BEST_EXACT, K_ROOT_BEST_SCORE, K_ROOT_COMPLETED, K_ROOT_COUNT,
    K_SELDEPTH, K_STOP, PROFILE_PAPER, PROFILE_PLAY, STACK_PREV_PV, STACK_PV_LEN,
    clear_move_ordering, new_search_state, search_root,
)
from engine.threads import Helpers, load_root, vote
from engine.timeman import Clock
from engine.tt import set_sharing, set_store_rules, tt_hashfull, tt_new_search
from engine.types import INFINITE, MATE, MATE_BOUND, MAX_SEARCH_DEPTH, ST_HALFMOVE, ST_SIDE

ASPIRATION_PAPER = 100   # ALIBABA: one pawn, then open on the failing side
ASPIRATION_PLAY = 35     # then doubled on the failing side (see ASPIRATION_OPEN_PAST)
BEST_MOVE_CHANGE_STRETCH = 1.4   # soft time x this after the best move changed
SCORE_DROP_STRETCH = 1.5         # soft time x this after the score dropped...
SCORE_DROP_MARGIN = 30           # ...by more than this many centipawns
NEXT_ITERATION_GROWTH = 2.0      # an iteration costs about this many times the one before:
                                 # one that cannot end before the hard limit is not started
STRETCH_DECAY = 0.9              # the stretch shrinks by this factor each iteration
ASPIRATION_OPEN_PAST = 400       # a window wider than this opens fully on the failing side
MATE_CONFIRM_PLIES = 4           # iterations this many plies past a mate only confirm it


@dataclass
class Limits:
    """One search request, from `go` (engine.uci.parse_go fills it) or from a caller in
    Python. The facade turns `clock` into soft and hard time for the side to move."""
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None          # mate in N moves
    clock: Clock = field(default_factory=Clock)
    soft_time: Optional[float] = None   # seconds: start no new iteration after this
    hard_time: Optional[float] = None   # seconds: stop the search at this
    searchmoves: Optional[list] = None  # moves (int); UCI text until the facade resolves it
    infinite: bool = False              # also while pondering: only `stop`/`ponderhit` end it
    ponder: bool = False
    multipv: int = 1
    soft_nodes: Optional[int] = None    # no new iteration once this many nodes are searched
                                        # (the first always completes: engine.strength)
    started_at: Optional[float] = None  # perf_counter() when `go` arrived: the clock runs
                                        # from there, not from when the search thread starts

    @property
    def max_depth(self) -> int:
        """The deepest iteration: `depth`, capped once, here, at MAX_SEARCH_DEPTH."""
        depth = MAX_SEARCH_DEPTH if self.depth is None else self.depth
        return max(1, min(depth, MAX_SEARCH_DEPTH))


@dataclass
class Iteration:
    depth: int
    seldepth: int
    score: int
    bound: Optional[str]     # None (exact), "lowerbound" or "upperbound"
    nodes: int
    seconds: float
    pv: List[int]
    hashfull: int
    multipv: int = 1
    wdl: Optional[Tuple[int, int, int]] = None   # permille for the side to move (UCI_ShowWDL)

    @property
    def mate_in(self) -> Optional[int]:
        """Moves to mate (negative: getting mated), None for a centipawn score."""
        if abs(self.score) < MATE_BOUND:
            return None
        plies = MATE - abs(self.score)
        moves = (plies + 1) // 2
        return moves if self.score > 0 else -moves


@dataclass
class Result:
    best_move: int = 0
    ponder_move: int = 0
    score: int = 0
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    iterations: List[Iteration] = field(default_factory=list)


class _Watchdog:
    """One long-lived thread per searcher that calls `fire` at a deadline (the hard time
    limit). A thread per search (threading.Timer) costs a thread start on every move, which a
    loaded machine turns into milliseconds at the fastest time controls.

    The thread holds its searcher only weakly (`fire` is a bound method, kept as a WeakMethod)
    and ends when `close` is called, which the searcher's finalizer does: a searcher that is
    dropped takes its thread and its arrays with it."""

    def __init__(self, fire: Callable[[], None]):
        self._fire = weakref.WeakMethod(fire)
        self._deadline = None
        self._closed = False
        self._wake = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="twobig-watchdog", daemon=True)
        self._thread.start()

    def arm(self, deadline: float) -> None:
        with self._wake:
            self._deadline = deadline
            self._wake.notify()

    def disarm(self) -> None:
        with self._wake:
            self._deadline = None
            self._wake.notify()

    def close(self) -> None:
        """End the thread (it is not joined: `close` may run on any thread, the finalizer's
        included)."""
        with self._wake:
            self._closed = True
            self._wake.notify()

    def _run(self) -> None:
        with self._wake:
            while not self._closed:
                if self._deadline is None:
                    self._wake.wait()
                    continue
                left = self._deadline - time.perf_counter()
                if left > 0:
                    self._wake.wait(left)
                    continue
                self._deadline = None
                fire = self._fire()
                if fire is None:             # the searcher is gone
                    return
                fire()
                del fire                     # hold no reference while waiting


def playable_line(board, pv: List[int]) -> List[int]:
    """Cut `pv` (in place; also returned) at its first move that is not legal where it is
    played, and after a position the game's rules have drawn (50 moves, threefold). The
    search builds its lines so that this never cuts; the check keeps a GUI from ever being
    sent an illegal line. `board` is restored."""
    played = 0
    try:
        for index, move in enumerate(pv):
            row = board.P.st[board.ply]
            if index > 0 and (row[ST_HALFMOVE] >= 100 or board.repetitions() >= 2):
                break
            if move not in board.legal_moves():
                break
            board.push(move)
            played += 1
    finally:
        for _ in range(played):
            board.pop()
    del pv[played:]
    return pv


class Searcher:
    """Owns the search state arrays; runs one search at a time."""

    def __init__(self):
        self.S = new_search_state()
        touch_pages(self.S)
        self.helpers = Helpers()
        self.profile = PROFILE_PLAY
        self._watchdog = _Watchdog(self.stop)
        weakref.finalize(self, self._watchdog.close)
        self._clock = time.perf_counter()
        self._limits = Limits()
        self._timer_lock = threading.Lock()
        self._fail_high_move = 0
        self._board = None            # the root of the search running (lines are checked on it)
        # A stop that arrives before the first iteration is complete is held back until it
        # is (a millisecond or so): `bestmove` is then always a searched move, never the
        # first of an unsearched list.
        self._stop_requested = False
        self._first_iteration_pending = False
        self._held_node_limit = 0

    # -- control from other threads ------------------------------------------------------
    # The stop flag lives in one place, ctrl[K_STOP], which every node reads. `run` clears
    # it unless told to keep it: the facade clears it when `go` arrives, so a `stop` sent
    # before the search thread has started still stops that search (after its first
    # iteration). Each side writes its flag before it reads the other's, so whichever
    # order the two threads run in, a held stop is applied.
    def stop(self) -> None:
        self._stop_requested = True
        if not self._first_iteration_pending:
            self.S.ctrl[K_STOP] = 1
        self.helpers.stop()

    def clear_stop(self) -> None:
        self._stop_requested = False
        self.S.ctrl[K_STOP] = 0

    @property
    def stopped(self) -> bool:
        return self._stop_requested or bool(self.S.ctrl[K_STOP])

    def _hold_stops(self) -> None:
        """From here until the first iteration is complete, a stop waits; one already given
        (kept from before the search) waits too, and so does the node limit (the kernel's
        own stop): `go nodes 1` answers with a searched move."""
        self._first_iteration_pending = True
        self._held_node_limit = int(self.S.ctrl[K_MAX_NODES])
        self.S.ctrl[K_MAX_NODES] = 0
        if self.S.ctrl[K_STOP]:
            self._stop_requested = True
            self.S.ctrl[K_STOP] = 0

    def _release_stops(self) -> None:
        self._first_iteration_pending = False
        self.S.ctrl[K_MAX_NODES] = self._held_node_limit
        if self._stop_requested:
            self.S.ctrl[K_STOP] = 1

    def ponderhit(self, limits: Limits) -> None:
        """The pondered move was played: from now on the search of `limits` runs on the
        clock. Safe before that search has started: it then starts on the clock."""
        with self._timer_lock:
            limits.infinite = False
            if self._limits is limits:
                self._clock = time.perf_counter()
                self._arm_timer(limits.hard_time)

    @property
    def nodes(self) -> int:
        """Nodes searched so far by all threads."""
        return int(self.S.ctrl[K_NODES]) + self.helpers.nodes

    def join_helpers(self) -> None:
        """Wait for the helper threads of the last search (already told to stop)."""
        self.helpers.join()

    @property
    def threads(self) -> int:
        return len(self.helpers) + 1

    def set_threads(self, threads: int) -> None:
        """Search with `threads` threads from the next search on (not during one)."""
        self.helpers.resize(int(threads) - 1)

    def current_move(self):
        return int(self.S.ctrl[K_CURRMOVE]), int(self.S.ctrl[K_CURRMOVE_NUMBER])

    def _arm_timer(self, seconds) -> None:
        if seconds is not None and not self._limits.infinite:
            self._watchdog.arm(time.perf_counter() + max(0.0, seconds))
        else:
            self._watchdog.disarm()

    def _disarm_timer(self) -> None:
        self._watchdog.disarm()

    # -- root move lists -----------------------------------------------------------------
    def _initial_order(self, board, searchmoves) -> np.ndarray:
        moves = np.array(board.legal_moves(), dtype=np.int32)
        if searchmoves:
            wanted = set(searchmoves)
            moves = np.array([m for m in moves if m in wanted], dtype=np.int32)
        scores = np.zeros(len(moves), dtype=np.int64)
        if len(moves):
            side = int(board.P.st[board.ply, ST_SIDE])
            score_moves(board.P, board.T, self.S, moves, scores, 0, len(moves), 0, 0, 0, side, False)
        return moves[np.argsort(-scores, kind="stable")].astype(np.int64)

    # -- the search ------------------------------------------------------------------------
    def run(self, board, tt, limits: Limits,
            on_iteration: Callable[[Iteration], None] = None,
            new_generation: bool = True, keep_stop: bool = False) -> Result:
        """Search `board` (an engine.board.Board; it is restored on return). keep_stop: a
        `stop` given since `clear_stop()` ends this search after its first iteration."""
        threaded = self._prepare(board, tt, limits, new_generation, keep_stop)
        result = Result()
        order = self._initial_order(board, limits.searchmoves)
        if len(order) == 0:
            return result
        result.best_move = int(order[0])
        self._hold_stops()
        start = self._start_clock(limits)
        lines = max(1, min(limits.multipv, len(order)))
        prev_lines = [[] for _ in range(lines)]
        scores = [0] * lines
        stretch = 1.0
        iteration_started = time.perf_counter()
        try:
            for depth in range(1, limits.max_depth + 1):
                found, node_counts, completed = self._iteration(
                    board, tt, depth, order, prev_lines, scores, on_iteration, result)
                stretch = self._adopt(found, depth, prev_lines, scores, stretch, tt,
                                      on_iteration, result)
                if depth == 1:
                    self._release_stops()
                if not completed or self.S.ctrl[K_STOP]:
                    break
                order = self._next_order(order, [pv[0] for _, pv in found], node_counts)
                now = time.perf_counter()
                last_iteration, iteration_started = now - iteration_started, now
                if self._should_stop(limits, result, stretch, len(order), last_iteration):
                    break
                if threaded and depth == 1:
                    # Helpers join once the first iteration is done: it then runs on a core
                    # of its own (with more threads than cores, competing for the cores and
                    # the interpreter lock made its millisecond last seconds), and they start
                    # from its move order.
                    self.helpers.start(board, tt, order, limits.max_depth, self.S.ctrl,
                                       self.profile)
                stretch = max(1.0, stretch * STRETCH_DECAY)
        finally:
            self._release_stops()
            # Every helper is told to stop (each returns within a node); they are joined
            # at the start of the next search, so `bestmove` does not wait for threads
            # that a busy machine has not scheduled yet.
            self.helpers.stop()
            with self._timer_lock:
                self._disarm_timer()
                self._limits = Limits()
        finished = self.helpers.finished()     # (a helper finishing now is not counted)
        if finished and result.depth:
            self._vote(result, finished, tt, on_iteration)
        result.nodes = self.nodes
        result.seconds = time.perf_counter() - start
        return result

    # -- the steps of `run` ----------------------------------------------------------------
    def _prepare(self, board, tt, limits: Limits, new_generation: bool,
                 keep_stop: bool) -> bool:
        """Reset the kernel's control array, the move ordering and (unless told otherwise)
        the table's generation for a new search; returns whether helper threads join it."""
        self.join_helpers()
        self._board = board            # at the root whenever a line is reported
        ctrl = self.S.ctrl
        if not keep_stop:
            self.clear_stop()
        ctrl[K_STOP + 1:] = 0   # every field but the stop flag (field 0)
        ctrl[K_PROFILE] = self.profile
        set_store_rules(tt, self.profile == PROFILE_PLAY)
        # The paper profile (the thesis' experiments) is single-threaded and deterministic.
        threaded = self.profile == PROFILE_PLAY and len(self.helpers) > 0
        self.helpers.idle()   # none runs until this search starts them (after its first iteration)
        set_sharing(tt, threaded)
        # `go nodes N` counts every thread's nodes: each gets an equal share of N.
        threads = len(self.helpers) + 1 if threaded else 1
        ctrl[K_MAX_NODES] = -(-limits.nodes // threads) if limits.nodes else 0
        clear_move_ordering(self.S)
        if new_generation:
            tt_new_search(tt)
        return threaded

    def _start_clock(self, limits: Limits) -> float:
        """Start the search's clock (from `limits.started_at` when the protocol saw `go`
        earlier) and arm the hard-time timer; returns the moment the search starts."""
        with self._timer_lock:
            start = time.perf_counter()
            self._clock = limits.started_at if limits.started_at is not None else start
            self._limits = limits
            self._arm_timer(None if limits.hard_time is None
                            else limits.hard_time - (start - self._clock))
        return start

    def _iteration(self, board, tt, depth: int, order: np.ndarray, prev_lines, scores,
                   on_iteration, result: Result):
        """One iteration: each MultiPV line in turn, over the root moves the earlier lines
        left. Returns ((score, pv) of each line finished, subtree size of each root move,
        whether the iteration completed). A stopped iteration may still change the best
        move, to one it proved better."""
        S, ctrl = self.S, self.S.ctrl
        paper = self.profile == PROFILE_PAPER
        done: List[int] = []
        found: List[Tuple[int, List[int]]] = []
        node_counts = {}
        for line in range(len(prev_lines)):
            remaining = np.array([m for m in order if m not in done], dtype=np.int64)
            load_root(S, remaining)
            prev = prev_lines[line]
            S.stack[:len(prev), STACK_PREV_PV] = prev
            ctrl[K_PREV_PV_LEN] = len(prev)
            value = self._aspiration(board, tt, depth, scores[line], paper,
                                     line == 0, on_iteration, result, line + 1)
            for i in range(len(remaining)):
                node_counts[int(S.root_moves[i])] = int(S.root_nodes[i])
            if ctrl[K_STOP]:
                if line == 0:
                    self._adopt_proven_move(result, tt, depth, on_iteration)
                return found, node_counts, False
            pv = [int(m) for m in S.pv[0, :S.stack[0, STACK_PV_LEN]]]
            found.append((value, pv))
            done.append(pv[0])
        return found, node_counts, True

    def _adopt_proven_move(self, result: Result, tt, depth: int, on_iteration) -> None:
        """A stopped iteration replaces the last best move only with a move it proved
        better: one that beat alpha at full depth, or failed high at the root (its
        re-search cut short)."""
        ctrl = self.S.ctrl
        proven = self._fail_high_move
        beat_alpha = ctrl[K_ROOT_BEST] and ctrl[K_ROOT_COMPLETED] >= 1
        if beat_alpha:
            proven = int(ctrl[K_ROOT_BEST])
        if proven and proven != result.best_move:
            result.best_move, result.ponder_move = proven, 0
            if beat_alpha:   # (a fail high was reported when it happened)
                self._report_proven(on_iteration, result, tt, depth)

    def _adopt(self, found, depth: int, prev_lines, scores, stretch: float, tt,
               on_iteration, result: Result) -> float:
        """Rank the finished lines by score, report them, and take the best as the result;
        returns the time stretch, raised when the best move changes or its score drops.
        (MultiPV: a later line can outscore an earlier one, since pruning and the table
        make searches of different windows disagree.)"""
        found.sort(key=lambda item: -item[0])
        for line, (value, pv) in enumerate(found):
            prev_lines[line] = pv
            scores[line] = value
            self._report(on_iteration, result, tt, depth, value, None, pv, line + 1)
        if found:
            value, pv = found[0]
            if pv[0] != result.best_move and depth > 1:
                stretch = max(stretch, BEST_MOVE_CHANGE_STRETCH)
            if depth > 1 and value < result.score - SCORE_DROP_MARGIN:
                stretch = max(stretch, SCORE_DROP_STRETCH)
            result.best_move = pv[0]
            result.ponder_move = pv[1] if len(pv) > 1 else 0
            result.score = value
            result.depth = depth
        return stretch

    @staticmethod
    def _next_order(order: np.ndarray, done: List[int], node_counts) -> np.ndarray:
        """The next iteration's root order: the lines found, best first, then the other
        moves by the size of their subtrees."""
        rest = [m for m in order if m not in done]
        rest.sort(key=lambda m: -node_counts.get(int(m), 0))
        return np.array(done + rest, dtype=np.int64)

    def _vote(self, result: Result, finished, tt, on_iteration) -> None:
        """Play what the threads vote for (engine.threads.vote); report its line if the
        move or the score changes."""
        main = (result.depth, result.score,
                [result.best_move] + ([result.ponder_move] if result.ponder_move else []))
        depth, score, pv = vote(main, finished)
        if pv[0] == result.best_move and score == result.score:
            return
        result.best_move, result.score, result.depth = pv[0], score, depth
        self._report(on_iteration, result, tt, depth, score, None, pv, 1)
        result.ponder_move = pv[1] if len(pv) > 1 else 0

    def _aspiration(self, board, tt, depth, guess, paper, aspire, on_iteration, result, line):
        S = self.S
        self._fail_high_move = 0
        window = ASPIRATION_PAPER if paper else ASPIRATION_PLAY
        if aspire and depth >= 2 and abs(guess) < MATE_BOUND:
            alpha, beta = max(guess - window, -INFINITE), min(guess + window, INFINITE)
        else:
            alpha, beta = -INFINITE, INFINITE
        while True:
            value = int(search_root(board.P, board.T, tt, S, np.int64(depth),
                                    np.int64(alpha), np.int64(beta)))
            if S.ctrl[K_STOP]:
                return value
            if value <= alpha:
                self._report(on_iteration, result, tt, depth, value, "upperbound",
                             [int(S.root_moves[0])], line)
                window *= 2
                alpha = -INFINITE if paper or window > ASPIRATION_OPEN_PAST else max(value - window, -INFINITE)
            elif value >= beta:
                pv = [int(m) for m in S.pv[0, :max(1, S.stack[0, STACK_PV_LEN])]]
                self._report(on_iteration, result, tt, depth, value, "lowerbound", pv, line)
                # The move that failed high is the answer if time runs out before the wider
                # window has measured it; play searches it first again (the paper profile
                # keeps the thesis' order, and its node counts).
                self._fail_high_move = pv[0]
                count = int(S.ctrl[K_ROOT_COUNT])
                moves = [int(m) for m in S.root_moves[:count]]
                if not paper and pv[0] in moves:
                    load_root(S, np.array([pv[0]] + [m for m in moves if m != pv[0]],
                                          dtype=np.int64))
                window *= 2
                beta = INFINITE if paper or window > ASPIRATION_OPEN_PAST else min(value + window, INFINITE)
            else:
                return value

    def _should_stop(self, limits, result, stretch, root_moves, last_iteration=0.0) -> bool:
        """Whether to start no further iteration (last_iteration: seconds the one just
        finished took)."""
        if abs(result.score) >= MATE_BOUND and not limits.infinite:
            plies = MATE - abs(result.score)
            if limits.mate is not None and result.score > 0 and (plies + 1) // 2 <= limits.mate:
                return True   # `go mate N` ends on a mate for the side to move, not on being mated
            if limits.depth is None and result.depth >= plies + MATE_CONFIRM_PLIES:
                return True   # deeper iterations only confirm a mate already seen
        if limits.nodes and self.nodes >= limits.nodes:
            return True
        if limits.soft_nodes and self.nodes >= limits.soft_nodes:
            return True
        if limits.infinite:
            return False
        if limits.soft_time is not None:
            elapsed = time.perf_counter() - self._clock
            soft = limits.soft_time * stretch
            if limits.hard_time is not None:
                soft = min(soft, limits.hard_time)
            if root_moves == 1 or elapsed >= soft:
                return True
            if (limits.hard_time is not None
                    and elapsed + NEXT_ITERATION_GROWTH * last_iteration > limits.hard_time):
                return True   # it would be cut off: its time is better kept on the clock
        return False

    def _report_proven(self, callback, result, tt, depth):
        """The stopped iteration `depth` will play its K_ROOT_BEST: tell the GUI, so that
        the last PV it shows starts with the move played (with the move's exact score and
        line if it was searched to the end, else the lower bound that it beat alpha by)."""
        S = self.S
        score = int(S.ctrl[K_ROOT_BEST_SCORE])
        pv = [int(m) for m in S.pv[0, :S.stack[0, STACK_PV_LEN]]]
        if S.ctrl[K_ROOT_BEST_EXACT] and pv and pv[0] == result.best_move:
            self._report(callback, result, tt, depth, score, None, pv, 1)
            result.ponder_move = pv[1] if len(pv) > 1 else 0
        else:
            self._report(callback, result, tt, depth, score, "lowerbound", [result.best_move], 1)

    def _report(self, callback, result, tt, depth, score, bound, pv, line):
        S = self.S
        playable_line(self._board, pv)
        iteration = Iteration(
            depth=depth, seldepth=int(S.ctrl[K_SELDEPTH]), score=score, bound=bound,
            nodes=self.nodes, seconds=time.perf_counter() - self._clock,
            pv=pv, hashfull=int(tt_hashfull(tt)), multipv=line)
        result.iterations.append(iteration)
        if callback is not None:
            callback(iteration)
