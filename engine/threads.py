"""Lazy SMP (Python glue): the helper threads of a search and the vote on their results.

With `Threads` N > 1 (play profile only), N - 1 helper threads search the main thread's
root at the same time, each with its own board copy and search state (killers, history,
PV, move stacks), sharing only the transposition table (engine.tt explains how it stays
sound without locks on reads). The kernels release the GIL, so the threads run in
parallel. Each helper runs its own iterative deepening until the main thread ends the
search: odd-numbered helpers one ply ahead, each with the root moves after the first
rotated by its number, so that the threads go different ways at first.

When the search ends, `vote` picks the answer among the main thread's last finished
iteration and the helpers': a proven mate (the shortest) wins; otherwise each line votes
for its first move with weight (score - lowest score + VOTE_SCORE_FLOOR) x depth.
"""
import threading
from typing import Dict, List, Sequence, Tuple

import numpy as np

from engine.memory import touch_pages
from engine.search import (
    K_MAX_NODES, K_NODES, K_PREV_PV_LEN, K_PROFILE, K_ROOT_COUNT, K_STOP, STACK_PREV_PV,
    STACK_PV_LEN, SearchState, clear_move_ordering, new_search_state, search_root,
)
from engine.types import INFINITE, MATE_BOUND

MAX_THREADS = 256
HELPER_WINDOW = 50          # a helper's aspiration window, opened fully on a failure...
HELPER_WINDOW_DEPTH = 4     # ...from this depth on
VOTE_SCORE_FLOOR = 14       # every finished line votes at least this x its depth

Line = Tuple[int, int, List[int]]   # (depth, score, pv) of a finished iteration


def load_root(S: SearchState, moves: np.ndarray) -> None:
    """Put the root moves, in search order, into a search state."""
    S.root_moves[:len(moves)] = moves
    S.root_nodes[:len(moves)] = 0
    S.ctrl[K_ROOT_COUNT] = len(moves)


def vote(main: Line, helpers: Sequence[Line]) -> Line:
    """The line to play among the main thread's and the helpers' finished iterations: the
    shortest proven mate if any thread found one; else the move with the most votes (ties
    go to the main thread's move), with the deepest (then best-scoring) line that plays it."""
    lines = [main] + list(helpers)
    mates = [line for line in lines if line[1] >= MATE_BOUND]
    if mates:
        return max(mates, key=lambda line: (line[1], line[0]))
    lowest = min(score for _, score, _ in lines)
    votes: Dict[int, int] = {}
    for depth, score, pv in lines:
        votes[pv[0]] = votes.get(pv[0], 0) + (score - lowest + VOTE_SCORE_FLOOR) * depth
    move = max(votes, key=lambda m: (votes[m], m == main[2][0]))
    return max((line for line in lines if line[2][0] == move), key=lambda line: (line[0], line[1]))


class Helpers:
    """The helper threads of one searcher: their search states, their threads while a
    search runs, and the last iteration each finished."""

    def __init__(self):
        self.states: List[SearchState] = []
        self._workers: List[threading.Thread] = []
        self._finished: Dict[int, Line] = {}
        self._lock = threading.Lock()
        self._active = 0          # helpers started by the last search

    def __len__(self) -> int:
        return len(self.states)

    def resize(self, helpers: int) -> None:
        """Keep `helpers` search states (not during a search)."""
        self.join()
        self._active = 0
        helpers = max(0, min(helpers, MAX_THREADS - 1))
        self.states = self.states[:helpers]
        while len(self.states) < helpers:
            self.states.append(new_search_state())
            touch_pages(self.states[-1])

    @property
    def nodes(self) -> int:
        """Nodes of the helpers the last search started."""
        return sum(int(S.ctrl[K_NODES]) for S in self.states[:self._active])

    def idle(self) -> None:
        """No helper runs for the search about to start until it starts them (the paper
        profile never does): the last search's results are forgotten."""
        self._finished = {}
        self._active = 0

    def stop(self) -> None:
        """Tell every helper to return (each sees it within a node)."""
        for S in self.states:
            S.ctrl[K_STOP] = 1

    def join(self) -> None:
        """Wait for the helper threads of the last search (already told to stop)."""
        for worker in self._workers:
            worker.join()
        self._workers = []

    def finished(self) -> List[Line]:
        with self._lock:
            return list(self._finished.values())

    def start(self, board, tt, order: np.ndarray, max_depth: int, main_ctrl, profile: int) -> None:
        """Start one thread per helper on `board`'s root (each on its own copy), with the
        main thread's stop flag, profile and node share."""
        self._finished = {}
        self._active = len(self.states)
        for number, S in enumerate(self.states, 1):
            S.ctrl[K_STOP + 1:] = 0
            S.ctrl[K_NODES] = 0
            S.ctrl[K_STOP] = main_ctrl[K_STOP]   # a stop already given holds for all
            S.ctrl[K_PROFILE] = profile
            S.ctrl[K_MAX_NODES] = main_ctrl[K_MAX_NODES]
            # Each helper counts table probes and stores into its own array: one shared
            # counter array would be a cache line every thread writes on every probe.
            own_counters = tt._replace(stats=np.zeros_like(tt.stats))
            worker = threading.Thread(target=self._search, name=f"twobig-helper-{number}",
                                      args=(S, board.copy(), own_counters, order, max_depth,
                                            number),
                                      daemon=True)
            worker.start()
            self._workers.append(worker)

    def _search(self, S: SearchState, board, tt, order: np.ndarray, max_depth: int,
                number: int) -> None:
        """A helper's own iterative deepening over the root, until stopped (or its node
        share or `max_depth` is reached). Its results reach the main thread through the
        table and, at the end, the vote."""
        ctrl = S.ctrl
        clear_move_ordering(S)
        order = order.copy()
        if len(order) > 2:
            shift = number % (len(order) - 1)
            order[1:] = np.roll(order[1:], -shift)
        score = 0
        prev: List[int] = []
        for depth in range(1 + number % 2, max_depth + 1):
            if ctrl[K_STOP]:
                return
            load_root(S, order)
            S.stack[:len(prev), STACK_PREV_PV] = prev
            ctrl[K_PREV_PV_LEN] = len(prev)
            alpha, beta = -INFINITE, INFINITE
            if depth >= HELPER_WINDOW_DEPTH and abs(score) < MATE_BOUND:
                alpha, beta = score - HELPER_WINDOW, score + HELPER_WINDOW
            value = int(search_root(board.P, board.T, tt, S, np.int64(depth),
                                    np.int64(alpha), np.int64(beta)))
            if not ctrl[K_STOP] and not alpha < value < beta:
                value = int(search_root(board.P, board.T, tt, S, np.int64(depth),
                                        np.int64(-INFINITE), np.int64(INFINITE)))
            if ctrl[K_STOP]:
                return
            score = value
            prev = [int(m) for m in S.pv[0, :S.stack[0, STACK_PV_LEN]]]
            if prev:
                with self._lock:
                    self._finished[number] = (depth, score, prev)
                counts = {int(S.root_moves[i]): int(S.root_nodes[i]) for i in range(len(order))}
                rest = sorted((m for m in order if m != prev[0]), key=lambda m: -counts.get(int(m), 0))
                order = np.array([prev[0]] + rest, dtype=np.int64)
