"""The UCI protocol loop: read a line, dispatch on its first token, call the facade, print.

`uci` is answered before anything heavy is imported: the facade (numba, the jitted core)
is loaded on a background thread started with the loop, and `isready` waits for it.
Every malformed or unknown line is answered with `info string ...`; the loop never exits
on bad input, and no traceback reaches stdout (with `debug on` they go to stderr, and to
the `Debug Log File` when one is set).
"""
import gc
import sys
import threading
import traceback

from engine import __version__ as VERSION
from engine.options import OPTIONS, OPTIONS_BY_KEY
from engine.timeman import REPAIRED_GO_MOVETIME_MS

ENGINE_NAME = "TwoBig"
ENGINE_AUTHOR = "the TwoBig developers"

GO_CLOCK_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime")   # -> Limits.clock
GO_INT_PARAMS = ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "depth", "nodes", "mate")
GO_FLAGS = ("infinite", "ponder")
GO_TOKENS = GO_INT_PARAMS + GO_FLAGS + ("searchmoves",)
MAX_GO_NOTES = 8                 # info strings for one go line, at most
BENCH_DEPTHS = range(1, 31)      # `bench N` takes the depths `twobig bench` takes
GO_LIMITS = ("wtime", "btime", "movetime", "depth", "nodes", "mate", "infinite", "ponder")


def _go_number(text):
    """An integer from a go value ('1000', '-5', '1000.7'); None if it is not a number."""
    try:
        return int(text)
    except ValueError:
        try:
            return int(float(text))
        except (ValueError, OverflowError):
            return None


def parse_go(args):
    """(Limits, notes) from the tokens after `go` (engine.driver.Limits: the one record of
    a request on its way to the kernel). A `go` is never refused: a missing or malformed
    value, an unknown token or a value that makes no sense is ignored or clamped, and each
    such repair is described in `notes` (sent as `info string` lines)."""
    from engine.driver import Limits

    limits = Limits()
    notes = []
    seen = set()
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token in seen and token != "searchmoves":
            notes.append(f"go: '{token}' given twice, the last one counts")
        seen.add(token)
        if token in GO_FLAGS:
            setattr(limits, token, True)
            limits.infinite = True      # pondering, too, lasts until `stop` or `ponderhit`
        elif token == "searchmoves":
            moves = []
            while i < len(args) and args[i] not in GO_TOKENS:
                moves.append(args[i])
                i += 1
            limits.searchmoves = moves or None
            if not moves:
                notes.append("go: 'searchmoves' without moves; ignored")
        elif token in GO_INT_PARAMS:
            value = _go_number(args[i]) if i < len(args) else None
            if value is None:
                got = f", got {args[i]!r}" if i < len(args) and args[i] not in GO_TOKENS else ""
                notes.append(f"go: '{token}' needs a number{got}; ignored")
                if got:
                    i += 1
                continue
            i += 1
            value = _repair_go_value(token, value, notes)
            if value is not None:
                setattr(limits.clock if token in GO_CLOCK_PARAMS else limits, token, value)
        else:
            notes.append(f"go: unknown parameter {token!r} ignored")
    if notes and not _has_limit(limits):
        # What the GUI meant was lost; a bounded search still answers it (a bare `go`
        # keeps its meaning: search until `stop` or the depth limit).
        limits.clock.movetime = REPAIRED_GO_MOVETIME_MS
        notes.append(f"go: no usable limit left; searching {REPAIRED_GO_MOVETIME_MS} ms")
    return limits, list(dict.fromkeys(notes))[:MAX_GO_NOTES]


def _has_limit(limits):
    """Whether the go bounds the search or says to wait for stop (a clock of 0 counts)."""
    return any(getattr(limits.clock if name in GO_CLOCK_PARAMS else limits, name)
               not in (None, False) for name in GO_LIMITS)


