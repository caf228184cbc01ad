"""The UCI protocol through real clients: python-chess's SimpleEngine against the real
executable, and raw pipes for everything a GUI or a person can get wrong."""
import os
import random
import string
import sys
import tempfile
import time

import chess
import chess.engine
import pytest

from tests.uci_pipe import ROOT, UciPipe

ENGINE_CMD = [sys.executable, str(ROOT / "uci_main.py")]


HANG_GUARD = 120      # seconds: only a hang takes this long


@pytest.fixture(scope="module")
def _shared_engine():
    holder = {}
    yield holder
    if "engine" in holder:
        holder["engine"].quit()


@pytest.fixture
def engine(_shared_engine):
    """python-chess's SimpleEngine on the real executable: one process for the module,
    every option set back to its default before each test (a process that died is
    replaced)."""
    eng = _shared_engine.get("engine")
    if eng is not None:
        try:
            eng.configure({name: option.default for name, option in eng.options.items()
                           if not option.is_managed() and option.type != "button"})
            eng.ping()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, TimeoutError):
            eng = None
    if eng is None:
        eng = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=120)
        _shared_engine["engine"] = eng
    yield eng


# -- python-chess as the GUI ---------------------------------------------------------------
def test_identity_and_options(engine):
    assert engine.id["name"].startswith("TwoBig")
    for name in ("Hash", "Clear Hash", "Threads", "MultiPV", "Ponder", "Move Overhead",
                 "OwnBook", "BookFile", "UCI_Chess960", "TT Scheme", "TT Aging", "Search Profile"):
        assert name in engine.options, name
    assert engine.options["TT Scheme"].default == "TwoBig1"
    assert engine.options["UCI_Chess960"].type == "check" and engine.options["UCI_Chess960"].default is False
    assert engine.options["Threads"].min == 1 and engine.options["Threads"].max == 256
    engine.configure({"Hash": 8, "TT Scheme": "DEEP", "TT Aging": False,
                      "Search Profile": "paper", "Move Overhead": 10})
    info = engine.analyse(chess.Board(), chess.engine.Limit(depth=4))
    assert info["depth"] == 4


def test_analyse_limits(engine):
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert info["depth"] == 6 and info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(time=0.5))
    assert info["pv"][0] in board.legal_moves
    info = engine.analyse(board, chess.engine.Limit(nodes=20000))
    assert info["nodes"] <= 21000
    mate_board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    info = engine.analyse(mate_board, chess.engine.Limit(mate=1))
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["pv"][0] == chess.Move.from_uci("d1d8")


def test_multipv(engine):
    infos = engine.analyse(chess.Board(), chess.engine.Limit(depth=5), multipv=3)
    assert len(infos) == 3
    firsts = {info["pv"][0] for info in infos}
    assert len(firsts) == 3
    scores = [info["score"].white().score() for info in infos]
    assert scores == sorted(scores, reverse=True)


def test_self_play_game_on_a_clock_that_does_not_run(engine):
    """Twenty plies of clock searches (`go wtime btime winc binc`), each on the same 2 s +
    0.02 s for both sides: every answer legal, whatever the machine's load. The clock the
    engine is given does not run down, so no move can be late."""
    board = chess.Board()
    limit = chess.engine.Limit(white_clock=2.0, black_clock=2.0, white_inc=0.02, black_inc=0.02)
    while not board.is_game_over(claim_draw=True) and board.ply() < 20:
        result = engine.play(board, limit)
        assert result.move in board.legal_moves
        board.push(result.move)


@pytest.mark.slow
def test_self_play_game_with_clock(engine):
    """Forty plies on a 10 s + 0.1 s clock that runs: the engine plans about 0.4 s a move,
    so even a machine loaded several times over leaves it far from losing on time (real
    time: in the slow run only)."""
    board = chess.Board()
    clock = {chess.WHITE: 10.0, chess.BLACK: 10.0}
    increment = 0.1
    while not board.is_game_over(claim_draw=True) and board.ply() < 40:
        start = time.perf_counter()
        result = engine.play(board, chess.engine.Limit(white_clock=clock[chess.WHITE],
                                                       black_clock=clock[chess.BLACK],
                                                       white_inc=increment, black_inc=increment))
        spent = time.perf_counter() - start
        clock[board.turn] += increment - spent
        assert clock[board.turn] > 0, f"lost on time at ply {board.ply()}"
        assert result.move in board.legal_moves
        board.push(result.move)


