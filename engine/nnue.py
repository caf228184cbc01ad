"""[jit] The evaluation network (PLAY profile): lab/network/nnue.py's network in integers.

Inputs: for each point of view (white, black), one per (piece colour relative to the
viewer, piece kind, square seen from the viewer's side): 768. Each view's accumulator is
b1 + the sum of the first layer's rows of its inputs (NN_HIDDEN values, x 255); the output
reads the side to move's view first:

    out = b2[k] + W2[k, :H] . clip(acc[stm], 0, 255) + W2[k, H:] . clip(acc[other], 0, 255)

in units of 255 x 64 per logit (lab.network.nnue.quantized), turned into centipawns by NN_CP.
The output bucket k = (pieces on the board - 2) x NN_BUCKETS // 32 (output_bucket) picks
one of NN_BUCKETS output layers: 0 with the two kings alone, NN_BUCKETS - 1 with 30 or more
pieces. A network trained with one output layer is loaded into every bucket (engine.tables).

Accumulators are kept per search ply in `accs` (int16[plies, 2 H]: the white view, then
the black view), with the Zobrist key of the position they belong to in the search
stack's STACK_NN_KEY column. A ply's accumulator is built from the nearest ply above it
on the path whose stored key matches the position there, by replaying the moves between
(ST_MOVE, ST_MOVED, ST_CAPTURED, ST_CASTLING_ROOK of each state row: two to four rows per
move); a null move changes no input. Only when no such ply lies within NN_MAX_REPLAY plies is it summed
from scratch. int16 cannot overflow: a side has one king and at most 15 other men (at most
8 pawns, the other kinds their starting counts plus promotions), and the largest and
smallest sums of such rows plus the bias stay within int16 (lab.network.nnue's
accumulator_range; tests/test_nnue_engine.py checks the shipped weights; a replay's
intermediate sums may wrap, int16 sums being modulo 2^16).
"""
import numpy as np

from engine._jit import jit, jit_inline
from engine.bitboard import lsb, popcount
from engine.codec import (
    move_flag, move_from, move_to, piece_colour_of, piece_of, piece_type_of, promotion_type,
)
from engine.position import castled_square
from engine.types import (
    EMPTY, FLAG_CASTLE, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, I_NN_B2, META_PLY, N_NN_B1, N_NN_W1,
    N_NN_W2, NN_BUCKETS, NN_HIDDEN, OCC, NO_MOVE, ROOK, ST_CAPTURED, ST_CASTLING_ROOK, ST_MOVE, ST_MOVED, ST_SIDE, STACK_LEN,
    STACK_NN_KEY, U1, WHITE,
)

NN_QA = 255          # activations and first-layer weights x NN_QA (1.0 in the float network)
NN_QB = 64           # output weights x NN_QB: the output sum is the logit x NN_QA x NN_QB
NN_CP = 165          # centipawns = out x NN_CP / (255 x 64); 400 / ln 10 = 174 would be
                     # Stockfish's scale, x 0.95 brings it near the hand-written one's spread
NN_MAX_REPLAY = 8    # plies replayed at most before summing from scratch


def new_accumulators(plies: int) -> np.ndarray:
    return np.zeros((plies, 2 * NN_HIDDEN), dtype=np.int16)


def network_eval_fresh(P, T) -> int:
    """The network's evaluation of P summed from scratch (side to move's view), for the
    glue and the tests; the search keeps its accumulators instead."""
    return int(network_eval(P, T, new_accumulators(1), np.zeros((1, STACK_LEN), np.int64), 0))


@jit
def _row_of(view, piece, sq):
    """First-layer row offset in T.nn of a piece (colour x 6 + kind) on sq seen by view."""
    # The input's piece: the viewer's own pieces as white ones, the other side's as black.
    relative = piece_of(0 if piece_colour_of(piece) == view else 1, piece_type_of(piece))
    seen = sq if view == WHITE else sq ^ 56
    return N_NN_W1 + (relative * 64 + seen) * NN_HIDDEN


