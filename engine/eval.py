"""[jit] Evaluation: tapered material + piece-square tables (PeSTO's values, engine.pst).

make_move keeps the middle-game and end-game sums (white minus black) and the game phase
in the state row; `evaluate` blends them. `evaluate_from_scratch` recomputes the sums from
the mailbox: the tests use it to prove the incremental sums.
"""
from engine._jit import jit
from engine.types import (
    EMPTY, I_PHASE, I_PST_EG, I_PST_MG, ST_EG, ST_MG, ST_PHASE, ST_SIDE, WHITE,
)

TOTAL_PHASE = 24


@jit
def pst_mg(T, piece, sq):
    """Middle-game value of a piece on a square, material included, from white's view."""
    return T.i[I_PST_MG + piece * 64 + sq]


@jit
def pst_eg(T, piece, sq):
    return T.i[I_PST_EG + piece * 64 + sq]


@jit
def phase_weight(T, piece):
    """Contribution of a piece to the game phase (0 for pawns, kings and EMPTY)."""
    return T.i[I_PHASE + piece]


@jit
def taper(mg, eg, phase):
    """Blend middle-game and end-game scores by the phase (24 = all pieces, 0 = bare)."""
    phase = min(phase, TOTAL_PHASE)
    return (mg * phase + eg * (TOTAL_PHASE - phase)) // TOTAL_PHASE


@jit
def evaluate_white(P):
    """Static evaluation in centipawns from white's point of view."""
    row = P.meta[0]
    return taper(P.st[row, ST_MG], P.st[row, ST_EG], P.st[row, ST_PHASE])


@jit
def evaluate(P):
    """Static evaluation in centipawns from the side to move's point of view."""
    score = evaluate_white(P)
    return score if P.st[P.meta[0], ST_SIDE] == WHITE else -score


@jit
def scratch_sums(P, T):
    """(mg, eg, phase) recomputed from the mailbox."""
    mg = 0
    eg = 0
    phase = 0
    for sq in range(64):
        piece = P.board[sq]
        if piece != EMPTY:
            mg += pst_mg(T, piece, sq)
            eg += pst_eg(T, piece, sq)
            phase += phase_weight(T, piece)
    return mg, eg, phase
