"""[jit] Move ordering: refutation (PV) move, TT move, captures by MVV-LVA, promotions,
killers, history (PLAY: bounded, with a malus for the quiet moves searched before the
best one, and shifted by threats: a piece moved onto a square a cheaper enemy piece attacks
comes later, one moved away from such a square to a safe one sooner, plus two continuation
histories; PAPER: the thesis' counter of depth per cut-off).

Moves get an int64 ordering score in a buffer parallel to the move buffer; `pick_next`
does one step of a selection sort, so a node that cuts off after the first move never
pays for sorting the rest.
"""
import numpy as np

from engine._jit import jit, jit_inline
from engine.attacks import bishop_attacks, knight_attacks, rook_attacks
from engine.bitboard import lsb
from engine.codec import (
    move_flag, move_from, move_is_en_passant, move_to, piece_of, piece_type_of, promotion_type,
)
from engine.eval import pawn_attack_set
from engine.position import attackers_to
from engine.types import (
    BISHOP, BLACK, EMPTY, FLAG_CASTLE, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, KING, KNIGHT, OCC, PAWN,
    QUEEN, ROOK, STACK_KILLER_1, STACK_KILLER_2, STACK_MOVED, U0, U1, WHITE,
)

# Ordering bands: each band beats every score of the bands below it.
ORDER_PV = 1 << 40
ORDER_TT = 1 << 39
ORDER_CAPTURE = 1 << 38
ORDER_PROMOTION = 1 << 37
ORDER_KILLER = 1 << 36   # + 1 for the first killer
# History scores stay below ORDER_KILLER (they are halved when they grow too big).
HISTORY_MAX = 1 << 30
# PLAY: a quiet knight, bishop, rook or queen move is ordered this much lower when its target
# square is attacked by a cheaper enemy piece (a pawn for a minor piece; a pawn or minor piece
# for a rook; a pawn, minor piece or rook for the queen), and this much higher when it takes
# the piece away from such a square to a safe one (the history's scale: at most
# HISTORY_LIMIT either way).
THREAT_ORDER = 8000


@jit
def capture_score(P, move):
    """MVV-LVA: the most valuable victim first, then the least valuable attacker."""
    victim = P.board[move_to(move)]
    victim_type = PAWN if move_is_en_passant(move) else piece_type_of(victim)
    attacker_type = piece_type_of(P.board[move_from(move)])
    return victim_type * 8 + (7 - attacker_type)


@jit
def is_capture(P, move):
    # A Chess960 king may castle onto its own rook's square: that takes nothing.
    if P.board[move_to(move)] != EMPTY:
        return move_flag(move) != FLAG_CASTLE
    return move_is_en_passant(move)


@jit
def _attacked_by(T, pieces, piece_type, occ):
    """Every square the pieces in `pieces` (all of type piece_type) attack."""
    attacked = U0
    while pieces:
        sq = lsb(pieces)
        pieces &= pieces - U1
        if piece_type == KNIGHT:
            attacked |= knight_attacks(T, sq)
        elif piece_type == BISHOP:
            attacked |= bishop_attacks(T, sq, occ)
        else:
            attacked |= rook_attacks(T, sq, occ)
    return attacked


@jit
def threat_sets(P, T, them):
    """The squares where a minor piece, a rook and the queen of the side not `them` would
    stand attacked by a cheaper piece of `them`: (by pawns, by pawns or minor pieces, by
    pawns, minor pieces or rooks)."""
    bb = P.bb
    occ = bb[OCC] | bb[OCC + 1]
    by_pawn = pawn_attack_set(bb[piece_of(them, PAWN)], them)
    by_minor = (by_pawn | _attacked_by(T, bb[piece_of(them, KNIGHT)], KNIGHT, occ)
                | _attacked_by(T, bb[piece_of(them, BISHOP)], BISHOP, occ))
    by_rook = by_minor | _attacked_by(T, bb[piece_of(them, ROOK)], ROOK, occ)
    return by_pawn, by_minor, by_rook


@jit_inline
def noisy_order(P, move):
    """The ordering score of a capture (MVV-LVA, then the promotion piece) or of a
    promotion that takes nothing."""
    flag = move_flag(move)
    if is_capture(P, move):
        promotion = promotion_type(flag) if flag >= FLAG_PROMO_KNIGHT else 0
        return ORDER_CAPTURE + capture_score(P, move) * 8 + promotion
    return ORDER_PROMOTION + flag


