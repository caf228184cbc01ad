"""Constants shared by every module: colours, pieces, squares, the move layout, limits, scores.

Plain module-level ints are compile-time constants for numba. Bitboard constants are
np.uint64 so that bitboard arithmetic never leaves uint64 (an int64 literal mixed into a
uint64 expression makes numba pick int64 or float64).
"""
import numpy as np

# Type aliases for readers (numba does not check them).
Square = int      # 0 = a1, 1 = b1, ..., 63 = h8 (python-chess numbering)
Bitboard = np.uint64
Move = int        # see the move layout below

WHITE = 0
BLACK = 1

PAWN = 0
KNIGHT = 1
BISHOP = 2
ROOK = 3
QUEEN = 4
KING = 5

# A piece is colour * 6 + type (engine/codec.py); the mailbox holds EMPTY where there is none.
EMPTY = 12
# Bitboard array: 0..11 one per piece, then the occupancy of each colour.
OCC = 12          # bb[OCC + colour]
N_BB = 14

NO_SQUARE = 64

U0 = np.uint64(0)
U1 = np.uint64(1)
ALL_SQUARES = np.uint64(0xFFFFFFFFFFFFFFFF)
FILE_A = np.uint64(0x0101010101010101)
FILE_H = np.uint64(0x8080808080808080)
RANK_1 = np.uint64(0xFF)
RANK_2 = np.uint64(0xFF00)
RANK_3 = np.uint64(0xFF0000)
RANK_4 = np.uint64(0xFF000000)
RANK_5 = np.uint64(0xFF00000000)
RANK_6 = np.uint64(0xFF0000000000)
RANK_7 = np.uint64(0xFF000000000000)
RANK_8 = np.uint64(0xFF00000000000000)

# Move flags (bits 12..15 of a move); the layout table and codec are in engine/codec.py.
FLAG_NORMAL = 0
FLAG_DOUBLE = 1
FLAG_CASTLE = 2
FLAG_EN_PASSANT = 3
FLAG_PROMO_KNIGHT = 4
FLAG_PROMO_BISHOP = 5
FLAG_PROMO_ROOK = 6
FLAG_PROMO_QUEEN = 7
NO_MOVE = 0

# Castling rights bits (the order of Polyglot's castling keys 768..771). "K" is the h-side
# right (the rook on the king's h-file side), "Q" the a-side right, in Chess960 as well.
# Bit number = 2 x colour + side, side CASTLE_H_SIDE or CASTLE_A_SIDE.
CASTLE_WK = 1
CASTLE_WQ = 2
CASTLE_BK = 4
CASTLE_BQ = 8
CASTLE_H_SIDE = 0
CASTLE_A_SIDE = 1

# ---------------------------------------------------------------------------------------
# State stack: one int64 row per game ply, copied forward by make and dropped by unmake.
# ---------------------------------------------------------------------------------------
ST_SIDE = 0        # side to move
ST_CASTLE = 1      # castling rights (CASTLE_* bits)
ST_EP = 2          # en-passant square, NO_SQUARE unless a pawn of the side to move can take
ST_HALFMOVE = 3    # plies since the last capture or pawn move
ST_MOVE = 4        # the move that led to this row (NO_MOVE for the root and null moves)
ST_CAPTURED = 5    # piece captured by that move, EMPTY if none
ST_MG = 6          # middle-game material + PST, white minus black
ST_EG = 7          # end-game material + PST, white minus black
ST_PHASE = 8       # game phase, 24 = all pieces on the board
ST_FULLMOVE = 9    # fullmove number
ST_NULL_DIST = 10  # plies since the last null move (repetitions never reach across one)
ST_MOVED = 11     # the piece that made ST_MOVE (the pawn of a promotion)
ST_CASTLING_ROOK = 12  # if ST_MOVE castled: its rook's home square (set by castling only)
ST_LEN = 13

MAX_PLY = 128              # deepest search path
MAX_SEARCH_DEPTH = MAX_PLY - 1   # the one cap on `go depth` (the UCI loop clamps to it)
MAX_MOVES = 256            # upper bound on legal moves in one position
GAME_STACK = 4096 + MAX_PLY  # rows in the state stack: the game so far plus a search path

# Generation modes.
GEN_ALL = 0
GEN_NOISY = 1      # captures and promotions (quiescence)
GEN_QUIET = 2      # the rest: moves that neither capture nor promote (castling included)

# ---------------------------------------------------------------------------------------
# Scores (centipawns). Mates are MATE - distance in plies; anything beyond MATE_BOUND is a
# mate score. Scores fit the 16-bit TT field.
# ---------------------------------------------------------------------------------------
INFINITE = 32000
MATE = 31000
MATE_BOUND = MATE - 2 * MAX_PLY
DRAW = 0

