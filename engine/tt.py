"""[jit] The transposition table: layout, probe, store, nine replacement policies, aging, counters.

A table is a `TT` namedtuple of six flat arrays:

  slots  uint64[buckets * ways * 3]   the entries (layout below)
  conf   int64[C_LEN]                 shape, policy and experiment switches (C_* fields)
  stats  int64[S_LEN]                 counters of the current search (S_* fields; with
                                      several threads they are approximate: not atomic)
  locks  int32[buckets]               one lock word per bucket, taken by stores
  seen   uint64[2^k] (or [1]: off)    the experiments' set of distinct keys stored (open
                                      addressing, 0 = free; S_DISTINCT counts new ones)
  lines  uint64[buckets * ways]       n-ply PV experiment (thesis 2.7.3, C_PV_PLIES = n > 1):
         (or [1]: n = 1)              moves 2..n of each slot's line, parallel to the slots
                                      (slot s at slots[3s] has its line at lines[s])

A bucket holds `ways` slots: 1 for the one-level schemes (DEEP, NEW, OLD, BIG1, BIGALL,
ANCIENT), 2 for the two-level ones (TwoDEEP, TwoBig1, AGE). For the same memory a
two-level table has half as many buckets. Bucket index = key mod buckets.

Slot layout: three uint64 words (one pack/unpack pair: pack_data / unpack_data).

  word 0  the full 64-bit Zobrist key XOR word 1 XOR word 2 (the check word, below)
  word 1  bits  0..15  move (engine.types move layout; 0 = none)
          bits 16..31  score + 32768 (score relative to the node: mate distance from it)
          bits 32..39  depth: plies searched below the node (0..255)
          bits 40..41  bound: 0 empty slot, 1 upper, 2 lower, 3 exact
          bits 42..49  generation of the search that stored it (time stamping, 0..255)
          bit  50      used: looked up during generation `generation` (ANCIENT policy)
  word 2  subtree size: nodes searched to obtain the result (BIG1 / BIGALL counting)

Line layout (thesis 2.7.3: an entry stores an n-ply principal variation, n = C_PV_PLIES in
1..5; its first move is the move of word 1, the other n - 1 are one uint64 in `lines`;
one pack/unpack pair: pack_line / unpack_line):

  bits  0..15  move 2 of the line: the best move of the position after the entry's move
  bits 16..31  move 3
  bits 32..47  move 4
  bits 48..63  move 5       (each in the engine.types move layout; 0 = none, and the line
                             ends at its first 0: a word of 0 is the empty line)

The line is written with the slot's move (a store that keeps the old move keeps the old
line), moves with its slot between levels and is read with it; with n = 1 it is neither
read nor written. It is a hint, like the move: the search checks each of its moves for
legality where it would use it. The search keeps the lines it passes between plies in the
same word (a line of up to four moves, its first move in bits 0..15).

Sharing the table between search threads (Lazy SMP, UCI `Threads`):
  - Reads take no lock. A slot's three words are written one after another, so a reader
    racing a writer may see words of two different entries (a torn slot). Word 0 holds the
    key XOR the other two words; a reader reads each word once and recovers the key from
    all three, so a torn slot yields a wrong key and reads as a miss, never as another
    position's entry (Hyatt and Mann's lockless hashing).
  - Stores take the bucket's lock (an atomic compare-and-swap, engine.atomic) for the whole
    update: the two-level move of level 1 to level 2 and the write of the candidate happen
    with no other store in between, so no store loses another's candidate or leaves one
    position in both levels, and every bucket a store finishes keeps the invariant below.
    A reader may see the intermediate state (level 1 copied down, not yet overwritten): the
    same position twice, both copies valid, which a probe reads correctly. A store that
    finds the lock busy for engine.atomic.LOCK_SPINS tries is dropped (a lost hint, not a
    broken bucket). One thread (the thesis' experiments) never waits and stays exact.
  - A table searched by one thread (C_SHARED = 0, set by the driver through set_sharing)
    takes no lock: the lock word is a second cache miss per store, for nothing.
  - The ANCIENT probe's "used" mark is a write: it is made only if the lock is free at once.

Replacement, when a store finds its bucket holding other positions (a type-2 collision),
per Breuker's thesis section 2.7.1:
  DEEP     keep the deeper subtree (the new one wins ties)
  NEW      always replace
  OLD      never replace
  BIG1     keep the bigger subtree in nodes; a retrieved position counted 1 node
  BIGALL   as BIG1; a retrieved position counted the nodes stored with it
           (the counting is the search's job: it passes the size it measured)
  TWODEEP  two levels: new depth >= level 1's: level 1 moves to level 2, new takes
           level 1; otherwise the new one takes level 2
  TWOBIG1  two levels, as TwoDEEP compared by BIG1 subtree size (the default)
  ANCIENT  one level; an entry used in a lookup during this search is kept, any other
           is replaced (the "ancient flag" policy of the seed article 000)
  AGE      two levels; fill an empty slot, else replace the slot with the least
           depth - 8 * generations of age (today's engines, e.g. Stockfish); no ordering

The two-level invariant (TWODEEP, TWOBIG1). Call depth (TWODEEP) or subtree size (TWOBIG1)
a position's importance. In every state of a bucket, level 1 is filled whenever level 2
is, and level 1's importance >= level 2's. A store keeps it in every case:
  - "the candidate position is always stored, and the less important of the remaining two
    positions is overwritten": the victim is an empty slot if there is one, else a
    time-stamped one (level 2 first, then level 1; only with time stamping), else level 2
    (the less important by the invariant);
  - the candidate and the survivor are then ordered: candidate >= survivor puts the
    candidate in level 1 (ties favour the candidate, as the thesis' ">=" does), else the
    survivor takes level 1 and the candidate level 2. An empty level 2 is thus filled only
    after comparing with level 1, and an old level 1 no longer leaves a bigger level 2 below
    a smaller level 1;
  - a position already in the bucket is updated in its slot, then the two slots are
    reordered the same way (the updated position wins ties).
Time stamping (C_AGING, thesis schemes): an entry from an earlier search is still read,
but at a collision it is overwritten unconditionally, before any current entry.

Store rules (C_PLAY_RULES, set from the search profile with set_store_rules):
  paper  the thesis' Figure 2.7: every store writes its result, the node's best move
         included; an update of the same position always overwrites it.
  play   what strong engines do: an upper bound (fail-low) stores no move, since its
         "best" move is noise, and an update keeps the stored move; an update keeps a
         deeper result of the current search unless the new one is exact or at most
         UPDATE_DEPTH_SLACK plies shallower (a new best move is still written into it).
In both, a store without a move keeps the move already stored for that position, and the
ANCIENT "used" flag survives an update within the search that set it.
"""
import collections

