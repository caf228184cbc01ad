"""Attack tables: leapers, pawns, magic-bitboard sliders, and between/line masks.

Everything is built once per process by `build_attack_arrays()` (about a tenth of a second
with a warm numba cache) and then passed to the jitted kernels inside `engine.tables.Tables`;
nothing here is a global that numba would freeze into compiled code.

Magic bitboards: for a slider on square s, the blockers that matter are the squares of its
rays short of the board edge (`mask[s]`). Multiplying the masked occupancy by a magic number
and keeping the top `bits` bits gives a perfect index into that square's block of the attack
table. The magics are searched for here with a fixed-seed xorshift generator, so the tables
are the same in every process and on every machine.
"""
import numpy as np

from engine._jit import jit, jit_alloc
from engine.bitboard import popcount
from engine.types import (
    BISHOP_ATTACKS_SIZE, ROOK_ATTACKS_SIZE, U0, U1, U_BETWEEN, U_BISHOP_ATTACKS, U_BISHOP_BASE,
    U_BISHOP_MAGIC, U_BISHOP_MASK, U_BISHOP_SHIFT, U_KING, U_KNIGHT, U_LINE, U_PAWN,
    U_ROOK_ATTACKS, U_ROOK_BASE, U_ROOK_MAGIC, U_ROOK_MASK, U_ROOK_SHIFT,
)

ROOK_DIRS = np.array([[1, 0], [-1, 0], [0, 1], [0, -1]], dtype=np.int64)
BISHOP_DIRS = np.array([[1, 1], [1, -1], [-1, 1], [-1, -1]], dtype=np.int64)
KNIGHT_STEPS = np.array([[1, 2], [2, 1], [2, -1], [1, -2], [-1, -2], [-2, -1], [-2, 1], [-1, 2]],
                        dtype=np.int64)
KING_STEPS = np.array([[1, 0], [1, 1], [0, 1], [-1, 1], [-1, 0], [-1, -1], [0, -1], [1, -1]],
                      dtype=np.int64)


@jit
def _ray_attacks(sq, occ, dirs):
    """Slow reference slider attacks: walk each direction until a blocker (inclusive)."""
    result = U0
    f0 = sq % 8
    r0 = sq // 8
    for d in range(dirs.shape[0]):
        f = f0 + dirs[d, 0]
        r = r0 + dirs[d, 1]
        while 0 <= f < 8 and 0 <= r < 8:
            bit = U1 << np.uint64(r * 8 + f)
            result |= bit
            if occ & bit:
                break
            f += dirs[d, 0]
            r += dirs[d, 1]
    return result


@jit
def _relevant_mask(sq, dirs):
    """The ray squares whose occupancy changes the attack set (the last square of a ray never does)."""
    result = U0
    f0 = sq % 8
    r0 = sq // 8
    for d in range(dirs.shape[0]):
        f = f0 + dirs[d, 0]
        r = r0 + dirs[d, 1]
        while 0 <= f + dirs[d, 0] < 8 and 0 <= r + dirs[d, 1] < 8:
            result |= U1 << np.uint64(r * 8 + f)
            f += dirs[d, 0]
            r += dirs[d, 1]
    return result


@jit
def _xorshift(state):
    """xorshift64* step on state[0]; returns the next pseudo-random uint64."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)


@jit_alloc
def _find_magics(dirs, masks, magics, shifts, offsets, table, seed):
    """Search a magic for every square and fill `table`; returns the number of entries used."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = np.uint64(seed)
    occupancies = np.empty(4096, dtype=np.uint64)
    references = np.empty(4096, dtype=np.uint64)
    epoch = np.zeros(4096, dtype=np.int64)
    offset = 0
    for sq in range(64):
        mask = _relevant_mask(sq, dirs)
        bits = popcount(mask)
        size = 1 << bits
        # Carry-Rippler enumeration of every subset of the mask.
        sub = U0
        for i in range(size):
            occupancies[i] = sub
            references[i] = _ray_attacks(sq, sub, dirs)
            sub = (sub - mask) & mask
        shift = np.uint64(64 - bits)
        attempt = 0
        while True:
            magic = _xorshift(rng) & _xorshift(rng) & _xorshift(rng)
            if popcount((mask * magic) & np.uint64(0xFF00000000000000)) < 6:
                continue
            attempt += 1
            ok = True
            for i in range(size):
                idx = np.int64((occupancies[i] * magic) >> shift)
                if epoch[idx] < attempt:
                    epoch[idx] = attempt
                    table[offset + idx] = references[i]
                elif table[offset + idx] != references[i]:
                    ok = False
                    break
            if ok:
                break
        epoch[:] = 0
        masks[sq] = mask
        magics[sq] = magic
        shifts[sq] = shift
        offsets[sq] = offset
        offset += size
    return offset


@jit_alloc
def _leaper_table(steps):
    out = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        f0 = sq % 8
        r0 = sq // 8
        for k in range(steps.shape[0]):
            f = f0 + steps[k, 0]
            r = r0 + steps[k, 1]
            if 0 <= f < 8 and 0 <= r < 8:
                out[sq] |= U1 << np.uint64(r * 8 + f)
    return out