def test_ponder(engine):
    board = chess.Board()
    result = engine.play(board, chess.engine.Limit(time=0.3), ponder=True)
    assert result.move in board.legal_moves
    board.push(result.move)
    if result.ponder:
        assert result.ponder in board.legal_moves
        board.push(result.ponder)
    result = engine.play(board, chess.engine.Limit(time=0.3), ponder=True)
    assert result.move in board.legal_moves


def test_book_moves_from_polyglot_file(engine):
    from lab.thesis.suites import DATA_DIR
    book = DATA_DIR / "polyglot" / "gm2001.bin"
    engine.configure({"OwnBook": True, "BookFile": str(book)})
    import chess.polyglot
    with chess.polyglot.open_reader(str(book)) as reader:
        book_moves = {entry.move for entry in reader.find_all(chess.Board())}
    result = engine.play(chess.Board(), chess.engine.Limit(time=2))
    assert result.move in book_moves


# -- raw pipes -----------------------------------------------------------------------------
_UCI_WITHOUT_NUMBA = """
import io, sys
sys.path.insert(0, {root!r})
from engine.uci import UciLoop
class Quiet:                       # the loop's plumbing without its loader thread
    out = io.StringIO()
    def send(self, line):
        self.out.write(line + "\\n")
UciLoop.cmd_uci(Quiet(), [])
lines = Quiet.out.getvalue().splitlines()
print(lines[0], "|", lines[-1], "|", "numba" in sys.modules, "|", "engine.search" in sys.modules)
"""


def test_uci_is_answered_without_loading_numba():
    """`uci` is answered before anything heavy is imported (it then costs no compile, cold
    or warm): the protocol module and the answer to `uci` import neither numba nor the
    kernels. A check of what is imported, not of how long it takes."""
    import subprocess
    out = subprocess.run([sys.executable, "-c", _UCI_WITHOUT_NUMBA.format(root=str(ROOT))],
                         capture_output=True, text=True, timeout=HANG_GUARD, check=True).stdout
    first, last, numba_loaded, kernels_loaded = (part.strip() for part in out.split("|"))
    assert first.startswith("id name TwoBig") and last == "uciok"
    assert numba_loaded == "False" and kernels_loaded == "False"


@pytest.mark.slow
def test_a_first_start_answers_uci_at_once_and_only_protocol_while_it_compiles():
    """Real time on a cold cache (the kernels compile for 25 s and more): slow run only. The
    compile (with its second process) writes nothing on the protocol's stdout."""
    with tempfile.TemporaryDirectory() as empty:
        env = dict(os.environ, TWOBIG_CACHE_DIR=empty)
        p = UciPipe(env=env)
        try:
            # uciok must not wait for the compile (its latency: scripts/bench_search.py)
            lines = p.ask("uci", "uciok", timeout=10)
            lines += p.ask("isready", "readyok", timeout=600)
            lines += p.ask("go depth 3", "bestmove", timeout=60)
            expected = ("id ", "option ", "uciok", "readyok", "info ", "bestmove ")
            assert [l for l in lines if not l.startswith(expected)] == []
            assert lines[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
        finally:
            p.proc.kill()


def test_malformed_input_never_breaks_the_engine(pipe):
    pipe.send("position startpos moves e2e4")
    for bad in ["position", "position fen", "position fen 8/8/8 w - - 0 1",
                "position startpos moves e2e5", "position startpos moves e7e5",
                "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 moves a1a8",
                "setoption", "setoption name", "setoption name Hash value huge",
                "setoption name Hash value 0", "setoption name NoSuchOption value 1",
                "setoption name TT Scheme value FASTEST", "setoption name Ponder value maybe",
                "go perft", "go perft -1", "debug sideways", "xyzzy", "123", "isready now?"]:
        reply = pipe.ask(bad, "info string", timeout=20) if not bad.startswith("isready") \
            else pipe.ask(bad, "readyok")
        assert reply[-1].startswith(("info string", "readyok")), bad
    lines = pipe.ask("d", "Checkers")
    assert any(l.startswith("Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b") for l in lines)
    lines = pipe.ask("go depth 4", "bestmove")
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves}


