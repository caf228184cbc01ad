"""[jit] The board: bitboards, mailbox, state stack; make/unmake, attacks, checks, repetition.

A position is a `Position` namedtuple of flat numpy arrays:

  bb     uint64[14]                one bitboard per piece (colour * 6 + type), then the
                                   occupancy of white (bb[12]) and of black (bb[13])
  board  int8[64]                  mailbox: the piece on each square, EMPTY where none
  st     int64[GAME_STACK, ST_LEN] state stack, one row per ply (fields ST_* in engine.types)
  keys   uint64[GAME_STACK]        Zobrist key of each row (its own array: keys are uint64)
  meta   int64[META_LEN]           what stays fixed for a game, and the current row:

           index                 meaning
           META_PLY (0)          the current row (plies made since the root FEN)
           META_ROOK + r (1..4)  home square of the castling rook of right r = 2 x colour +
                                 side (CASTLE_H_SIDE 0, CASTLE_A_SIDE 1): the rook that
                                 castling bit 1 << r moves; NO_SQUARE where the FEN gave none
           META_KEEP + sq        castling rights kept by a move from or to sq (the king's
             (5..68)             and the castling rooks' home squares clear their rights)

Castling, standard and Chess960 alike, is encoded as the king's move to its destination
(g- or c-file, engine.codec); the rook that goes with it is read from meta. A right names
one rook for a whole game (rights are only ever lost), so these entries never change after
the FEN is set up, and a standard position has a1/h1/a8/h8 there: the same moves, keys and
rights as a fixed e1g1 rule.

make_move copies the current state row forward and updates bitboards and mailbox in place;
unmake_move restores the pieces from the move and captured piece stored in the row and
steps back one row, so castling rights, en passant, clocks, key and evaluation sums come
back for free. The key and the evaluation sums are updated incrementally in make_move.
"""
import collections

import numpy as np

from engine._jit import jit, jit_inline
from engine.attacks import (
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
)
from engine.bitboard import lsb
from engine.codec import (
    move_flag, move_from, move_to, piece_colour_of, piece_of, piece_type_of, promotion_type,
)
from engine.eval import phase_weight, pst_eg, pst_mg
from engine.zobrist import castle_key, ep_key, full_key, piece_key, side_key
from engine.types import (
    BISHOP, BLACK, CASTLE_A_SIDE, CASTLE_H_SIDE, EMPTY, FLAG_CASTLE, FLAG_DOUBLE, FLAG_EN_PASSANT,
    FLAG_PROMO_KNIGHT, GAME_STACK, KING, KNIGHT, META_KEEP, META_LEN, META_PLY, META_ROOK, NO_MOVE,
    NO_SQUARE, N_BB, OCC, PAWN, QUEEN, ROOK,
    ST_CAPTURED, ST_CASTLE, ST_EG, ST_EP, ST_FULLMOVE, ST_HALFMOVE, ST_LEN, ST_MG, ST_MOVE,
    ST_NULL_DIST, ST_PHASE, ST_SIDE, ST_MOVED, ST_CASTLING_ROOK, U0, U1, WHITE,
)

Position = collections.namedtuple("Position", "bb board st keys meta")

ALL_RIGHTS = 15
KING_DESTINATION_FILE = (6, 2)   # by side: castling puts the king on g or c ...
ROOK_DESTINATION_FILE = (5, 3)   # ... and its rook on f or d


def new_position():
    """Empty arrays for one position (filled by engine.board from a FEN)."""
    meta = np.zeros(META_LEN, dtype=np.int64)
    meta[META_ROOK:META_ROOK + 4] = NO_SQUARE
    meta[META_KEEP:META_KEEP + 64] = ALL_RIGHTS
    return Position(
        bb=np.zeros(N_BB, dtype=np.uint64),
        board=np.full(64, EMPTY, dtype=np.int8),
        st=np.zeros((GAME_STACK, ST_LEN), dtype=np.int64),
        keys=np.zeros(GAME_STACK, dtype=np.uint64),
        meta=meta,
    )


@jit
def castle_keep(P, sq):
    """Castling rights that survive a move from or to sq."""
    return P.meta[META_KEEP + sq]


