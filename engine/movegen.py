"""[jit] Strictly legal move generation and perft.

Legality is decided while generating, without making moves:
  - king moves: the destination must not be attacked with the king lifted off the board
    (so it cannot hide behind itself along a slider's ray);
  - double check: only king moves;
  - single check: other pieces may only capture the checker or block (`check_mask`);
  - pins: a pinned piece stays on the line through its king and the pinner (`line`);
  - en passant: played out on the occupancy (two pawns vanish from one rank) and tested
    for any attack on the king, which covers the discovered-check cases;
  - castling (standard and Chess960): rights, the squares the king and its rook cross and
    land on empty but for those two, and the king's path unattacked once the rook has left.

Moves are written into a caller-supplied int32 buffer from index `start`; the functions
return the index after the last move written, so one buffer serves a whole search path.
"""
import numpy as np

from engine._jit import jit, jit_inline, jit_recursive
from engine.attacks import (
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
)
from engine.bitboard import lsb, popcount
from engine.codec import move_from, move_pack, piece_of
from engine.position import (
    KING_DESTINATION_FILE, META_PLY, META_ROOK, ROOK_DESTINATION_FILE, attackers_to, is_attacked,
    make_move, unmake_move,
)
from engine.types import (
    ALL_SQUARES, BISHOP, FILE_A, FILE_H,
    FLAG_CASTLE, FLAG_DOUBLE, FLAG_EN_PASSANT, FLAG_NORMAL, FLAG_PROMO_KNIGHT, FLAG_PROMO_QUEEN,
    GEN_ALL, GEN_NOISY, GEN_QUIET, KING, KNIGHT, NO_SQUARE, OCC, PAWN, QUEEN, RANK_1, RANK_3, RANK_6, RANK_8,
    ROOK, ST_CASTLE, ST_EP, ST_SIDE, U0, U1, WHITE,
)


@jit
def _shift(bb, delta):
    """Shift a bitboard by a signed number of squares (north is positive)."""
    if delta > 0:
        return bb << np.uint64(delta)
    return bb >> np.uint64(-delta)


@jit
def _emit(moves, n, frm, targets, count_only):
    """Write a move from `frm` to each square of `targets` (or only count them)."""
    if count_only:
        return n + popcount(targets)
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        moves[n] = move_pack(frm, to, FLAG_NORMAL)
        n += 1
    return n


@jit
def _emit_pawn_set(moves, n, targets, delta, flag, last_rank, count_only):
    """Write the pawn moves that land on `targets`, each coming from `to - delta` (or only
    count them). Landings on the last rank become four promotions."""
    promos = targets & last_rank
    targets &= ~last_rank
    if count_only:
        return n + popcount(targets) + 4 * popcount(promos)
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        moves[n] = move_pack(to - delta, to, flag)
        n += 1
    while promos:
        to = lsb(promos)
        promos &= promos - U1
        for promo_flag in range(FLAG_PROMO_QUEEN, FLAG_PROMO_KNIGHT - 1, -1):
            moves[n] = move_pack(to - delta, to, promo_flag)
            n += 1
    return n


@jit
def _pawn_moves(moves, n, pawns, us, empty, enemies, allowed, mode, count_only):
    """Pushes, double pushes, captures and promotions of the pawn set `pawns`, landing only
    on `allowed` squares (check mask, and the pin line for a pinned pawn): all of them
    (GEN_ALL), the captures and promotions (GEN_NOISY), or the rest (GEN_QUIET)."""
    if us == WHITE:
        up = 8
        last_rank = RANK_8
        double_rank = RANK_3
    else:
        up = -8
        last_rank = RANK_1
        double_rank = RANK_6
    single = _shift(pawns, up) & empty
    if mode == GEN_NOISY:
        n = _emit_pawn_set(moves, n, single & allowed & last_rank, up, 0, last_rank, count_only)
    else:
        double = _shift(single & double_rank, up) & empty & allowed
        pushes = single & allowed
        if mode == GEN_QUIET:
            pushes &= ~last_rank
        n = _emit_pawn_set(moves, n, pushes, up, 0, last_rank, count_only)
        n = _emit_pawn_set(moves, n, double, 2 * up, FLAG_DOUBLE, last_rank, count_only)
        if mode == GEN_QUIET:
            return n
    # Captures towards the a-file and towards the h-file.
    west = _shift(pawns & ~FILE_A, up - 1) & enemies & allowed
    east = _shift(pawns & ~FILE_H, up + 1) & enemies & allowed
    n = _emit_pawn_set(moves, n, west, up - 1, 0, last_rank, count_only)
    n = _emit_pawn_set(moves, n, east, up + 1, 0, last_rank, count_only)
    return n


