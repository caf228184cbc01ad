import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_script(name):
    """scripts/<name>.py as a module (the scripts are not a package)."""
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


@pytest.fixture
def pipe():
    """The real executable on raw pipes, past `uci` and `isready`."""
    from tests.uci_pipe import UciPipe
    p = UciPipe()
    p.ask("uci", "uciok")
    p.ask("isready", "readyok", timeout=120)
    yield p
    p.close()