@jit_alloc
def _pawn_attack_table():
    out = np.zeros((2, 64), dtype=np.uint64)
    for sq in range(64):
        f = sq % 8
        r = sq // 8
        for colour in range(2):
            rr = r + 1 if colour == 0 else r - 1
            if 0 <= rr < 8:
                if f > 0:
                    out[colour, sq] |= U1 << np.uint64(rr * 8 + f - 1)
                if f < 7:
                    out[colour, sq] |= U1 << np.uint64(rr * 8 + f + 1)
    return out


@jit_alloc
def _line_tables(all_dirs):
    """between[a, b]: squares strictly between a and b on a shared line (0 if none);
    line[a, b]: the whole board line through a and b (0 if none)."""
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    for a in range(64):
        for d in range(all_dirs.shape[0]):
            df = all_dirs[d, 0]
            dr = all_dirs[d, 1]
            # The full line through a in this direction (both ways).
            full = U1 << np.uint64(a)
            for sign in (1, -1):
                f = a % 8 + sign * df
                r = a // 8 + sign * dr
                while 0 <= f < 8 and 0 <= r < 8:
                    full |= U1 << np.uint64(r * 8 + f)
                    f += sign * df
                    r += sign * dr
            f = a % 8 + df
            r = a // 8 + dr
            gap = U0
            while 0 <= f < 8 and 0 <= r < 8:
                b = r * 8 + f
                between[a, b] = gap
                line[a, b] = full
                gap |= U1 << np.uint64(b)
                f += df
                r += dr
    return between, line


# Fixed seeds: any seed works; these keep the search short and the tables reproducible.
ROOK_SEED = 0x9E3779B97F4A7C15
BISHOP_SEED = 0xD1B54A32D192ED03


def _magic_block(u, dirs, seed, mask_at, magic_at, shift_at, base_at, table_at, table_size):
    masks, magics, shifts = (np.zeros(64, dtype=np.uint64) for _ in range(3))
    offsets = np.zeros(64, dtype=np.int64)
    table = np.zeros(table_size, dtype=np.uint64)
    used = _find_magics(dirs, masks, magics, shifts, offsets, table, seed)
    assert used == table_size
    u[mask_at:mask_at + 64] = masks
    u[magic_at:magic_at + 64] = magics
    u[shift_at:shift_at + 64] = shifts
    u[base_at:base_at + 64] = (offsets + table_at).astype(np.uint64)
    u[table_at:table_at + table_size] = table


def fill_attack_tables(u):
    """Write every attack table into the flat uint64 table array (layout in engine.types)."""
    u[U_KNIGHT:U_KNIGHT + 64] = _leaper_table(KNIGHT_STEPS)
    u[U_KING:U_KING + 64] = _leaper_table(KING_STEPS)
    u[U_PAWN:U_PAWN + 128] = _pawn_attack_table().ravel()
    _magic_block(u, ROOK_DIRS, ROOK_SEED, U_ROOK_MASK, U_ROOK_MAGIC, U_ROOK_SHIFT, U_ROOK_BASE,
                 U_ROOK_ATTACKS, ROOK_ATTACKS_SIZE)
    _magic_block(u, BISHOP_DIRS, BISHOP_SEED, U_BISHOP_MASK, U_BISHOP_MAGIC, U_BISHOP_SHIFT,
                 U_BISHOP_BASE, U_BISHOP_ATTACKS, BISHOP_ATTACKS_SIZE)
    between, line = _line_tables(np.concatenate([ROOK_DIRS, BISHOP_DIRS]))
    u[U_BETWEEN:U_BETWEEN + 4096] = between.ravel()
    u[U_LINE:U_LINE + 4096] = line.ravel()


# -- accessors used by the kernels (numba inlines them) ------------------------------------
@jit
def knight_attacks(T, sq):
    return T.u[U_KNIGHT + sq]


@jit
def king_attacks(T, sq):
    return T.u[U_KING + sq]


@jit
def pawn_attacks(T, colour, sq):
    """Squares a pawn of `colour` on sq attacks."""
    return T.u[U_PAWN + colour * 64 + sq]


@jit
def between(T, a, b):
    """Squares strictly between a and b if they share a line, else 0."""
    return T.u[U_BETWEEN + a * 64 + b]


@jit
def line(T, a, b):
    """The whole board line through a and b if they share one, else 0."""
    return T.u[U_LINE + a * 64 + b]


@jit
def rook_attacks(T, sq, occ):
    """Rook attacks from sq over occupancy occ (magic lookup)."""
    u = T.u
    idx = ((occ & u[U_ROOK_MASK + sq]) * u[U_ROOK_MAGIC + sq]) >> u[U_ROOK_SHIFT + sq]
    return u[u[U_ROOK_BASE + sq] + idx]


@jit
def bishop_attacks(T, sq, occ):
    """Bishop attacks from sq over occupancy occ (magic lookup)."""
    u = T.u
    idx = ((occ & u[U_BISHOP_MASK + sq]) * u[U_BISHOP_MAGIC + sq]) >> u[U_BISHOP_SHIFT + sq]
    return u[u[U_BISHOP_BASE + sq] + idx]
