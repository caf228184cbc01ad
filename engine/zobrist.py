"""Zobrist keys: the 781 Polyglot random numbers, rearranged for TwoBig's piece numbering.

Polyglot's layout of its random array (facts of the Polyglot book format):
  0..767   piece keys: 64 * kind + square, kind = 2 * type + (1 if white else 0)
           (black pawn 0, white pawn 1, black knight 2, ..., white king 11)
  768..771 castling: white short, white long, black short, black long
  772..779 en-passant file a..h (hashed only when a pawn of the side to move could capture)
  780      side: XORed in when WHITE is to move

Chess960: the castling keys are Polyglot's four, one per right (white h-side = "short",
white a-side, black h-side, black a-side), whichever files the king and rooks stand on. A
right names the same rook for a whole game (rights are only lost, never gained), so within
a game equal rights mean equal castling rook files and a position has one key however it
was reached; it is the key python-chess's zobrist_hash gives a chess960 board. Positions of
different games that differ only in which rook may castle share a key (a table hit between
them is caught by the search's legality check of the stored move).

This module only copies the array it is given into T.u (Polyglot's random array, which
engine.tables reads from engine/polyglot_random.npy); it imports no chess code.
The full-hash kernel is the slow reference that the incremental key of make/unmake must equal.
"""
import numpy as np

from engine._jit import jit
from engine.codec import piece_of
from engine.types import (
    BLACK, EMPTY, NO_SQUARE, ST_CASTLE, ST_EP, ST_SIDE, U0, U_Z_CASTLE, U_Z_EP, U_Z_PIECE, U_Z_SIDE,
    WHITE,
)

POLYGLOT_CASTLE = 768
POLYGLOT_EP = 772
POLYGLOT_TURN = 780


def fill_zobrist_tables(u, random_array):
    """Write the keys into the flat uint64 table array (layout in engine.types)."""
    rand = np.array([int(x) for x in random_array], dtype=np.uint64)
    assert rand.shape == (781,)
    for colour in (WHITE, BLACK):
        for ptype in range(6):
            kind = 2 * ptype + (1 if colour == WHITE else 0)
            piece = piece_of(colour, ptype)
            u[U_Z_PIECE + piece * 64:U_Z_PIECE + piece * 64 + 64] = rand[64 * kind:64 * kind + 64]
    for rights in range(16):
        key = np.uint64(0)
        for bit in range(4):
            if rights & (1 << bit):
                key ^= rand[POLYGLOT_CASTLE + bit]
        u[U_Z_CASTLE + rights] = key
    u[U_Z_EP:U_Z_EP + 8] = rand[POLYGLOT_EP:POLYGLOT_EP + 8]
    u[U_Z_SIDE] = rand[POLYGLOT_TURN]


@jit
def piece_key(T, piece, sq):
    return T.u[U_Z_PIECE + piece * 64 + sq]


@jit
def castle_key(T, rights):
    return T.u[U_Z_CASTLE + rights]


@jit
def ep_key(T, ep_square):
    return T.u[U_Z_EP + (ep_square & 7)]


@jit
def side_key(T):
    return T.u[U_Z_SIDE]


@jit
def full_key(T, board, state_row):
    """The Polyglot key of a position computed from scratch (the reference for make/unmake).

    `state_row` must hold an en-passant square only where a pawn of the side to move stands
    beside the double-pushed pawn (the position module keeps it that way), which is exactly
    Polyglot's rule for hashing the en-passant file.
    """
    key = U0
    for sq in range(64):
        p = board[sq]
        if p != EMPTY:
            key ^= piece_key(T, p, sq)
    key ^= castle_key(T, state_row[ST_CASTLE])
    if state_row[ST_EP] != NO_SQUARE:
        key ^= ep_key(T, state_row[ST_EP])
    if state_row[ST_SIDE] == WHITE:
        key ^= side_key(T)
    return key
