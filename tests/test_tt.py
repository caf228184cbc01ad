"""The transposition table: packing, every replacement rule, time stamping, counters,
mate-score re-basing, key verification, and agreement of Python and jitted callers."""
import numpy as np
import pytest

from engine import tt as T
from engine import tt_layout as L
from engine import tt_research as R
from engine.tt_registry import REGISTRY, SCHEME_NAMES, scheme_index
from engine._jit import jit
from engine.atomic import prefetch
from engine.types import MATE

EXACT, LOWER, UPPER = T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER


def table(scheme, buckets=1, aging=True, key_bits=64):
    ways = REGISTRY[scheme].levels
    tt = T.new_table(positions=buckets * ways, scheme=scheme, aging=aging, key_bits=key_bits)
    T.tt_new_search(tt)
    return tt


def key(n, buckets=1):
    """Distinct keys that all fall in bucket 0 of a table with `buckets` buckets."""
    return np.uint64(n * buckets)


def store(tt, k, depth=1, size=1, move=0, score=0, bound=EXACT, ply=0):
    T.tt_store(tt, np.uint64(k), np.int64(ply), np.int64(move), np.int64(score),
               np.int64(depth), np.int64(bound), np.int64(size))


def probe(tt, k, ply=0):
    return T.tt_probe(tt, np.uint64(k), np.int64(ply))


def present(tt, k):
    return bool(probe(tt, k)[0])


# -- packing ------------------------------------------------------------------------------
@pytest.mark.parametrize("move", [0, 1, 0x0FFF, 0x1234, 0x3F3F, 0x7FFF, 0xFFFF])
@pytest.mark.parametrize("score", [-32000, -MATE, -MATE + 77, -1, 0, 1, 999, MATE - 3, 32000])
@pytest.mark.parametrize("depth", [0, 1, 127, 255])
def test_pack_round_trip(move, score, depth):
    for bound in (0, 1, 2, 3):
        for generation in (0, 1, 200, 255):
            for used in (0, 1):
                data = L.pack_data(move, score, depth, bound, generation, used)
                assert L.unpack_data(data) == (move, score, depth, bound, generation, used)


def test_pack_matches_the_documented_layout():
    """Word 1 of a slot as engine/tt_layout.py and docs/architecture.md document it: move in bits
    0-15, score + 32768 in 16-31, depth in 32-39, bound in 40-41, generation in 42-49,
    the used flag in bit 50. Worked out by hand for two entries."""
    assert L.pack_data(0x1234, -5, 9, EXACT, 3, 1) == \
        0x1234 | (32763 << 16) | (9 << 32) | (3 << 40) | (3 << 42) | (1 << 50)
    assert L.pack_data(0xFFFF, MATE - 3, 255, LOWER, 255, 0) == \
        0xFFFF | ((32768 + MATE - 3) << 16) | (255 << 32) | (2 << 40) | (255 << 42)
    assert (EXACT, LOWER, UPPER) == (3, 2, 1)


def test_pack_every_move_kind():
    from engine.board import Board
    board = Board("r3k2r/1P6/8/3pP3/8/8/6pP/R3K2R w KQkq d6 0 1")
    flags = {m >> 12 for m in board.legal_moves()}
    assert flags == set(range(8))
    for move in board.legal_moves():
        assert L.unpack_data(L.pack_data(move, -5, 9, EXACT, 3, 0))[0] == move


def test_mate_scores_rebased_by_ply():
    tt = table(scheme_index("TwoBig1"))
    store(tt, 5, score=MATE - 7, ply=4)         # mate in 7 plies from the root, 3 from the node
    assert probe(tt, 5, ply=4)[2] == MATE - 7
    assert probe(tt, 5, ply=10)[2] == MATE - 13   # same node reached deeper: farther mate
    store(tt, 6, score=-(MATE - 9), ply=2)
    assert probe(tt, 6, ply=0)[2] == -(MATE - 7)
    store(tt, 7, score=150, ply=9)
    assert probe(tt, 7, ply=1)[2] == 150


# -- replacement schemes (one bucket, so every new position collides) ---------------------
def test_deep_keeps_deeper():
    tt = table(scheme_index("DEEP"))
    store(tt, key(1), depth=5)
    store(tt, key(2), depth=4)
    assert present(tt, key(1)) and not present(tt, key(2))
    store(tt, key(3), depth=5)                   # ties: the newer wins
    assert present(tt, key(3)) and not present(tt, key(1))
    assert tt.stats[R.S_REFUSED] == 1 and tt.stats[R.S_REPLACED] == 1