@jit_inline
def score_noisy(P, moves, scores, start, end, pv_move, tt_move):
    """score_moves for a list of captures and promotions only (what generate_noisy
    gives): the same scores, inlined where a call of score_moves, with the search state's
    every array, would cost more than the scoring."""
    for i in range(start, end):
        move = moves[i]
        if move == pv_move:
            scores[i] = ORDER_PV
        elif move == tt_move:
            scores[i] = ORDER_TT
        else:
            scores[i] = noisy_order(P, move)


@jit
def score_moves(P, T, S, moves, scores, start, end, pv_move, tt_move, ply, side, play_ordering):
    """Ordering scores. With `play_ordering` (the PLAY profile's full-width nodes) the
    killers count, and a plain quiet move's score is its history, shifted by threats, plus
    its continuation histories after the moves one and two plies back; without it (the
    paper profile, quiescence, the driver's root order) quiet moves are ordered by history
    alone."""
    follow1 = S.stack[ply - 1, STACK_MOVED] if play_ordering and ply >= 1 else -1
    follow2 = S.stack[ply - 2, STACK_MOVED] if play_ordering and ply >= 2 else -1
    # PLAY: the threat sets of threat_sets, found when the first quiet piece move needs them
    threats_known = False
    by_pawn = U0
    by_minor = U0
    by_rook = U0
    for i in range(start, end):
        move = moves[i]
        flag = move_flag(move)
        if move == pv_move:
            scores[i] = ORDER_PV
        elif move == tt_move:
            scores[i] = ORDER_TT
        elif is_capture(P, move) or flag >= FLAG_PROMO_KNIGHT:
            scores[i] = noisy_order(P, move)
        elif play_ordering and move == S.stack[ply, STACK_KILLER_1]:
            scores[i] = ORDER_KILLER + 1
        elif play_ordering and move == S.stack[ply, STACK_KILLER_2]:
            scores[i] = ORDER_KILLER
        else:
            score = S.history[side, move_from(move), move_to(move)]
            mover = piece_type_of(P.board[move_from(move)]) if play_ordering else PAWN
            if mover != PAWN and mover != KING:   # PLAY only: the paper orders by history
                if not threats_known:
                    by_pawn, by_minor, by_rook = threat_sets(P, T, side ^ 1)
                    threats_known = True
                danger = by_pawn if mover <= BISHOP else (by_minor if mover == ROOK else by_rook)
                if danger & (U1 << np.uint64(move_to(move))):
                    score -= THREAT_ORDER
                elif danger & (U1 << np.uint64(move_from(move))):
                    score += THREAT_ORDER
            if follow1 >= 0:
                piece_to = continuation_index(P, move)
                score += S.cont_history[follow1, piece_to]
                if follow2 >= 0:
                    score += S.cont_history[follow2, piece_to]
            scores[i] = score


@jit_inline
def pick_next(moves, scores, i, end):
    """Swap the best-scored move of moves[i:end] into place i and return it."""
    # The first move of the highest score, found in two passes: the maximum (a reduction
    # the compiler vectorises), then its first place (usually near the front). The scan
    # reads a view indexed from 0: numba then knows no index is negative and drops the
    # wrap-around of negative indices, which made the maximum a gather (4x slower).
    view = scores[i:end]
    top = view[0]
    for j in range(1, end - i):
        top = max(top, view[j])
    best = 0
    while view[best] != top:
        best += 1
    best += i
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@jit
def reward_quiet(P, S, ply, side, move, depth, play):
    """A quiet move caused a cut-off (or was best): history learns it, and with `play`
    (the PLAY profile) the killers too, its histories then being the bounded ones."""
    if play:
        if S.stack[ply, STACK_KILLER_1] != move:
            S.stack[ply, STACK_KILLER_2] = S.stack[ply, STACK_KILLER_1]
            S.stack[ply, STACK_KILLER_1] = move
        update_quiet_histories(P, S, ply, side, move, history_bonus(depth))
        return
    frm = move_from(move)
    to = move_to(move)
    S.history[side, frm, to] += depth
    if S.history[side, frm, to] > HISTORY_MAX:
        for c in range(2):
            for a in range(64):
                for b in range(64):
                    S.history[c, a, b] //= 2


# PLAY's history is bounded: an update of `bonus` (negative for a malus) moves a value
# towards +-HISTORY_LIMIT by the bonus times the distance left, so it measures how often
# a quiet move cut off against how often it was tried and failed, recent results weighing
# most. The paper profile keeps the thesis' unbounded counter (depth per cut-off).
HISTORY_LIMIT = 16384
HISTORY_BONUS_MAX = 1536


