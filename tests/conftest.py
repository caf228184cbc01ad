import importlib.util
import itertools
import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent

# Property tests draw the same examples on every run in CI (CI=true): a failure there is
# reproducible, and a run never fails by the luck of the draw. Locally they explore.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("explore", database=None)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "explore"))


def load_script(name):
    """scripts/<name>.py as a module, loaded from its file (the scripts are files a user runs,
    with no __init__.py)."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: numba links a cached recursive kernel (bench_node_costs'
    # walk) through its module in sys.modules; without it the cached code aborts with
    # "unresolved symbol".
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def random_game(rng, plies):
    """A python-chess board after up to `plies` random legal moves from the start (fewer
    when the game ends first)."""
    import chess

    board = chess.Board()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def _started_pipe(drain_stderr=False):
    from tests.uci_pipe import UciPipe
    p = UciPipe(drain_stderr=drain_stderr)
    p.ask("uci", "uciok")
    p.ask("isready", "readyok", timeout=120)
    return p


_RESETS = itertools.count()


def reset_pipe(p):
    """Bring a running engine back to a new game: any search stopped and its bestmove
    read, every option at its default, the start position, and nothing left unread (the
    marker line is answered after everything sent before it)."""
    from tests.uci_pipe import default_option_commands
    p.send("")                         # ends a line a test left unfinished
    p.send("stop")
    p.send("debug off")
    p.send("ucinewgame")               # waits for a stopped search to end
    for line in default_option_commands():
        p.send(line)
    p.send("position startpos")
    marker = f"reset-{next(_RESETS)}"
    p.ask(marker, f"info string unknown command: {marker}", timeout=120)
    p.ask("isready", "readyok", timeout=120)


_SHARED_PIPE = {}   # the one engine process of this test run (of this xdist worker)


def pytest_sessionfinish(session, exitstatus):
    if "pipe" in _SHARED_PIPE:
        _SHARED_PIPE.pop("pipe").close()


@pytest.fixture
def pipe():
    """The real executable on raw pipes, past `uci` and `isready`: one process for every
    test that does not test start-up or shutdown, reset to a new game with default
    options before each (a process that died is replaced)."""
    p = _SHARED_PIPE.get("pipe")
    if p is not None and p.proc.poll() is None:
        try:
            reset_pipe(p)
        except (TimeoutError, EOFError, BrokenPipeError, OSError):
            p.close()
            p = None
    else:
        p = None
    if p is None:
        p = _started_pipe(drain_stderr=True)
        _SHARED_PIPE["pipe"] = p
    yield p


@pytest.fixture
def fresh_pipe():
    """An engine process of its own (start-up, shutdown and end-of-input tests)."""
    p = _started_pipe()
    yield p
    p.close()
