"""Iterative deepening with aspiration windows over the jitted root search (Python glue).

`Searcher.run` searches one position: it orders the root moves, calls
`engine.search.search_root` once per iteration (more often when the aspiration window
fails), reports each iteration through a callback, and decides when to stop (depth, nodes,
mate-in-N, time via engine.timeman, or an external stop). The jitted search does all the
per-node work; this module only loops over iterations.
"""
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import numpy as np

from engine import search as S_
from engine.movepick import score_moves
from engine.search import (
    K_CURRMOVE, K_CURRMOVE_NUMBER, K_MAX_NODES, K_NODES, K_PREV_PV_LEN, K_PROFILE, K_QNODES,
    K_ROOT_BEST, K_ROOT_COMPLETED, K_ROOT_COUNT, K_SELDEPTH, K_STOP, K_WEIGHTED, PROFILE_PAPER,
    new_search_state, search_root,
)
from engine.tt import tt_hashfull, tt_new_search
from engine.types import INFINITE, MATE, MATE_BOUND, MAX_PLY, ST_SIDE

ASPIRATION_PAPER = 100   # ALIBABA: one pawn, then open on the failing side
ASPIRATION_PLAY = 35     # then doubled on the failing side


@dataclass
class Limits:
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None          # mate in N moves
    soft_time: Optional[float] = None   # seconds: start no new iteration after this
    hard_time: Optional[float] = None   # seconds: stop the search at this
    searchmoves: Optional[List[int]] = None
    infinite: bool = False


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


class Searcher:
    """Owns the search state arrays; runs one search at a time."""

    def __init__(self):
        self.S = new_search_state()
        self.profile = S_.PROFILE_PLAY

    def stop(self) -> None:
        self.S.ctrl[K_STOP] = 1

    @property
    def nodes(self) -> int:
        return int(self.S.ctrl[K_NODES])

    def current_move(self):
        return int(self.S.ctrl[K_CURRMOVE]), int(self.S.ctrl[K_CURRMOVE_NUMBER])

    def _order_root(self, board, tt_move: int, searchmoves) -> int:
        S = self.S
        moves = np.array(board.legal_moves(), dtype=np.int32)
        if searchmoves:
            moves = np.array([m for m in moves if m in set(searchmoves)], dtype=np.int32)
        n = len(moves)
        scores = np.zeros(max(n, 1), dtype=np.int64)
        side = int(board.P.st[board.ply, ST_SIDE])
        if n:
            score_moves(board.P, S, moves, scores, 0, n, 0, tt_move, 0, side, False)
        order = np.argsort(-scores[:n], kind="stable")
        S.root_moves[:n] = moves[order]
        S.ctrl[K_ROOT_COUNT] = n
        return n

    def _reorder_root(self, best: int) -> None:
        """Best move first, the others by the size of their last subtree."""
        S = self.S
        n = int(S.ctrl[K_ROOT_COUNT])
        moves = S.root_moves[:n].copy()
        nodes = S.root_nodes[:n].copy()
        nodes[moves == best] = np.iinfo(np.int64).max
        order = np.argsort(-nodes, kind="stable")
        S.root_moves[:n] = moves[order]
        S.root_nodes[:n] = 0

    def run(self, board, tt, limits: Limits,
            on_iteration: Callable[[Iteration], None] = None,
            new_generation: bool = True) -> Result:
        """Search `board` (a engine.board.Board; it is restored on return)."""
        S = self.S
        start = time.perf_counter()
        ctrl = S.ctrl
        profile = self.profile
        ctrl[:] = 0
        ctrl[K_PROFILE] = profile
        ctrl[K_MAX_NODES] = limits.nodes or 0
        S.killers[:] = 0
        S.history[:] = 0
        if new_generation:
            tt_new_search(tt)
        result = Result()
        n = self._order_root(board, 0, limits.searchmoves)
        if n == 0:
            return result
        result.best_move = int(S.root_moves[0])
        timer = None
        if limits.hard_time is not None and not limits.infinite:
            timer = threading.Timer(max(0.0, limits.hard_time), self.stop)
            timer.daemon = True
            timer.start()
        paper = profile == PROFILE_PAPER
        max_depth = min(limits.depth or MAX_PLY - 1, MAX_PLY - 1)
        score = 0
        try:
            for depth in range(1, max_depth + 1):
                window = ASPIRATION_PAPER if paper else ASPIRATION_PLAY
                if depth >= 2 and abs(score) < MATE_BOUND:
                    alpha, beta = max(score - window, -INFINITE), min(score + window, INFINITE)
                else:
                    alpha, beta = -INFINITE, INFINITE
                while True:
                    value = int(search_root(board.P, board.T, tt, S, np.int64(depth),
                                            np.int64(alpha), np.int64(beta)))
                    if ctrl[K_STOP]:
                        break
                    if value <= alpha:
                        self._report(on_iteration, result, tt, depth, value, "upperbound", start)
                        if paper or window > 400:
                            alpha = -INFINITE
                        else:
                            window *= 2
                            alpha = max(value - window, -INFINITE)
                    elif value >= beta:
                        self._report(on_iteration, result, tt, depth, value, "lowerbound", start)
                        if paper or window > 400:
                            beta = INFINITE
                        else:
                            window *= 2
                            beta = min(value + window, INFINITE)
                    else:
                        break
                if ctrl[K_STOP]:
                    # A stopped iteration: keep the last completed best move unless a move
                    # of this iteration was fully searched and proven better than alpha.
                    if ctrl[K_ROOT_BEST] and ctrl[K_ROOT_COMPLETED] >= 1:
                        proven = int(ctrl[K_ROOT_BEST])
                        if proven != result.best_move:
                            result.best_move = proven
                            result.ponder_move = 0
                    break
                score = value
                pv = [int(m) for m in S.pv[0, :S.pv_len[0]]]
                result.best_move = pv[0]
                result.ponder_move = pv[1] if len(pv) > 1 else 0
                result.score = score
                result.depth = depth
                S.prev_pv[:len(pv)] = pv
                ctrl[K_PREV_PV_LEN] = len(pv)
                self._reorder_root(pv[0])
                self._report(on_iteration, result, tt, depth, score, None, start, pv)
                elapsed = time.perf_counter() - start
                if limits.mate is not None and abs(score) >= MATE_BOUND \
                        and (MATE - abs(score) + 1) // 2 <= limits.mate:
                    break
                if not limits.infinite and limits.soft_time is not None and elapsed >= limits.soft_time:
                    break
                if limits.nodes and ctrl[K_NODES] >= limits.nodes:
                    break
        finally:
            if timer is not None:
                timer.cancel()
        result.nodes = int(ctrl[K_NODES])
        result.seconds = time.perf_counter() - start
        return result

    def _report(self, callback, result, tt, depth, score, bound, start, pv=None):
        S = self.S
        iteration = Iteration(
            depth=depth, seldepth=int(S.ctrl[K_SELDEPTH]), score=score, bound=bound,
            nodes=int(S.ctrl[K_NODES]), seconds=time.perf_counter() - start,
            pv=pv if pv is not None else [int(S.root_moves[0])], hashfull=int(tt_hashfull(tt)))
        result.iterations.append(iteration)
        if callback is not None:
            callback(iteration)