@jit_inline
def attackers_to(T, bb, sq, occ):
    """Pieces of both colours attacking sq, with sliders seeing through nothing but occ."""
    queens = bb[piece_of(WHITE, QUEEN)] | bb[piece_of(BLACK, QUEEN)]
    bishops_queens = bb[piece_of(WHITE, BISHOP)] | bb[piece_of(BLACK, BISHOP)] | queens
    rooks_queens = bb[piece_of(WHITE, ROOK)] | bb[piece_of(BLACK, ROOK)] | queens
    return ((pawn_attacks(T, BLACK, sq) & bb[piece_of(WHITE, PAWN)])
            | (pawn_attacks(T, WHITE, sq) & bb[piece_of(BLACK, PAWN)])
            | (knight_attacks(T, sq) & (bb[piece_of(WHITE, KNIGHT)] | bb[piece_of(BLACK, KNIGHT)]))
            | (king_attacks(T, sq) & (bb[piece_of(WHITE, KING)] | bb[piece_of(BLACK, KING)]))
            | (bishop_attacks(T, sq, occ) & bishops_queens)
            | (rook_attacks(T, sq, occ) & rooks_queens))


@jit
def is_attacked(T, bb, sq, by, occ):
    """Whether colour `by` attacks sq given occupancy occ."""
    queens = bb[piece_of(by, QUEEN)]
    if pawn_attacks(T, by ^ 1, sq) & bb[piece_of(by, PAWN)]:
        return True
    if knight_attacks(T, sq) & bb[piece_of(by, KNIGHT)]:
        return True
    if king_attacks(T, sq) & bb[piece_of(by, KING)]:
        return True
    if bishop_attacks(T, sq, occ) & (bb[piece_of(by, BISHOP)] | queens):
        return True
    if rook_attacks(T, sq, occ) & (bb[piece_of(by, ROOK)] | queens):
        return True
    return False


@jit
def side_to_move(P):
    return P.st[P.meta[META_PLY], ST_SIDE]


@jit
def current_key(P):
    return P.keys[P.meta[META_PLY]]


@jit
def king_square(P, colour):
    return lsb(P.bb[piece_of(colour, KING)])


@jit
def checkers_of(P, T):
    """Bitboard of the pieces giving check to the side to move."""
    us = side_to_move(P)
    occ = P.bb[OCC] | P.bb[OCC + 1]
    return attackers_to(T, P.bb, king_square(P, us), occ) & P.bb[OCC + (us ^ 1)]


@jit
def in_check(P, T):
    us = side_to_move(P)
    occ = P.bb[OCC] | P.bb[OCC + 1]
    return is_attacked(T, P.bb, king_square(P, us), us ^ 1, occ)


@jit_inline
def castled_square(king_to):
    """Where the rook of a king castling to king_to (g1, c1, g8 or c8) lands: beside it,
    on the f- or d-file."""
    return king_to - 1 if king_to & 7 == 6 else king_to + 1


@jit_inline
def castling_rook_squares(meta, king_to):
    """(home, castled): the squares the rook of a king castling to king_to (g1, c1, g8 or
    c8) moves from and to; `meta` is the position's meta array. After the move, the
    state row's ST_CASTLING_ROOK holds the home square too."""
    colour = 0 if king_to < 8 else 1
    side = CASTLE_H_SIDE if king_to & 7 == 6 else CASTLE_A_SIDE
    return meta[META_ROOK + 2 * colour + side], castled_square(king_to)