def _repair_go_value(token, value, notes):
    """Clamp or drop a go value that makes no sense (the note says which)."""
    from engine.types import MAX_SEARCH_DEPTH   # numpy: not before `uciok`
    if token in ("wtime", "btime"):
        return value                      # a clock may be negative: the engine then hurries
    if token in ("winc", "binc", "movetime") and value < 0:
        notes.append(f"go: '{token}' {value} is negative; 0 used")
        return 0
    if token == "depth" and value < 1:
        notes.append(f"go: 'depth' {value} is below 1; depth 1 used")
        return 1
    if token == "depth" and value > MAX_SEARCH_DEPTH:
        # Kept as given: Limits.max_depth is where the cap is applied.
        notes.append(f"go: 'depth' {value} is above {MAX_SEARCH_DEPTH}; depth {MAX_SEARCH_DEPTH} used")
    if token in ("nodes", "mate", "movestogo") and value < 1:
        notes.append(f"go: '{token}' {value} is not positive; ignored")
        return None
    return value


def move_to_uci(move: int) -> str:
    from engine.board import move_to_uci as convert
    return convert(move)


def format_info(it, move_text=move_to_uci) -> str:
    """The `info` line of a search iteration (engine.driver.Iteration); `move_text` writes
    its moves (engine.facade.Engine.move_text: castling as UCI_Chess960 asks)."""
    score = f"mate {it.mate_in}" if it.mate_in is not None else f"cp {it.score}"
    if it.bound:
        score += " " + it.bound
    if it.wdl is not None:
        score += " wdl {} {} {}".format(*it.wdl)
    ms = int(it.seconds * 1000)
    nps = int(it.nodes / max(it.seconds, 1e-3))
    pv = " ".join(move_text(m) for m in it.pv)
    return (f"info depth {it.depth} seldepth {it.seldepth} multipv {it.multipv} score {score} "
            f"nodes {it.nodes} nps {nps} hashfull {it.hashfull} tbhits 0 time {ms} pv {pv}")


def display_lines(view) -> list:
    """Stockfish's `d`: the board, then Fen, Key and Checkers (engine.facade.BoardView)."""
    sep = " +---+---+---+---+---+---+---+---+"
    lines = [sep]
    for rank in range(7, -1, -1):
        cells = "".join(f" {view.letters[rank * 8 + f] or ' '} |" for f in range(8))
        lines += [f" |{cells} {rank + 1}", sep]
    return lines + ["   a   b   c   d   e   f   g   h", "", f"Fen: {view.fen}",
                    f"Key: {view.key:016X}", "Checkers: " + " ".join(view.checkers)]


def eval_lines(view) -> list:
    """`eval`: the static evaluation and its parts (engine.facade.EvalView)."""
    lines = [
        f"Material + piece-square, middle game : {view.mg:+d} cp",
        f"Material + piece-square, end game    : {view.eg:+d} cp",
        f"Game phase                            : {min(view.phase, 24)}/24",
        f"Tapered, material + PST only (paper)  : {view.paper:+d} cp",
        "Positional terms (play)     white mg/eg   black mg/eg",
    ]
    for name, wmg, weg, bmg, beg in view.terms:
        lines.append(f"  {name:<24}  {wmg:+5d} {weg:+5d}   {bmg:+5d} {beg:+5d}")
    side_view = view.network if view.side_to_move == "white" else -view.network
    lines += [f"Full evaluation (hand-written, white's view) : {view.full:+d} cp",
              f"Network evaluation (play, white's view)      : {view.network:+d} cp",
              f"Side to move ({view.side_to_move}), network             : {side_view:+d} cp"]
    if not view.recount_matches:
        lines.append("Warning: the incremental sums differ from a recount (a bug; please report)")
    return lines


def _printable(text: str) -> str:
    """`text` for echoing to a GUI: control characters and lone surrogates escaped."""
    return "".join(c if c.isprintable() and not "\ud800" <= c <= "\udfff"
                   else c.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for c in text)


