"""[jit] The transposition table's memory: its arrays, the slot layout, the conf fields.

This is the bottom layer of the table. engine.tt_research (the thesis' switches, counters
and n-ply lines) and engine.tt_schemes (the replacement policies) build on it, and
engine.tt (probe, lookup, store: the face the search sees) on all three.

A table is a `TT` namedtuple of six flat arrays:

  slots  uint64[buckets * ways * 3]   the entries (layout below)
  conf   int64[C_LEN]                 shape, policy and experiment switches (C_* fields)
  stats  int64[S_LEN]                 counters of the current search (engine.tt_research);
                                      each search thread counts into its own array
  locks  int32[buckets]               one lock word per bucket, taken by stores
  seen   uint64[2^k] (or [1]: off)    the experiments' set of distinct keys stored (open
                                      addressing, 0 = free; S_DISTINCT counts new ones)
  lines  uint64[buckets * ways]       n-ply PV experiment (thesis 2.7.3, C_PV_PLIES = n > 1):
         (or [1]: n = 1)              moves 2..n of each slot's line, parallel to the slots
                                      (slot s at slots[3s] has its line at lines[s])

A bucket holds `ways` slots: 1 for the one-level schemes, 2 for the two-level ones
(engine.tt_registry). For the same memory a two-level table has half as many buckets.
Bucket index = key mod buckets.

Slot layout: three uint64 words (one pack/unpack pair: pack_data / unpack_data).

  word 0  the full 64-bit Zobrist key XOR word 1 XOR word 2 (the check word, engine.tt)
  word 1  bits  0..15  move (engine.types move layout; 0 = none)
          bits 16..31  score + 32768 (score relative to the node: mate distance from it)
          bits 32..39  depth: plies searched below the node (0..255)
          bits 40..41  bound: 0 empty slot, 1 upper, 2 lower, 3 exact
          bits 42..49  generation of the search that stored it (time stamping, 0..255)
          bit  50      used: looked up during generation `generation` (ANCIENT policy)
  word 2  subtree size: nodes searched to obtain the result (BIG1 / BIGALL counting)
"""
import collections

import numpy as np

from engine._jit import jit
from engine.types import MATE_BOUND, U0

TT = collections.namedtuple("TT", "slots conf stats locks seen lines")

BOUND_NONE = 0
BOUND_UPPER = 1
BOUND_LOWER = 2
BOUND_EXACT = 3

WORDS = 3
SLOT_BYTES = WORDS * 8

# conf fields: the table's shape and policy (set by engine.tt.new_table from the scheme's
# registry entry), then the thesis' experiment switches (engine.tt_research)
C_BUCKETS = 0      # number of buckets
C_WAYS = 1         # slots per bucket (1 or 2)
C_SCHEME = 2       # index of the scheme in engine.tt_registry.REGISTRY
C_AGING = 3        # 1: time stamping on (entries of earlier searches are overwritten first)
C_GEN = 4          # current generation (0..255)
C_VERIFY = 5       # key bits compared on a probe (uint64 bit pattern; -1 = all 64)
C_USE_MOVE = 6     # experiment switches of thesis 2.7.2: use the stored move ...
C_USE_SCORE = 7    # ... use the stored score for cut-offs and window changes ...
C_USE_EXACT = 8    # ... exact scores ...
C_USE_BOUNDS = 9   # ... lower and upper bounds
C_ENABLED = 10     # 0: the search neither probes nor stores (the "no table" baseline)
C_SAME_DEPTH = 11  # 1: use a stored score only if its depth EQUALS the remaining depth
                   #    (not >=): removes the effect of the thesis' footnote 7, so that a
                   #    search with the table returns exactly the score of one without
C_PLAY_RULES = 12  # store rules: 0 the thesis' (paper profile), 1 the play profile's
C_PV_PLIES = 13    # n of the n-ply PV stored per entry (thesis 2.7.3): 1 = the best move only
C_SHARED = 14      # 1: other threads may store at the same time, so stores take the bucket's
                   #    lock; 0: one thread owns the table (the lock word, another cache
                   #    miss per store, is left alone). New tables start shared (safe).
C_POLICY = 15      # the scheme's replacement policy (engine.tt_registry POLICY_*)
C_IMPORTANCE = 16  # what the scheme compares: engine.tt_registry BY_DEPTH or BY_SIZE
C_HIT_SIZE = 17    # 1: a retrieved position counts the nodes stored with it (BIGALL)
# Choices the thesis leaves open (engine.tt_research; the robustness study varies them):
C_TIES_NEW = 18    # 1: a candidate as important as a stored entry replaces it (">=");
                   #    0: the stored entry stays (">")
C_SIZE_QNODES = 19 # 1: a subtree's size counts its quiescence nodes; 0: only interior
                   #    nodes and horizon leaves, as the thesis' node count does
C_LEAF_CUT = 20    # 1: at a quiescence node a usable stored score returns as Figure 2.7
                   #    does at every node; 0: it only replaces or bounds the stand-pat
C_ROOT_LINES = 21  # 1 (paper profile): each root move's search follows the refutation line
                   #    its last search returned, as ALIBABA's refutation table; 0: the
                   #    previous iteration's PV only
C_LEN = 22

DATA_SCORE_OFFSET = 32768