@jit
def gives_check(P, T, move):
    """Whether the legal `move` checks the enemy king, without making it. The enemy is
    not in check before our move, so only the moved piece can check directly (a castling
    rook counts), and any other check comes from one of our sliders that the move's new
    occupancy uncovers (en passant's vanished pawn included)."""
    bb = P.bb
    us = side_to_move(P)
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    king = king_square(P, us ^ 1)
    piece_type = piece_type_of(np.int64(P.board[frm]))
    if flag >= FLAG_PROMO_KNIGHT:
        piece_type = promotion_type(flag)
    from_bit = U1 << np.uint64(frm)
    to_bit = U1 << np.uint64(to)
    occ = ((bb[OCC] | bb[OCC + 1]) & ~from_bit) | to_bit
    diagonal = (bb[piece_of(us, BISHOP)] | bb[piece_of(us, QUEEN)]) & ~from_bit
    straight = (bb[piece_of(us, ROOK)] | bb[piece_of(us, QUEEN)]) & ~from_bit
    if flag == FLAG_EN_PASSANT:
        occ &= ~(U1 << np.uint64(to - 8 if us == WHITE else to + 8))
    elif flag == FLAG_CASTLE:
        # Both lifted before both land: in Chess960 the king may land on the rook's home.
        home, castled = castling_rook_squares(P.meta, to)
        home_bit = U1 << np.uint64(home)
        castled_bit = U1 << np.uint64(castled)
        occ = ((bb[OCC] | bb[OCC + 1]) & ~from_bit & ~home_bit) | to_bit | castled_bit
        straight = (straight & ~home_bit) | castled_bit
    if piece_type == PAWN:
        if pawn_attacks(T, us, to) & (U1 << np.uint64(king)):
            return True
    elif piece_type == KNIGHT:
        if knight_attacks(T, to) & (U1 << np.uint64(king)):
            return True
    elif piece_type == BISHOP:
        diagonal |= to_bit
    elif piece_type == ROOK:
        straight |= to_bit
    elif piece_type == QUEEN:
        diagonal |= to_bit
        straight |= to_bit
    return ((bishop_attacks(T, king, occ) & diagonal) | (rook_attacks(T, king, occ) & straight)) != U0


@jit
def check_info(P, T):
    """What `gives_check_with` needs to know of the enemy king, computed once for the many
    moves of a node: (its square, the squares from which our pawn / knight / bishop / rook
    would attack it, our pieces that are the only blocker between one of our sliders and
    it). A queen checks from the bishop's or the rook's squares."""
    bb = P.bb
    us = side_to_move(P)
    king = king_square(P, us ^ 1)
    occ = bb[OCC] | bb[OCC + 1]
    diagonal = bb[piece_of(us, BISHOP)] | bb[piece_of(us, QUEEN)]
    straight = bb[piece_of(us, ROOK)] | bb[piece_of(us, QUEEN)]
    snipers = ((bishop_attacks(T, king, U0) & diagonal)
               | (rook_attacks(T, king, U0) & straight))
    discoverers = U0
    while snipers:
        sniper = lsb(snipers)
        snipers &= snipers - U1
        blockers = between(T, sniper, king) & occ
        if blockers != U0 and blockers & (blockers - U1) == U0 and blockers & bb[OCC + us]:
            discoverers |= blockers
    return (king, pawn_attacks(T, us ^ 1, king), knight_attacks(T, king),
            bishop_attacks(T, king, occ), rook_attacks(T, king, occ), discoverers)


@jit_inline
def gives_check_with(P, T, move, info):
    """gives_check(P, T, move) from `info` = check_info(P, T) of this position, cheaper for
    ordinary moves and captures. Direct checks need no new occupancy: a piece whose own
    departure would open its line to the king was already checking it. Castling, en
    passant and promotions take the full test."""
    flag = move_flag(move)
    if flag == FLAG_CASTLE or flag == FLAG_EN_PASSANT or flag >= FLAG_PROMO_KNIGHT:
        return gives_check(P, T, move)
    king, pawn_squares, knight_squares, bishop_squares, rook_squares, discoverers = info
    frm = move_from(move)
    to_bit = U1 << np.uint64(move_to(move))
    piece_type = piece_type_of(np.int64(P.board[frm]))
    if piece_type == PAWN:
        direct = pawn_squares
    elif piece_type == KNIGHT:
        direct = knight_squares
    elif piece_type == BISHOP:
        direct = bishop_squares
    elif piece_type == ROOK:
        direct = rook_squares
    elif piece_type == QUEEN:
        direct = bishop_squares | rook_squares
    else:
        direct = U0
    if direct & to_bit:
        return True
    # Uncovered: the mover leaves the line between one of our sliders and the king.
    return discoverers & (U1 << np.uint64(frm)) != U0 and line(T, frm, king) & to_bit == U0


@jit
def _toggle(P, piece, sq):
    """Add or remove a piece's bit on sq in its bitboard and its colour's occupancy."""
    bit = U1 << np.uint64(sq)
    P.bb[piece] ^= bit
    P.bb[OCC + piece_colour_of(piece)] ^= bit


