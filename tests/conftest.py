import pytest


@pytest.fixture
def pipe():
    """The real executable on raw pipes, past `uci` and `isready`."""
    from tests.uci_pipe import UciPipe
    p = UciPipe()
    p.ask("uci", "uciok")
    p.ask("isready", "readyok", timeout=120)
    yield p
    p.close()
