"""Property tests of the transposition table: random sequences of stores, new searches and
probes on tiny tables, replayed on engine.tt and on a plain-Python model of every policy.

The model is written from the sentences that define the policies (Breuker's thesis, section
2.7.1; seed article 000 for Ancient; today's depth-minus-age rule for Age), not from the engine,
so a difference is a bug in one of the two. After every step the whole table is compared.
Where the thesis is silent the model encodes the reading documented in engine/tt_schemes.py, and
says so: which slot goes when time-stamped and current positions share a two-level bucket
("unconditionally overwritten", before any current one; of two old ones the less important),
and how an update of a position already stored keeps the levels ordered.
"""
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import tt as T
from engine import tt_layout as L
from engine import tt_research as R
from engine.tt_registry import REGISTRY, SCHEME_NAMES, scheme_index

EXACT, LOWER, UPPER = T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER

# Slots per bucket, from the thesis' definitions (and Age's two-slot buckets), independent
# of engine.tt_registry: test_registry_levels_follow_the_model compares the two.
MODEL_LEVELS = {"DEEP": 1, "NEW": 1, "OLD": 1, "BIG1": 1, "BIGALL": 1, "TwoDEEP": 2,
                "TwoBig1": 2, "Ancient": 1, "Age": 2}


@dataclass
class Entry:
    key: int
    move: int
    score: int
    depth: int
    bound: int
    gen: int
    used: int
    size: int


class Model:
    """A table of `buckets` buckets of `ways` slots (None = empty); level 1 is slot 0."""

    def __init__(self, scheme, buckets, aging, play, ties_new=True):
        self.scheme, self.aging, self.play = SCHEME_NAMES[scheme], aging, play
        self.ties_new = ties_new                      # a tie goes to the new entry (">=")
        self.ways = MODEL_LEVELS[self.scheme]
        self.buckets = [[None] * self.ways for _ in range(buckets)]
        self.gen = 1                                  # tables start with one new search

    def importance(self, entry):
        """Deep schemes compare depths, Big schemes subtree sizes."""
        return entry.depth if self.scheme in ("DEEP", "TwoDEEP") else entry.size

    def wins(self, candidate, kept):
        """The candidate displaces the kept entry: more important, or as important when ties
        go to the new entry (the thesis' ">="; the other reading keeps the stored one)."""
        mine, theirs = self.importance(candidate), self.importance(kept)
        return mine > theirs or (mine == theirs and self.ties_new)

    def old(self, entry):
        """Time-stamped: stored by an earlier search (only when time stamping is on)."""
        return self.aging and entry.gen != self.gen

    def new_search(self):
        self.gen = (self.gen + 1) & 0xFF

    def probe(self, key):
        for entry in self.buckets[key % len(self.buckets)]:
            if entry is not None and entry.key == key:
                if self.scheme == "Ancient":          # looked up now: protected this search
                    entry.gen, entry.used = self.gen, 1
                return entry
        return None

    def store(self, key, move, score, depth, bound, size):
        if self.play and bound == UPPER:
            move = 0                                  # a fail-low's best move is noise
        new = Entry(key, move, score, depth, bound, self.gen, 0, size)
        bucket = self.buckets[key % len(self.buckets)]
        for i, entry in enumerate(bucket):
            if entry is not None and entry.key == key:
                self.update(bucket, i, entry, new)
                return
        if self.ways == 1:
            self.store_one_level(bucket, new)
        elif self.scheme == "Age":
            self.store_age(bucket, new)
        else:
            self.store_two_level(bucket, new)

    def update(self, bucket, i, entry, new):
        """The same position again: its slot takes the new result. The play rules keep a
        deeper result of this search unless the new one is exact or nearly as deep."""
        if (self.play and new.bound != EXACT and new.depth + T.UPDATE_DEPTH_SLACK < entry.depth
                and entry.gen == self.gen):
            if new.move:
                entry.move = new.move                 # ... but takes a fresher best move
            return
        if new.move == 0:
            new.move = entry.move                     # keep the stored move
        if entry.gen == self.gen:
            new.used = entry.used
        bucket[i] = new
        if self.scheme in ("TwoDEEP", "TwoBig1") and None not in bucket:
            other = bucket[1 - i]                     # the updated one wins ties, as a candidate does
            first, second = (new, other) if self.wins(new, other) else (other, new)
            bucket[:] = [first, second]

    def store_one_level(self, bucket, new):
        entry = bucket[0]
        if entry is None:
            bucket[0] = new
        elif self.scheme == "Ancient":                # kept if looked up during this search
            if not (entry.used and entry.gen == self.gen):
                bucket[0] = new
        elif self.old(entry) or self.scheme == "NEW":
            bucket[0] = new                           # time-stamped: overwritten unconditionally
        elif self.scheme != "OLD" and self.wins(new, entry):
            bucket[0] = new                           # DEEP / BIG1 / BIGALL: the newer wins ties

    def store_age(self, bucket, new):
        """Fill an empty slot, else replace the least depth - 8 * age (level 1 on ties)."""
        if None in bucket:
            bucket[bucket.index(None)] = new
            return
        values = [e.depth - 8 * ((self.gen - e.gen) & 0xFF) for e in bucket]
        bucket[values.index(min(values))] = new

    def store_two_level(self, bucket, new):
        """'The candidate position is always stored, and the less important of the remaining
        two positions is overwritten'; a time-stamped position goes before a current one.
        Level 1 then holds the more important of the two; the candidate wins ties."""
        kept = [e for e in bucket if e is not None]
        if len(kept) == 2:
            old = [i for i, e in enumerate(kept) if self.old(e)]
            victim = old[-1] if old else 1            # level 2 is the less important
            del kept[victim]
        if not kept or self.wins(new, kept[0]):
            bucket[:] = [new] + kept + [None] * (1 - len(kept))
        else:
            bucket[:] = [kept[0], new]