@jit_inline
def generate_inline(P, T, moves, start, mode):
    """Every legal move, the captures and promotions, or the rest, by `mode` (GEN_ALL,
    GEN_NOISY, GEN_QUIET), into moves[start:]; the end index. Compiled into its caller:
    the kernels below, and engine.search's kernels that take handles."""
    return _legal_moves(P, T, moves, start, mode, np.bool_(False), ALL_SQUARES)


@jit
def generate_all(P, T, moves, start):
    """Write every legal move of the side to move into moves[start:]; return the end index."""
    return generate_inline(P, T, moves, start, np.int64(GEN_ALL))


@jit
def is_legal(P, T, move, moves, start):
    """Whether `move` (any 16-bit code, such as a table entry's) is legal here. The legal
    moves of the piece on its from-square are written into moves[start:] (generate_all's
    rules, so the answer is generate_all's membership) and searched for it."""
    frm = move_from(move)
    end = _legal_moves(P, T, moves, start, np.int64(GEN_ALL), np.bool_(False),
                       U1 << np.uint64(frm))
    for i in range(start, end):
        if moves[i] == move:
            return True
    return False


@jit
def generate_noisy(P, T, moves, start):
    """Write every legal capture and promotion of the side to move (quiescence's moves) into
    moves[start:]; return the end index."""
    # Two kernels rather than one taking the mode: the inlined generator sees its mode as a
    # constant, and the compiler drops the other mode's branches.
    return generate_inline(P, T, moves, start, np.int64(GEN_NOISY))


@jit
def generate_quiet(P, T, moves, start):
    """Write every legal move of the side to move that neither captures nor promotes
    (castling included) into moves[start:]; return the end index. With generate_noisy's
    moves, these are generate_all's."""
    return generate_inline(P, T, moves, start, np.int64(GEN_QUIET))


@jit
def count_moves(P, T, moves, start):
    """The number of legal moves of the side to move (perft's last ply): generate_all's
    steps with a popcount where each piece's moves would be written. En passant and
    castling are still written into `moves[start:]` (rare, and tested one by one)."""
    # Typed, not literal, arguments: a literal would compile the writers it reaches again.
    return _legal_moves(P, T, moves, start, np.int64(GEN_ALL), np.bool_(True), ALL_SQUARES) - start


@jit_inline
def _legal_moves(P, T, moves, start, mode, count_only, from_mask):
    """generate_all (mode GEN_ALL), generate_noisy (GEN_NOISY) or generate_quiet
    (GEN_QUIET), or with `count_only` the
    index generate_all would return without writing the moves of the king, knights, sliders
    and pawns. Only the moves of pieces on `from_mask` (ALL_SQUARES, or one square for
    is_legal)."""
    bb = P.bb
    row = P.st[P.meta[META_PLY]]
    us = row[ST_SIDE]
    them = us ^ 1
    own = bb[OCC + us]
    enemies = bb[OCC + them]
    occ = own | enemies
    noisy = mode == GEN_NOISY
    quiet = mode == GEN_QUIET
    # Where a piece may land: enemy pieces only, empty squares only, or both.
    open_squares = enemies if noisy else (~occ if quiet else ~own)
    ksq = lsb(bb[piece_of(us, KING)])
    king_bit = U1 << np.uint64(ksq)

    # King moves, tested with the king lifted off the board (so that it cannot hide behind
    # itself along a slider's ray).
    targets = king_attacks(T, ksq) & open_squares
    if not (king_bit & from_mask):
        targets = U0
    occ_without_king = occ ^ king_bit
    safe = U0
    while targets:
        to = lsb(targets)
        targets &= targets - U1
        if not is_attacked(T, bb, to, them, occ_without_king):
            safe |= U1 << np.uint64(to)
    n = _emit(moves, start, ksq, safe, count_only)

    checkers = attackers_to(T, bb, ksq, occ) & enemies
    if checkers & (checkers - U1):
        return n  # double check: the king must move
    check_mask = ALL_SQUARES
    if checkers:
        check_mask = checkers | between(T, ksq, lsb(checkers))

    # Pinned pieces: the mover's lone blocker between its king and an enemy slider on its line.
    pinned = U0
    snipers = ((rook_attacks(T, ksq, enemies) & (bb[piece_of(them, ROOK)] | bb[piece_of(them, QUEEN)]))
               | (bishop_attacks(T, ksq, enemies)
                  & (bb[piece_of(them, BISHOP)] | bb[piece_of(them, QUEEN)])))
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - U1
        blockers = between(T, ksq, s) & occ
        if blockers and not (blockers & (blockers - U1)) and (blockers & own):
            pinned |= blockers

    targets = open_squares & check_mask

    pieces = bb[piece_of(us, KNIGHT)] & ~pinned & from_mask  # a pinned knight never moves
    while pieces:
        sq = lsb(pieces)
        pieces &= pieces - U1
        n = _emit(moves, n, sq, knight_attacks(T, sq) & targets, count_only)

    pieces = (bb[piece_of(us, BISHOP)] | bb[piece_of(us, QUEEN)]) & from_mask
    while pieces:
        sq = lsb(pieces)
        pieces &= pieces - U1
        att = bishop_attacks(T, sq, occ) & targets
        if pinned & (U1 << np.uint64(sq)):
            att &= line(T, ksq, sq)
        n = _emit(moves, n, sq, att, count_only)

    pieces = (bb[piece_of(us, ROOK)] | bb[piece_of(us, QUEEN)]) & from_mask
    while pieces:
        sq = lsb(pieces)
        pieces &= pieces - U1
        att = rook_attacks(T, sq, occ) & targets
        if pinned & (U1 << np.uint64(sq)):
            att &= line(T, ksq, sq)
        n = _emit(moves, n, sq, att, count_only)

    pawns = bb[piece_of(us, PAWN)] & from_mask
    empty = ~occ
    n = _pawn_moves(moves, n, pawns & ~pinned, us, empty, enemies, check_mask, mode, count_only)
    pinned_pawns = pawns & pinned
    while pinned_pawns:
        sq = lsb(pinned_pawns)
        pinned_pawns &= pinned_pawns - U1
        n = _pawn_moves(moves, n, U1 << np.uint64(sq), us, empty, enemies,
                        check_mask & line(T, ksq, sq), mode, count_only)

    ep = row[ST_EP]
    if ep != NO_SQUARE and not quiet:
        victim = ep - 8 if us == WHITE else ep + 8
        victim_bit = U1 << np.uint64(victim)
        takers = pawn_attacks(T, them, ep) & pawns
        while takers:
            sq = lsb(takers)
            takers &= takers - U1
            after = (occ ^ (U1 << np.uint64(sq)) ^ victim_bit) | (U1 << np.uint64(ep))
            if not (attackers_to(T, bb, ksq, after) & enemies & ~victim_bit):
                moves[n] = move_pack(sq, ep, FLAG_EN_PASSANT)
                n += 1

    if not noisy and not checkers and (king_bit & from_mask):
        rights = row[ST_CASTLE] >> (2 * us)
        for side in range(2):   # the h-side (short) first, then the a-side (long)
            if rights & (1 << side):
                n = _castle(P, T, moves, n, us, ksq, side, occ)
    return n


