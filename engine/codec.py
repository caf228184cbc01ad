"""[jit] The move and piece codecs: the one place that packs and unpacks them.

Move layout (16 bits, stored in int32/int64 buffers; 0 = no move, a1a1 never occurs):

  bits  0..5   from square
  bits  6..11  to square (castling: the king's destination on the g- or c-file, e1g1
               style, in Chess960 too, where it may be the king's own square or the
               rook's; the rook's home square is the position's: engine.position, meta)
  bits 12..15  flag: 0 NORMAL      quiet move or capture (the mailbox tells which)
                     1 DOUBLE      pawn double push
                     2 CASTLE      castling (the king's move; the rook goes with it)
                     3 EN_PASSANT  en-passant capture
                     4..7 PROMO    promotion to knight, bishop, rook, queen

Piece layout: piece = colour * 6 + type (colour 0 white, 1 black; type PAWN 0 .. KING 5);
the mailbox holds EMPTY (12) where there is none.

Each function is a one-liner inlined into its callers at numba's IR level (jit_inline).
"""
from engine._jit import jit_inline
from engine.types import FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT

MOVE_SQUARE_BITS = 6
MOVE_FLAG_SHIFT = 12
SQUARE_MASK = 63
PIECE_TYPES = 6
PROMOTION_TYPE_OFFSET = FLAG_PROMO_KNIGHT - 1   # flag 4 -> KNIGHT (1) ... flag 7 -> QUEEN (4)


@jit_inline
def move_pack(frm, to, flag):
    return frm | (to << MOVE_SQUARE_BITS) | (flag << MOVE_FLAG_SHIFT)


@jit_inline
def move_from(move):
    return move & SQUARE_MASK


@jit_inline
def move_to(move):
    return (move >> MOVE_SQUARE_BITS) & SQUARE_MASK


@jit_inline
def move_flag(move):
    return move >> MOVE_FLAG_SHIFT


@jit_inline
def move_is_promotion(move):
    return (move >> MOVE_FLAG_SHIFT) >= FLAG_PROMO_KNIGHT


@jit_inline
def move_is_en_passant(move):
    return (move >> MOVE_FLAG_SHIFT) == FLAG_EN_PASSANT


@jit_inline
def promotion_type(flag):
    """The piece type a promotion flag (4..7) promotes to (KNIGHT..QUEEN)."""
    return flag - PROMOTION_TYPE_OFFSET


@jit_inline
def piece_of(colour, piece_type):
    return colour * PIECE_TYPES + piece_type


@jit_inline
def piece_type_of(piece):
    return piece % PIECE_TYPES


@jit_inline
def piece_colour_of(piece):
    return 1 if piece >= PIECE_TYPES else 0   # pieces are 0..11; no division in make/unmake


# -- Python side: glue that unpacks moves without a numba call --------------------------
def unpack_move(move: int):
    """(from, to, flag) of a packed move, for Python callers."""
    return (move & SQUARE_MASK, (move >> MOVE_SQUARE_BITS) & SQUARE_MASK,
            move >> MOVE_FLAG_SHIFT)