def test_new_always_replaces_and_old_never():
    tt = table(scheme_index("NEW"))
    store(tt, key(1), depth=9, size=1000)
    store(tt, key(2), depth=1, size=1)
    assert present(tt, key(2)) and not present(tt, key(1))
    tt = table(scheme_index("OLD"))
    store(tt, key(1), depth=1, size=1)
    store(tt, key(2), depth=9, size=10 ** 6)
    assert present(tt, key(1)) and not present(tt, key(2))
    assert tt.stats[R.S_REFUSED] == 1


@pytest.mark.parametrize("scheme", [scheme_index("BIG1"), scheme_index("BIGALL")])
def test_big_keeps_bigger_subtree_not_deeper(scheme):
    tt = table(scheme)
    store(tt, key(1), depth=2, size=5000)
    store(tt, key(2), depth=6, size=4999)       # deeper but smaller: refused
    assert present(tt, key(1)) and not present(tt, key(2))
    store(tt, key(3), depth=1, size=5001)       # shallower but bigger: replaces
    assert present(tt, key(3)) and not present(tt, key(1))
    assert probe(tt, key(3))[5] == 5001


def test_twodeep_shifts_level1_to_level2():
    tt = table(scheme_index("TwoDEEP"))
    store(tt, key(1), depth=3)                  # level 1 (empty)
    store(tt, key(2), depth=1)                  # level 2 (empty)
    store(tt, key(3), depth=3)                  # >= level 1: 1 -> level 2, 3 -> level 1
    assert present(tt, key(3)) and present(tt, key(1)) and not present(tt, key(2))
    store(tt, key(4), depth=2)                  # < level 1 (3): replaces level 2 (key 1)
    assert present(tt, key(3)) and present(tt, key(4)) and not present(tt, key(1))
    keys = R.stored_keys(tt)
    assert int(keys[0]) == key(3) and int(keys[1]) == key(4)


def test_twobig1_compares_sizes():
    tt = table(scheme_index("TwoBig1"))
    store(tt, key(1), depth=1, size=900)
    store(tt, key(2), depth=8, size=10)
    store(tt, key(3), depth=8, size=800)        # < 900: level 2 (evicts key 2)
    assert present(tt, key(1)) and present(tt, key(3)) and not present(tt, key(2))
    store(tt, key(4), depth=0, size=901)        # >= 900: shift, key 3 evicted
    keys = R.stored_keys(tt)
    assert int(keys[0]) == key(4) and int(keys[1]) == key(1)
    assert not present(tt, key(3))


def test_same_position_updates_in_place_and_keeps_move():
    tt = table(scheme_index("TwoBig1"))
    store(tt, key(1), depth=3, size=50, move=0x1234, score=10, bound=LOWER)
    store(tt, key(2), depth=3, size=10)
    store(tt, key(1), depth=5, size=7, move=0, score=-20, bound=UPPER)
    found, move, score, depth, bound, size = probe(tt, key(1))
    assert (found, move, score, depth, bound, size) == (True, 0x1234, -20, 5, UPPER, 7)
    assert present(tt, key(2))
    assert tt.stats[R.S_UPDATES] == 1 and tt.stats[R.S_COLLISIONS] == 0


# -- time stamping --------------------------------------------------------------------------
@pytest.mark.parametrize("scheme", [scheme_index("DEEP"), scheme_index("OLD"), scheme_index("BIG1"), scheme_index("BIGALL")])
def test_old_entries_are_read_then_overwritten_unconditionally(scheme):
    tt = table(scheme, aging=True)
    store(tt, key(1), depth=9, size=10 ** 6)
    T.tt_new_search(tt)
    assert present(tt, key(1))                  # still read after the search
    store(tt, key(2), depth=0, size=1)          # loses on every rule, but the old one goes
    assert present(tt, key(2)) and not present(tt, key(1))
    tt = table(scheme, aging=False)
    store(tt, key(1), depth=9, size=10 ** 6)
    T.tt_new_search(tt)
    store(tt, key(2), depth=0, size=1)
    assert present(tt, key(1)) and not present(tt, key(2))


@pytest.mark.parametrize("scheme", [scheme_index("TwoDEEP"), scheme_index("TwoBig1")])
def test_two_level_time_stamped_goes_first_and_levels_stay_ordered(scheme):
    tt = table(scheme)
    store(tt, key(1), depth=9, size=10 ** 6)
    store(tt, key(2), depth=1, size=1)
    T.tt_new_search(tt)
    store(tt, key(3), depth=1, size=1)          # both old: the less important (level 2) goes
    keys = R.stored_keys(tt)
    assert [int(keys[0]), int(keys[1])] == [key(1), key(3)]
    store(tt, key(4), depth=0, size=0)          # old level 1 goes before current level 2,
    keys = R.stored_keys(tt)
    assert [int(keys[0]), int(keys[1])] == [key(3), key(4)]   # which rises to level 1


