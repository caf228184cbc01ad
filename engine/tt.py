"""[jit] The transposition table as the search sees it: make, probe, look up, store,
prefetch, start a search, hashfull, clear.

The table is built in layers, each a module:
  engine.tt_layout    the arrays (`TT`), the slot layout and the conf fields
  engine.tt_research  counters, the use switches of thesis 2.7.2, the n-ply lines of 2.7.3
  engine.tt_registry  the registry of replacement schemes (plain Python)
  engine.tt_schemes   their store policies
  engine.tt           this module: the public face (`__all__`)

Sharing the table between search threads (Lazy SMP, UCI `Threads`):
  - Reads take no lock. A slot's three words are written one after another, so a reader
    racing a writer may see words of two different entries (a torn slot). Word 0 holds the
    key XOR the other two words; a reader reads each word once and recovers the key from
    all three, so a torn slot yields a wrong key and reads as a miss, never as another
    position's entry (Hyatt and Mann's lockless hashing).
  - Stores take the bucket's lock (an atomic compare-and-swap, engine.atomic) for the whole
    update: the two-level move of level 1 to level 2 and the write of the candidate happen
    with no other store in between, so no store loses another's candidate or leaves one
    position in both levels, and every bucket a store finishes keeps the two-level
    invariant (engine.tt_schemes). A reader may see the intermediate state (level 1 copied
    down, not yet overwritten): the same position twice, both copies valid, which a probe
    reads correctly. A store that finds the lock busy for engine.atomic.LOCK_SPINS tries is
    dropped (a lost hint, not a broken bucket). One thread (the thesis' experiments) never
    waits and stays exact.
  - A table searched by one thread (C_SHARED = 0, set by the driver through set_sharing)
    takes no lock: the lock word is a second cache miss per store, for nothing.
  - Each thread counts into its own `stats` array (engine.threads gives helpers theirs).
  - The Ancient probe's "used" mark is a write: it is made only if the lock is free at once.

Store rules (C_PLAY_RULES, set from the search profile with set_store_rules):
  paper  the thesis' Figure 2.7: every store writes its result, the node's best move
         included; an update of the same position always overwrites it.
  play   what strong engines do: an upper bound (fail-low) stores no move, since its
         "best" move is noise, and an update keeps the stored move; an update keeps a
         deeper result of the current search unless the new one is exact or at most
         UPDATE_DEPTH_SLACK plies shallower (a new best move is still written into it).
In both, a store without a move keeps the move already stored for that position, and the
Ancient "used" flag survives an update within the search that set it.
"""
import numpy as np

from engine._jit import jit, jit_inline
from engine.atomic import LOCK_SPINS, prefetch, try_lock, unlock
from engine.tt_layout import (
    BOUND_EXACT, BOUND_FIELD, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, C_AGING, C_BUCKETS,
    C_ENABLED, C_GEN, C_HIT_SIZE, C_IMPORTANCE, C_LEN, C_PLAY_RULES, C_POLICY, C_PV_PLIES,
    C_SAME_DEPTH, C_SCHEME, C_SHARED, C_USE_BOUNDS, C_USE_EXACT, C_USE_MOVE, C_USE_SCORE,
    C_VERIFY, C_WAYS, SLOT_BYTES, TT, WORDS, bucket_base, bucket_of, get_field, is_empty,
    is_old, key_matches, line_at, lines_on, set_data, set_line, slot_key, table_entries,
    unpack_data, with_move, write_slot, score_from_tt, score_to_tt)
from engine.tt_research import (
    MAX_PV_PLIES, OPEN_CHOICES, leaf_cut, S_CUT_EXACT, S_CUT_LOWER, S_CUT_UPPER, S_HITS, S_LEN, S_PROBES, S_STORES,
    S_TYPE1, S_UNUSED_KIND, S_UPDATES, S_WINDOW, line_cut, score_kind_usable, stores_bound)
from engine.tt_registry import DEFAULT_SCHEME, POLICY_KEEP_USED, REGISTRY, scheme_index
from engine.tt_schemes import hit_weight, mark_used, reorder_levels, store_new, two_level
from engine.types import U0

__all__ = [
    "TT", "BOUND_NONE", "BOUND_UPPER", "BOUND_LOWER", "BOUND_EXACT", "SLOT_BYTES",
    "DEFAULT_SCHEME", "scheme_index", "new_table", "clear_table", "table_entries",
    "set_store_rules", "set_sharing", "tt_enabled", "tt_probe", "tt_lookup", "tt_bound_eval",
    "bounded_guess", "tt_store", "tt_store_line", "tt_prefetch", "tt_hit_weight",
    "tt_new_search", "tt_hashfull",
]