# The helpers below take the arrays they read (P.st, T.nn), not P and T: numba passes every
# array of a tuple argument by value, 5 + 2 x ndim words each, so a call given P and T
# copies eight arrays' worth of words for the one or two it uses.
@jit
def _add_rows(nn, acc, piece, sq, sign):
    """acc += sign x the piece's rows (both views)."""
    # The rows are taken as slices: indexing T.nn at row + j in the loop keeps LLVM from
    # vectorizing it (measured 15 times slower), a slice indexed from 0 does not.
    white_row = _row_of(0, piece, sq)
    black_row = _row_of(1, piece, sq)
    white_w = nn[white_row:white_row + NN_HIDDEN]
    black_w = nn[black_row:black_row + NN_HIDDEN]
    white = acc[:NN_HIDDEN]
    black = acc[NN_HIDDEN:]
    if sign > 0:
        for j in range(NN_HIDDEN):
            white[j] += white_w[j]
        for j in range(NN_HIDDEN):
            black[j] += black_w[j]
    else:
        for j in range(NN_HIDDEN):
            white[j] -= white_w[j]
        for j in range(NN_HIDDEN):
            black[j] -= black_w[j]


@jit
def _refresh(P, T, acc):
    for j in range(NN_HIDDEN):
        acc[j] = T.nn[N_NN_B1 + j]
        acc[NN_HIDDEN + j] = T.nn[N_NN_B1 + j]
    for piece in range(12):
        pieces = P.bb[piece]
        while pieces:
            sq = lsb(pieces)
            pieces &= pieces - U1
            _add_rows(T.nn, acc, piece, sq, 1)


@jit
def _replay(st, nn, acc, row):
    """Update acc across the move that led to state row `row` of P.st."""
    move = st[row, ST_MOVE]
    if move == NO_MOVE:
        return                      # a null move: the same pieces
    piece = st[row, ST_MOVED]
    captured = st[row, ST_CAPTURED]
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    us = piece_colour_of(piece)
    _add_rows(nn, acc, piece, frm, -1)
    if captured != EMPTY:
        cap_sq = to
        if flag == FLAG_EN_PASSANT:
            cap_sq = to - 8 if us == WHITE else to + 8
        _add_rows(nn, acc, captured, cap_sq, -1)
    if flag >= FLAG_PROMO_KNIGHT:
        _add_rows(nn, acc, piece_of(us, promotion_type(flag)), to, 1)
    else:
        _add_rows(nn, acc, piece, to, 1)
    if flag == FLAG_CASTLE:
        rook = piece_of(us, ROOK)
        home, castled = st[row, ST_CASTLING_ROOK], castled_square(to)
        _add_rows(nn, acc, rook, home, -1)
        _add_rows(nn, acc, rook, castled, 1)


@jit_inline
def _plain_move(st, row):
    """(plain, piece, captured, from, to) of the move of state row `row`: plain when it is
    neither a null move, castling, en passant nor a promotion (one piece leaves a square for
    another, maybe taking the piece there)."""
    move = st[row, ST_MOVE]
    flag = move_flag(move)
    plain = not (move == NO_MOVE or flag == FLAG_CASTLE or flag == FLAG_EN_PASSANT
                 or flag >= FLAG_PROMO_KNIGHT)
    return plain, st[row, ST_MOVED], st[row, ST_CAPTURED], move_from(move), move_to(move)


@jit_inline
def _weights(nn, view, piece, sq):
    """One view's first-layer row of a piece on sq, as a slice indexed from 0 (see _add_rows)."""
    row = _row_of(view, piece, sq)
    return nn[row:row + NN_HIDDEN]


@jit_inline
def _step_from(st, nn, source, acc, row):
    """acc = source brought across the move of state row `row`. A plain move or capture is
    done in one pass over each view (copy, take away, add fused); a null move, castling,
    en passant and promotions are copied, then replayed."""
    plain, piece, captured, frm, to = _plain_move(st, row)
    if not plain:
        for j in range(2 * NN_HIDDEN):
            acc[j] = source[j]
        _replay(st, nn, acc, row)
        return
    for view in range(2):
        src = source[view * NN_HIDDEN:(view + 1) * NN_HIDDEN]
        dst = acc[view * NN_HIDDEN:(view + 1) * NN_HIDDEN]
        w_away = _weights(nn, view, piece, frm)
        w_to = _weights(nn, view, piece, to)
        if captured == EMPTY:
            for j in range(NN_HIDDEN):
                dst[j] = src[j] - w_away[j] + w_to[j]
        else:
            w_taken = _weights(nn, view, captured, to)
            for j in range(NN_HIDDEN):
                dst[j] = src[j] - w_away[j] - w_taken[j] + w_to[j]