@pytest.mark.parametrize("scheme", [scheme_index("TwoDEEP"), scheme_index("TwoBig1")])
def test_two_level_update_reorders_levels(scheme):
    tt = table(scheme)
    store(tt, key(1), depth=5, size=500)
    store(tt, key(2), depth=2, size=20)
    store(tt, key(2), depth=7, size=900)        # level 2 grows past level 1: they swap
    keys = R.stored_keys(tt)
    assert [int(keys[0]), int(keys[1])] == [key(2), key(1)]


def test_ancient_protects_entries_used_in_this_search():
    tt = table(scheme_index("Ancient"))
    store(tt, key(1), depth=1)
    store(tt, key(2), depth=1)                  # key 1 unused: replaced
    assert present(tt, key(2)) and not present(tt, key(1))   # the probe marks key 2 used
    store(tt, key(3), depth=9)
    assert present(tt, key(2)) and not present(tt, key(3))
    T.tt_new_search(tt)                         # every entry is ancient again
    store(tt, key(3), depth=0)
    assert present(tt, key(3)) and not present(tt, key(2))


def test_age_replaces_least_depth_minus_age():
    tt = table(scheme_index("Age"))
    store(tt, key(1), depth=10)
    store(tt, key(2), depth=4)
    store(tt, key(3), depth=1)                  # both current: the shallower (key 2) goes
    assert present(tt, key(1)) and present(tt, key(3)) and not present(tt, key(2))
    T.tt_new_search(tt)
    T.tt_new_search(tt)                         # two searches old: key 1 scores 10 - 16, key 3 1 - 16
    store(tt, key(4), depth=0)
    assert present(tt, key(1)) and not present(tt, key(3))


# -- keys -------------------------------------------------------------------------------------
def test_full_key_collision_never_returns_other_position():
    tt = table(scheme_index("TwoBig1"), buckets=4)
    a, b = np.uint64(8), np.uint64(8 + 4 * 1000)   # same bucket (mod 4), different keys
    store(tt, a, move=111, score=5)
    assert not present(tt, b)
    store(tt, b, move=222, score=6)
    assert probe(tt, a)[1:3] == (111, 5) and probe(tt, b)[1:3] == (222, 6)


def test_short_verification_counts_type1_errors():
    tt = table(scheme_index("TwoBig1"), buckets=4, key_bits=16)
    a = np.uint64(0xABCD000000000010)
    b = np.uint64(0xABCD000000000020)              # same top 16 bits, same bucket
    store(tt, a, move=111)
    found, move = probe(tt, b)[:2]
    assert found and move == 111 and tt.stats[R.S_TYPE1] == 1


def test_sizes_and_memory():
    tt = T.new_table(mb=1, scheme=scheme_index("TwoBig1"))
    assert tt.slots.nbytes <= 1024 * 1024
    assert tt.conf[L.C_BUCKETS] * 2 * T.SLOT_BYTES > 1024 * 1024 - 2 * T.SLOT_BYTES
    one = T.new_table(positions=8192, scheme=scheme_index("DEEP"))
    two = T.new_table(positions=8192, scheme=scheme_index("TwoDEEP"))
    assert one.conf[L.C_BUCKETS] == 8192 and two.conf[L.C_BUCKETS] == 4096
    assert one.slots.nbytes == two.slots.nbytes


def test_hashfull_counts_current_generation():
    tt = T.new_table(positions=2000, scheme=scheme_index("DEEP"))
    T.tt_new_search(tt)
    for k in range(500):
        store(tt, k)
    assert T.tt_hashfull(tt) == 500
    T.tt_new_search(tt)
    assert T.tt_hashfull(tt) == 0 and R.tt_count_filled(tt) == 500


@jit
def _jitted_roundtrip(tt, keys, out):
    for i in range(keys.shape[0]):
        tt_store_ = T.tt_store
        tt_store_(tt, keys[i], 0, i & 0xFFFF, i % 1000, i % 30, 3, i)
    for i in range(keys.shape[0]):
        found, move, score, depth, bound, size = T.tt_probe(tt, keys[i], 0)
        out[i, 0] = found
        out[i, 1] = move
        out[i, 2] = score
        out[i, 3] = size