def test_random_garbage_then_normal_search(pipe):
    rng = random.Random(11)
    alphabet = string.ascii_letters + string.digits + string.punctuation + " \t"
    words = ["go", "position", "fen", "moves", "setoption", "name", "value", "startpos",
             "depth", "stop", "ponderhit", "register", "ucinewgame"]
    for _ in range(200):
        if rng.random() < 0.5:
            line = " ".join(rng.choice(words + ["e2e4", "-1", "9" * 30]) for _ in range(rng.randrange(1, 6)))
        else:
            line = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 60)))
        if line.split()[:1] in (["go"], ["quit"]) or not line.strip():
            line = "x" + line
        pipe.send(line)
    pipe.send("stop")
    pipe.ask("isready", "readyok", timeout=60)
    pipe.send("ucinewgame")
    pipe.send("position startpos moves e2e4 e7e5")
    lines = pipe.ask("go depth 5", "bestmove", timeout=60)
    assert lines[-1].startswith("bestmove ") and lines[-1].split()[1] != "(none)"
    assert any(l.startswith("info depth 5 ") for l in lines)


LEGAL_AT_START = {m.uci() for m in chess.Board().legal_moves}
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"


@pytest.mark.parametrize("line", [
    "go depth x", "go depth", "go wtime -", "go nodes 0", "go banana", "go movestogo 0",
    "go depth 0", "go depth -3", "go wtime -5", "go wtime -5 btime -5 winc -1 binc -1",
    "go depth 2 depth 3", "go movetime", "go movetime -100", "go mate 0", "go wtime 1e3",
    "go searchmoves", "go searchmoves zz99 depth 2", "go depth 999999999999999999999 nodes 3000",
    "go wtime 100 btime 100 movestogo -2 extra tokens here"])
def test_every_go_gets_one_legal_bestmove(pipe, line):
    """A go is never refused: what makes no sense is repaired and said in info strings."""
    pipe.send("position startpos")
    lines = pipe.ask(line, "bestmove", timeout=60)
    assert lines[-1].split()[1] in LEGAL_AT_START, lines
    assert not any("Traceback" in l for l in lines)
    pipe.ask("isready", "readyok", timeout=60)      # and nothing else follows
    assert not [l for l in lines[:-1] if l.startswith("bestmove")]


def test_isready_during_search_and_a_second_go(pipe):
    """A second go while searching stops the first (its bestmove comes first) and runs."""
    pipe.send("position startpos")
    pipe.send("go infinite")
    time.sleep(0.3)
    pipe.ask("isready", "readyok", timeout=60)
    lines = pipe.ask("go depth 3", "bestmove", timeout=60)
    assert lines[-1].split()[1] in LEGAL_AT_START
    lines = pipe.read_until(lambda l: l.startswith("bestmove"), timeout=60)
    assert any(l.startswith("info depth 3 ") for l in lines)
    assert lines[-1].split()[1] in LEGAL_AT_START
    pipe.ask("isready", "readyok", timeout=60)


def test_go_right_after_stop_waits_for_the_unwinding_search(pipe):
    """stop, position, go in one burst (a ponder miss): two bestmoves, none dropped."""
    pipe.send("position startpos")
    pipe.send("go ponder wtime 60000 btime 60000")
    time.sleep(0.2)
    pipe.send("stop")
    pipe.send("position startpos moves e2e4")
    pipe.send("go depth 2")
    first = pipe.read_until(lambda l: l.startswith("bestmove"), timeout=60)
    assert first[-1].split()[1] in LEGAL_AT_START
    second = pipe.read_until(lambda l: l.startswith("bestmove"), timeout=60)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert second[-1].split()[1] in {m.uci() for m in after_e4.legal_moves}
    assert not any("still running" in l for l in first + second)   # stop was already sent


