"""The facade between the protocol loop and the jitted core (Stockfish's `engine` split).

It owns the position, the transposition table, the searcher and the option values, runs
each search on a worker thread, and reports through a `send(line)` callable. The protocol
loop (engine.uci) only parses lines and calls these methods.
"""
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence

import numpy as np

from engine import tt as ttmod
from engine.board import Board, FenError, PIECE_LETTERS, SQUARE_NAMES, STARTING_FEN, move_to_uci
from engine.driver import Iteration, Limits
from engine.session import Session
from engine.eval import TERM_NAMES, evaluate_full_white, evaluate_white, scratch_sums, side_terms
from engine.options import OPTIONS
from engine.timeman import budgets
from engine.types import EMPTY, ST_EG, ST_MG, ST_PHASE, WHITE

CURRMOVE_AFTER = 1.0   # seconds before `info currmove` lines start


class PositionError(ValueError):
    """A `position` command that cannot be applied; the old position is kept."""


@dataclass
class GoParams:
    wtime: Optional[int] = None
    btime: Optional[int] = None
    winc: Optional[int] = None
    binc: Optional[int] = None
    movestogo: Optional[int] = None
    movetime: Optional[int] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    infinite: bool = False
    ponder: bool = False
    searchmoves: Optional[List[str]] = None


def format_info(it: Iteration) -> str:
    score = f"mate {it.mate_in}" if it.mate_in is not None else f"cp {it.score}"
    if it.bound:
        score += " " + it.bound
    ms = int(it.seconds * 1000)
    nps = int(it.nodes / max(it.seconds, 1e-3))
    pv = " ".join(move_to_uci(m) for m in it.pv)
    return (f"info depth {it.depth} seldepth {it.seldepth} multipv {it.multipv} score {score} "
            f"nodes {it.nodes} nps {nps} hashfull {it.hashfull} tbhits 0 time {ms} pv {pv}")


