"""The facade between the protocol loop and the jitted core: owns the position (and, as the
engine grows, the transposition table, options and the search thread)."""
from typing import List, Optional, Sequence

from engine.board import Board, FenError, STARTING_FEN, SQUARE_NAMES, PIECE_LETTERS
from engine.types import EMPTY

__version__ = "0.1.0"


class PositionError(ValueError):
    """A `position` command that cannot be applied; the old position is kept."""


class Engine:
    def __init__(self):
        self.board = Board()

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

    # -- commands of the loop ----------------------------------------------------------
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