# Word 1 fields: (shift, mask). The layout table is in the module docstring; these are the
# only shifts and masks of slot fields in the engine.
MOVE_FIELD = (0, 0xFFFF)
SCORE_FIELD = (16, 0xFFFF)      # score + DATA_SCORE_OFFSET, masked: cannot spill into depth
DEPTH_FIELD = (32, 0xFF)
BOUND_FIELD = (40, 3)
GENERATION_FIELD = (42, 0xFF)
USED_FIELD = (50, 1)


@jit
def put_field(value, field):
    return np.uint64(value & field[1]) << np.uint64(field[0])


@jit
def get_field(data, field):
    return np.int64((data >> np.uint64(field[0])) & np.uint64(field[1]))


@jit
def pack_data(move, score, depth, bound, generation, used):
    """Word 1 of a slot (layout in the module docstring)."""
    return (put_field(move, MOVE_FIELD) | put_field(score + DATA_SCORE_OFFSET, SCORE_FIELD)
            | put_field(depth, DEPTH_FIELD) | put_field(bound, BOUND_FIELD)
            | put_field(generation, GENERATION_FIELD) | put_field(used, USED_FIELD))


@jit
def unpack_data(data):
    """(move, score, depth, bound, generation, used) from word 1 of a slot."""
    return (get_field(data, MOVE_FIELD), get_field(data, SCORE_FIELD) - DATA_SCORE_OFFSET,
            get_field(data, DEPTH_FIELD), get_field(data, BOUND_FIELD),
            get_field(data, GENERATION_FIELD), get_field(data, USED_FIELD))


@jit
def with_move(data, move):
    """Word 1 with its move field replaced."""
    return (data & ~put_field(MOVE_FIELD[1], MOVE_FIELD)) | put_field(move, MOVE_FIELD)


@jit
def score_to_tt(score, ply):
    """Mate scores are stored as distance from the node, not from the root."""
    if score >= MATE_BOUND:
        return score + ply
    if score <= -MATE_BOUND:
        return score - ply
    return score


@jit
def score_from_tt(score, ply):
    if score >= MATE_BOUND:
        return score - ply
    if score <= -MATE_BOUND:
        return score + ply
    return score


@jit
def bucket_of(tt, key):
    return np.int64(key % np.uint64(tt.conf[C_BUCKETS]))


@jit
def bucket_base(tt, key):
    """Index in `slots` of the first word of the bucket of `key`."""
    return bucket_of(tt, key) * tt.conf[C_WAYS] * WORDS


@jit
def slot_key(tt, at):
    """The key of the entry at `at` (word 0 is the key XOR the other two words)."""
    return tt.slots[at] ^ tt.slots[at + 1] ^ tt.slots[at + 2]


@jit
def set_data(tt, at, key, data):
    """Rewrite word 1 of the entry of `key` at `at`, and its check word."""
    tt.slots[at + 1] = data
    tt.slots[at] = key ^ data ^ tt.slots[at + 2]


@jit
def key_matches(tt, stored, key):
    verify = np.uint64(tt.conf[C_VERIFY])
    return ((stored ^ key) & verify) == U0


@jit
def lines_on(tt):
    """The table stores n-ply lines (C_PV_PLIES > 1): `lines` has one word per slot."""
    return tt.conf[C_PV_PLIES] > 1


@jit
def line_at(tt, at):
    """The line word of the slot whose first word is slots[at] (empty when lines are off)."""
    return tt.lines[at // WORDS] if lines_on(tt) else U0


@jit
def set_line(tt, at, line):
    if lines_on(tt):
        tt.lines[at // WORDS] = np.uint64(line)


@jit
def write_slot(tt, at, key, move, score, depth, bound, size, used, line):
    data = pack_data(move, score, depth, bound, tt.conf[C_GEN], used)
    set_line(tt, at, line)
    tt.slots[at + 1] = data
    tt.slots[at + 2] = np.uint64(size)
    tt.slots[at] = key ^ data ^ np.uint64(size)


@jit
def copy_slot(tt, source, target):
    """Copy a slot (its line with it)."""
    set_line(tt, target, line_at(tt, source))
    for w in range(WORDS):
        tt.slots[target + w] = tt.slots[source + w]


@jit
def swap_slots(tt, a, b):
    """Swap two slots (their lines with them)."""
    if lines_on(tt):
        line = tt.lines[a // WORDS]
        tt.lines[a // WORDS] = tt.lines[b // WORDS]
        tt.lines[b // WORDS] = line
    for w in range(WORDS):
        word = tt.slots[a + w]
        tt.slots[a + w] = tt.slots[b + w]
        tt.slots[b + w] = word


@jit
def is_empty(tt, at):
    return get_field(tt.slots[at + 1], BOUND_FIELD) == BOUND_NONE


@jit
def is_old(tt, data):
    """A slot stored by an earlier search (its time stamp is not the current one)."""
    return get_field(data, GENERATION_FIELD) != tt.conf[C_GEN]


@jit
def is_stamped(tt, at):
    """Time stamping: an entry of an earlier search, overwritten first at a collision."""
    return tt.conf[C_AGING] != 0 and is_old(tt, tt.slots[at + 1])


def table_entries(tt: TT) -> int:
    """Positions the table can hold (buckets x slots per bucket)."""
    return int(tt.conf[C_BUCKETS] * tt.conf[C_WAYS])