class Engine:
    def __init__(self, send: Callable[[str], None] = print):
        self.send = send
        self.options = {option.name: option.default for option in OPTIONS}
        self.board = Board()
        self.session = Session(hash_mb=self.options["Hash"])
        self.searcher = self.session.searcher
        self._thread: Optional[threading.Thread] = None
        self._release = threading.Event()     # set by stop/ponderhit: bestmove may go out
        self._waiting = False                 # infinite/ponder: bestmove only after release
        self._pending = []                    # options set during a search
        self._busy = False                    # a search is running (until bestmove is sent)
        self._limits: Optional[Limits] = None  # the limits of the running search
        self._lock = threading.Lock()

    # -- position ----------------------------------------------------------------------
    def set_position(self, fen: Optional[str], moves: Sequence[str]) -> None:
        """Set up `fen` (None: the start position) and play `moves` (UCI text), all or
        nothing: on a bad FEN or an illegal move raise PositionError and keep the old one."""
        try:
            board = Board(fen or STARTING_FEN)
        except FenError as exc:
            raise PositionError(str(exc)) from None
        for ply, text in enumerate(moves, 1):
            try:
                board.push_uci(text)
            except ValueError:
                raise PositionError(
                    f"illegal move {text!r} at ply {ply} of the move list; position unchanged"
                ) from None
        self.board = board

    def new_game(self) -> None:
        self.wait()
        self.board = Board()
        self.session.new_table()

    # -- options -----------------------------------------------------------------------
    def set_option(self, name: str, value) -> None:
        """Apply an option now, or after the running search."""
        with self._lock:
            if self.searching:
                self._pending.append((name, value))
                self.send(f"info string {name} will be applied after this search")
                return
            self._apply_option(name, value)

    def _apply_option(self, name: str, value) -> None:
        if name == "Clear Hash":
            self.session.new_table()
            return
        self.options[name] = value
        if name in ("Hash", "TT Scheme"):
            scheme = ttmod.scheme_index(self.options["TT Scheme"])
            self.session.resize(self.options["Hash"], scheme=scheme,
                                aging=self.options["TT Aging"])
        elif name == "TT Aging":
            self.session.set_aging(value)
        elif name == "Search Profile":
            self.session.profile = value

    # -- searching -----------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self._busy

    def go(self, params: GoParams) -> None:
        """Start a search on a worker thread; exactly one `bestmove` line follows. A search
        still running or unwinding (after `stop`, or a ponder miss) is stopped and its
        bestmove sent first: the new `go` waits for it instead of being dropped."""
        arrived = time.perf_counter()   # the GUI's clock runs from here
        if self._thread is not None and self._thread.is_alive():
            if not (self._limits is not None and self._limits.stop_requested):
                self.send("info string a search is still running; stopped for the new 'go'")
            self.wait()
        board = self.board.copy()
        searchmoves = None
        if params.searchmoves:
            searchmoves = []
            for text in params.searchmoves:
                try:
                    searchmoves.append(board.parse_uci(text))
                except ValueError:
                    self.send(f"info string searchmoves: {text!r} is not legal here, ignored")
            searchmoves = searchmoves or None
        white = board.turn == WHITE
        overhead = self.options["Move Overhead"]
        soft, hard = budgets(params.wtime if white else params.btime,
                             params.winc if white else params.binc,
                             params.movestogo, params.movetime, overhead)
        limits = Limits(depth=params.depth, nodes=params.nodes, mate=params.mate,
                        soft_time=soft, hard_time=hard, searchmoves=searchmoves,
                        infinite=params.infinite or params.ponder,
                        multipv=self.options["MultiPV"], started_at=arrived)
        self._waiting = limits.infinite
        self._release.clear()
        self._busy = True
        self._limits = limits
        self._thread = threading.Thread(target=self._search_worker, args=(board, limits, params),
                                        name="twobig-search", daemon=True)
        self._thread.start()

    def _book_move(self, board) -> int:
        if not self.options["OwnBook"] or not self.options["BookFile"]:
            return 0
        import chess
        import chess.polyglot
        try:
            with chess.polyglot.open_reader(self.options["BookFile"]) as reader:
                entry = reader.weighted_choice(chess.Board(board.fen()))
        except IndexError:
            return 0
        except OSError as exc:
            self.send(f"info string cannot read BookFile: {exc}")
            return 0
        try:
            return board.parse_uci(entry.move.uci())
        except ValueError:
            return 0

    def _search_worker(self, board, limits: Limits, params: GoParams) -> None:
        best, ponder = 0, 0
        done = threading.Event()
        try:
            if not limits.infinite and not limits.searchmoves:
                best = self._book_move(board)
            if not best:
                monitor = threading.Thread(target=self._currmove_monitor, args=(done,),
                                           daemon=True)
                monitor.start()
                result = self.session.search(board, limits,
                                           lambda it: self.send(format_info(it)))
                best, ponder = result.best_move, result.ponder_move
        except Exception as exc:   # never lose the bestmove line
            self.send(f"info string search failed: {exc!r}")
            traceback.print_exc()
        finally:
            done.set()
        if not best:
            legal = board.legal_moves()
            best = legal[0] if legal else 0
        if self._waiting and not self._release.is_set():
            self._release.wait()
        if ponder:
            board.push(best)
            if ponder not in board.legal_moves():
                ponder = 0
        line = "bestmove " + (move_to_uci(best) if best else "(none)")
        if ponder:
            line += " ponder " + move_to_uci(ponder)
        with self._lock:
            pending, self._pending = self._pending, []
            for name, value in pending:
                self._apply_option(name, value)
            # Not searching any more *before* the GUI can read bestmove and send a new go.
            self._busy = False
        self.send(line)

    def _currmove_monitor(self, done: threading.Event) -> None:
        if done.wait(CURRMOVE_AFTER):
            return
        while not done.wait(1.0):
            move, number = self.searcher.current_move()
            if move:
                self.send(f"info currmove {move_to_uci(move)} currmovenumber {number} "
                          f"nodes {self.searcher.nodes}")

    def stop(self) -> None:
        if self.searching:
            self._limits.stop_requested = True
            self.searcher.stop()
            self._release.set()

    def ponderhit(self) -> None:
        if self.searching:
            self._waiting = False
            self.searcher.ponderhit(self._limits)
            self._release.set()

    def finish(self) -> None:
        """Wait for a bounded search to end by itself; stop an infinite or pondering one."""
        if self._thread is not None and self._thread.is_alive():
            if self._waiting:
                self.stop()
            self._thread.join()

    def warm_up(self) -> None:
        """Load (or compile) every kernel a search uses, on a scratch table."""
        Session(positions=1024).search(Board(), Limits(depth=2))
        self.board.perft(2)

    def wait(self, timeout: Optional[float] = None) -> None:
        """Stop any search and wait for its bestmove."""
        if self._thread is not None and self._thread.is_alive():
            self.stop()
            self._thread.join(timeout)

    # -- other commands ------------------------------------------------------------------
    def perft_lines(self, depth: int) -> List[str]:
        """Stockfish's `go perft` output: `move: count` lines, a blank line, the total."""
        divided = self.board.divide(depth) if depth >= 1 else []
        lines = [f"{move}: {count}" for move, count in divided]
        total = sum(count for _, count in divided) if depth >= 1 else 1
        return lines + ["", f"Nodes searched: {total}"]

    def display_lines(self) -> List[str]:
        """Stockfish's `d`: the board, then Fen, Key and Checkers."""
        mailbox = self.board.P.board
        sep = " +---+---+---+---+---+---+---+---+"
        lines = [sep]
        for rank in range(7, -1, -1):
            cells = "".join(
                f" {PIECE_LETTERS[p] if p != EMPTY else ' '} |"
                for p in (mailbox[rank * 8 + f] for f in range(8)))
            lines += [f" |{cells} {rank + 1}", sep]
        lines += ["   a   b   c   d   e   f   g   h", "",
                  f"Fen: {self.board.fen()}",
                  f"Key: {self.board.key:016X}",
                  "Checkers: " + " ".join(SQUARE_NAMES[s] for s in self.board.checkers())]
        return lines

    def eval_lines(self) -> List[str]:
        """`eval`: the static evaluation and its parts (white's view unless said)."""
        P, T = self.board.P, self.board.T
        row = P.st[self.board.ply]
        mg, eg, phase = int(row[ST_MG]), int(row[ST_EG]), int(row[ST_PHASE])
        assert (mg, eg, phase) == tuple(int(x) for x in scratch_sums(P, T))
        paper_view = int(evaluate_white(P))
        white_view = int(evaluate_full_white(P, T))
        side = "white" if self.board.turn == WHITE else "black"
        lines = [
            f"Material + piece-square, middle game : {mg:+d} cp",
            f"Material + piece-square, end game    : {eg:+d} cp",
            f"Game phase                            : {min(phase, 24)}/24",
            f"Tapered, material + PST only (paper)  : {paper_view:+d} cp",
            "Positional terms (play)     white mg/eg   black mg/eg",
        ]
        white = side_terms(P, T, np.int64(WHITE))
        black = side_terms(P, T, np.int64(1 - WHITE))
        for k, name in enumerate(TERM_NAMES):
            lines.append(f"  {name:<24}  {white[2 * k]:+5d} {white[2 * k + 1]:+5d}"
                         f"   {black[2 * k]:+5d} {black[2 * k + 1]:+5d}")
        lines += [
            f"Full evaluation (play, white's view)  : {white_view:+d} cp",
            f"Side to move ({side})                  : "
            f"{white_view if side == 'white' else -white_view:+d} cp",
        ]
        return lines

    def bench_lines(self, depth: Optional[int] = None) -> None:
        from engine.bench import BENCH_DEPTH, run_bench
        run_bench(depth or BENCH_DEPTH, echo=self.send,
                  profile=self.options["Search Profile"])
