"""Board: the friendly Python face of the jitted position (FEN in/out, UCI moves, perft).

This is glue: it validates input with python-chess, fills the arrays of an
`engine.position.Position`, and calls the kernels. It does no per-node work.
"""
from typing import List, Optional, Sequence, Tuple

import numpy as np

from engine import movegen, position
from engine.codec import piece_of, unpack_move
from engine.tables import get_tables
from engine.position import KING_DESTINATION_FILE
from engine.types import (
    BISHOP, BLACK, CASTLE_A_SIDE, CASTLE_H_SIDE, EMPTY, FLAG_CASTLE, FLAG_PROMO_KNIGHT,
    GAME_STACK, KING, KNIGHT, MAX_MOVES, MAX_PLY, NO_SQUARE, PAWN, QUEEN,
    ROOK, ST_CASTLE, ST_EP, ST_FULLMOVE, ST_HALFMOVE, ST_SIDE, WHITE,
)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
PIECE_LETTERS = "PNBRQKpnbrqk"
PROMO_LETTERS = "nbrq"
SQUARE_NAMES = [f + r for r in "12345678" for f in "abcdefgh"]


class FenError(ValueError):
    """A FEN that TwoBig refuses; the message says what is wrong with it."""


def move_to_uci(move: int, castling_rooks: Optional[Sequence[int]] = None) -> str:
    """UCI text of a packed move ('0000' for no move). Castling is written as the king's
    move to its destination (e1g1), or, given `castling_rooks` (the rooks' home squares
    by right, Board.castling_rooks()), as the king taking its own rook (e1h1: UCI_Chess960)."""
    if move == 0:
        return "0000"
    frm, to, flag = unpack_move(move)
    if flag == FLAG_CASTLE and castling_rooks is not None:
        colour = BLACK if to >= 8 else WHITE
        side = CASTLE_H_SIDE if to % 8 == KING_DESTINATION_FILE[CASTLE_H_SIDE] else CASTLE_A_SIDE
        to = castling_rooks[2 * colour + side]
    text = SQUARE_NAMES[frm] + SQUARE_NAMES[to]
    if flag >= FLAG_PROMO_KNIGHT:
        text += PROMO_LETTERS[flag - FLAG_PROMO_KNIGHT]
    return text


def _checked_chess_board(fen: str):
    """Parse and validate a FEN with python-chess; raise FenError naming the problem."""
    import chess

    fields = fen.split()
    if not 4 <= len(fields) <= 6:
        raise FenError(f"FEN must have 6 fields (4 accepted), got {len(fields)}: {fen!r}")
    try:
        board = chess.Board(" ".join(fields))
        if board.status() & chess.STATUS_BAD_CASTLING_RIGHTS:
            # Castling rights that only Chess960 allows (Shredder-FEN or X-FEN): read it so.
            chess960 = chess.Board(" ".join(fields), chess960=True)
            if not chess960.status() & chess.STATUS_BAD_CASTLING_RIGHTS:
                board = chess960
    except ValueError as exc:
        raise FenError(f"malformed FEN {fen!r}: {exc}") from None
    problems = {
        chess.STATUS_NO_WHITE_KING: "white has no king",
        chess.STATUS_NO_BLACK_KING: "black has no king",
        chess.STATUS_TOO_MANY_KINGS: "a side has more than one king",
        chess.STATUS_TOO_MANY_WHITE_PAWNS: "white has more than 8 pawns",
        chess.STATUS_TOO_MANY_BLACK_PAWNS: "black has more than 8 pawns",
        chess.STATUS_PAWNS_ON_BACKRANK: "pawns on the first or eighth rank",
        chess.STATUS_TOO_MANY_WHITE_PIECES: "white has more than 16 pieces",
        chess.STATUS_TOO_MANY_BLACK_PIECES: "black has more than 16 pieces",
        chess.STATUS_BAD_CASTLING_RIGHTS: "castling rights without king and rook at home",
        chess.STATUS_INVALID_EP_SQUARE: "impossible en-passant square",
        chess.STATUS_OPPOSITE_CHECK: "the side not to move is in check",
        chess.STATUS_TOO_MANY_CHECKERS: "more than two pieces give check",
    }
    status = board.status()
    found = [text for flag, text in problems.items() if status & flag]
    if found:
        raise FenError(f"illegal position {fen!r}: " + "; ".join(found))
    return board


