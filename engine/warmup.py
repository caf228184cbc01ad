"""Compile (or load from the cache) every jitted kernel by calling it once on real data,
step by step, telling `echo` what each step compiles and the time so far."""
import time
from typing import Callable, Optional

PERFT_FEN = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def _board_kernels():
    from engine import position
    from engine.board import Board

    board = Board(PERFT_FEN)
    board.perft(2)
    board.perft(2, bulk=False)
    board.noisy_moves()
    board.in_check()
    board.checkers()
    board.repetitions()
    board.push(board.legal_moves()[0])
    board.pop()
    position.make_null(board.P, board.T)
    position.unmake_null(board.P)


def _search(profile: str) -> Callable[[], None]:
    def run() -> None:
        from engine.bench import run_bench
        run_bench(depth=3, profile=profile, echo=None)
    return run


def _table_kernels():
    from engine import tt
    from engine.tt_research import tt_count_filled

    table = tt.new_table(positions=64)
    tt.tt_hashfull(table)
    tt_count_filled(table)


def _protocol_paths():
    from engine.facade import Engine

    engine = Engine()
    engine.warm_up()
    engine.evaluation()
    engine.display()


STEPS = (
    ("board, move generation, perft", _board_kernels),
    ("search, play profile (evaluation network, table)", _search("play")),
    ("search, paper profile (material + piece-square values)", _search("paper")),
    ("table statistics", _table_kernels),
    ("the protocol's evaluation and board views", _protocol_paths),
)


def warm_all(echo: Optional[Callable[[str], None]] = None) -> None:
    start = time.perf_counter()
    for number, (what, step) in enumerate(STEPS, 1):
        if echo is not None:
            echo(f"[{number}/{len(STEPS)}] {what} ({time.perf_counter() - start:.0f} s so far)")
        step()