def test_stop_ends_an_infinite_search(pipe):
    pipe.send("position startpos")
    pipe.send("go infinite")
    time.sleep(0.5)
    lines = pipe.ask("stop", "bestmove", timeout=60)
    assert lines[-1].split()[1] in LEGAL_AT_START


def test_a_stop_right_after_go_still_completes_the_first_iteration(pipe):
    """go and stop in one burst: bestmove comes from a searched iteration (its info line
    comes first), not from the unsearched move list."""
    pipe.send("position startpos moves e2e4 e7e5")
    pipe.send("go infinite")
    lines = pipe.ask("stop", "bestmove", timeout=60)
    assert any(l.startswith("info depth 1 ") for l in lines), lines
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board(AFTER_E4_E5).legal_moves}


@pytest.mark.parametrize("mode", ["infinite", "ponder"])
def test_bestmove_only_after_stop(pipe, mode):
    # A forced mate is found at once; the engine must still wait for stop / ponderhit.
    pipe.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    pipe.send("go infinite" if mode == "infinite" else "go ponder wtime 1000 btime 1000")
    with pytest.raises(TimeoutError):
        pipe.read_until(lambda l: l.startswith("bestmove"), timeout=1.0)
    lines = pipe.ask("stop" if mode == "infinite" else "ponderhit", "bestmove", timeout=60)
    assert lines[-1].startswith("bestmove d1d8")


def test_go_before_position_and_long_move_list(pipe):
    lines = pipe.ask("go depth 2", "bestmove")
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 250
    pipe.send("position startpos moves " + " ".join(shuffle))
    lines = pipe.ask("go depth 3", "bestmove", timeout=30)
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}


def test_no_legal_move_gives_bestmove_none(pipe):
    pipe.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert pipe.ask("go depth 3", "bestmove")[-1] == "bestmove (none)"


def test_quit_mid_search_exits(fresh_pipe):
    fresh_pipe.send("go infinite")
    time.sleep(0.5)
    fresh_pipe.send("quit")
    assert fresh_pipe.proc.wait(timeout=60) == 0


def test_eof_exits_cleanly(fresh_pipe):
    fresh_pipe.send("position startpos moves d2d4")
    fresh_pipe.proc.stdin.close()
    assert fresh_pipe.proc.wait(timeout=HANG_GUARD) == 0
    assert "Traceback" not in fresh_pipe.proc.stderr.read()


def test_end_of_input_lets_a_bounded_search_finish_and_answer(fresh_pipe):
    """A script piped into the engine ends with its `go`: the search runs to its limit
    (depth 12, a few hundred ms warm; the end of input is read within a millisecond of
    the go) and its bestmove is printed before the process exits."""
    fresh_pipe.send("position startpos moves e2e4")
    fresh_pipe.send("go depth 12")
    fresh_pipe.proc.stdin.close()
    lines = fresh_pipe.read_until(lambda l: l.startswith("bestmove"), timeout=HANG_GUARD)
    assert any(l.startswith("info depth 12 ") for l in lines)
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert chess.Move.from_uci(lines[-1].split()[1]) in after_e4.legal_moves
    assert fresh_pipe.proc.wait(timeout=HANG_GUARD) == 0


def test_end_of_input_stops_an_infinite_search(fresh_pipe):
    fresh_pipe.send("position startpos")
    fresh_pipe.send("go infinite")
    fresh_pipe.proc.stdin.close()
    lines = fresh_pipe.read_until(lambda l: l.startswith("bestmove"), timeout=HANG_GUARD)
    assert lines[-1].split()[1] in LEGAL_AT_START
    assert fresh_pipe.proc.wait(timeout=HANG_GUARD) == 0


