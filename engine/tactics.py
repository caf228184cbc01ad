"""Tactical test suites (EPD with bm/am): search each position for a fixed time and check
the move. Run by `twobig tactics`."""
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
    from engine.driver import Limits
    from engine.session import Session
    import chess

    Session(profile=profile, positions=1024).search(Board(), Limits(depth=2))  # load the kernels
    session = Session(profile=profile, hash_mb=hash_mb)
    results = []
    for index, (oracle, ops) in enumerate(load_epd(path)):
        if limit is not None and index >= limit:
            break
        board = Board(oracle.fen())
        seconds = movetime_ms / 1000.0
        start = time.perf_counter()
        result = session.search(board, Limits(hard_time=seconds))   # all of it, as `go movetime`
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
