"""Compile (or load from the cache) every jitted kernel by calling it once on real data,
step by step, telling `echo` what each step compiles and the time so far.

Into an empty cache, a second process compiles meanwhile the kernels that the search's
compile reaches late (`AHEAD`), so that it finds them in the cache: numba compiles one
function at a time per process, and a first start on two cores had one of them idle.

    python -m engine.warmup      # the second process: compile AHEAD into the cache, quietly
"""
import os
import subprocess
import sys
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


def _protocol_views():
    from engine.facade import Engine

    engine = Engine()
    engine.evaluation()
    engine.display()


def _protocol_paths():
    from engine.facade import Engine

    Engine().warm_up()
    _protocol_views()


# The search first: with a second process compiling AHEAD, the board step then finds its
# perft kernels in the cache.
STEPS = (
    ("search, play profile (evaluation network, table)", _search("play")),
    ("search, paper profile (material + piece-square values)", _search("paper")),
    ("board, move generation, perft", _board_kernels),
    ("table statistics", _table_kernels),
    ("the protocol's evaluation and board views", _protocol_paths),
)


# What the search's first compile reaches after its first 15 s or so (the quiescence
# search's callees, then the full-width search's late ones), each with the argument types
# the search passes: P the board, T the attack tables, S the search state, TT the table,
# moves the move list, ctrl the search state's handles, i8 int64, u8 uint64, b1 bool. A
# spec unlike the search's call compiles a kernel nothing uses and leaves the search to
# compile its own
# (tests/test_compile_once.py checks each spec against the search's compiled code).
AHEAD_CALLEES = (
    ("search", "eval_at_max_ply", "P T b1"),
    ("tt", "tt_probe", "TT u8 i8"),
    ("search", "_noisy_moves", "ctrl i8"),
    ("search", "_quiet_moves", "ctrl i8"),
    ("movegen", "is_legal", "P T i8 moves i8"),
    ("search", "_unmake", "ctrl"),
    ("tt", "tt_hit_weight", "TT i8"),
    ("tt_research", "line_prepend", "i8 u8 i8"),
    ("search", "_has_pieces", "P i8"),
    ("position", "make_null", "P T"),
    ("position", "unmake_null", "P"),
    ("search", "_line_move", "TT S i8 i8 u8 i8 i8"),
    ("position", "check_info", "P T"),
    ("position", "gives_check", "P T i8"),
    ("movepick", "reward_quiet", "P S i8 i8 i8 i8 b1"),
    ("tt", "tt_store_line", "TT u8 i8 i8 i8 i8 i8 i8 u8"),
)
# What the warm-up calls from Python after the search (the protocol's move making, perft),
# with the argument types engine.board passes.
AHEAD_AFTER = (
    ("position", "make_move", "P T i8"),
    ("movegen", "perft", "P T i8 moves i8"),
    ("movegen", "perft_no_bulk", "P T i8 moves i8"),
)
AHEAD = AHEAD_CALLEES + AHEAD_AFTER


def ahead_signatures(entries=AHEAD):
    """(dispatcher, argument types) of each entry (default: every AHEAD kernel)."""
    import importlib

    import numba

    from engine import tt
    from engine.board import Board
    from engine.search import new_search_state

    board = Board()
    state = new_search_state()
    vocabulary = {
        "P": numba.typeof(board.P), "T": numba.typeof(board.T), "S": numba.typeof(state),
        "TT": numba.typeof(tt.new_table(positions=64)), "moves": numba.typeof(state.moves),
        "ctrl": numba.typeof(state.ctrl),
        "i8": numba.int64, "u8": numba.uint64, "b1": numba.boolean,
    }
    return [(getattr(importlib.import_module(f"engine.{module}"), name),
             tuple(vocabulary[word] for word in spec.split()))
            for module, name, spec in entries]


def compile_ahead() -> None:
    for kernel, arg_types in ahead_signatures():
        kernel.compile(arg_types)
    _protocol_views()   # not Engine.warm_up, which would start a process like this one


def start_ahead() -> Optional[subprocess.Popen]:
    """Start the second process where it helps: an empty cache and a second core."""
    from engine._jit import cache_is_cold

    if (os.cpu_count() or 1) < 2 or not cache_is_cold():
        return None
    # run from the folder that holds this `engine` package, so that the second process
    # imports the same one (a checkout started as `python uci_main.py` is not installed)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        return subprocess.Popen([sys.executable, "-m", "engine.warmup"], cwd=package_parent,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None   # the search compiles everything itself, as on one core


def finish_ahead(helper: Optional[subprocess.Popen], timeout: float = 300.0) -> None:
    """Wait for the second process (its list is a fraction of the search's compile, so it
    is done first); one that hangs is stopped, and its kernels compile here on first use."""
    if helper is None:
        return
    try:
        helper.wait(timeout)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()


def warm_all(echo: Optional[Callable[[str], None]] = None, ahead: bool = False) -> None:
    """Every step; `ahead`: with a second process where the cache is empty."""
    start = time.perf_counter()
    helper = start_ahead() if ahead else None
    for number, (what, step) in enumerate(STEPS, 1):
        if echo is not None:
            echo(f"[{number}/{len(STEPS)}] {what} ({time.perf_counter() - start:.0f} s so far)")
        if step is _board_kernels:
            finish_ahead(helper)
            helper = None
        step()
    finish_ahead(helper)


if __name__ == "__main__":
    sys.modules.setdefault("scipy", None)   # as the UCI process does (engine.uci.main)
    compile_ahead()