@jit
def _castle(P, T, moves, n, us, ksq, side, occ):
    """Write the castling move of `side` (CASTLE_H_SIDE or CASTLE_A_SIDE) if it is legal; the
    right is held and the king not in check. One rule for standard chess and Chess960:
    every square the king and the rook cross or land on is empty but for the two of them,
    and no square the king crosses or lands on is attacked once the rook has left its home
    (a slider behind the rook would see the king there)."""
    back_rank = 56 * us
    king_to = back_rank + KING_DESTINATION_FILE[side]
    rook_to = back_rank + ROOK_DESTINATION_FILE[side]
    rook_from = P.meta[META_ROOK + 2 * us + side]
    king_bit = U1 << np.uint64(ksq)
    rook_bit = U1 << np.uint64(rook_from)
    king_path = between(T, ksq, king_to) | (U1 << np.uint64(king_to))
    rook_path = between(T, rook_from, rook_to) | (U1 << np.uint64(rook_to))
    if (king_path | rook_path) & occ & ~(king_bit | rook_bit):
        return n
    occ_without_rook = occ ^ rook_bit
    # The king's own square is in king_path only when it stays there, and is tested then:
    # the rook's leaving alone may expose it.
    crossed = king_path
    while crossed:
        sq = lsb(crossed)
        crossed &= crossed - U1
        if is_attacked(T, P.bb, sq, us ^ 1, occ_without_rook):
            return n
    moves[n] = move_pack(ksq, king_to, FLAG_CASTLE)
    return n + 1


@jit_recursive(np.int64)
def perft(P, T, depth, moves, start):
    """Leaf count to `depth` (>= 1), counting the last ply without writing its moves."""
    if depth <= 1:
        return count_moves(P, T, moves, start)
    end = generate_all(P, T, moves, start)
    total = np.int64(0)
    for i in range(start, end):
        make_move(P, T, moves[i])
        total += perft(P, T, depth - 1, moves, end)
        unmake_move(P)
    return total


@jit_recursive(np.int64)
def perft_no_bulk(P, T, depth, moves, start):
    """Leaf count to `depth` making and unmaking every move, the last ply included."""
    if depth == 0:
        return np.int64(1)
    end = generate_all(P, T, moves, start)
    total = np.int64(0)
    for i in range(start, end):
        make_move(P, T, moves[i])
        total += perft_no_bulk(P, T, depth - 1, moves, end)
        unmake_move(P)
    return total