def test_ponderhit_puts_the_search_on_the_clock(pipe):
    """After `go ponder` with a clock, `ponderhit` makes the search a clock search: the
    bestmove comes by itself, with no `stop` command: 2 s on the clock plans about 50 ms. Not
    a quick mate: nothing but the clock can end this search."""
    pipe.send("position startpos moves e2e4 e7e5")
    pipe.send("go ponder wtime 2000 btime 2000 winc 0 binc 0")
    with pytest.raises(TimeoutError):          # pondering: no answer until told
        pipe.read_until(lambda l: l.startswith("bestmove"), timeout=1.0)
    pipe.send("ponderhit")
    lines = pipe.read_until(lambda l: l.startswith("bestmove"), timeout=HANG_GUARD)
    board = chess.Board()
    for move in ("e2e4", "e7e5"):
        board.push_uci(move)
    assert chess.Move.from_uci(lines[-1].split()[1]) in board.legal_moves
    pipe.ask("isready", "readyok", timeout=HANG_GUARD)


def test_currmove_is_reported_during_a_long_search(pipe):
    """After the first second a search reports the root move it is on."""
    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    pipe.send(f"position fen {fen}")
    pipe.send("go infinite")
    lines = pipe.read_until(lambda l: l.startswith("info currmove"), timeout=HANG_GUARD)
    pipe.ask("stop", "bestmove", timeout=HANG_GUARD)
    words = lines[-1].split()
    assert words[0:2] == ["info", "currmove"] and words[3] == "currmovenumber"
    legal = list(chess.Board(fen).legal_moves)
    assert chess.Move.from_uci(words[2]) in legal
    assert 1 <= int(words[4]) <= len(legal)
    assert words[5] == "nodes" and int(words[6]) > 0


def test_debug_log_file_records_both_directions(pipe, tmp_path):
    log = tmp_path / "uci.log"
    pipe.send(f"setoption name Debug Log File value {log}")
    pipe.send("position startpos")
    lines = pipe.ask("go depth 3", "bestmove", timeout=HANG_GUARD)
    pipe.ask("isready", "readyok", timeout=HANG_GUARD)
    # A line is logged just after it is printed: the second readyok is printed only once
    # the first has been logged (one thread answers both).
    pipe.ask("isready", "readyok", timeout=HANG_GUARD)
    text = log.read_text()
    assert "<< go depth 3" in text
    assert f">> {lines[-1]}" in text
    assert ">> readyok" in text
    pipe.send("setoption name Debug Log File value <empty>")
    pipe.ask("isready", "readyok", timeout=HANG_GUARD)
    size = log.stat().st_size
    pipe.ask("go depth 2", "bestmove", timeout=HANG_GUARD)
    assert log.stat().st_size == size                   # off again


def test_debug_on_sends_tracebacks_to_stderr_only():
    """A command that fails is answered with an info string; with `debug on` its
    traceback also goes to stderr (never to stdout), with `debug off` nowhere."""
    import io
    from engine.uci import UciLoop
    out, err = io.StringIO(), io.StringIO()
    loop = UciLoop(out=out, err=err)

    def broken(args):
        raise RuntimeError("board display broke")

    loop.cmd_d = broken
    loop.handle("d")
    assert "info string error in 'd': board display broke" in out.getvalue()
    assert err.getvalue() == ""
    loop.handle("debug on")
    loop.handle("d")
    assert "Traceback" in err.getvalue() and "board display broke" in err.getvalue()
    assert "Traceback" not in out.getvalue()
    loop.handle("debug off")
    before = err.getvalue()
    loop.handle("d")
    assert err.getvalue() == before