import numpy as np

from engine._jit import jit, jit_inline
from engine.atomic import LOCK_SPINS, prefetch, try_lock, unlock
from engine.types import MATE_BOUND, U0

TT = collections.namedtuple("TT", "slots conf stats locks seen lines")

SCHEMES = ("DEEP", "NEW", "OLD", "BIG1", "BIGALL", "TWODEEP", "TWOBIG1", "ANCIENT", "AGE")
DEEP, NEW, OLD, BIG1, BIGALL, TWODEEP, TWOBIG1, ANCIENT, AGE = range(9)
SCHEME_NAMES = {"DEEP": "DEEP", "NEW": "NEW", "OLD": "OLD", "BIG1": "BIG1", "BIGALL": "BIGALL",
                "TWODEEP": "TwoDEEP", "TWOBIG1": "TwoBig1", "ANCIENT": "Ancient", "AGE": "Age"}
TWO_LEVEL = (TWODEEP, TWOBIG1, AGE)
DEFAULT_SCHEME = TWOBIG1

BOUND_NONE = 0
BOUND_UPPER = 1
BOUND_LOWER = 2
BOUND_EXACT = 3

WORDS = 3
SLOT_BYTES = WORDS * 8

# conf fields
C_BUCKETS = 0      # number of buckets
C_WAYS = 1         # slots per bucket (1 or 2)
C_SCHEME = 2       # replacement policy (DEEP .. AGE)
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
C_PLAY_RULES = 12 # store rules: 0 the thesis' (paper profile), 1 the play profile's
C_PV_PLIES = 13   # n of the n-ply PV stored per entry (thesis 2.7.3): 1 = the best move only
C_SHARED = 14     # 1: other threads may store at the same time, so stores take the bucket's
                  #    lock; 0: one thread owns the table (the lock word, another cache
                  #    miss per store, is left alone). New tables start shared (safe).
C_LEN = 15

# stats fields (reset by new_search)
S_PROBES = 0        # lookups
S_HITS = 1          # lookups that found the position
S_CUT_EXACT = 2     # the search returned a stored exact score
S_CUT_LOWER = 3     # a stored lower bound caused a cut-off (or raised alpha to beta)
S_CUT_UPPER = 4     # a stored upper bound caused a cut-off
S_WINDOW = 5        # a stored bound narrowed the window without cutting off
S_STORES = 6        # store attempts
S_UPDATES = 7       # stores that found their own position already in the bucket
S_COLLISIONS = 8    # stores of a new position into a bucket holding others (type-2)
S_REPLACED = 9      # positions overwritten by another position
S_REFUSED = 10      # stores declined by the policy (OLD, DEEP, BIG1 ... kept the old one)
S_EMPTY_FILLS = 11  # stores into an empty slot
S_TYPE1 = 12        # probes matching the verified key bits but not the full key
S_TYPE1_CAUGHT = 13 # stored moves refused by the legality check (counted by the search)
S_DISTINCT = 14     # keys stored for the first time since the table was made (with `seen`):
                    # the M of equation 2.2 without counting a re-stored position twice
S_LINE_MOVES = 15   # n-ply PV: nodes where the table gave no move and a move of an
                    # ancestor's stored line was used for ordering (counted by the search)
S_LEN = 16

DATA_SCORE_OFFSET = 32768
UPDATE_DEPTH_SLACK = 2   # play rules: a bound this much shallower may still update an entry

