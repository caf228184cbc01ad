"""[jit] The hand-written evaluations: tapered material + piece-square tables (PeSTO's
values, engine.pst), and the reference evaluation that adds a positional layer.

Three evaluations exist, and each name says which:
  material_pst_eval  material + PST. make_move keeps the middle-game and end-game sums
                     (white minus black) and the game phase in the state row; this blends
                     them. It is the PAPER profile's evaluation, as in the thesis'
                     experiments, and the PLAY quiescence's first, lazy guess.
  network_eval       the evaluation network that plays (engine.nnue).
  reference_eval     material + PST plus, for each side, terms computed from the
                     bitboards: mobility, attacks on the enemy king's zone, the pawn shelter
                     in front of the own king, isolated, doubled, backward and pawn-defended
                     pawns, pawns side by side (phalanx), passed pawns by rank, the bishop
                     pair, rooks on open or half-open files, knight outposts, and in the end
                     game the kings' race to the square in front of a passed pawn and each
                     king's mean distance to the pawns. The PLAY search calls it only at its
                     ply limit; it is the hand-written reference that `eval`, the Texel tools
                     and the network's training report beside the network.
`side_terms` returns the reference terms one by one so that the `eval` command and the tests
can see each; `scratch_sums` recomputes the material + PST sums from the mailbox, so that
the tests can prove the incremental ones.
"""
import numpy as np

