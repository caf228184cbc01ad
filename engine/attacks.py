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
def _find_magics(dirs, masks, magics, shifts, offsets, table, seed, known):
    """Search a magic for every square and fill `table`; returns the number of entries used.
    `known` (64 magics, or empty) gives each square's first candidate."""
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
            if attempt == 0 and known.shape[0] == 64:
                magic = known[sq]
            else:
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

# The magics the seeded search finds, square a1 first (tests/test_board.py searches again
# and compares). The search takes about 0.3 s, a third of a warm start: it runs only if
# one of these fails.
ROOK_MAGICS = np.array([
    0x1080004008801020, 0x0840092002C03000, 0x1900200010400900, 0x0880100008000480,
    0x4200100420080200, 0x8100020100080400, 0x0200040110886200, 0x0200008040220411,
    0x0404800084400220, 0x0000401000402000, 0x0086001081220440, 0x0408800800100280,
    0x000A001201040820, 0x8848800200840080, 0x4001000100040200, 0x0442000102105084,
    0x9080010020804100, 0x0040404000201009, 0x0000808010002009, 0x2200090021D00100,
    0x0008008008040080, 0x0004004002010040, 0x0011040008015042, 0x00000A0001768104,
    0x0000800080204009, 0x2010004140002001, 0x9800200280100080, 0x1000100080080080,
    0x0442000A00049020, 0x2100040080020080, 0x0800120400900148, 0x0010040A00128541,
    0x2800804000800030, 0x1010002000400041, 0x4000200011004100, 0x0610008410800800,
    0x0400802402800800, 0xC100020080800400, 0x0002000802000401, 0x0182085882000401,
    0x0220204000808000, 0x2860100040024022, 0x0001002004110040, 0x99101042000A0020,
    0x0004080004008080, 0x0010040002008080, 0x2012004881020004, 0x8300842444820011,
    0x0088403882010200, 0x0820400080210100, 0x0110910040A00300, 0x0801100280080480,
    0x0242009008200600, 0x1002000489500200, 0x0040800200010080, 0x0091800041000080,
    0x0000209300488001, 0x04C1002414824001, 0x020020000B001041, 0x7000100004200901,
    0x8002002004100802, 0x30010002084C0007, 0x0888221800813004, 0x4000002840840112,
], dtype=np.uint64)
BISHOP_MAGICS = np.array([
    0x2048017020910100, 0x0044410424008008, 0x040828A400900000, 0x8002209200022000,
    0x0002021000540002, 0x0021018840000000, 0x00009E8420204002, 0x00A0920110084480,
    0x4003062018010110, 0x0221046812004E09, 0x01E11002958912A0, 0x0000044410804000,
    0x0000821210000080, 0x080201102210A800, 0x0080040411045004, 0x00704A1842021000,
    0x1005061070322800, 0x0018001010410444, 0x0010000800401420, 0x2204002844000800,
    0x2052020412022280, 0x000A020101008208, 0x0040400201042000, 0x03E1082040480410,
    0x1004200004208414, 0x08700400984808C8, 0x0088080004004410, 0x008C0240140100A2,
    0x0008840001822000, 0x0050088001080100, 0x98140840040A2200, 0x3002020900210110,
    0x1004040640206000, 0x1090909000840400, 0x9002444810100020, 0x4000020080080080,
    0x0028020400011010, 0x0290808300020100, 0x8010020882004410, 0x0604010040082C20,
    0x20040104C0801008, 0x6004208424001050, 0x1002840041000800, 0x0200042018000102,
    0xA8002000A0821C00, 0x0040080802201910, 0x0222620444000100, 0x0002080041020088,
    0x1500820110401050, 0x0000492090100080, 0x0900410041100000, 0x0302000420880000,
    0x0010501202020020, 0x0008200490049040, 0x0462080214A40120, 0x2421310102008100,
    0x2400420080884060, 0x0800804406184208, 0x0B0080124A084400, 0x082E082300840412,
    0x6051049040082200, 0xC610211002102101, 0x0000048808010433, 0x0010200804405440,
], dtype=np.uint64)


def _magic_block(u, dirs, seed, known, mask_at, magic_at, shift_at, base_at, table_at,
                 table_size):
    masks, magics, shifts = (np.zeros(64, dtype=np.uint64) for _ in range(3))
    offsets = np.zeros(64, dtype=np.int64)
    table = np.zeros(table_size, dtype=np.uint64)
    used = _find_magics(dirs, masks, magics, shifts, offsets, table, seed, known)
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
    _magic_block(u, ROOK_DIRS, ROOK_SEED, ROOK_MAGICS, U_ROOK_MASK, U_ROOK_MAGIC, U_ROOK_SHIFT,
                 U_ROOK_BASE, U_ROOK_ATTACKS, ROOK_ATTACKS_SIZE)
    _magic_block(u, BISHOP_DIRS, BISHOP_SEED, BISHOP_MAGICS, U_BISHOP_MASK, U_BISHOP_MAGIC,
                 U_BISHOP_SHIFT, U_BISHOP_BASE, U_BISHOP_ATTACKS, BISHOP_ATTACKS_SIZE)
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
