"""[jit] Move ordering: refutation (PV) move, TT move, captures by MVV-LVA, promotions,
killers, history.

Moves get an int64 ordering score in a buffer parallel to the move buffer; `pick_next`
does one step of a selection sort, so a node that cuts off after the first move never
pays for sorting the rest.
"""
from engine._jit import jit
from engine.types import EMPTY, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, PAWN

# Ordering bands: each band beats every score of the bands below it.
ORDER_PV = 1 << 40
ORDER_TT = 1 << 39
ORDER_CAPTURE = 1 << 38
ORDER_PROMOTION = 1 << 37
ORDER_KILLER = 1 << 36   # + 1 for the first killer
# History scores stay below ORDER_KILLER (they are halved when they grow too big).
HISTORY_MAX = 1 << 30


@jit
def capture_score(P, move):
    """MVV-LVA: the most valuable victim first, then the least valuable attacker."""
    to = (move >> 6) & 63
    victim = P.board[to]
    victim_type = PAWN if (move >> 12) == FLAG_EN_PASSANT else victim % 6
    attacker_type = P.board[move & 63] % 6
    return victim_type * 8 + (7 - attacker_type)


@jit
def is_capture(P, move):
    return P.board[(move >> 6) & 63] != EMPTY or (move >> 12) == FLAG_EN_PASSANT


@jit
def score_moves(P, S, moves, scores, start, end, pv_move, tt_move, ply, side, use_killers):
    for i in range(start, end):
        move = moves[i]
        flag = move >> 12
        if move == pv_move:
            scores[i] = ORDER_PV
        elif move == tt_move:
            scores[i] = ORDER_TT
        elif is_capture(P, move):
            scores[i] = ORDER_CAPTURE + capture_score(P, move) * 8 + (flag - 3 if flag >= FLAG_PROMO_KNIGHT else 0)
        elif flag >= FLAG_PROMO_KNIGHT:
            scores[i] = ORDER_PROMOTION + flag
        elif use_killers and move == S.killers[ply, 0]:
            scores[i] = ORDER_KILLER + 1
        elif use_killers and move == S.killers[ply, 1]:
            scores[i] = ORDER_KILLER
        else:
            scores[i] = S.history[side, move & 63, (move >> 6) & 63]


@jit
def pick_next(moves, scores, i, end):
    """Swap the best-scored move of moves[i:end] into place i and return it."""
    best = i
    for j in range(i + 1, end):
        if scores[j] > scores[best]:
            best = j
    if best != i:
        moves[i], moves[best] = moves[best], moves[i]
        scores[i], scores[best] = scores[best], scores[i]
    return moves[i]


@jit
def reward_quiet(S, ply, side, move, depth, use_killers, depth_squared):
    """A quiet move caused a cut-off (or was best): killers and history learn it."""
    if use_killers and S.killers[ply, 0] != move:
        S.killers[ply, 1] = S.killers[ply, 0]
        S.killers[ply, 0] = move
    frm = move & 63
    to = (move >> 6) & 63
    S.history[side, frm, to] += depth * depth if depth_squared else depth
    if S.history[side, frm, to] > HISTORY_MAX:
        for c in range(2):
            for a in range(64):
                for b in range(64):
                    S.history[c, a, b] //= 2