@jit_inline
def _replay_fused(st, nn, acc, row):
    """_replay, with a plain move or capture done in one pass over each view (in place,
    where _step_from writes another ply's accumulator)."""
    plain, piece, captured, frm, to = _plain_move(st, row)
    if not plain:
        _replay(st, nn, acc, row)
        return
    for view in range(2):
        dst = acc[view * NN_HIDDEN:(view + 1) * NN_HIDDEN]
        w_gain = _weights(nn, view, piece, to)
        w_loss = _weights(nn, view, piece, frm)
        if captured == EMPTY:
            for j in range(NN_HIDDEN):
                dst[j] += w_gain[j] - w_loss[j]
        else:
            w_lost = _weights(nn, view, captured, to)
            for j in range(NN_HIDDEN):
                dst[j] += w_gain[j] - w_loss[j] - w_lost[j]


@jit_inline
def output_bucket(pieces):
    """The output layer used with `pieces` pieces on the board, kings included (2..32);
    lab.network.nnue trains by the same rule."""
    return min((pieces - 2) * NN_BUCKETS // 32, NN_BUCKETS - 1)


@jit_inline
def _output(nn, own, other, bucket):
    # Weight slices indexed from 0, as in _add_rows, so that the loops vectorize; the sum is
    # kept in int32 by hand (numba widens int32 + int32 to int64), which lets LLVM pair the
    # int16 products into vpmaddwd: 5 times faster. It cannot overflow: 255 x the sum of
    # |W2| of a bucket stays below 2^31 (engine.tables checks the weights it loads).
    base = N_NN_W2 + bucket * 2 * NN_HIDDEN
    own_w = nn[base:base + NN_HIDDEN]
    other_w = nn[base + NN_HIDDEN:base + 2 * NN_HIDDEN]
    out = np.int32(0)
    for j in range(NN_HIDDEN):
        a = np.int32(min(max(own[j], np.int16(0)), np.int16(NN_QA)))
        out = np.int32(out + a * np.int32(own_w[j]))
    for j in range(NN_HIDDEN):
        b = np.int32(min(max(other[j], np.int16(0)), np.int16(NN_QA)))
        out = np.int32(out + b * np.int32(other_w[j]))
    return np.int64(out)


@jit_inline
def network_eval(P, T, accs, stack, ply):
    """The network's evaluation in centipawns from the side to move's view; accs[ply] is
    brought up to date for the current position (see the module docstring)."""
    row = P.meta[META_PLY]
    key = np.int64(P.keys[row])
    acc = accs[ply]
    if stack[ply, STACK_NN_KEY] != key:
        back = 1
        while (back <= ply and back <= NN_MAX_REPLAY and back <= row
               and stack[ply - back, STACK_NN_KEY] != np.int64(P.keys[row - back])):
            back += 1
        if back <= ply and back <= NN_MAX_REPLAY and back <= row:
            _step_from(P.st, T.nn, accs[ply - back], acc, row - (back - 1))
            for k in range(back - 2, -1, -1):
                _replay_fused(P.st, T.nn, acc, row - k)
        else:
            _refresh(P, T, acc)
        stack[ply, STACK_NN_KEY] = key
    bucket = output_bucket(popcount(P.bb[OCC] | P.bb[OCC + 1]))
    if P.st[row, ST_SIDE] == WHITE:
        out = _output(T.nn, acc[:NN_HIDDEN], acc[NN_HIDDEN:], bucket)
    else:
        out = _output(T.nn, acc[NN_HIDDEN:], acc[:NN_HIDDEN], bucket)
    cp = (out + T.i[I_NN_B2 + bucket]) * NN_CP
    scale = NN_QA * NN_QB
    return cp // scale if cp >= 0 else -(-cp // scale)
