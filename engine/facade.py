"""The facade between the protocol loop and the jitted core (Stockfish's `engine` split).

It owns the position, the search runner (the table, the searcher and the search profile), the
options, runs each search on a worker thread, and reports data to a `Listener`: iterations, the
current move, the best move and plain-text notes. It writes no protocol text; the protocol
loop (engine.uci) parses lines, calls these methods and turns what they report into UCI
(spelling moves with `move_text`, which knows the game's castling rooks and UCI_Chess960).
"""
import os
import random
import threading
import time
import traceback
from dataclasses import dataclass, replace
from typing import List, Optional, Sequence

import numpy as np

from engine import tt as ttmod
from engine.board import Board, FenError, PIECE_LETTERS, SQUARE_NAMES, STARTING_FEN, move_to_uci
from engine.driver import Iteration, Limits
from engine.session import Session
from engine.eval import TERM_NAMES, reference_eval_white, material_pst_white, scratch_sums, side_terms
from engine.nnue import network_eval_fresh
from engine import strength
from engine.options import OPTIONS
from engine.timeman import REPAIRED_GO_MOVETIME_MS, LagTracker
from engine.codec import PIECE_TYPES, piece_of
from engine.types import BLACK, EMPTY, ST_EG, ST_MG, ST_PHASE, WHITE
from engine.warmup import finish_ahead, start_ahead
from engine.wdl import material_points, wdl_permille

CURRMOVE_AFTER = 1.0   # seconds before `info currmove` lines start


class PositionError(ValueError):
    """A `position` command that cannot be applied; the old position is kept."""


class Listener:
    """What the facade reports while it works (every method may be called from the search
    thread). The defaults drop everything; engine.uci turns each call into protocol text."""

    def iteration(self, it: Iteration) -> None:
        """A finished (or failed-high / failed-low) iteration of the running search."""

    def current_move(self, move: int, number: int, nodes: int) -> None:
        """The root move being searched, after the first second of a search."""

    def best_move(self, move: int, ponder: int) -> None:
        """The search's answer (0: no legal move; ponder 0: none). Exactly one per `go`."""

    def note(self, text: str) -> None:
        """A plain-text remark for the user (a repaired request, a deferred option...)."""


@dataclass
class BoardView:
    """What `d` shows: the mailbox (piece letters, '' for empty, a1 first), FEN, Polyglot key,
    and the squares of the pieces giving check."""
    letters: List[str]
    fen: str
    key: int
    checkers: List[str]


@dataclass
class EvalView:
    """What `eval` shows, in centipawns from white's view unless said."""
    mg: int
    eg: int
    phase: int
    paper: int
    full: int
    network: int                # the network the play search evaluates with (engine.nnue)
    side_to_move: str
    terms: List[tuple]          # (name, white mg, white eg, black mg, black eg)
    recount_matches: bool       # the incremental sums equal a recount from scratch