@jit
def history_bonus(depth):
    return min(32 * depth * depth, HISTORY_BONUS_MAX)


@jit
def gravity(value, bonus):
    return value + bonus - value * abs(bonus) // HISTORY_LIMIT


@jit
def update_history(S, side, move, bonus):
    frm = move_from(move)
    to = move_to(move)
    S.history[side, frm, to] = gravity(S.history[side, frm, to], bonus)


# Continuation history (PLAY): how a quiet move (moved piece, target square) fared right
# after an earlier move of the line (its piece and target square), one and two plies back;
# both look-backs share one table. Row CONTINUATION_NONE follows a null move. The values
# are bounded like the history's, so an int16 table of 769 x 768 (1.2 MB) holds them.
CONTINUATION_NONE = 12 * 64


@jit
def continuation_index(P, move):
    """piece * 64 + target square of `move`, in the position before it is made."""
    return P.board[move_from(move)] * 64 + move_to(move)


@jit
def update_quiet_histories(P, S, ply, side, move, bonus):
    """A bounded update of a quiet move's history and of its continuation histories after
    the moves one and two plies back (PLAY)."""
    update_history(S, side, move, bonus)
    if ply >= 1:
        piece_to = continuation_index(P, move)
        for back in range(1, min(ply, 2) + 1):
            row = S.stack[ply - back, STACK_MOVED]
            S.cont_history[row, piece_to] = gravity(np.int64(S.cont_history[row, piece_to]), bonus)


@jit
def _see_value(piece_type):
    """Piece values for exchange evaluation, in centipawns."""
    if piece_type == 0:
        return 100
    if piece_type == 1:
        return 320
    if piece_type == 2:
        return 330
    if piece_type == 3:
        return 500
    if piece_type == 4:
        return 900
    return 20000


@jit
def capture_gain(P, move):
    """The value of what `move` captures (0 for none), in the exchange values."""
    if move_is_en_passant(move):
        return _see_value(PAWN)
    victim = P.board[move_to(move)]
    return _see_value(piece_type_of(victim)) if victim != EMPTY else 0


@jit_inline
def see_at_least(P, T, move, threshold):
    """Static exchange evaluation: does the capture sequence on the target square, both
    sides always recapturing with their least valuable piece (x-rays included), win at
    least `threshold` for the side making `move`? Pins are ignored."""
    bb = P.bb
    frm = move_from(move)
    to = move_to(move)
    flag = move_flag(move)
    if flag == FLAG_CASTLE:
        return threshold <= 0
    swap = capture_gain(P, move) - threshold
    if swap < 0:
        return False
    attacker_type = piece_type_of(P.board[frm])
    swap = _see_value(attacker_type) - swap
    if swap <= 0:
        return True
    occ = (bb[OCC] | bb[OCC + 1]) ^ (U1 << np.uint64(frm)) ^ (U1 << np.uint64(to))
    if flag == FLAG_EN_PASSANT:
        occ ^= U1 << np.uint64(to - 8 if P.board[frm] < 6 else to + 8)
    side = 1 if P.board[frm] >= 6 else 0
    attackers = attackers_to(T, bb, to, occ)
    queens = bb[piece_of(WHITE, QUEEN)] | bb[piece_of(BLACK, QUEEN)]
    bishops = bb[piece_of(WHITE, BISHOP)] | bb[piece_of(BLACK, BISHOP)] | queens
    rooks = bb[piece_of(WHITE, ROOK)] | bb[piece_of(BLACK, ROOK)] | queens
    result = 1
    while True:
        side ^= 1
        attackers &= occ
        mine = attackers & bb[OCC + side]
        if not mine:
            break
        result ^= 1
        # The least valuable attacker of `side`.
        chosen = -1
        for piece_type in range(6):
            candidates = mine & bb[piece_of(side, piece_type)]
            if candidates:
                chosen = piece_type
                break
        if chosen == 5:
            # The king may only take last: if the other side still attacks, it cannot.
            if attackers & bb[OCC + (side ^ 1)]:
                return result == 0
            return result == 1
        swap = _see_value(chosen) - swap
        if swap < result:
            break
        occ ^= candidates & (~candidates + U1)
        if chosen == PAWN or chosen == BISHOP or chosen == QUEEN:
            attackers |= bishop_attacks(T, to, occ) & bishops
        if chosen == ROOK or chosen == QUEEN:
            attackers |= rook_attacks(T, to, occ) & rooks
    return result == 1