# Word 1 fields: (shift, mask). The layout table is in the module docstring; these are the
# only shifts and masks of slot fields in the engine.
MOVE_FIELD = (0, 0xFFFF)
SCORE_FIELD = (16, 0xFFFF)      # score + DATA_SCORE_OFFSET, masked: cannot spill into depth
DEPTH_FIELD = (32, 0xFF)
BOUND_FIELD = (40, 3)
GENERATION_FIELD = (42, 0xFF)
USED_FIELD = (50, 1)
# The moves 2..5 of a line in its `lines` word (layout in the module docstring).
LINE_FIELDS = ((0, 0xFFFF), (16, 0xFFFF), (32, 0xFFFF), (48, 0xFFFF))
LINE_MOVES = 4          # moves per line word: an entry's line is at most 1 + 4 = 5 plies
MAX_PV_PLIES = 1 + LINE_MOVES


@jit
def _put(value, field):
    return np.uint64(value & field[1]) << np.uint64(field[0])


@jit
def _get(data, field):
    return np.int64((data >> np.uint64(field[0])) & np.uint64(field[1]))


@jit
def pack_data(move, score, depth, bound, generation, used):
    """Word 1 of a slot (layout in the module docstring)."""
    return (_put(move, MOVE_FIELD) | _put(score + DATA_SCORE_OFFSET, SCORE_FIELD)
            | _put(depth, DEPTH_FIELD) | _put(bound, BOUND_FIELD)
            | _put(generation, GENERATION_FIELD) | _put(used, USED_FIELD))


@jit
def unpack_data(data):
    """(move, score, depth, bound, generation, used) from word 1 of a slot."""
    return (_get(data, MOVE_FIELD), _get(data, SCORE_FIELD) - DATA_SCORE_OFFSET,
            _get(data, DEPTH_FIELD), _get(data, BOUND_FIELD), _get(data, GENERATION_FIELD),
            _get(data, USED_FIELD))


@jit
def pack_line(second, third, fourth, fifth):
    """The `lines` word of moves 2..5 of an entry's line (layout in the module docstring);
    pass 0 for the moves past the line's end."""
    return (_put(second, LINE_FIELDS[0]) | _put(third, LINE_FIELDS[1])
            | _put(fourth, LINE_FIELDS[2]) | _put(fifth, LINE_FIELDS[3]))


@jit
def unpack_line(line):
    """(move 2, move 3, move 4, move 5) of a `lines` word (0 past the line's end)."""
    return (_get(line, LINE_FIELDS[0]), _get(line, LINE_FIELDS[1]),
            _get(line, LINE_FIELDS[2]), _get(line, LINE_FIELDS[3]))


@jit
def line_first(line):
    """The first move of a line word (0: the empty line)."""
    return unpack_line(line)[0]


@jit
def line_rest(line):
    """The line word without its first move."""
    _, b, c, d = unpack_line(line)
    return pack_line(b, c, d, 0)


@jit
def line_prepend(move, line, keep):
    """`move` followed by the moves of `line`, cut to its first `keep` moves (0..LINE_MOVES):
    a node's line from its best move and the line of the child that move leads to."""
    a, b, c, _ = unpack_line(line)
    first = np.int64(move) if keep >= 1 else np.int64(0)
    second = a if keep >= 2 and first != 0 else np.int64(0)
    third = b if keep >= 3 and second != 0 else np.int64(0)
    fourth = c if keep >= 4 and third != 0 else np.int64(0)
    return pack_line(first, second, third, fourth)


@jit
def line_cut(line, keep):
    """The first `keep` moves (0..LINE_MOVES) of a line word."""
    a, b, c, d = unpack_line(line)
    return pack_line(a if keep >= 1 else np.int64(0), b if keep >= 2 else np.int64(0),
                     c if keep >= 3 else np.int64(0), d if keep >= 4 else np.int64(0))


@jit
def _with_move(data, move):
    """Word 1 with its move field replaced."""
    return (data & ~_put(MOVE_FIELD[1], MOVE_FIELD)) | _put(move, MOVE_FIELD)


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
def _bucket_of(tt, key):
    return np.int64(key % np.uint64(tt.conf[C_BUCKETS]))


@jit
def _bucket_base(tt, key):
    """Index in `slots` of the first word of the bucket of `key`."""
    return _bucket_of(tt, key) * tt.conf[C_WAYS] * WORDS


@jit
def _slot_key(tt, at):
    """The key of the entry at `at` (word 0 is the key XOR the other two words)."""
    return tt.slots[at] ^ tt.slots[at + 1] ^ tt.slots[at + 2]


@jit
def _set_data(tt, at, key, data):
    """Rewrite word 1 of the entry of `key` at `at`, and its check word."""
    tt.slots[at + 1] = data
    tt.slots[at] = key ^ data ^ tt.slots[at + 2]


@jit
def _key_matches(tt, stored, key):
    verify = np.uint64(tt.conf[C_VERIFY])
    return ((stored ^ key) & verify) == U0


@jit
def _lines_on(tt):
    """The table stores n-ply lines (C_PV_PLIES > 1): `lines` has one word per slot."""
    return tt.conf[C_PV_PLIES] > 1