# ---------------------------------------------------------------------------------------
# Table layout. The read-only tables travel to every kernel as `T = Tables(u, i, nn)`: three
# flat arrays, because numba passes each array of a tuple argument as ~7 machine words and
# reference-counts it on every call; two arrays instead of two dozen made make+unmake 3x
# faster (the third, the network's int16 weights, is its own array so that its loops run
# on 16-bit lanes). Offsets (in elements):
#
#   T.u  uint64                                 T.i  int64
#   U_KNIGHT        64  knight attacks[sq]       I_PST_MG     768  [piece * 64 + sq]
#   U_KING          64  king attacks[sq]         I_PST_EG     768  [piece * 64 + sq]
#   U_PAWN         128  [colour * 64 + sq]       I_PHASE       13  [piece], EMPTY -> 0
#   U_ROOK_MASK     64  relevant occupancy       I_NN_B2        8  the network's output biases
#   U_ROOK_MAGIC    64  magic multiplier
#   U_ROOK_SHIFT    64  64 - relevant bits
#   U_ROOK_BASE     64  start of the square's block in T.u
#   U_BISHOP_*     4x64 the same for bishops
#   U_BETWEEN     4096  [a * 64 + b] squares strictly between a and b
#   U_LINE        4096  [a * 64 + b] the whole line through a and b
#   U_Z_PIECE      768  Zobrist [piece * 64 + sq]
#   U_Z_CASTLE      16  Zobrist of each castling-rights set
#   U_Z_EP           8  Zobrist of each en-passant file
#   U_Z_SIDE         1  Zobrist of white to move (+7 padding)
#   U_ROOK_ATTACKS 102400  magic-indexed rook attack sets
#   U_BISHOP_ATTACKS 5248  magic-indexed bishop attack sets
#   U_FILE           8  the squares of each file
#   U_FRONT_SPAN   128  [colour * 64 + sq] own file, squares ahead of sq (colour's view)
#   U_PASSED_SPAN  128  [colour * 64 + sq] own and adjacent files, squares ahead of sq
#   U_KING_BOX     448  [d * 64 + sq], d = 0..6: the squares a king reaches from sq in d moves or fewer
# ---------------------------------------------------------------------------------------
U_KNIGHT = 0
U_KING = 64
U_PAWN = 128
U_ROOK_MASK = 256
U_ROOK_MAGIC = 320
U_ROOK_SHIFT = 384
U_ROOK_BASE = 448
U_BISHOP_MASK = 512
U_BISHOP_MAGIC = 576
U_BISHOP_SHIFT = 640
U_BISHOP_BASE = 704
U_BETWEEN = 768
U_LINE = U_BETWEEN + 4096
U_Z_PIECE = U_LINE + 4096
U_Z_CASTLE = U_Z_PIECE + 768
U_Z_EP = U_Z_CASTLE + 16
U_Z_SIDE = U_Z_EP + 8
U_ROOK_ATTACKS = U_Z_SIDE + 8
ROOK_ATTACKS_SIZE = 102400
U_BISHOP_ATTACKS = U_ROOK_ATTACKS + ROOK_ATTACKS_SIZE
BISHOP_ATTACKS_SIZE = 5248
U_FILE = U_BISHOP_ATTACKS + BISHOP_ATTACKS_SIZE
U_FRONT_SPAN = U_FILE + 8
U_PASSED_SPAN = U_FRONT_SPAN + 128
U_KING_BOX = U_PASSED_SPAN + 128
U_SIZE = U_KING_BOX + 7 * 64

I_PST_MG = 0
I_PST_EG = 768
I_PHASE = 1536
NN_BUCKETS = 8           # the network's output buckets, chosen by the number of pieces
I_NN_B2 = I_PHASE + 16   # the network's output biases, one per bucket, x 255 x 64 (engine.nnue)
I_SIZE = I_NN_B2 + NN_BUCKETS

# The evaluation network's int16 weights, T.nn (engine.nnue; lab.network.nnue.quantized):
NN_HIDDEN = 256
N_NN_W1 = 0                            # 768 x NN_HIDDEN first layer, x 255
N_NN_B1 = N_NN_W1 + 768 * NN_HIDDEN    # NN_HIDDEN, x 255
N_NN_W2 = N_NN_B1 + NN_HIDDEN          # NN_BUCKETS x 2 x NN_HIDDEN output weights, x 64
N_SIZE = N_NN_W2 + NN_BUCKETS * 2 * NN_HIDDEN

# The search's per-ply record (engine.search.SearchState.stack), one row per ply:
STACK_PV_LEN = 0     # the PV's end in pv[ply] (moves pv[ply, ply:end])
STACK_PREV_PV = 1    # the previous iteration's PV move at this ply (the refutation move)
STACK_EVAL = 2       # PLAY: the static evaluation, NO_EVAL when in check
STACK_MOVED = 3      # PLAY: the continuation index (piece * 64 + target) of the move made
                     # here, CONTINUATION_NONE for a null move
STACK_KILLER_1 = 4   # PLAY: the killer moves of this ply, the newer first
STACK_KILLER_2 = 5
STACK_EXCLUDED = 6   # PLAY: the move a singular-extension search leaves out (0: none)
STACK_NN_KEY = 7     # PLAY: the key of the position S.nn_acc[ply] holds (engine.nnue)
STACK_LEN = 8

# The meta array of a position (table in engine.position's docstring): the current row,
# then what stays fixed for a game (castling rooks' homes, rights kept by each square).
META_PLY = 0
META_ROOK = 1
META_KEEP = META_ROOK + 4
META_LEN = META_KEEP + 64