class Board:
    """A position with its game history, backed by the jitted arrays."""

    def __init__(self, fen: str = STARTING_FEN):
        self.T = get_tables()
        self.P = position.new_position()
        self._moves = np.zeros(MAX_MOVES * (MAX_PLY + 8), dtype=np.int32)
        if fen == STARTING_FEN:
            self._set_start()
        else:
            self.set_fen(fen)

    def _set_start(self) -> None:
        """The standard start position, set up without python-chess: a GUI's `position
        startpos moves ...` then never imports it (30 ms), only a FEN does."""
        bb = self.P.bb
        rook_homes = np.full(4, NO_SQUARE, dtype=np.int64)   # by right, as engine.position
        for colour, back_rank, pawn_rank in ((WHITE, 0, 8), (BLACK, 56, 48)):
            bb[piece_of(colour, PAWN)] = np.uint64(0xFF << pawn_rank)
            for ptype, files in ((KNIGHT, 0x42), (BISHOP, 0x24), (ROOK, 0x81), (QUEEN, 0x08),
                                 (KING, 0x10)):
                bb[piece_of(colour, ptype)] = np.uint64(files << back_rank)
            rook_homes[2 * colour + CASTLE_H_SIDE] = back_rank + 7
            rook_homes[2 * colour + CASTLE_A_SIDE] = back_rank
        position.init_from_bitboards(self.P, self.T, WHITE, 0b1111, NO_SQUARE, 0, 1, rook_homes)
        self.chess960 = False

    # -- input -------------------------------------------------------------------------
    def set_fen(self, fen: str) -> None:
        """Set up a FEN; raise FenError (and keep the old position) if it is refused."""
        board = _checked_chess_board(fen)
        self.load_chess_board(board)

    def load_chess_board(self, board) -> None:
        """Copy a valid python-chess board (its current position, not its move stack)."""
        import chess

        bb = self.P.bb
        for colour, is_white in ((WHITE, True), (BLACK, False)):
            for ptype in range(6):
                bb[piece_of(colour, ptype)] = np.uint64(board.pieces_mask(ptype + 1, is_white))
        # Each castling rook (python-chess: its square in the rights) is on the h-side or
        # the a-side of its king; right number 2 x colour + side (engine.position, META_ROOK).
        castle = 0
        rook_homes = np.full(4, NO_SQUARE, dtype=np.int64)
        rights = board.clean_castling_rights()
        for colour, is_white, back_rank in ((WHITE, True, chess.BB_RANK_1), (BLACK, False, chess.BB_RANK_8)):
            king = board.king(is_white)
            for rook in chess.scan_forward(rights & back_rank):
                right = 2 * colour + (CASTLE_H_SIDE if rook > king else CASTLE_A_SIDE)
                castle |= 1 << right
                rook_homes[right] = rook
        ep = board.ep_square if board.ep_square is not None else NO_SQUARE
        position.init_from_bitboards(self.P, self.T, WHITE if board.turn else BLACK, castle, ep,
                                     board.halfmove_clock, board.fullmove_number, rook_homes)
        self.chess960 = bool(board.chess960)

    # -- output ------------------------------------------------------------------------
    @property
    def ply(self) -> int:
        return int(self.P.meta[position.META_PLY])

    def _row(self):
        return self.P.st[self.ply]

    @property
    def turn(self) -> int:
        return int(self._row()[ST_SIDE])

    @property
    def key(self) -> int:
        """The Zobrist (Polyglot) key of the current position."""
        return int(self.P.keys[self.ply])

    def castling_rooks(self) -> List[int]:
        """Home squares of the castling rooks, by right (2 x colour + side, engine.types):
        fixed for the game; NO_SQUARE where the starting FEN gave no such right."""
        return [int(sq) for sq in self.P.meta[position.META_ROOK:position.META_ROOK + 4]]

    def _castling_field(self, rights: int, shredder: bool) -> str:
        """The FEN castling field: KQkq letters (X-FEN: a rook's file letter where another
        rook of its side stands further out), or with `shredder` the rooks' file letters."""
        homes = self.castling_rooks()
        text = ""
        for colour in (WHITE, BLACK):
            rooks = int(self.P.bb[piece_of(colour, ROOK)])
            for side, letter in ((CASTLE_H_SIDE, "k"), (CASTLE_A_SIDE, "q")):
                right = 2 * colour + side
                if not rights >> right & 1:
                    continue
                home = homes[right]
                outer = range(home + 1, (home | 7) + 1) if side == CASTLE_H_SIDE else range(home & 56, home)
                if shredder or any(rooks >> sq & 1 for sq in outer):
                    letter = "abcdefgh"[home % 8]
                text += letter.upper() if colour == WHITE else letter
        return text or "-"

    def fen(self, shredder: bool = False) -> str:
        """FEN of the current position; the en-passant square is shown only when a pawn could
        take (python-chess's en_passant='xfen'). Castling rights as X-FEN (KQkq for a
        standard position), or with `shredder` as Shredder-FEN (HAha)."""
        board = self.P.board
        ranks = []
        for rank in range(7, -1, -1):
            text, gap = "", 0
            for file in range(8):
                piece = board[rank * 8 + file]
                if piece == EMPTY:
                    gap += 1
                    continue
                if gap:
                    text += str(gap)
                    gap = 0
                text += PIECE_LETTERS[piece]
            ranks.append(text + (str(gap) if gap else ""))
        row = self._row()
        castle = self._castling_field(int(row[ST_CASTLE]), shredder)
        ep = SQUARE_NAMES[row[ST_EP]] if row[ST_EP] != NO_SQUARE else "-"
        side = "w" if row[ST_SIDE] == WHITE else "b"
        return f"{'/'.join(ranks)} {side} {castle} {ep} {row[ST_HALFMOVE]} {row[ST_FULLMOVE]}"

    def checkers(self) -> List[int]:
        """Squares of the pieces giving check."""
        bits = int(position.checkers_of(self.P, self.T))
        return [sq for sq in range(64) if bits >> sq & 1]

    def in_check(self) -> bool:
        return bool(position.in_check(self.P, self.T))

    def gives_check(self, move: int) -> bool:
        """Whether the legal `move` would check the opponent (tested without making it)."""
        return bool(position.gives_check(self.P, self.T, np.int64(move)))

    # -- moves -------------------------------------------------------------------------
    def legal_moves(self) -> List[int]:
        n = movegen.generate_all(self.P, self.T, self._moves, 0)
        return [int(m) for m in self._moves[:n]]

    def noisy_moves(self) -> List[int]:
        n = movegen.generate_noisy(self.P, self.T, self._moves, 0)
        return [int(m) for m in self._moves[:n]]

    def quiet_moves(self) -> List[int]:
        n = movegen.generate_quiet(self.P, self.T, self._moves, 0)
        return [int(m) for m in self._moves[:n]]

    def uci(self, move: int, chess960: bool = False) -> str:
        """UCI text of a move of this game (castling as king-takes-rook with `chess960`)."""
        return move_to_uci(move, self.castling_rooks() if chess960 else None)

    def parse_uci(self, text: str) -> int:
        """The legal move written `text`, castling in either form (e1g1 or king-takes-rook
        e1h1; where a Chess960 king's plain step reads like castling, the step); raise
        ValueError if it is not legal here. A promotion piece may come in upper case, as
        Arena sends it (e7e8Q)."""
        if len(text) == 5:
            text = text[:4] + text[4].lower()
        rooks = self.castling_rooks()
        for move in self.legal_moves():
            if move_to_uci(move) == text or move_to_uci(move, rooks) == text:
                return move
        raise ValueError(f"illegal move {text!r} in {self.fen()}")

    def push(self, move: int) -> None:
        if self.ply >= GAME_STACK - MAX_PLY - 2:
            self._rebase()
        position.make_move(self.P, self.T, np.int64(move))

    def push_uci(self, text: str) -> int:
        move = self.parse_uci(text)
        self.push(move)
        return move

    def pop(self) -> None:
        if self.ply == 0:
            raise IndexError("no move to take back")
        position.unmake_move(self.P)

    def _rebase(self) -> None:
        """Very long games: restart the stack from the current position, keeping the keys
        of the last 100 plies so that repetitions are still seen."""
        keep = min(100, self.ply)
        keys = self.P.keys[self.ply - keep:self.ply + 1].copy()
        st = self.P.st[self.ply - keep:self.ply + 1].copy()
        self.P.keys[:keep + 1] = keys
        self.P.st[:keep + 1] = st
        self.P.meta[position.META_PLY] = keep

    def repetitions(self) -> int:
        """Earlier occurrences of the current position in the game."""
        return int(position.repetitions(self.P))

    # -- perft -------------------------------------------------------------------------
    def perft(self, depth: int, bulk: bool = True) -> int:
        if depth <= 0:
            return 1
        fn = movegen.perft if bulk else movegen.perft_no_bulk
        return int(fn(self.P, self.T, np.int64(depth), self._moves, np.int64(0)))

    def divide(self, depth: int, chess960: bool = False) -> List[Tuple[str, int]]:
        """Leaf counts below each legal move (Stockfish's `go perft` listing); castling
        written king-takes-rook with `chess960`."""
        out = []
        for move in self.legal_moves():
            self.push(move)
            out.append((self.uci(move, chess960), self.perft(depth - 1)))
            self.pop()
        return out

    def copy(self) -> "Board":
        other = Board.__new__(Board)
        other.T = self.T
        other.P = position.Position(*(a.copy() for a in self.P))
        other.chess960 = self.chess960
        other._moves = np.zeros_like(self._moves)
        return other
