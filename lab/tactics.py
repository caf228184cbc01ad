"""Tactical test suites (EPD with bm/am): search each position for a fixed time and check
the move. Used by `twobig tactics` and scripts/tactics.py."""
import time
from typing import Callable, List, NamedTuple, Optional


class TacticResult(NamedTuple):
    id: str
    fen: str
    expected: str          # "bm Qg6" / "am Qxb2" in SAN
    found: str             # TwoBig's move in SAN
    solved: bool
    depth: int
    nodes: int
    seconds: float


def load_epd(path) -> List[tuple]:
    """[(chess.Board, {opcode: operand}), ...] from an EPD file."""
    import chess

    out = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line:
                board, ops = chess.Board.from_epd(line)
                out.append((board, ops))
    return out


def run_suite(path, movetime_ms: int = 1000, hash_mb: int = 64, profile: str = "play",
              limit: Optional[int] = None,
              on_result: Callable[[TacticResult], None] = None) -> List[TacticResult]:
    from engine.board import Board, move_to_uci
    from engine.driver import Limits, Searcher
    from engine.search import PROFILES
    from engine.tt import new_table
    import chess

    searcher = Searcher()
    searcher.profile = PROFILES[profile]
    table = new_table(mb=hash_mb)
    searcher.run(Board(), new_table(positions=1024), Limits(depth=2))  # load the kernels
    results = []
    for index, (oracle, ops) in enumerate(load_epd(path)):
        if limit is not None and index >= limit:
            break
        board = Board(oracle.fen())
        seconds = movetime_ms / 1000.0
        start = time.perf_counter()
        result = searcher.run(board, table, Limits(soft_time=seconds, hard_time=seconds))
        elapsed = time.perf_counter() - start
        move = chess.Move.from_uci(move_to_uci(result.best_move))
        best = ops.get("bm") or []
        avoid = ops.get("am") or []
        solved = (move in best) if best else (move not in avoid)
        expected = ("bm " + " ".join(oracle.san(m) for m in best)) if best else \
            ("am " + " ".join(oracle.san(m) for m in avoid))
        entry = TacticResult(str(ops.get("id", index + 1)), oracle.fen(), expected,
                             oracle.san(move), solved, result.depth, result.nodes, elapsed)
        results.append(entry)
        if on_result:
            on_result(entry)
    return results