@jit
def _ep_target(T, bb, us, frm, to):
    """After our double push frm->to: the square passed over if an enemy pawn could take
    there (Polyglot's condition for hashing the en-passant file), else NO_SQUARE."""
    passed = (frm + to) >> 1
    if pawn_attacks(T, us, passed) & bb[piece_of(us ^ 1, PAWN)]:
        return passed
    return NO_SQUARE


@jit
def _move_castling_rook(P, us, home, castled, back):
    """Move the rook of a castling king between home and castled (back: return it home).
    The king moves as any other piece, and its square is written after this: in Chess960
    the king may land on its rook's home, the rook on the king's, or the king not move."""
    rook = piece_of(us, ROOK)
    squares = (U1 << np.uint64(home)) ^ (U1 << np.uint64(castled))
    P.bb[rook] ^= squares
    P.bb[OCC + us] ^= squares
    P.board[castled if back else home] = EMPTY
    P.board[home if back else castled] = rook


@jit_inline
def key_after(P, T, move):
    """The key `move` leads to, for prefetching the child's table bucket before the move is
    made: exact for a quiet move or capture that changes no castling right and leaves no
    en-passant square; otherwise a wrong key, which only wastes the prefetch."""
    ply = P.meta[META_PLY]
    key = P.keys[ply] ^ side_key(T)
    ep = P.st[ply, ST_EP]
    if ep != NO_SQUARE:
        key ^= ep_key(T, ep)
    frm = move_from(move)
    to = move_to(move)
    piece = np.int64(P.board[frm])
    captured = np.int64(P.board[to])
    if captured != EMPTY:
        key ^= piece_key(T, captured, to)
    return key ^ piece_key(T, piece, frm) ^ piece_key(T, piece, to)


@jit_inline
def make_move(P, T, move):
    """Play a legal move: push a state row, update pieces, key and evaluation sums."""
    bb = P.bb
    board = P.board
    ply = P.meta[META_PLY]
    cur = P.st[ply]
    nxt = P.st[ply + 1]
    us = cur[ST_SIDE]
    them = us ^ 1
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    piece = np.int64(board[frm])

    key = P.keys[ply] ^ side_key(T)
    mg = cur[ST_MG]
    eg = cur[ST_EG]
    phase = cur[ST_PHASE]
    halfmove = cur[ST_HALFMOVE] + 1
    if cur[ST_EP] != NO_SQUARE:
        key ^= ep_key(T, cur[ST_EP])
    new_ep = NO_SQUARE

    # 1. Capture (the en-passant victim stands behind the target square).
    cap_sq = to
    if flag == FLAG_EN_PASSANT:
        cap_sq = to - 8 if us == WHITE else to + 8
    captured = np.int64(board[cap_sq])
    if captured != EMPTY:
        if flag == FLAG_CASTLE:
            captured = np.int64(EMPTY)   # Chess960: the king's own rook, or itself, stands there
        else:
            _toggle(P, captured, cap_sq)
            board[cap_sq] = EMPTY
            key ^= piece_key(T, captured, cap_sq)
            mg -= pst_mg(T, captured, cap_sq)
            eg -= pst_eg(T, captured, cap_sq)
            phase -= phase_weight(T, captured)
            halfmove = 0

    # 2. Move the piece (from_to by XOR: a Chess960 king may castle without moving).
    from_to = (U1 << np.uint64(frm)) ^ (U1 << np.uint64(to))
    bb[piece] ^= from_to
    bb[OCC + us] ^= from_to
    board[frm] = EMPTY
    board[to] = piece
    key ^= piece_key(T, piece, frm) ^ piece_key(T, piece, to)
    mg += pst_mg(T, piece, to) - pst_mg(T, piece, frm)
    eg += pst_eg(T, piece, to) - pst_eg(T, piece, frm)

    # 3. Special moves.
    if piece == piece_of(us, PAWN):
        halfmove = 0
        if flag == FLAG_DOUBLE:
            new_ep = _ep_target(T, bb, us, frm, to)
            if new_ep != NO_SQUARE:
                key ^= ep_key(T, new_ep)
        elif flag >= FLAG_PROMO_KNIGHT:
            promoted = piece_of(us, promotion_type(flag))
            _toggle(P, piece, to)
            _toggle(P, promoted, to)
            board[to] = promoted
            key ^= piece_key(T, piece, to) ^ piece_key(T, promoted, to)
            mg += pst_mg(T, promoted, to) - pst_mg(T, piece, to)
            eg += pst_eg(T, promoted, to) - pst_eg(T, piece, to)
            phase += phase_weight(T, promoted)
    elif flag == FLAG_CASTLE:
        rook = piece_of(us, ROOK)
        rook_from, rook_to = castling_rook_squares(P.meta, to)
        _move_castling_rook(P, us, rook_from, rook_to, False)
        board[to] = piece    # again: the rook's home may be the king's destination
        nxt[ST_CASTLING_ROOK] = rook_from
        key ^= piece_key(T, rook, rook_from) ^ piece_key(T, rook, rook_to)
        mg += pst_mg(T, rook, rook_to) - pst_mg(T, rook, rook_from)
        eg += pst_eg(T, rook, rook_to) - pst_eg(T, rook, rook_from)

    # 4. Castling rights lost by moving from or capturing on a king or rook square.
    castle = cur[ST_CASTLE] & castle_keep(P, frm) & castle_keep(P, to)
    if castle != cur[ST_CASTLE]:
        key ^= castle_key(T, cur[ST_CASTLE]) ^ castle_key(T, castle)

    nxt[ST_SIDE] = them
    nxt[ST_CASTLE] = castle
    nxt[ST_EP] = new_ep
    nxt[ST_HALFMOVE] = halfmove
    nxt[ST_MOVE] = move
    nxt[ST_CAPTURED] = captured
    nxt[ST_MG] = mg
    nxt[ST_EG] = eg
    nxt[ST_PHASE] = phase
    nxt[ST_FULLMOVE] = cur[ST_FULLMOVE] + us
    nxt[ST_NULL_DIST] = cur[ST_NULL_DIST] + 1
    nxt[ST_MOVED] = piece
    P.keys[ply + 1] = key
    P.meta[META_PLY] = ply + 1