UPDATE_DEPTH_SLACK = 2   # play rules: a bound this much shallower may still update an entry


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
    base = bucket_base(tt, key)
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]     # each word read once: a torn slot fails the key check
        if get_field(data, BOUND_FIELD) == BOUND_NONE:
            continue
        size = tt.slots[at + 2]
        stored = tt.slots[at] ^ data ^ size
        if key_matches(tt, stored, key):
            if stored != key:
                tt.stats[S_TYPE1] += 1
            tt.stats[S_HITS] += 1
            move, score, depth, bound, generation, used = unpack_data(data)
            if tt.conf[C_POLICY] == POLICY_KEEP_USED and not (used and generation == tt.conf[C_GEN]):
                mark_used(tt, key, at, stored, data, move, score, depth, bound)
            return (True, move, score_from_tt(score, ply), depth, bound, np.int64(size),
                    line_at(tt, at))
    return (False, np.int64(0), np.int64(0), np.int64(-1), np.int64(BOUND_NONE), np.int64(0),
            U0)


@jit
def _update(tt, at, key, move, score, depth, bound, size, line):
    """Store a position into its own slot; False when the play rules keep the old result.
    A new move brings its line; a store without a move keeps the old move and line."""
    old_move, _, old_depth, _, generation, used = unpack_data(tt.slots[at + 1])
    current = generation == tt.conf[C_GEN]
    if (tt.conf[C_PLAY_RULES] != 0 and bound != BOUND_EXACT and current
            and depth + UPDATE_DEPTH_SLACK < old_depth):
        if move != 0:   # the deeper result stays, but a new best move is fresher
            set_line(tt, at, line)
            set_data(tt, at, key, with_move(tt.slots[at + 1], move))
        return False
    if move == 0:
        move = old_move
        line = line_at(tt, at)
    write_slot(tt, at, key, move, score, depth, bound, size, used if current else 0, line)
    return True


@jit
def _store_locked(tt, base, key, move, score, depth, bound, size, line):
    """The store proper, with the bucket at `base` held: update the position's own slot
    (and keep the levels ordered), or store it as a new position under the policy."""
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        if not is_empty(tt, at) and key_matches(tt, slot_key(tt, at), key):
            tt.stats[S_UPDATES] += 1
            if _update(tt, at, key, move, score, depth, bound, size, line) and two_level(tt):
                reorder_levels(tt, base, way)
            return
    store_new(tt, base, key, move, score, depth, bound, size, line)


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
    if not stores_bound(tt, bound):
        tt.stats[S_UNUSED_KIND] += 1
        return
    score = score_to_tt(score, ply)
    depth = min(max(depth, 0), 255)
    if tt.conf[C_PLAY_RULES] != 0 and bound == BOUND_UPPER:
        move = 0                                # a fail-low's best move is noise
    if move == 0 or not lines_on(tt):
        line = U0
    else:
        line = line_cut(line, tt.conf[C_PV_PLIES] - 1)
    bucket = bucket_of(tt, key)
    shared = tt.conf[C_SHARED] != 0
    if shared and not try_lock(tt.locks, bucket, LOCK_SPINS):
        return
    _store_locked(tt, bucket * tt.conf[C_WAYS] * WORDS, key, move, score, depth, bound, size,
                  line)
    if shared:
        unlock(tt.locks, bucket)


@jit
def tt_enabled(tt):
    """False for the experiments' "no table" baseline: the search neither probes nor stores."""
    return tt.conf[C_ENABLED] != 0


@jit
def tt_prefetch(tt, key):
    """Start loading the bucket of `key` into the cache. The search calls it just before
    making a move (the key from position.key_after), so that the memory latency of a large
    table overlaps the move and the child's first work instead of stalling its probe. A
    bucket can straddle two cache lines: both ends are fetched."""
    if tt_enabled(tt):
        base = bucket_base(tt, key)
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
    usable = score_kind_usable(tt, bound)
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
def bounded_guess(value, score, bound):
    """The better guess of a node's value from a static `value` and a stored `score`: an
    exact score replaces it, and so does a lower bound above it or an upper bound below it."""
    if (bound == BOUND_EXACT or (bound == BOUND_LOWER and score > value)
            or (bound == BOUND_UPPER and score < value)):
        return score
    return value