def test_board_display_and_evaluation_are_written_in_one_piece():
    """A search thread writes its info lines while `d` or `eval` prints: each multi-line
    answer is one write, so no info line lands inside it."""
    import io
    from engine.uci import UciLoop

    class Writes(io.StringIO):
        def __init__(self):
            super().__init__()
            self.calls = []

        def write(self, text):
            self.calls.append(text)
            return super().write(text)

    out = Writes()
    loop = UciLoop(out=out, err=io.StringIO())
    loop.engine   # loaded: what follows writes only the answers
    for command, last in (("d", "Checkers"), ("eval", "")):
        out.calls.clear()
        loop.handle(command)
        assert len(out.calls) == 1, command
        assert out.calls[0].count("\n") > 10 and last in out.calls[0]


@pytest.mark.parametrize("book", ["missing", "not a book", "directory"])
def test_a_bad_book_file_is_reported_and_the_engine_searches(pipe, tmp_path, book):
    path = {"missing": tmp_path / "no" / "such.bin", "directory": tmp_path,
            "not a book": tmp_path / "notes.txt"}[book]
    if book == "not a book":
        path.write_text("these are not polyglot entries\n" * 10)
    pipe.send("setoption name OwnBook value true")
    pipe.send(f"setoption name BookFile value {path}")
    pipe.send("position startpos")
    lines = pipe.ask("go depth 3", "bestmove", timeout=HANG_GUARD)
    assert lines[-1].split()[1] in LEGAL_AT_START
    assert any(l.startswith("info depth 3 ") for l in lines)       # it searched
    assert not any("search failed" in l for l in lines)
    if book != "not a book":
        assert any(l.startswith("info string cannot read BookFile") for l in lines)
    pipe.ask("isready", "readyok", timeout=HANG_GUARD)
    lines = pipe.ask("go depth 2", "bestmove", timeout=HANG_GUARD)    # and goes on
    assert lines[-1].split()[1] in LEGAL_AT_START


def test_eval_and_bench_commands(pipe):
    pipe.send("position fen 4k3/8/8/8/8/8/1P6/2B1KB2 w - - 0 1")
    lines = pipe.ask("eval", "Side to move")
    assert any("Full evaluation (hand-written" in l for l in lines)
    network = next(l for l in lines if l.startswith("Network evaluation (play"))
    side = next(l for l in lines if l.startswith("Side to move (white), network"))
    assert network.split(":")[1] == side.split(":")[1]    # white to move: the same value
    pair = next(l for l in lines if "bishop pair" in l).split()
    assert pair[-4:] == ["+30", "+55", "+0", "+0"]        # white's pair, black has none
    lines = pipe.ask("bench 3", "Nodes/second")
    assert any(l.startswith("Nodes searched  : ") for l in lines)


@pytest.mark.parametrize("depth", ["0", "99", "x"])
def test_a_bench_depth_out_of_range_is_named_and_the_default_searched(pipe, depth):
    lines = pipe.ask(f"bench {depth}", "Nodes/second", timeout=300)
    assert f"info string bench: '{depth}' is not a depth in 1..30; depth 9 used" in lines
    assert any(l.startswith("Nodes searched  : ") for l in lines)


# -- the collector's pauses ------------------------------------------------------------------
_HEAP_PROBE = """
import gc, io, sys
sys.path.insert(0, {root!r})
from engine.uci import UciLoop
loop = UciLoop(out=io.StringIO(), err=io.StringIO(), freeze_heap={freeze})
loop.engine   # waits for the loader thread, which freezes the heap when asked
print(gc.get_freeze_count(), len(gc.get_objects()))
"""


@pytest.mark.parametrize("freeze", [True, False])
def test_loaded_engine_leaves_the_collector_little_to_walk(freeze):
    """A full collection walks every tracked object; after loading numba and the kernels
    that is over 50,000 (tens of ms, charged to a move if it comes on the clock). The
    executable freezes them once loaded, so a collection walks only what came after."""
    import subprocess
    probe = _HEAP_PROBE.format(root=str(ROOT), freeze=freeze)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=300, check=True).stdout.split()
    frozen, tracked = int(out[0]), int(out[1])
    if freeze:
        assert frozen > 50_000 and tracked < frozen // 10
    else:
        assert frozen == 0 and tracked > 50_000
