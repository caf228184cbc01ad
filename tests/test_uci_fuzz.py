"""Fuzzing the UCI loop with hypothesis: random tokens, malformed go lines, huge move lists,
binary noise and very long lines. The engine never exits, never prints a traceback to
stdout, answers `isready` after every case, and keeps the last good position."""
import io
import threading
import time

import chess
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.types import MAX_SEARCH_DEPTH
from engine.uci import GO_CLOCK_PARAMS, GO_INT_PARAMS, UciLoop, parse_go
from tests.uci_pipe import default_option_commands

WORDS = ["go", "stop", "ponderhit", "isready", "setoption", "name", "value", "Hash", "MultiPV",
         "Clear", "depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo",
         "mate", "infinite", "ponder", "searchmoves", "perft", "e2e4", "e7e5", "g1f3", "d", "eval",
         "debug", "on", "off", "register", "-1", "0", "1", "2", "99999999999999999999", "1e3",
         "nan", "\t", "x", "moves", "fen", "startpos"]
TOKEN = st.one_of(st.sampled_from(WORDS), st.text(min_size=1, max_size=12))


class Output(io.TextIOBase):
    """A thread-safe stdout for an in-process loop."""

    def __init__(self):
        self.lines = []
        self._lock = threading.Lock()

    def write(self, text):
        with self._lock:
            self.lines.extend(l for l in text.split("\n") if l)
        return len(text)

    def wait_for(self, prefix, start, timeout=60.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if any(l.startswith(prefix) for l in self.lines[start:]):
                    return
            time.sleep(0.005)
        raise TimeoutError(prefix)


def _new_loop():
    out = Output()
    uci = UciLoop(out=out, err=io.StringIO())
    uci.handle("isready")
    return uci, out


@pytest.fixture(scope="module")
def loop():
    """One loop for the module (loading it costs seconds); `_reset` makes every example
    start from the same state."""
    return {"loop": _new_loop()}


def _reset(holder):
    """A new game, every option at its default, the start position, `readyok`: an example
    must not inherit what the one before it set (a Hash, a MultiPV, a search). A loop whose
    engine failed is replaced."""
    uci, out = holder["loop"]
    try:
        uci.handle("stop")
        uci.engine.wait()
    except RuntimeError:          # the engine failed to load: start another loop
        holder["loop"] = uci, out = _new_loop()
    uci.handle("ucinewgame")
    for line in default_option_commands():
        uci.handle(line)
    uci.handle("position startpos")
    start = len(out.lines)
    uci.handle("isready")
    out.wait_for("readyok", start)
    return uci, out


def _settle(uci, out):
    """Stop whatever the case started; isready must still be answered."""
    uci.handle("stop")
    uci.engine.wait()
    start = len(out.lines)
    uci.handle("isready")
    out.wait_for("readyok", start)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tokens=st.lists(TOKEN, max_size=12))
def test_parse_go_never_refuses(tokens):
    limits, notes = parse_go(tokens)
    for name in GO_INT_PARAMS:
        value = getattr(limits.clock if name in GO_CLOCK_PARAMS else limits, name)
        assert value is None or isinstance(value, int)
    assert 1 <= limits.max_depth <= MAX_SEARCH_DEPTH
    for name in ("nodes", "mate"):
        assert getattr(limits, name) is None or getattr(limits, name) >= 1
    assert limits.clock.movestogo is None or limits.clock.movestogo >= 1
    assert all(isinstance(n, str) for n in notes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.lists(TOKEN, min_size=1, max_size=8).map(" ".join), min_size=1, max_size=6))
def test_random_lines_keep_the_position_and_the_loop(loop, lines):
    uci, out = _reset(loop)
    uci.handle("position startpos moves e2e4 c7c5")
    expected = chess.Board()
    expected.push_uci("e2e4")
    expected.push_uci("c7c5")
    for line in lines:
        words = line.split()
        if words[:1] in (["position"], ["ucinewgame"], ["quit"], ["bench"]):
            continue
        if words[:1] == ["go"]:
            # Keep searches short: the case is about parsing, not about thinking.
            line += " nodes 2000" if "infinite" not in words and "ponder" not in words else ""
        assert uci.handle(line) is True
    _settle(uci, out)
    start = len(out.lines)
    uci.handle("d")
    out.wait_for("Checkers", start)
    fen = next(l for l in out.lines[start:] if l.startswith("Fen: "))[5:]
    assert fen == expected.fen()
    assert not any("Traceback" in l for l in out.lines)


def test_binary_noise_long_lines_and_huge_move_lists_through_a_pipe(pipe):
    pipe.send("position startpos moves d2d4")
    pipe.proc.stdin.flush()
    raw = pipe.proc.stdin.buffer if hasattr(pipe.proc.stdin, "buffer") else None
    if raw is not None:
        raw.write(bytes(range(256)) + b"\n\xff\xfe\x00go\x00\n")
        raw.flush()
    pipe.send("x" * 200_000)
    pipe.send("go " + "depth " * 20_000)
    pipe.read_until(lambda l: l.startswith("bestmove"), timeout=60)
    pipe.send("position startpos moves " + " ".join(["g1f3", "g8f6", "f3g1", "f6g8"] * 2_000) + " e2e5")
    pipe.ask("isready", "readyok", timeout=60)
    lines = pipe.ask("d", "Checkers", timeout=60)
    assert any(l.startswith("Fen: rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b") for l in lines)
    lines = pipe.ask("go depth 3", "bestmove", timeout=60)
    board = chess.Board()
    board.push_uci("d2d4")
    assert lines[-1].split()[1] in {m.uci() for m in board.legal_moves}
    assert pipe.proc.poll() is None