@jit
def _line_at(tt, at):
    """The line word of the slot whose first word is slots[at] (empty when lines are off)."""
    return tt.lines[at // WORDS] if _lines_on(tt) else U0


@jit
def _set_line(tt, at, line):
    if _lines_on(tt):
        tt.lines[at // WORDS] = np.uint64(line)


@jit
def tt_probe(tt, key, ply):
    """Look a position up. Returns (found, move, score, depth, bound, size) with the score
    re-based to the root distance `ply`; found is False for a miss (depth then -1)."""
    found, move, score, depth, bound, size, _ = _probe(tt, key, ply)
    return found, move, score, depth, bound, size


@jit_inline
def _probe(tt, key, ply):
    """tt_probe, and the entry's line word (moves 2..n; U0 on a miss or with lines off)."""
    tt.stats[S_PROBES] += 1
    base = _bucket_base(tt, key)
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]     # each word read once: a torn slot fails the key check
        if _get(data, BOUND_FIELD) == BOUND_NONE:
            continue
        size = tt.slots[at + 2]
        stored = tt.slots[at] ^ data ^ size
        if _key_matches(tt, stored, key):
            if stored != key:
                tt.stats[S_TYPE1] += 1
            tt.stats[S_HITS] += 1
            move, score, depth, bound, generation, used = unpack_data(data)
            if tt.conf[C_SCHEME] == ANCIENT and not (used and generation == tt.conf[C_GEN]):
                # Protect the entry until the next search (its stamp becomes "now, used").
                bucket = _bucket_of(tt, key)
                if try_lock(tt.locks, bucket, 1):
                    if tt.slots[at + 1] == data and _slot_key(tt, at) == stored:
                        _set_data(tt, at, stored,
                                  pack_data(move, score, depth, bound, tt.conf[C_GEN], 1))
                    unlock(tt.locks, bucket)
            return (True, move, score_from_tt(score, ply), depth, bound, np.int64(size),
                    _line_at(tt, at))
    return (False, np.int64(0), np.int64(0), np.int64(-1), np.int64(BOUND_NONE), np.int64(0),
            U0)


@jit
def _write(tt, at, key, move, score, depth, bound, size, used, line):
    data = pack_data(move, score, depth, bound, tt.conf[C_GEN], used)
    _set_line(tt, at, line)
    tt.slots[at + 1] = data
    tt.slots[at + 2] = np.uint64(size)
    tt.slots[at] = key ^ data ^ np.uint64(size)


@jit
def _copy_slot(tt, source, target):
    """Copy a slot (its line with it)."""
    _set_line(tt, target, _line_at(tt, source))
    for w in range(WORDS):
        tt.slots[target + w] = tt.slots[source + w]


@jit
def _swap_slots(tt, a, b):
    """Swap two slots (their lines with them)."""
    if _lines_on(tt):
        line = tt.lines[a // WORDS]
        tt.lines[a // WORDS] = tt.lines[b // WORDS]
        tt.lines[b // WORDS] = line
    for w in range(WORDS):
        word = tt.slots[a + w]
        tt.slots[a + w] = tt.slots[b + w]
        tt.slots[b + w] = word


@jit
def _is_empty(tt, at):
    return _get(tt.slots[at + 1], BOUND_FIELD) == BOUND_NONE


@jit
def _is_old(tt, data):
    """A slot stored by an earlier search (its time stamp is not the current one)."""
    return _get(data, GENERATION_FIELD) != tt.conf[C_GEN]


@jit
def _is_stamped(tt, at):
    """Time stamping: an entry of an earlier search, overwritten first at a collision."""
    return tt.conf[C_AGING] != 0 and _is_old(tt, tt.slots[at + 1])


@jit
def _importance(tt, at):
    """What the Deep and Big schemes compare: depth, or subtree size in nodes."""
    scheme = tt.conf[C_SCHEME]
    if scheme == DEEP or scheme == TWODEEP:
        return np.int64(_get(tt.slots[at + 1], DEPTH_FIELD))
    return np.int64(tt.slots[at + 2])


@jit
def _candidate_importance(tt, depth, size):
    scheme = tt.conf[C_SCHEME]
    if scheme == DEEP or scheme == TWODEEP:
        return np.int64(depth)
    return np.int64(size)


@jit
def _update(tt, at, key, move, score, depth, bound, size, line):
    """Store a position into its own slot; False when the play rules keep the old result.
    A new move brings its line; a store without a move keeps the old move and line."""
    old_move, _, old_depth, _, generation, used = unpack_data(tt.slots[at + 1])
    current = generation == tt.conf[C_GEN]
    if (tt.conf[C_PLAY_RULES] != 0 and bound != BOUND_EXACT and current
            and depth + UPDATE_DEPTH_SLACK < old_depth):
        if move != 0:   # the deeper result stays, but a new best move is fresher
            _set_line(tt, at, line)
            _set_data(tt, at, key, _with_move(tt.slots[at + 1], move))
        return False
    if move == 0:
        move = old_move
        line = _line_at(tt, at)
    _write(tt, at, key, move, score, depth, bound, size, used if current else 0, line)
    return True


@jit
def _store_one_level(tt, at, key, move, score, depth, bound, size, line):
    """DEEP, NEW, OLD, BIG1, BIGALL and ANCIENT on a collision in a one-slot bucket."""
    scheme = tt.conf[C_SCHEME]
    data = tt.slots[at + 1]
    if scheme == ANCIENT:
        replace = not (_get(data, USED_FIELD) != 0 and not _is_old(tt, data))
    elif _is_stamped(tt, at) or scheme == NEW:
        replace = True
    elif scheme == OLD:
        replace = False
    else:
        replace = _candidate_importance(tt, depth, size) >= _importance(tt, at)
    if replace:
        tt.stats[S_REPLACED] += 1
        _write(tt, at, key, move, score, depth, bound, size, 0, line)
    else:
        tt.stats[S_REFUSED] += 1


@jit
def _store_age(tt, base, key, move, score, depth, bound, size, line):
    """AGE: replace the slot with the least depth - 8 * age (level 1 on ties)."""
    victim = base
    worst = np.int64(1) << 30
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]
        value = _get(data, DEPTH_FIELD) - 8 * ((tt.conf[C_GEN] - _get(data, GENERATION_FIELD)) & 0xFF)
        if value < worst:
            worst = value
            victim = at
    tt.stats[S_REPLACED] += 1
    _write(tt, victim, key, move, score, depth, bound, size, 0, line)


@jit
def _store_two_level(tt, base, key, move, score, depth, bound, size, line):
    """TWODEEP and TWOBIG1 for a new position: the candidate is always stored; the victim
    is an empty slot, else a time-stamped one, else level 2; the more important of the
    candidate and the survivor takes level 1 (module docstring)."""
    level1 = base
    level2 = base + WORDS
    if _is_empty(tt, level1):                   # then level 2 is empty too
        tt.stats[S_EMPTY_FILLS] += 1
        _write(tt, level1, key, move, score, depth, bound, size, 0, line)
        return
    if _is_empty(tt, level2):
        tt.stats[S_EMPTY_FILLS] += 1
        survivor = level1
    else:
        tt.stats[S_COLLISIONS] += 1
        tt.stats[S_REPLACED] += 1
        if _is_stamped(tt, level2) or not _is_stamped(tt, level1):
            survivor = level1
        else:
            survivor = level2                   # an old level 1 goes before a current level 2
    if _candidate_importance(tt, depth, size) >= _importance(tt, survivor):
        if survivor == level1:
            _copy_slot(tt, level1, level2)
        _write(tt, level1, key, move, score, depth, bound, size, 0, line)
    else:
        if survivor == level2:
            _copy_slot(tt, level2, level1)
        _write(tt, level2, key, move, score, depth, bound, size, 0, line)


@jit
def tt_store(tt, key, ply, move, score, depth, bound, size):
    """Store a search result (score relative to the root at distance `ply`; size = the
    subtree's node count as the scheme counts it) under the table's replacement policy
    and store rules (module docstring), holding the bucket's lock. With n-ply lines on,
    the entry's line is its move alone (tt_store_line stores a longer one)."""
    tt_store_line(tt, key, ply, move, score, depth, bound, size, U0)


@jit
def tt_store_line(tt, key, ply, move, score, depth, bound, size, line):
    """tt_store with the entry's line: `line` holds moves 2..n (a line word of at most
    C_PV_PLIES - 1 moves: the line of the position after `move`); ignored with lines off."""
    tt.stats[S_STORES] += 1
    score = score_to_tt(score, ply)
    depth = min(max(depth, 0), 255)
    if tt.conf[C_PLAY_RULES] != 0 and bound == BOUND_UPPER:
        move = 0                                # a fail-low's best move is noise
    if move == 0 or not _lines_on(tt):
        line = U0
    else:
        line = line_cut(line, tt.conf[C_PV_PLIES] - 1)
    bucket = _bucket_of(tt, key)
    shared = tt.conf[C_SHARED] != 0
    if shared and not try_lock(tt.locks, bucket, LOCK_SPINS):
        return
    _store_locked(tt, bucket * tt.conf[C_WAYS] * WORDS, key, move, score, depth, bound, size,
                  line)
    if shared:
        unlock(tt.locks, bucket)


@jit
def _note_distinct(tt, key):
    """Count `key` in S_DISTINCT the first time it is stored (a set in tt.seen by linear
    probing; key 0 is kept as 1). A half-full set counts no more (size it to twice the
    keys): past that, probes grow long, and a full set would scan all of it per store."""
    places = tt.seen.shape[0]
    if tt.stats[S_DISTINCT] * 2 >= places:
        return
    mask = np.uint64(places - 1)
    wanted = key if key != U0 else np.uint64(1)
    at = np.int64(wanted & mask)
    for _ in range(places):
        if tt.seen[at] == wanted:
            return
        if tt.seen[at] == U0:
            tt.seen[at] = wanted
            tt.stats[S_DISTINCT] += 1
            return
        at = np.int64((np.uint64(at) + np.uint64(1)) & mask)


@jit
def _store_locked(tt, base, key, move, score, depth, bound, size, line):
    ways = tt.conf[C_WAYS]
    scheme = tt.conf[C_SCHEME]
    two_level = scheme == TWODEEP or scheme == TWOBIG1

    # 1. The position is already there: update its slot (and keep the levels ordered).
    for way in range(ways):
        at = base + way * WORDS
        if not _is_empty(tt, at) and _key_matches(tt, _slot_key(tt, at), key):
            tt.stats[S_UPDATES] += 1
            if _update(tt, at, key, move, score, depth, bound, size, line) and two_level:
                other = base + (1 - way) * WORDS
                if not _is_empty(tt, other):
                    mine = _importance(tt, at)
                    theirs = _importance(tt, other)
                    if (way == 1 and mine >= theirs) or (way == 0 and mine < theirs):
                        _swap_slots(tt, base, base + WORDS)
            return

    # 2. A new position.
    if tt.seen.shape[0] > 1:
        _note_distinct(tt, key)
    if two_level:
        _store_two_level(tt, base, key, move, score, depth, bound, size, line)
        return
    for way in range(ways):                     # an empty slot, level 1 first
        at = base + way * WORDS
        if _is_empty(tt, at):
            tt.stats[S_EMPTY_FILLS] += 1
            _write(tt, at, key, move, score, depth, bound, size, 0, line)
            return
    tt.stats[S_COLLISIONS] += 1
    if scheme == AGE:
        _store_age(tt, base, key, move, score, depth, bound, size, line)
    else:
        _store_one_level(tt, base, key, move, score, depth, bound, size, line)


# -- what the search asks of the table (it reads no conf field and bumps no counter) ------
@jit
def tt_enabled(tt):
    """False for the experiments' "no table" baseline: the search neither probes nor stores."""
    return tt.conf[C_ENABLED] != 0


@jit
def tt_prefetch(tt, key):
    """Start loading the bucket of `key` into the cache. The search calls it right after
    making a move, so that the memory latency of a large table overlaps the child's first
    work (its evaluation) instead of stalling its probe. A bucket can straddle two cache
    lines: both ends are fetched."""
    if tt_enabled(tt):
        base = _bucket_base(tt, key)
        prefetch(tt.slots, base)
        prefetch(tt.slots, base + tt.conf[C_WAYS] * WORDS - 1)


@jit_inline
def tt_lookup(tt, key, ply, depth, alpha, beta, may_cut):
    """Figure 2.7's retrieval at a full-width node, under the experiment switches of 2.7.2.

    Returns (found, move, cut, score, alpha, beta, size, line, bound, depth): `move` is the stored
    move to try first (0 if none or unused); `line` the entry's moves after it (n-ply lines, 2.7.3;
    U0 when off or with no move); `cut` means return `score` now (an exact score, or a bound
    that closed the window); otherwise search with the (possibly narrowed) alpha, beta.
    `may_cut` is the search's own condition for using a score here (not at the root, ...).
    `bound` is the stored score's bound (BOUND_NONE on a miss), whether it was usable or not;
    `depth` the depth it was searched to (-1 on a miss).
    The cut-off and window counters are bumped here."""
    found, move, score, stored_depth, bound, size, line = _probe(tt, key, ply)
    if not found:
        return (False, np.int64(0), False, np.int64(0), alpha, beta, np.int64(0), U0,
                np.int64(BOUND_NONE), stored_depth)
    if tt.conf[C_USE_MOVE] == 0:
        move = np.int64(0)
    if move == 0:
        line = U0
    if tt.conf[C_SAME_DEPTH] != 0:
        deep_enough = stored_depth == depth
    else:
        deep_enough = stored_depth >= depth
    usable = tt.conf[C_USE_EXACT] != 0 if bound == BOUND_EXACT else tt.conf[C_USE_BOUNDS] != 0
    if not (tt.conf[C_USE_SCORE] != 0 and deep_enough and may_cut and usable):
        return True, move, False, score, alpha, beta, size, line, bound, stored_depth
    if bound == BOUND_EXACT:
        tt.stats[S_CUT_EXACT] += 1
        return True, move, True, score, alpha, beta, size, line, bound, stored_depth
    narrowed = False
    if bound == BOUND_LOWER and score > alpha:
        alpha = score
        narrowed = True
    elif bound == BOUND_UPPER and score < beta:
        beta = score
        narrowed = True
    if alpha >= beta:
        if bound == BOUND_LOWER:
            tt.stats[S_CUT_LOWER] += 1
        else:
            tt.stats[S_CUT_UPPER] += 1
        return True, move, True, score, alpha, beta, size, line, bound, stored_depth
    if narrowed:
        tt.stats[S_WINDOW] += 1
    return True, move, False, score, alpha, beta, size, line, bound, stored_depth


@jit
def tt_line_plies(tt):
    """n of the n-ply lines the table stores per entry (1: the best move only)."""
    return tt.conf[C_PV_PLIES]


@jit
def tt_root_line(tt, key):
    """(move, line) stored for the root `key` (0, U0 if absent or with lines off), read
    without counting a probe: the root is not one of the search's lookups."""
    if not _lines_on(tt) or tt.conf[C_USE_MOVE] == 0:
        return np.int64(0), U0
    base = _bucket_base(tt, key)
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]
        if _get(data, BOUND_FIELD) != BOUND_NONE and \
                tt.slots[at] ^ data ^ tt.slots[at + 2] == key:
            move = _get(data, MOVE_FIELD)
            return move, (tt.lines[at // WORDS] if move != 0 else U0)
    return np.int64(0), U0


@jit
def tt_note_line_move(tt):
    """The search ordered first a move of an ancestor's line at a node the table had no
    move for (n-ply lines, 2.7.3)."""
    tt.stats[S_LINE_MOVES] += 1


@jit
def bounded_guess(value, score, bound):
    """The better guess of a node's value from a static `value` and a stored `score`: an
    exact score replaces it, and so does a lower bound above it or an upper bound below it."""
    if (bound == BOUND_EXACT or (bound == BOUND_LOWER and score > value)
            or (bound == BOUND_UPPER and score < value)):
        return score
    return value


@jit_inline
def tt_bound_eval(tt, key, ply, stand_pat):
    """Figure 2.7's Evaluate at a quiescence node: a stored score replaces (exact) or bounds
    the static evaluation. Returns (move, stand_pat)."""
    found, move, score, stored_depth, bound, _ = tt_probe(tt, key, ply)
    if not found:
        return np.int64(0), stand_pat
    if tt.conf[C_USE_MOVE] == 0:
        move = np.int64(0)
    if tt.conf[C_USE_SCORE] != 0 and not (tt.conf[C_SAME_DEPTH] != 0 and stored_depth != 0):
        usable = tt.conf[C_USE_EXACT] != 0 if bound == BOUND_EXACT else tt.conf[C_USE_BOUNDS] != 0
        if usable:
            stand_pat = bounded_guess(stand_pat, score, bound)
    return move, stand_pat


@jit
def tt_hit_weight(tt, size):
    """Nodes a retrieved position adds to the subtree count beyond the one node it is:
    BIGALL counts what its result cost (`size`), the other schemes nothing."""
    if tt.conf[C_SCHEME] == BIGALL and size > 1:
        return size - 1
    return np.int64(0)


@jit
def tt_note_type1(tt):
    """The search refused a stored move that is not legal here (a type-1 error caught)."""
    tt.stats[S_TYPE1_CAUGHT] += 1


@jit
def tt_new_search(tt):
    """Start a search: entries stored so far become old (no sweep over memory), counters
    are reset."""
    tt.conf[C_GEN] = (tt.conf[C_GEN] + 1) & 0xFF
    for i in range(S_LEN):
        tt.stats[i] = 0


@jit
def tt_hashfull(tt):
    """Per mille of the first 1000 slots holding an entry of the current search."""
    total = min(1000, tt.conf[C_BUCKETS] * tt.conf[C_WAYS])
    used = 0
    for slot in range(total):
        data = tt.slots[slot * WORDS + 1]
        if _get(data, BOUND_FIELD) != BOUND_NONE and not _is_old(tt, data):
            used += 1
    return used * 1000 // max(total, 1)


@jit
def _fill_lines(tt, out):
    """stored_lines' kernel: out[slot] = the slot's move, then moves 2..n of its line."""
    for slot in range(out.shape[0]):
        out[slot, 0] = _get(tt.slots[slot * WORDS + 1], MOVE_FIELD)
        if out.shape[1] > 1:
            moves = unpack_line(tt.lines[slot])
            for i in range(out.shape[1] - 1):
                out[slot, i + 1] = moves[i]


@jit
def tt_count_filled(tt):
    """Slots holding any entry (all generations): the thesis' 'non-empty positions'."""
    filled = 0
    for slot in range(tt.conf[C_BUCKETS] * tt.conf[C_WAYS]):
        if _get(tt.slots[slot * WORDS + 1], BOUND_FIELD) != BOUND_NONE:
            filled += 1
    return filled


# -- Python side -------------------------------------------------------------------------
def scheme_index(name: str) -> int:
    """Index of a scheme by name, case-insensitive (DEEP ... TwoBig1, Ancient, Age)."""
    upper = name.strip().upper()
    if upper not in SCHEMES:
        raise ValueError(f"unknown TT scheme {name!r}; one of {', '.join(SCHEME_NAMES.values())}")
    return SCHEMES.index(upper)


def new_table(mb: float = None, positions: int = None, scheme: int = DEFAULT_SCHEME,
              aging: bool = True, key_bits: int = 64, distinct_keys: int = 0,
              pv_plies: int = 1) -> TT:
    """A cleared table of `mb` megabytes (UCI Hash) or holding `positions` entries
    (experiments). Two-level schemes get half as many buckets for the same positions.
    `key_bits` < 64 verifies only the top key bits on a probe (type-1 error experiments).
    `distinct_keys` > 0 counts distinct keys stored (S_DISTINCT) for up to that many.
    `pv_plies` = n in 1..5 stores an n-ply line per entry (thesis 2.7.3; the `lines`
    array, 8 bytes per slot, is allocated only for n > 1 and not counted in `mb`).
    Raises ValueError for a pv_plies outside 1..5."""
    if not 1 <= int(pv_plies) <= MAX_PV_PLIES:
        raise ValueError(f"pv_plies must be 1..{MAX_PV_PLIES}, not {pv_plies!r}")
    ways = 2 if scheme in TWO_LEVEL else 1
    if positions is None:
        positions = int(mb * 1024 * 1024) // SLOT_BYTES
    buckets = max(1, positions // ways)
    conf = np.zeros(C_LEN, dtype=np.int64)
    conf[C_BUCKETS] = buckets
    conf[C_WAYS] = ways
    conf[C_SCHEME] = scheme
    conf[C_AGING] = 1 if aging else 0
    verify = ((1 << 64) - 1) ^ ((1 << (64 - key_bits)) - 1)
    conf[C_VERIFY] = np.array(verify, dtype=np.uint64).view(np.int64)
    conf[C_USE_MOVE] = conf[C_USE_SCORE] = conf[C_USE_EXACT] = conf[C_USE_BOUNDS] = 1
    conf[C_ENABLED] = 1
    conf[C_PV_PLIES] = int(pv_plies)
    conf[C_SHARED] = 1
    # np.zeros maps zero pages lazily: even 1 GB is "allocated and cleared" at once.
    slots = np.zeros(buckets * ways * WORDS, dtype=np.uint64)
    places = 1 << max(1, (2 * distinct_keys - 1).bit_length()) if distinct_keys > 0 else 1
    lines = np.zeros(buckets * ways if pv_plies > 1 else 1, dtype=np.uint64)
    return TT(slots, conf, np.zeros(S_LEN, dtype=np.int64), np.zeros(buckets, dtype=np.int32),
              np.zeros(places, dtype=np.uint64), lines)


# The thesis' 2.7.2 experiments: which parts of an entry the search may use.
TABLE_USES = {            # (enabled, use move, use score, exact scores, bound scores)
    "none": (0, 0, 0, 0, 0),
    "move": (1, 1, 0, 0, 0),
    "score": (1, 0, 1, 1, 1),
    "exact": (1, 0, 1, 1, 0),
    "bounds": (1, 0, 1, 0, 1),
    "full": (1, 1, 1, 1, 1),
}


def set_table_use(tt: TT, use: str = "full") -> None:
    """What the search may use of an entry: one of TABLE_USES ("none": no table at all)."""
    enabled, move, score, exact, bounds = TABLE_USES[use]
    tt.conf[C_ENABLED], tt.conf[C_USE_MOVE], tt.conf[C_USE_SCORE] = enabled, move, score
    tt.conf[C_USE_EXACT], tt.conf[C_USE_BOUNDS] = exact, bounds


def table_entries(tt: TT) -> int:
    """Positions the table can hold (buckets x slots per bucket)."""
    return int(tt.conf[C_BUCKETS] * tt.conf[C_WAYS])


def set_store_rules(tt: TT, play: bool) -> None:
    """Choose the store rules (module docstring): the play profile's, or the thesis'."""
    tt.conf[C_PLAY_RULES] = 1 if play else 0


def set_sharing(tt: TT, shared: bool) -> None:
    """Whether other threads may store into the table during the next search (C_SHARED):
    with one thread, stores skip the bucket locks."""
    tt.conf[C_SHARED] = 1 if shared else 0


def clear_table(tt: TT) -> TT:
    """A fresh, empty table with the same configuration."""
    slots = np.zeros_like(tt.slots)
    conf = tt.conf.copy()
    conf[C_GEN] = 0
    return TT(slots, conf, np.zeros(S_LEN, dtype=np.int64), np.zeros_like(tt.locks),
              np.zeros_like(tt.seen), np.zeros_like(tt.lines))


def stored_keys(tt: TT) -> np.ndarray:
    """The key of every slot, in slot order (0 for an empty slot): word 0 XOR the others."""
    words = tt.slots.reshape(-1, WORDS)
    return words[:, 0] ^ words[:, 1] ^ words[:, 2]


def stored_lines(tt: TT) -> np.ndarray:
    """Each slot's line, in slot order: int64[slots, C_PV_PLIES] of moves, the slot's move
    then moves 2..n of its line (0 past the line's end; all 0 for an empty slot)."""
    out = np.zeros((table_entries(tt), int(tt.conf[C_PV_PLIES])), dtype=np.int64)
    _fill_lines(tt, out)
    return out


def stats_dict(tt: TT) -> dict:
    """The counters of the last search by name (`line_moves`: S_LINE_MOVES, the nodes that
    ordered an ancestor's line move first for lack of a table move)."""
    names = ["probes", "hits", "cut_exact", "cut_lower", "cut_upper", "window", "stores",
             "updates", "collisions", "replaced", "refused", "empty_fills", "type1",
             "type1_caught", "distinct", "line_moves"]
    return {name: int(tt.stats[i]) for i, name in enumerate(names)}