@jit_inline
def tt_bound_eval(tt, key, ply, stand_pat, alpha, beta):
    """Figure 2.7's Evaluate at a quiescence node: a stored score replaces (exact) or bounds
    the static evaluation. With the leaf cut-off (engine.tt_research.leaf_cut) a usable
    score returns as it would at any node: an exact one, or a bound outside the window.
    Returns (move, stand_pat, cut): with `cut`, stand_pat is the node's value."""
    found, move, score, stored_depth, bound, _ = tt_probe(tt, key, ply)
    if not found:
        return np.int64(0), stand_pat, False
    if tt.conf[C_USE_MOVE] == 0:
        move = np.int64(0)
    if tt.conf[C_USE_SCORE] != 0 and not (tt.conf[C_SAME_DEPTH] != 0 and stored_depth != 0):
        if score_kind_usable(tt, bound):
            if leaf_cut(tt) and (bound == BOUND_EXACT or (bound == BOUND_LOWER and score >= beta)
                                 or (bound == BOUND_UPPER and score <= alpha)):
                return move, score, True
            stand_pat = bounded_guess(stand_pat, score, bound)
    return move, stand_pat, False


@jit
def tt_hit_weight(tt, size):
    """Nodes a retrieved position adds to the subtree count beyond the one node it is
    (engine.tt_schemes.hit_weight: BIGALL counts what its result cost)."""
    return hit_weight(tt, size)


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
        if get_field(data, BOUND_FIELD) != BOUND_NONE and not is_old(tt, data):
            used += 1
    return used * 1000 // max(total, 1)


# -- Python side -------------------------------------------------------------------------
def new_table(mb: float = None, positions: int = None, scheme: int = DEFAULT_SCHEME,
              aging: bool = True, key_bits: int = 64, distinct_keys: int = 0,
              pv_plies: int = 1) -> TT:
    """A cleared table of `mb` megabytes (UCI Hash) or holding `positions` entries
    (experiments), under the scheme REGISTRY[scheme] (engine.tt_registry.scheme_index gives
    the index of a name). Two-level schemes get half as many buckets for the same positions.
    `key_bits` < 64 verifies only the top key bits on a probe (type-1 error experiments).
    `distinct_keys` > 0 counts distinct keys stored (S_DISTINCT) for up to that many.
    `pv_plies` = n in 1..5 stores an n-ply line per entry (thesis 2.7.3; the `lines`
    array, 8 bytes per slot, is allocated only for n > 1 and not counted in `mb`).
    Raises ValueError for a pv_plies outside 1..5."""
    if not 1 <= int(pv_plies) <= MAX_PV_PLIES:
        raise ValueError(f"pv_plies must be 1..{MAX_PV_PLIES}, not {pv_plies!r}")
    declared = REGISTRY[scheme]
    ways = declared.levels
    if positions is None:
        positions = int(mb * 1024 * 1024) // SLOT_BYTES
    buckets = max(1, positions // ways)
    conf = np.zeros(C_LEN, dtype=np.int64)
    conf[C_BUCKETS] = buckets
    conf[C_WAYS] = ways
    conf[C_SCHEME] = scheme
    conf[C_POLICY] = declared.policy
    conf[C_IMPORTANCE] = declared.importance
    conf[C_HIT_SIZE] = 1 if declared.hit_counts_size else 0
    conf[C_AGING] = 1 if aging else 0
    verify = ((1 << 64) - 1) ^ ((1 << (64 - key_bits)) - 1)
    conf[C_VERIFY] = np.array(verify, dtype=np.uint64).view(np.int64)
    conf[C_USE_MOVE] = conf[C_USE_SCORE] = conf[C_USE_EXACT] = conf[C_USE_BOUNDS] = 1
    conf[C_ENABLED] = 1
    conf[C_PV_PLIES] = int(pv_plies)
    conf[C_SHARED] = 1
    for field, default in OPEN_CHOICES.values():
        conf[field] = 1 if default else 0
    # np.zeros maps zero pages lazily: even 1 GB is "allocated and cleared" at once.
    slots = np.zeros(buckets * ways * WORDS, dtype=np.uint64)
    places = 1 << max(1, (2 * distinct_keys - 1).bit_length()) if distinct_keys > 0 else 1
    lines = np.zeros(buckets * ways if pv_plies > 1 else 1, dtype=np.uint64)
    return TT(slots, conf, np.zeros(S_LEN, dtype=np.int64), np.zeros(buckets, dtype=np.int32),
              np.zeros(places, dtype=np.uint64), lines)


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