class UciLoop:
    def __init__(self, out=None, err=None, freeze_heap=False):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._freeze_heap = freeze_heap
        self.debug = False
        self.log_path = ""
        self._engine = None
        self._load_error = None
        self._out_lock = threading.Lock()
        self._loader = threading.Thread(target=self._load, name="twobig-load", daemon=True)
        self._loader.start()

    # -- plumbing ----------------------------------------------------------------------
    def _load(self):
        if self._freeze_heap:
            # Loading numba and the kernels makes 110,000 objects that live as long as the
            # process and about a thousand garbage ones: collections in between only walk
            # them, and a last one costs 30-50 ms before `readyok`; the garbage is frozen with
            # the rest instead.
            gc.disable()
        try:
            from engine.facade import Engine
            engine = Engine(listener=self)
            engine.warm_up()   # load every kernel a search needs before `readyok`
            if self._freeze_heap:
                freeze_heap(collect=False)
            self._engine = engine
        except Exception as exc:  # reported on use, never fatal to the loop
            self._load_error = exc
            self._log_traceback()
        finally:
            if self._freeze_heap:
                gc.enable()

    @property
    def engine(self):
        self._loader.join()
        if self._engine is None:
            raise RuntimeError(f"engine failed to load: {self._load_error}")
        return self._engine

    def send(self, line: str) -> None:
        self.send_block([line])

    def send_block(self, lines) -> None:
        """Write `lines` in one piece: a search's info line never lands inside a board
        display or an evaluation table."""
        with self._out_lock:
            try:
                self.out.write("".join(line + "\n" for line in lines))
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass
            for line in lines:
                self._log(">> " + line)

    def info(self, text: str) -> None:
        self.send("info string " + text)

    # -- what the facade reports (engine.facade.Listener), as protocol text -------------
    def iteration(self, it) -> None:
        self.send(format_info(it, self.engine.move_text))

    def current_move(self, move: int, number: int, nodes: int) -> None:
        self.send(f"info currmove {self.engine.move_text(move)} currmovenumber {number} nodes {nodes}")

    def best_move(self, move: int, ponder: int) -> None:
        line = "bestmove " + (self.engine.move_text(move) if move else "(none)")
        if ponder:
            line += " ponder " + self.engine.move_text(ponder)
        self.send(line)

    def note(self, text: str) -> None:
        self.info(text)

    def _log(self, text: str) -> None:
        if self.log_path:
            try:
                with open(self.log_path, "a") as handle:
                    handle.write(text + "\n")
            except OSError:
                pass

    def _log_traceback(self) -> None:
        text = traceback.format_exc()
        if self.debug:
            self.err.write(text)
            self.err.flush()
        self._log(text)

    def run(self, stream=None) -> None:
        if stream is None:
            stream = sys.stdin
            # Bytes that are not UTF-8 become U+FFFD instead of ending the loop (whatever
            # the locale), and nothing the engine prints can fail to encode.
            for handle, errors in ((sys.stdin, "replace"), (self.out, "backslashreplace")):
                try:
                    handle.reconfigure(errors=errors)
                except (AttributeError, ValueError, OSError):
                    pass
        quit_requested = False
        try:
            for line in stream:
                if not self.handle(line):
                    quit_requested = True
                    break
        except KeyboardInterrupt:
            quit_requested = True
        finally:
            self.shutdown(finish_search=not quit_requested)

    def shutdown(self, finish_search: bool) -> None:
        """`quit`: stop at once. End of input: let a bounded search finish and print its
        bestmove (a script piped in expects it), stop an infinite one."""
        if self._engine is None:
            return
        if finish_search:
            self._engine.finish()
        else:
            self._engine.wait(timeout=0.05)

    def handle(self, line: str) -> bool:
        """Handle one input line; False means quit."""
        self._log("<< " + line.rstrip("\n"))
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        handler = getattr(self, "cmd_" + command, None) if command.isidentifier() else None
        if handler is None:
            self.info(f"unknown command: {_printable(line.strip()[:200])}")
            return True
        try:
            handler(args)
        except Exception as exc:
            self.info(f"error in '{command}': {exc}")
            self._log_traceback()
        return True

    # -- commands ----------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME} {VERSION}")
        self.send(f"id author {ENGINE_AUTHOR}")
        for option in OPTIONS:
            self.send(option.declaration())
        self.send("uciok")

    def cmd_debug(self, args):
        if args not in (["on"], ["off"]):
            self.info("usage: debug on|off")
            return
        self.debug = args[0] == "on"

    def cmd_isready(self, args):
        self.engine  # waits for the jitted core to be loaded; answers during a search too
        self.send("readyok")

    def cmd_register(self, args):
        pass

    def cmd_ucinewgame(self, args):
        self.engine.new_game()

    def cmd_setoption(self, args):
        if not args or args[0] != "name":
            self.info("usage: setoption name <name> [value <value>]")
            return
        if "value" in args:
            cut = args.index("value")
            name, raw = " ".join(args[1:cut]), " ".join(args[cut + 1:])
        else:
            name, raw = " ".join(args[1:]), None
        option = OPTIONS_BY_KEY.get(name.lower())
        if option is None:
            self.info(f"unknown option {name!r}")
            return
        try:
            value = option.parse(raw)
        except ValueError as exc:
            self.info(str(exc))
            return
        if option.name == "Debug Log File":
            self.log_path = value
        self.engine.set_option(option.name, value)

    def cmd_position(self, args):
        if not args:
            self.info("position needs 'startpos' or 'fen <FEN>'")
            return
        moves = []
        if "moves" in args:
            cut = args.index("moves")
            args, moves = args[:cut], args[cut + 1:]
        if args[0] == "startpos" and len(args) == 1:
            fen = None
        elif args[0] == "fen" and len(args) > 1:
            fen = " ".join(args[1:])
        else:
            self.info("position needs 'startpos' or 'fen <FEN>' before 'moves'")
            return
        from engine.facade import PositionError
        try:
            self.engine.set_position(fen, moves)
        except PositionError as exc:
            self.info(str(exc))

    def cmd_go(self, args):
        if args[:1] == ["perft"]:
            if len(args) != 2 or not args[1].isdigit() or not 0 <= int(args[1]) <= 12:
                self.info("usage: go perft <depth 0..12>")
                return
            if self.engine.searching:
                self.info("searching; 'go perft' ignored")
                return
            divided, total = self.engine.divide(int(args[1]))
            for move, count in divided:
                self.send(f"{move}: {count}")
            self.send("")
            self.send(f"Nodes searched: {total}")
            return
        limits, notes = parse_go(args)
        for note in notes:
            self.info(note)
        self.engine.go(limits)

    def cmd_stop(self, args):
        self.engine.stop()

    def cmd_ponderhit(self, args):
        self.engine.ponderhit()

    def cmd_d(self, args):
        self.send_block(display_lines(self.engine.display()))

    def cmd_eval(self, args):
        self.send_block(eval_lines(self.engine.evaluation()))

    def cmd_bench(self, args):
        if self.engine.searching:
            self.info("searching; 'bench' ignored")
            return
        from engine.bench import BENCH_DEPTH, run_bench
        depth = BENCH_DEPTH
        if args:
            if args[0].isdigit() and int(args[0]) in BENCH_DEPTHS:
                depth = int(args[0])
            else:
                self.info(f"bench: {args[0]!r} is not a depth in {BENCH_DEPTHS.start}.."
                          f"{BENCH_DEPTHS[-1]}; depth {BENCH_DEPTH} used")
        run_bench(depth, echo=self.send, profile=self.engine.options["Search Profile"])


def freeze_heap(collect: bool = True):
    """Collect the loading's garbage (unless `collect` is False) and move every object left
    into the collector's permanent generation, so no full collection walks it again: the
    engine's (numba and the kernels leave about 110,000 tracked objects, 55 ms a
    collection, idle) and the referee's (scripts/match.py, after parsing the book). A
    collection pauses every thread, and on a low clock that pause is charged to a move. Only the executables do this: a test process that builds many loops would
    keep their cycles for ever."""
    if collect:
        gc.collect()
    gc.freeze()


def main():
    import os
    # numba looks for SciPy's BLAS when it first loads its array typing: 0.15 s of every
    # start where SciPy is installed (the checkout's venv has it for the lab), and imports
    # PyYAML for a configuration file TwoBig does not use (10 ms). No kernel uses BLAS, so
    # the engine process takes both as absent.
    sys.modules.setdefault("scipy", None)
    sys.modules.setdefault("yaml", None)
    UciLoop(freeze_heap=True).run()   # freezes once the kernels are loaded
    # Skip the interpreter's teardown (numba and LLVM finalisers take a quarter of a
    # second): `quit` must end the process within 100 ms. Output is already flushed.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