@jit
def unmake_move(P):
    """Take back the last move made with make_move."""
    take_back(P)


@jit_inline
def take_back(P):
    """unmake_move, compiled into the caller (engine.search's kernels that take handles)."""
    bb = P.bb
    board = P.board
    ply = P.meta[META_PLY]
    row = P.st[ply]
    move = row[ST_MOVE]
    captured = row[ST_CAPTURED]
    us = row[ST_SIDE] ^ 1
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    moved = np.int64(board[to])
    to_bit = U1 << np.uint64(to)
    from_bit = U1 << np.uint64(frm)

    board[to] = EMPTY
    if flag >= FLAG_PROMO_KNIGHT:
        pawn = piece_of(us, PAWN)
        bb[moved] ^= to_bit
        bb[pawn] ^= from_bit
        moved = pawn
    else:
        bb[moved] ^= to_bit ^ from_bit
    bb[OCC + us] ^= to_bit ^ from_bit

    if captured != EMPTY:
        cap_sq = to
        if flag == FLAG_EN_PASSANT:
            cap_sq = to - 8 if us == WHITE else to + 8
        _toggle(P, captured, cap_sq)
        board[cap_sq] = captured
    elif flag == FLAG_CASTLE:
        _move_castling_rook(P, us, row[ST_CASTLING_ROOK], castled_square(to), True)
    # The mover last: a Chess960 king may stay put, or return where its rook stood.
    board[frm] = moved
    P.meta[META_PLY] = ply - 1


@jit
def make_null(P, T):
    """Pass the move (for null-move pruning): flip the side, clear en passant."""
    ply = P.meta[META_PLY]
    cur = P.st[ply]
    nxt = P.st[ply + 1]
    key = P.keys[ply] ^ side_key(T)
    if cur[ST_EP] != NO_SQUARE:
        key ^= ep_key(T, cur[ST_EP])
    for field in range(ST_LEN):
        nxt[field] = cur[field]
    nxt[ST_SIDE] = cur[ST_SIDE] ^ 1
    nxt[ST_EP] = NO_SQUARE
    nxt[ST_HALFMOVE] = cur[ST_HALFMOVE] + 1
    nxt[ST_MOVE] = NO_MOVE
    nxt[ST_CAPTURED] = EMPTY
    nxt[ST_FULLMOVE] = cur[ST_FULLMOVE] + cur[ST_SIDE]
    nxt[ST_NULL_DIST] = 0
    P.keys[ply + 1] = key
    P.meta[META_PLY] = ply + 1