class Engine:
    def __init__(self, listener: Optional[Listener] = None):
        self.listener = listener or Listener()
        self.options = {option.name: option.default for option in OPTIONS}
        self.board = Board()
        self._position = (STARTING_FEN, [])  # (FEN, moves) that self.board was set up from
        self.lag = LagTracker()
        self._move_clock = (None, None, 0)   # (the engine's clock ms, increment ms, plies) of this go
        self.session = Session(hash_mb=self.options["Hash"])
        self.searcher = self.session.searcher
        self._thread: Optional[threading.Thread] = None
        self._release = threading.Event()     # set by stop/ponderhit: bestmove may go out
        self._waiting = False                 # infinite/ponder: bestmove only after release
        self._pending = []                    # options set during a search
        self._busy = False                    # a search is running (until bestmove is sent)
        self._limits: Optional[Limits] = None  # the limits of the running search
        self._lock = threading.Lock()
        self._strength: Optional[strength.Plan] = None   # the running search's, if limited
        self._rng = random.Random()            # the weaker settings' choice of move
        self._castling_rooks = self.board.castling_rooks()   # of the game searched last

    # -- move text -----------------------------------------------------------------------
    def move_text(self, move: int) -> str:
        """UCI text of a move of the current game or of the search last started (the moves
        the listener reports): castling as king-takes-rook while UCI_Chess960 is on."""
        return move_to_uci(move, self._castling_rooks if self.options["UCI_Chess960"] else None)

    # -- position ----------------------------------------------------------------------
    def set_position(self, fen: Optional[str], moves: Sequence[str]) -> None:
        """Set up `fen` (None: the start position) and play `moves` (UCI text), all or
        nothing: on a bad FEN or an illegal move raise PositionError and keep the old one.
        A GUI resends the whole game before every move; when it extends the last position
        sent, only the new moves are played (on a copy), which saves the replay (2.5 ms at
        move 65, several times that on a loaded machine) from the clock."""
        fen = fen or STARTING_FEN
        moves = list(moves)
        last_fen, last_moves = self._position
        start = len(last_moves)
        if last_fen == fen and moves[:start] == last_moves:
            board = self.board.copy()
        else:
            start = 0
            try:
                board = Board(fen)
            except FenError as exc:
                raise PositionError(str(exc)) from None
        for ply, text in enumerate(moves[start:], start + 1):
            try:
                board.push_uci(text)
            except ValueError:
                raise PositionError(
                    f"illegal move {text!r} at ply {ply} of the move list; position unchanged"
                ) from None
        self.board = board
        self._position = (fen, moves)
        if not self.searching:
            self._castling_rooks = board.castling_rooks()

    def new_game(self) -> None:
        self.wait()
        self.lag.reset()
        self.board = Board()
        self._position = (STARTING_FEN, [])
        self._castling_rooks = self.board.castling_rooks()
        self.session.new_table()

    # -- options -----------------------------------------------------------------------
    def set_option(self, name: str, value) -> None:
        """Apply an option now, or after the running search."""
        with self._lock:
            if self.searching:
                self._pending.append((name, value))
                self.listener.note(f"{name} will be applied after this search")
                return
            self._apply_option(name, value)

    def _apply_option(self, name: str, value) -> None:
        if name == "Clear Hash":
            self.session.new_table()
            return
        previous = self.options[name]
        self.options[name] = value
        if name in ("Hash", "TT Scheme"):
            scheme = ttmod.scheme_index(self.options["TT Scheme"])
            try:
                self.session.resize(self.options["Hash"], scheme=scheme,
                                    aging=self.options["TT Aging"])
            except MemoryError as error:
                self.options[name] = previous
                self.listener.note(f"{name} {value}: no memory for the table ({error}); it stays "
                                   f"{self.options['TT Scheme']} at {self.options['Hash']} MB")
        elif name == "TT Aging":
            self.session.set_aging(value)
        elif name == "Search Profile":
            self.session.profile = value
        elif name == "Threads":
            self.searcher.set_threads(value)

    # -- searching -----------------------------------------------------------------------
    @property
    def searching(self) -> bool:
        return self._busy

    def go(self, limits: Limits) -> None:
        """Start a search on a worker thread; exactly one `bestmove` line follows. A search
        still running or unwinding (after `stop`, or a ponder miss) is stopped and its
        bestmove sent first: the new `go` waits for it instead of being dropped.
        `limits` comes from engine.uci.parse_go: its clock and searchmoves are resolved
        here, for the side to move."""
        arrived = time.perf_counter()   # the GUI's clock runs from here
        if self._thread is not None and self._thread.is_alive():
            if not self.searcher.stopped:
                self.listener.note("a search is still running; stopped for the new 'go'")
            self.wait()
        self.searcher.clear_stop()      # from here on a `stop` ends this search
        board = self.board.copy()
        self._castling_rooks = board.castling_rooks()
        if limits.searchmoves:
            moves = []
            for text in limits.searchmoves:
                try:
                    moves.append(board.parse_uci(text))
                except ValueError:
                    self.listener.note(f"searchmoves: {text!r} is not legal here, ignored")
            limits.searchmoves = moves or None
        white = board.turn == WHITE
        if ((not limits.infinite or limits.ponder) and limits.clock.lacks_side_to_move(white)
                and limits.depth is None and limits.nodes is None and limits.mate is None):
            limits.clock.movetime = REPAIRED_GO_MOVETIME_MS
            self.listener.note(f"go: no time given for {'white' if white else 'black'}, the side "
                               f"to move; searching {REPAIRED_GO_MOVETIME_MS} ms")
        clock_ms = limits.clock.wtime if white else limits.clock.btime
        inc_ms = limits.clock.winc if white else limits.clock.binc
        plies = len(self._position[1])
        if limits.infinite or limits.clock.movetime is not None:
            self.lag.reset()        # pondering or a fixed time: the clock says nothing of lag
        else:
            self.lag.observe(clock_ms, inc_ms, plies)
        limits.soft_time, limits.hard_time = limits.clock.budgets(
            white, self.lag.overhead_ms(self.options["Move Overhead"]))
        limits.multipv = self.options["MultiPV"]
        self._strength = strength.plan_from_options(self.options)
        if self._strength is not None:
            # A weaker setting looks less far and searches a few candidate moves to choose
            # from; its first iteration always completes, so there is a choice to make.
            limits.multipv = max(limits.multipv, self._strength.multipv)
            limits.soft_nodes = self._strength.nodes
        limits.started_at = arrived
        self._waiting = limits.infinite
        self._release.clear()
        self._busy = True
        self._limits = limits
        self._move_clock = (None if limits.infinite else clock_ms, inc_ms, plies)
        self._thread = threading.Thread(target=self._search_worker, args=(board, limits),
                                        name="twobig-search", daemon=True)
        self._thread.start()

    def _book_move(self, board) -> int:
        if not self.options["OwnBook"] or not self.options["BookFile"]:
            return 0
        import chess
        import chess.polyglot
        if os.path.isdir(self.options["BookFile"]):
            # python-chess would read a folder as an empty book and say nothing
            self.listener.note(f"cannot read BookFile: {self.options['BookFile']!r} is a folder")
            return 0
        try:
            with chess.polyglot.open_reader(self.options["BookFile"]) as reader:
                entry = reader.weighted_choice(chess.Board(board.fen(shredder=board.chess960),
                                                           chess960=board.chess960))
        except IndexError:
            return 0
        except OSError as exc:
            self.listener.note(f"cannot read BookFile: {exc}")
            return 0
        try:
            return board.parse_uci(entry.move.uci())
        except ValueError:
            return 0

    def _search_worker(self, board, limits: Limits) -> None:
        best, ponder = 0, 0
        done = threading.Event()
        try:
            if not limits.infinite and not limits.searchmoves:
                best = self._book_move(board)
            if not best:
                if limits.infinite or limits.hard_time is None or limits.hard_time > CURRMOVE_AFTER:
                    # Only a search that can outlast CURRMOVE_AFTER reports its current move.
                    threading.Thread(target=self._currmove_monitor, args=(done,),
                                     daemon=True).start()
                report = self._reporter(board)
                result = self.session.search(board, limits, report, keep_stop=True)
                best, ponder = result.best_move, result.ponder_move
                if self._strength is not None:
                    chosen = strength.choose(strength.final_lines(result.iterations),
                                             self._strength, self._rng)
                    if chosen is not None:
                        report(chosen)   # the GUI's last line starts with the move played
                        best, ponder = chosen.pv[0], (chosen.pv[1] if len(chosen.pv) > 1 else 0)
        except Exception as exc:   # never lose the bestmove line
            self.listener.note(f"search failed: {exc!r}")
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
        with self._lock:
            pending, self._pending = self._pending, []
            for name, value in pending:
                self._apply_option(name, value)
            # Not searching any more *before* the GUI can read bestmove and send a new go.
            self._busy = False
            clock_ms, inc_ms, plies = self._move_clock
            self.lag.moved(clock_ms, inc_ms, plies,
                           (time.perf_counter() - limits.started_at) * 1000.0)
        self.listener.best_move(best, ponder)

    def _reporter(self, board):
        """The listener's `iteration`, with the win/draw/loss estimate added when
        UCI_ShowWDL is on (from the root's material: engine.wdl)."""
        if not self.options["UCI_ShowWDL"]:
            return self.listener.iteration
        counts = [sum(bin(int(board.P.bb[piece_of(colour, kind)])).count("1")
                      for colour in (WHITE, BLACK)) for kind in range(PIECE_TYPES)]
        material = material_points(counts)

        def report(it: Iteration) -> None:
            self.listener.iteration(replace(it, wdl=wdl_permille(it.score, material)))
        return report

    def _currmove_monitor(self, done: threading.Event) -> None:
        if done.wait(CURRMOVE_AFTER):
            return
        while not done.wait(1.0):
            move, number = self.searcher.current_move()
            if move:
                self.listener.current_move(move, number, self.searcher.nodes)

    def stop(self) -> None:
        if self.searching:
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
        """Load (or compile) every kernel a search uses, on a scratch table; into an empty
        cache with a second process compiling part of them (engine.warmup)."""
        helper = start_ahead()
        Session(positions=1024).search(Board(), Limits(depth=2))
        finish_ahead(helper)
        self.board.perft(2)

    def wait(self, timeout: Optional[float] = None) -> None:
        """Stop any search and wait for its bestmove."""
        if self._thread is not None and self._thread.is_alive():
            self.stop()
            self._thread.join(timeout)

    # -- other commands ------------------------------------------------------------------
    def divide(self, depth: int):
        """`go perft`: (count below each legal move as (uci, count), total leaves)."""
        divided = self.board.divide(depth, self.options["UCI_Chess960"]) if depth >= 1 else []
        total = sum(count for _, count in divided) if depth >= 1 else 1
        return divided, total

    def display(self) -> BoardView:
        """`d`: the board, FEN, key and checkers."""
        letters = [PIECE_LETTERS[p] if p != EMPTY else "" for p in self.board.P.board]
        return BoardView(letters, self.board.fen(shredder=self.options["UCI_Chess960"]),
                         int(self.board.key),
                         [SQUARE_NAMES[s] for s in self.board.checkers()])

    def evaluation(self) -> EvalView:
        """`eval`: the static evaluation and its parts."""
        P, T = self.board.P, self.board.T
        row = P.st[self.board.ply]
        mg, eg, phase = int(row[ST_MG]), int(row[ST_EG]), int(row[ST_PHASE])
        recount = tuple(int(x) for x in scratch_sums(P, T))
        white = side_terms(P, T, np.int64(WHITE))
        black = side_terms(P, T, np.int64(1 - WHITE))
        terms = [(name, int(white[2 * k]), int(white[2 * k + 1]), int(black[2 * k]),
                  int(black[2 * k + 1])) for k, name in enumerate(TERM_NAMES)]
        network = int(network_eval_fresh(P, T))
        if self.board.turn != WHITE:
            network = -network
        return EvalView(mg, eg, phase, int(material_pst_white(P)), int(reference_eval_white(P, T)),
                        network, "white" if self.board.turn == WHITE else "black", terms,
                        recount == (mg, eg, phase))