def read_table(tt):
    """The jitted table as the model's buckets."""
    ways = int(tt.conf[L.C_WAYS])
    out = []
    for b in range(int(tt.conf[L.C_BUCKETS])):
        bucket = []
        for w in range(ways):
            at = (b * ways + w) * L.WORDS
            move, score, depth, bound, gen, used = L.unpack_data(tt.slots[at + 1])
            bucket.append(None if bound == T.BOUND_NONE else
                          Entry(int(R.stored_keys(tt)[at // L.WORDS]), move, score, depth, bound, gen, used,
                                int(tt.slots[at + 2])))
        out.append(bucket)
    return out


def test_registry_levels_follow_the_model():
    """Every scheme of the registry has a model, with the same slots per bucket."""
    assert {s.name: s.levels for s in REGISTRY} == MODEL_LEVELS


def new_pair(scheme, buckets, aging, play, ties_new=True):
    ways = MODEL_LEVELS[SCHEME_NAMES[scheme]]
    tt = T.new_table(positions=buckets * ways, scheme=scheme, aging=aging)
    T.set_store_rules(tt, play)
    R.set_open_choices(tt, ties_new=ties_new)
    T.tt_new_search(tt)
    return tt, Model(scheme, buckets, aging, play, ties_new)


STORE = st.tuples(st.just("store"), st.integers(0, 9), st.integers(0, 5), st.integers(-300, 300),
                  st.integers(0, 12), st.sampled_from([EXACT, LOWER, UPPER]),
                  st.one_of(st.integers(1, 6), st.sampled_from([3, 10, 50_000])))
OPS = st.lists(st.one_of(STORE, STORE, STORE, st.tuples(st.just("new")),
                         st.tuples(st.just("probe"), st.integers(0, 9))), max_size=40)


def replay(tt, model, ops):
    for op in ops:
        if op[0] == "store":
            _, key, move, score, depth, bound, size = op
            model.store(key, move, score, depth, bound, size)
            T.tt_store(tt, np.uint64(key), np.int64(0), np.int64(move), np.int64(score),
                       np.int64(depth), np.int64(bound), np.int64(size))
        elif op[0] == "new":
            model.new_search()
            T.tt_new_search(tt)
        else:
            expected = model.probe(op[1])
            found, move, score, depth, bound, size = T.tt_probe(tt, np.uint64(op[1]), np.int64(0))
            got = (move, score, depth, bound, size) if found else None
            assert got == (None if expected is None else (expected.move, expected.score,
                                                          expected.depth, expected.bound,
                                                          expected.size)), op
        assert read_table(tt) == model.buckets, op


@pytest.mark.parametrize("play", [False, True], ids=["thesis-rules", "play-rules"])
@pytest.mark.parametrize("aging", [True, False], ids=["stamped", "unstamped"])
@pytest.mark.parametrize("scheme", range(len(SCHEME_NAMES)), ids=SCHEME_NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(buckets=st.integers(1, 3), ops=OPS)
def test_table_follows_the_reference_model(scheme, aging, play, buckets, ops):
    tt, model = new_pair(scheme, buckets, aging, play)
    replay(tt, model, ops)


@pytest.mark.parametrize("scheme", [scheme_index(name) for name in
                                    ("DEEP", "BIG1", "BIGALL", "TwoDEEP", "TwoBig1")])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aging=st.booleans(), play=st.booleans(), buckets=st.integers(1, 3), ops=OPS)
def test_ties_to_the_stored_entry_follow_the_model(scheme, aging, play, buckets, ops):
    """The other reading of the thesis' comparisons (engine.tt_research, ties_new off): an
    entry exactly as important as the candidate stays."""
    tt, model = new_pair(scheme, buckets, aging, play, ties_new=False)
    replay(tt, model, ops)


@pytest.mark.parametrize("scheme", [scheme_index("TwoDEEP"), scheme_index("TwoBig1")])
@settings(max_examples=300, deadline=None)
@given(aging=st.booleans(), play=st.booleans(), ops=OPS)
def test_level_one_holds_the_more_important_position(scheme, aging, play, ops):
    """The two-level invariant itself, checked directly on the jitted table."""
    tt, model = new_pair(scheme, 1, aging, play)
    for op in ops:
        replay(tt, model, [op])
        first, second = read_table(tt)[0]
        assert second is None or model.importance(first) >= model.importance(second)
        if op[0] == "store" and not play:           # the thesis: the candidate is always stored
            assert any(e is not None and e.key == op[1] for e in (first, second))


def test_a_big_subtree_outlives_two_small_ones_in_a_twobig1_bucket():
    """3, 50,000 and 10 nodes into one TwoBig1 bucket: the 50,000-node result stays."""
    tt, model = new_pair(scheme_index("TwoBig1"), 1, True, False)
    replay(tt, model, [("store", 1, 0, 0, 1, EXACT, 3), ("store", 2, 0, 0, 5, EXACT, 50_000),
                       ("store", 3, 0, 0, 1, EXACT, 10)])
    assert [e.size for e in read_table(tt)[0]] == [50_000, 10]


@pytest.mark.parametrize("score", [-40_000, 40_000, -(1 << 20), 1 << 20])
def test_out_of_range_score_cannot_corrupt_other_fields(score):
    data = L.pack_data(0x1234, score, 9, LOWER, 7, 1)
    move, _, depth, bound, gen, used = L.unpack_data(data)
    assert (move, depth, bound, gen, used) == (0x1234, 9, LOWER, 7, 1)