@pytest.mark.parametrize("scheme", range(len(SCHEME_NAMES)))
def test_python_and_jitted_callers_agree(scheme):
    """The same stores from a jitted caller (literal arguments typed by numba) and from
    Python leave the same slots. That the two agree says nothing of whether either is
    right: every probe that finds a key is also checked against what was stored for that
    key (the last store of it; keys here are distinct, so exactly the one store)."""
    rng = np.random.default_rng(scheme)
    keys = rng.integers(0, 2 ** 63, size=3000, dtype=np.int64).astype(np.uint64) * np.uint64(2)
    a = T.new_table(positions=1024, scheme=scheme)
    b = T.new_table(positions=1024, scheme=scheme)
    T.tt_new_search(a)
    T.tt_new_search(b)
    out = np.zeros((len(keys), 4), dtype=np.int64)
    _jitted_roundtrip(a, keys, out)
    for i, k in enumerate(keys):
        store(b, k, move=i & 0xFFFF, score=i % 1000, depth=i % 30, bound=EXACT, size=i)
    assert len(set(keys.tolist())) == len(keys)
    for i, k in enumerate(keys):
        found, move, score, depth, bound, size = probe(b, k)
        assert (int(found), move, score, size) == tuple(out[i]) or not found and out[i, 0] == 0
        if found:     # the oracle: what was stored for this key, field by field
            assert (move, score, depth, bound, size) == (i & 0xFFFF, i % 1000, i % 30, EXACT, i)
    assert np.array_equal(a.slots, b.slots)
    assert out[:, 0].sum() > 0


def test_distinct_keys_are_counted_once_each():
    """The experiments' M of equation 2.2: a key stored, evicted and stored again, or
    updated, counts once."""
    tt = T.new_table(positions=1, scheme=scheme_index("DEEP"), distinct_keys=16)
    for k in (1, 2, 1, 3, 2, 2, 1):
        store(tt, key(k), depth=k)
    assert int(tt.stats[R.S_DISTINCT]) == 3
    assert R.stats_dict(tt)["distinct"] == 3
    off = T.new_table(positions=1, scheme=scheme_index("DEEP"))
    store(off, key(1), depth=1)
    assert int(off.stats[R.S_DISTINCT]) == 0


def test_distinct_key_set_stops_counting_at_half_full():
    """Past half full the set counts no more (its probes would grow without bound): the
    count stops at half the places, and storing many more keys stays a short probe."""
    tt = T.new_table(positions=1, scheme=scheme_index("DEEP"), distinct_keys=16)
    places = tt.seen.shape[0]
    for k in range(1, 10 * places):
        store(tt, key(k), depth=1)
    assert int(tt.stats[R.S_DISTINCT]) == places // 2
    assert int((tt.seen != 0).sum()) == places // 2


@jit
def _prefetch_far(array):
    from_start = np.int64(0)
    prefetch(array, from_start)
    prefetch(array, np.int64(1) << np.int64(40))     # far outside the array: a hint, no fault


def test_prefetch_changes_nothing():
    """tt_prefetch (called after every move the search makes) only warms the cache: a full
    table, an enabled or a disabled one, reads the same afterwards, and a prefetch outside
    an array does not fault."""
    tt = T.new_table(positions=64, scheme=scheme_index("TwoBig1"))
    T.tt_new_search(tt)
    for k in range(1, 200):
        store(tt, np.uint64(k * 0x9E3779B97F4A7C15 % 2 ** 64), depth=k % 9, size=k, move=k)
    for use in ("full", "none"):
        R.set_table_use(tt, use)
        before = [np.copy(array) for array in tt]
        for k in range(1000):
            T.tt_prefetch(tt, np.uint64(k * 0x2545F4914F6CDD1D % 2 ** 64))
        assert all(np.array_equal(a, b) for a, b in zip(before, tt))
    _prefetch_far(tt.slots)


@pytest.mark.parametrize("scheme", [scheme_index("TwoBig1"), scheme_index("DEEP"), scheme_index("Age")])
def test_unshared_table_stores_the_same_without_locks(scheme):
    """A table one thread owns (set_sharing False) skips the bucket locks: the same stores
    leave the same slots as in a shared table, and no lock word is touched. A lock held by
    someone else would make a shared table drop the store, so holding every lock tells the
    two paths apart."""
    tables = []
    for shared in (True, False):
        tt = T.new_table(positions=16, scheme=scheme)
        T.tt_new_search(tt)
        T.set_sharing(tt, shared)
        for k in range(1, 300):
            store(tt, np.uint64(k * 0x9E3779B97F4A7C15 % 2 ** 64), depth=k % 7, size=k % 11,
                  move=k)
        tables.append(tt)
    assert np.array_equal(tables[0].slots, tables[1].slots)
    assert not tables[1].locks.any()
    held = T.new_table(positions=16, scheme=scheme)
    T.tt_new_search(held)
    held.locks[:] = 1
    T.set_sharing(held, True)
    store(held, 5)
    assert not present(held, 5)          # the lock was busy: the store was dropped
    T.set_sharing(held, False)
    store(held, 5)
    assert present(held, 5)


def test_driver_shares_the_table_only_with_helper_threads():
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session
    session = Session(hash_mb=1)
    for threads, shared in ((2, 1), (1, 0)):
        session.set_threads(threads)
        session.search(Board(), Limits(depth=3))
        assert session.table.conf[L.C_SHARED] == shared