@jit
def unmake_null(P):
    P.meta[META_PLY] -= 1


@jit
def repetition_counts(P, root_row):
    """Earlier occurrences of the current position, as (at rows after `root_row`, at or
    before it). Only rows with the same side to move and no irreversible move or null move
    in between can repeat."""
    ply = P.meta[META_PLY]
    row = P.st[ply]
    stop = ply - min(row[ST_HALFMOVE], row[ST_NULL_DIST])
    key = P.keys[ply]
    after = 0
    before = 0
    i = ply - 4
    while i >= stop:
        if P.keys[i] == key:
            if i > root_row:
                after += 1
            else:
                before += 1
        i -= 2
    return after, before


@jit
def repetitions(P):
    """How often the current position occurred before in the game."""
    after, before = repetition_counts(P, P.meta[META_PLY])
    return after + before


@jit
def repeats_as_draw(P, root_row):
    """Whether the current position counts as a repetition draw in a search from row
    `root_row`: once before inside the search (after the root: the side that allowed it can
    repeat again), or twice before in the game up to the root (a threefold repetition)."""
    after, before = repetition_counts(P, root_row)
    return after >= 1 or before >= 2


@jit
def _set_castling_rooks(P, castle, rook_homes):
    """Fill meta's castling entries from the home squares of the castling rooks (int64[4],
    indexed by right as META_ROOK is; NO_SQUARE where `castle` lacks the right)."""
    for sq in range(64):
        P.meta[META_KEEP + sq] = ALL_RIGHTS
    for right in range(4):
        home = rook_homes[right] if castle & (1 << right) else NO_SQUARE
        P.meta[META_ROOK + right] = home
        if home != NO_SQUARE:
            P.meta[META_KEEP + home] &= ~(1 << right)
            king = lsb(P.bb[piece_of(right >> 1, KING)])
            P.meta[META_KEEP + king] &= ~(1 << right)


@jit
def init_from_bitboards(P, T, side, castle, ep, halfmove, fullmove, rook_homes):
    """Complete a position whose 12 piece bitboards are set: occupancy, mailbox, state row 0,
    key and evaluation sums, castling rooks (see _set_castling_rooks). `ep` is dropped
    unless a pawn of the side to move can take."""
    bb = P.bb
    _set_castling_rooks(P, castle, rook_homes)
    bb[OCC] = U0
    bb[OCC + 1] = U0
    for sq in range(64):
        P.board[sq] = EMPTY
    mg = 0
    eg = 0
    phase = 0
    for piece in range(12):
        pieces = bb[piece]
        bb[OCC + (1 if piece >= 6 else 0)] |= pieces
        while pieces:
            sq = lsb(pieces)
            pieces &= pieces - U1
            P.board[sq] = piece
            mg += pst_mg(T, piece, sq)
            eg += pst_eg(T, piece, sq)
            phase += phase_weight(T, piece)
    if ep != NO_SQUARE and not (pawn_attacks(T, side ^ 1, ep) & bb[piece_of(side, PAWN)]):
        ep = NO_SQUARE
    row = P.st[0]
    for field in range(ST_LEN):
        row[field] = 0
    row[ST_SIDE] = side
    row[ST_CASTLE] = castle
    row[ST_EP] = ep
    row[ST_HALFMOVE] = halfmove
    row[ST_MOVE] = NO_MOVE
    row[ST_CAPTURED] = EMPTY
    row[ST_MG] = mg
    row[ST_EG] = eg
    row[ST_PHASE] = phase
    row[ST_FULLMOVE] = fullmove
    row[ST_NULL_DIST] = halfmove
    P.meta[META_PLY] = 0
    P.keys[0] = full_key(T, P.board, row)