from engine._jit import jit
from engine.attacks import bishop_attacks, king_attacks, knight_attacks, rook_attacks
from engine.bitboard import lsb, popcount
from engine.types import (
    BISHOP, EMPTY, FILE_A, FILE_H, I_PHASE, I_PST_EG, I_PST_MG, KING, KNIGHT, META_PLY, OCC, PAWN,
    QUEEN,
    RANK_3, RANK_4, RANK_5, RANK_6, ROOK, ST_EG, ST_MG, ST_PHASE, ST_SIDE, U0, U1, U_FILE,
    U_FRONT_SPAN,
    U_KING_BOX, U_PASSED_SPAN, WHITE,
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
def material_pst_white(P):
    """Static evaluation in centipawns from white's point of view."""
    row = P.meta[META_PLY]
    return taper(P.st[row, ST_MG], P.st[row, ST_EG], P.st[row, ST_PHASE])


@jit
def material_pst_eval(P):
    """Static evaluation in centipawns from the side to move's point of view."""
    score = material_pst_white(P)
    return score if P.st[P.meta[META_PLY], ST_SIDE] == WHITE else -score


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


# ---------------------------------------------------------------------------------------
# Positional terms of the PLAY profile (centipawns; middle game, end game).
# ---------------------------------------------------------------------------------------
# Mobility: per square attacked that is neither own-occupied nor attacked by an enemy pawn,
# counted from a typical number of such squares so that an average piece scores 0.
KNIGHT_MOBILITY = (4, 4, 4)     # (mg, eg, typical count)
BISHOP_MOBILITY = (5, 5, 6)
ROOK_MOBILITY = (2, 4, 6)
QUEEN_MOBILITY = (1, 2, 12)
# King attack: a piece hitting n squares of the enemy king's zone (king square and its
# neighbours) adds weight * n units; with two or more attackers and a queen the attack is
# worth units^2 / KING_ATTACK_DIVISOR, at most KING_ATTACK_MAX (middle game only).
KING_ATTACK_WEIGHT = (0, 2, 2, 3, 5, 0)   # by piece type
KING_ATTACK_DIVISOR = 4
KING_ATTACK_MAX = 500
SHELTER_MISSING = 14            # per file at or beside the king without an own pawn ahead
ISOLATED_PAWN = (-12, -14)
DOUBLED_PAWN = (-10, -22)       # per pawn with an own pawn ahead of it on its file
SUPPORTED_PAWN = (11, 1)        # per pawn defended by an own pawn
# Backward: own pawns stand on a file beside it, but none level with it or behind it, and an
# enemy pawn guards the square in front of it: no pawn can defend it, and it cannot safely
# step up to its neighbours.
BACKWARD_PAWN = (-13, -7)
# Phalanx: a pawn with an own pawn beside it on its rank (the pair guards the squares ahead
# of both and can advance as a front); by rank from the pawn owner's side, nothing on the
# starting rank.
PHALANX_PAWN_MG = (0, 0, 3, 6, 12, 22, 35, 0)
PHALANX_PAWN_EG = (0, 0, 2, 4, 8, 15, 25, 0)
PASSED_PAWN_MG = (0, 2, 5, 10, 20, 35, 55, 0)   # by rank from the pawn owner's side
PASSED_PAWN_EG = (0, 4, 6, 12, 22, 38, 55, 0)  # halved: the passer race below shares its role
BISHOP_PAIR = (30, 55)
ROOK_OPEN_FILE = (28, 10)
ROOK_HALF_OPEN_FILE = (12, 6)
# A knight outpost: a knight on its 4th-6th rank, defended by an own pawn, on a square no
# enemy pawn can ever attack (none on the files beside it, ahead of it).
KNIGHT_OUTPOST = (22, 21)
OUTPOST_RANKS = (RANK_4 | RANK_5 | RANK_6, RANK_3 | RANK_4 | RANK_5)   # by colour
# Passer race (end game only): for a passed pawn on its 4th rank or beyond, the square in
# front of it (where it must go next) scores the enemy king's distance to it times
# PASSER_KING_THEM minus the own king's times PASSER_KING_US (distances capped at 5), plus
# PASSER_FREE when nothing stands on its way to the last rank; all times the rank's weight.
PASSER_RACE_WEIGHT = (0, 0, 0, 1, 2, 4, 6, 0)   # by rank from the pawn owner's side
PASSER_KING_THEM = 5
PASSER_KING_US = 2
PASSER_FREE = 5
# King activity (end game only): minus this times the king's mean distance to every pawn
# on the board (the pawns are what an end game's kings fight over).
KING_PAWN_DISTANCE = 22
# side_terms returns one (mg, eg) pair per name, flattened: mg at 2k, eg at 2k + 1.
TERM_NAMES = ("mobility", "king attack", "king shelter", "pawn structure", "passed pawns",
              "bishop pair", "rook files", "passer race", "king activity", "knight outposts")
N_TERM_VALUES = 2 * len(TERM_NAMES)
# Compile-time switches, one per TERM_NAMES entry, all on. numba freezes a global tuple into
# the kernel as a constant, so a term switched off is compiled out, not skipped at run time.
# lab/profiling/bench_eval_terms.py compiles copies of the engine with one term off to measure
# what each term costs in nodes per second.
TERMS_ON = (True, True, True, True, True, True, True, True, True, True)


def fill_eval_masks(u):
    """Write the file, front-span, passed-span and king-box masks (layout in
    engine.types) into the flat uint64 table array."""
    one = np.uint64(1)
    for f in range(8):
        u[U_FILE + f] = np.uint64(0x0101010101010101) << np.uint64(f)
    for colour in (0, 1):
        for sq in range(64):
            f, r = sq % 8, sq // 8
            ahead = range(r + 1, 8) if colour == 0 else range(r - 1, -1, -1)
            front = passed = np.uint64(0)
            for rr in ahead:
                for ff in (f - 1, f, f + 1):
                    if 0 <= ff < 8:
                        bit = one << np.uint64(rr * 8 + ff)
                        passed |= bit
                        if ff == f:
                            front |= bit
            u[U_FRONT_SPAN + colour * 64 + sq] = front
            u[U_PASSED_SPAN + colour * 64 + sq] = passed
    for d in range(7):
        for sq in range(64):
            box = np.uint64(0)
            for other in range(64):
                if max(abs(other % 8 - sq % 8), abs(other // 8 - sq // 8)) <= d:
                    box |= one << np.uint64(other)
            u[U_KING_BOX + d * 64 + sq] = box


@jit
def pawn_attack_set(pawns, colour):
    """Every square attacked by the pawns (a bitboard) of `colour`."""
    if colour == WHITE:
        return ((pawns & ~FILE_A) << np.uint64(7)) | ((pawns & ~FILE_H) << np.uint64(9))
    return ((pawns & ~FILE_A) >> np.uint64(9)) | ((pawns & ~FILE_H) >> np.uint64(7))


@jit
def _fill_ahead(squares, colour):
    """The squares and every square ahead of them on their files, from colour's side."""
    if colour == WHITE:
        squares |= squares << np.uint64(8)
        squares |= squares << np.uint64(16)
        squares |= squares << np.uint64(32)
    else:
        squares |= squares >> np.uint64(8)
        squares |= squares >> np.uint64(16)
        squares |= squares >> np.uint64(32)
    return squares


@jit
def _step(squares, colour):
    """The squares one rank ahead, from colour's side."""
    return squares << np.uint64(8) if colour == WHITE else squares >> np.uint64(8)


@jit
def _beside(squares):
    """The squares next to them on the same rank, on the files either side."""
    return ((squares & ~FILE_A) >> np.uint64(1)) | ((squares & ~FILE_H) << np.uint64(1))


@jit
def _relative_rank(sq, colour):
    """The rank of sq (0-7) counted from colour's side of the board."""
    return sq >> 3 if colour == WHITE else 7 - (sq >> 3)


@jit
def _king_distance_uncapped(a, b):
    """Moves a king needs from square a to square b."""
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


@jit
def _king_distance(a, b):
    """Moves a king needs from square a to square b, at most 5 (farther is as good as lost)."""
    return min(_king_distance_uncapped(a, b), 5)


@jit
def side_terms(P, T, us):
    """The positional terms of side `us`, from us's point of view: the (mg, eg) pair of
    each of TERM_NAMES in turn, as one flat tuple of N_TERM_VALUES ints."""
    return _side_terms(P, T, us, True)


@jit
def _side_terms(P, T, us, end_game):
    """side_terms; with `end_game` False the terms that score only in the end game (passer
    race, king activity) are left at 0: the taper gives them no weight at the full phase."""
    bb = P.bb
    them = 1 - us
    base = us * 6
    occ = bb[OCC] | bb[OCC + 1]
    own_pawns = bb[base + PAWN]
    their_pawns = bb[6 - base + PAWN]
    their_pawn_attacks = pawn_attack_set(their_pawns, them)
    own_pawn_attacks = pawn_attack_set(own_pawns, us)
    area = ~bb[OCC + us] & ~their_pawn_attacks
    their_king = lsb(bb[6 - base + KING])
    zone = king_attacks(T, their_king) | (U1 << np.uint64(their_king))

    mob_mg = 0
    mob_eg = 0
    rook_mg = 0
    rook_eg = 0
    attackers = 0
    units = 0
    (mobility_on, king_attack_on, shelter_on, structure_on, passed_on, pair_on, rook_on, race_on,
     activity_on, outpost_on) = TERMS_ON
    race_on = race_on and end_game
    activity_on = activity_on and end_game
    attacks_on = mobility_on or king_attack_on
    for kind in range(KNIGHT, KING):
        if not (attacks_on or (rook_on and kind == ROOK)):
            continue
        pieces = bb[base + kind]
        while pieces:
            sq = lsb(pieces)
            pieces &= pieces - U1
            if kind == ROOK and rook_on:
                file_mask = T.u[U_FILE + (sq & 7)]
                if own_pawns & file_mask == U0:
                    if their_pawns & file_mask == U0:
                        rook_mg += ROOK_OPEN_FILE[0]
                        rook_eg += ROOK_OPEN_FILE[1]
                    else:
                        rook_mg += ROOK_HALF_OPEN_FILE[0]
                        rook_eg += ROOK_HALF_OPEN_FILE[1]
            if not attacks_on:
                continue
            if kind == KNIGHT:
                att = knight_attacks(T, sq)
                weights = KNIGHT_MOBILITY
            elif kind == BISHOP:
                att = bishop_attacks(T, sq, occ)
                weights = BISHOP_MOBILITY
            elif kind == ROOK:
                att = rook_attacks(T, sq, occ)
                weights = ROOK_MOBILITY
            else:
                att = rook_attacks(T, sq, occ) | bishop_attacks(T, sq, occ)
                weights = QUEEN_MOBILITY
            if mobility_on:
                count = popcount(att & area) - weights[2]
                mob_mg += weights[0] * count
                mob_eg += weights[1] * count
            if king_attack_on:
                hits = popcount(att & zone)
                if hits:
                    attackers += 1
                    units += KING_ATTACK_WEIGHT[kind] * hits
    king_attack = 0
    if king_attack_on and attackers >= 2 and bb[base + QUEEN] != U0:
        king_attack = min(units * units // KING_ATTACK_DIVISOR, KING_ATTACK_MAX)

    own_king = lsb(bb[base + KING])
    # Shelter: each of the king's file and its neighbours wants an own pawn ahead of the king.
    shelter = 0
    if shelter_on:
        ahead_of_king = T.u[U_PASSED_SPAN + us * 64 + own_king]
        king_file = own_king & 7
        missing = 0
        for f in range(max(king_file - 1, 0), min(king_file + 1, 7) + 1):
            if own_pawns & ahead_of_king & T.u[U_FILE + f] == U0:
                missing += 1
        shelter = -SHELTER_MISSING * missing

    # Pawn structure, set-wise (one bitboard per kind of pawn, no loop over the pawns):
    # isolated: no own pawn on the files beside it; doubled: an own pawn ahead of it on its
    # file; supported: defended by an own pawn; backward: not isolated, outside the squares
    # level with or ahead of an own pawn on a file beside it, its stop square guarded.
    pawn_mg = 0
    pawn_eg = 0
    own_files = _fill_ahead(own_pawns, us) | _fill_ahead(own_pawns, them)
    isolated = own_pawns & ~_beside(own_files)
    doubled = own_pawns & _fill_ahead(_step(own_pawns, them), them)
    if structure_on:
        backward = (own_pawns & ~isolated & ~_fill_ahead(_beside(own_pawns), us)
                    & _step(their_pawn_attacks, them))
        counts = (popcount(isolated), popcount(doubled),
                  popcount(own_pawns & own_pawn_attacks), popcount(backward))
        pawn_mg = (ISOLATED_PAWN[0] * counts[0] + DOUBLED_PAWN[0] * counts[1]
                   + SUPPORTED_PAWN[0] * counts[2] + BACKWARD_PAWN[0] * counts[3])
        pawn_eg = (ISOLATED_PAWN[1] * counts[0] + DOUBLED_PAWN[1] * counts[1]
                   + SUPPORTED_PAWN[1] * counts[2] + BACKWARD_PAWN[1] * counts[3])
        phalanx = own_pawns & _beside(own_pawns)
        while phalanx:
            sq = lsb(phalanx)
            phalanx &= phalanx - U1
            rank = _relative_rank(sq, us)
            pawn_mg += PHALANX_PAWN_MG[rank]
            pawn_eg += PHALANX_PAWN_EG[rank]

    # Passed: no enemy pawn ahead of it on its file or beside it. A doubled pawn is not
    # counted as passed: the one in front of it may be.
    passed_mg = 0
    passed_eg = 0
    race_eg = 0
    stoppers = _fill_ahead(_step(their_pawns, them), them)   # squares behind an enemy pawn
    passers = own_pawns & ~doubled & ~(stoppers | _beside(stoppers)) if passed_on or race_on else U0
    while passers:
        sq = lsb(passers)
        passers &= passers - U1
        rank = _relative_rank(sq, us)
        if passed_on:
            passed_mg += PASSED_PAWN_MG[rank]
            passed_eg += PASSED_PAWN_EG[rank]
        weight = PASSER_RACE_WEIGHT[rank]
        if race_on and weight:
            block = sq + 8 if us == WHITE else sq - 8
            race_eg += weight * (PASSER_KING_THEM * _king_distance(their_king, block)
                                 - PASSER_KING_US * _king_distance(own_king, block))
            if occ & T.u[U_FRONT_SPAN + us * 64 + sq] == U0:
                race_eg += weight * PASSER_FREE

    activity_eg = 0
    if activity_on:
        all_pawns = own_pawns | their_pawns
        count = popcount(all_pawns)
        if count:
            # The sum of the king's distances to the pawns: a pawn d moves away lies outside
            # the boxes of radius 0 .. d - 1 around the king, so it is counted d times.
            total = 0
            for d in range(7):
                outside = count - popcount(all_pawns & T.u[U_KING_BOX + d * 64 + own_king])
                if outside == 0:
                    break
                total += outside
            activity_eg = -(KING_PAWN_DISTANCE * total // count)

    outpost_mg = 0
    outpost_eg = 0
    if outpost_on:
        # Squares an enemy pawn attacks now or after advancing: its attack set, filled ahead.
        reach = _fill_ahead(their_pawn_attacks, them)
        count = popcount(bb[base + KNIGHT] & OUTPOST_RANKS[us] & own_pawn_attacks & ~reach)
        outpost_mg = KNIGHT_OUTPOST[0] * count
        outpost_eg = KNIGHT_OUTPOST[1] * count

    pair_mg = 0
    pair_eg = 0
    if pair_on and popcount(bb[base + BISHOP]) >= 2:
        pair_mg = BISHOP_PAIR[0]
        pair_eg = BISHOP_PAIR[1]
    return (mob_mg, mob_eg, king_attack, 0, shelter, 0, pawn_mg, pawn_eg, passed_mg, passed_eg,
            pair_mg, pair_eg, rook_mg, rook_eg, 0, race_eg, 0, activity_eg, outpost_mg,
            outpost_eg)


@jit
def reference_eval_white(P, T):
    """PLAY-profile evaluation from white's point of view: material and PST plus the
    positional terms of both sides, tapered."""
    row = P.meta[META_PLY]
    end_game = P.st[row, ST_PHASE] < TOTAL_PHASE
    w = _side_terms(P, T, 0, end_game)
    b = _side_terms(P, T, 1, end_game)
    mg = P.st[row, ST_MG]
    eg = P.st[row, ST_EG]
    for t in range(0, N_TERM_VALUES, 2):
        mg += w[t] - b[t]
        eg += w[t + 1] - b[t + 1]
    # Rounded toward zero, so that a position and its colour-mirror get opposite scores
    # (taper's floor division, kept for the PAPER profile, rounds -x.5 and x.5 apart).
    phase = min(P.st[row, ST_PHASE], TOTAL_PHASE)
    blend = mg * phase + eg * (TOTAL_PHASE - phase)
    return blend // TOTAL_PHASE if blend >= 0 else -(-blend // TOTAL_PHASE)


@jit
def reference_eval(P, T):
    """PLAY-profile evaluation from the side to move's point of view."""
    score = reference_eval_white(P, T)
    return score if P.st[P.meta[META_PLY], ST_SIDE] == WHITE else -score
