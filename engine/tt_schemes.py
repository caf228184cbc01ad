"""[jit] The replacement policies of the schemes in engine.tt_registry.

engine.tt_registry declares each scheme once (name, levels, what it compares, policy);
engine.tt.new_table copies the entry's policy into the table's conf, so the kernels below
branch on the policy (POLICY_* of the registry), never on a scheme's name.

Replacement, when a store finds its bucket holding other positions (a type-2 collision),
per Breuker's thesis section 2.7.1:
  DEEP     keep the deeper subtree (the new one wins ties)
  NEW      always replace
  OLD      never replace
  BIG1     keep the bigger subtree in nodes; a retrieved position counted 1 node
  BIGALL   as BIG1; a retrieved position counted the nodes stored with it
           (the counting is the search's job: it passes the size it measured)
  TwoDEEP  two levels: new depth >= level 1's: level 1 moves to level 2, new takes
           level 1; otherwise the new one takes level 2
  TwoBig1  two levels, as TwoDEEP compared by BIG1 subtree size (the default)
  Ancient  one level; an entry used in a lookup during this search is kept, any other
           is replaced (the "ancient flag" policy of the seed article 000)
  Age      two levels; fill an empty slot, else replace the slot with the least
           depth - 8 * generations of age (today's engines, e.g. Stockfish); no ordering

The two-level invariant (POLICY_TWO_LEVEL). Call depth (TwoDEEP) or subtree size (TwoBig1)
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
"""
import numpy as np

from engine._jit import jit
from engine.atomic import try_lock, unlock
from engine.tt_layout import (
    C_GEN, C_HIT_SIZE, C_IMPORTANCE, C_POLICY, C_WAYS, DEPTH_FIELD, GENERATION_FIELD,
    USED_FIELD, WORDS, bucket_of, copy_slot, get_field, is_empty, is_old, is_stamped,
    pack_data, set_data, slot_key, swap_slots, write_slot)
from engine.tt_registry import (
    AGE_WEIGHT, BY_DEPTH, POLICY_AGE, POLICY_ALWAYS, POLICY_KEEP_USED, POLICY_NEVER,
    POLICY_TWO_LEVEL)
from engine.tt_research import (
    S_COLLISIONS, S_EMPTY_FILLS, S_REFUSED, S_REPLACED, candidate_wins, note_distinct)


@jit
def importance(tt, at):
    """What the scheme compares of the entry at `at`: its depth, or its subtree size."""
    if tt.conf[C_IMPORTANCE] == BY_DEPTH:
        return np.int64(get_field(tt.slots[at + 1], DEPTH_FIELD))
    return np.int64(tt.slots[at + 2])


@jit
def candidate_importance(tt, depth, size):
    if tt.conf[C_IMPORTANCE] == BY_DEPTH:
        return np.int64(depth)
    return np.int64(size)


@jit
def two_level(tt):
    """The bucket's two slots are kept ordered by importance (TwoDEEP, TwoBig1)."""
    return tt.conf[C_POLICY] == POLICY_TWO_LEVEL


@jit
def reorder_levels(tt, base, way):
    """After an update of the slot at `way` of a two-level bucket: the more important slot
    takes level 1 (ties as candidate_wins decides them)."""
    at = base + way * WORDS
    other = base + (1 - way) * WORDS
    if not is_empty(tt, other):
        wins = candidate_wins(tt, importance(tt, at), importance(tt, other))
        if (way == 1 and wins) or (way == 0 and not wins):
            swap_slots(tt, base, base + WORDS)


@jit
def mark_used(tt, key, at, stored, data, move, score, depth, bound):
    """Ancient: a looked-up entry is protected until the next search (its stamp becomes
    "now, used"), if nothing else is storing into its bucket at this moment."""
    bucket = bucket_of(tt, key)
    if try_lock(tt.locks, bucket, 1):
        if tt.slots[at + 1] == data and slot_key(tt, at) == stored:
            set_data(tt, at, stored, pack_data(move, score, depth, bound, tt.conf[C_GEN], 1))
        unlock(tt.locks, bucket)


@jit
def hit_weight(tt, size):
    """Nodes a retrieved position adds to the subtree count beyond the one node it is:
    BIGALL counts what its result cost (`size`), the other schemes nothing."""
    if tt.conf[C_HIT_SIZE] != 0 and size > 1:
        return size - 1
    return np.int64(0)


@jit
def _store_one_level(tt, at, key, move, score, depth, bound, size, line):
    """The one-level policies on a collision in a one-slot bucket."""
    policy = tt.conf[C_POLICY]
    data = tt.slots[at + 1]
    if policy == POLICY_KEEP_USED:
        replace = not (get_field(data, USED_FIELD) != 0 and not is_old(tt, data))
    elif is_stamped(tt, at) or policy == POLICY_ALWAYS:
        replace = True
    elif policy == POLICY_NEVER:
        replace = False
    else:
        replace = candidate_wins(tt, candidate_importance(tt, depth, size), importance(tt, at))
    if replace:
        tt.stats[S_REPLACED] += 1
        write_slot(tt, at, key, move, score, depth, bound, size, 0, line)
    else:
        tt.stats[S_REFUSED] += 1


@jit
def _store_age(tt, base, key, move, score, depth, bound, size, line):
    """Age: replace the slot with the least depth - AGE_WEIGHT * age (level 1 on ties)."""
    victim = base
    worst = np.int64(1) << 30
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]
        age = (tt.conf[C_GEN] - get_field(data, GENERATION_FIELD)) & 0xFF
        value = get_field(data, DEPTH_FIELD) - AGE_WEIGHT * age
        if value < worst:
            worst = value
            victim = at
    tt.stats[S_REPLACED] += 1
    write_slot(tt, victim, key, move, score, depth, bound, size, 0, line)


@jit
def _store_two_level(tt, base, key, move, score, depth, bound, size, line):
    """TwoDEEP and TwoBig1 for a new position: the candidate is always stored; the victim
    is an empty slot, else a time-stamped one, else level 2; the more important of the
    candidate and the survivor takes level 1 (module docstring)."""
    level1 = base
    level2 = base + WORDS
    if is_empty(tt, level1):                    # then level 2 is empty too
        tt.stats[S_EMPTY_FILLS] += 1
        write_slot(tt, level1, key, move, score, depth, bound, size, 0, line)
        return
    if is_empty(tt, level2):
        tt.stats[S_EMPTY_FILLS] += 1
        survivor = level1
    else:
        tt.stats[S_COLLISIONS] += 1
        tt.stats[S_REPLACED] += 1
        if is_stamped(tt, level2) or not is_stamped(tt, level1):
            survivor = level1
        else:
            survivor = level2                   # an old level 1 goes before a current level 2
    if candidate_wins(tt, candidate_importance(tt, depth, size), importance(tt, survivor)):
        if survivor == level1:
            copy_slot(tt, level1, level2)
        write_slot(tt, level1, key, move, score, depth, bound, size, 0, line)
    else:
        if survivor == level2:
            copy_slot(tt, level2, level1)
        write_slot(tt, level2, key, move, score, depth, bound, size, 0, line)


@jit
def store_new(tt, base, key, move, score, depth, bound, size, line):
    """Store a position the bucket at `base` does not hold, under the table's policy."""
    if tt.seen.shape[0] > 1:
        note_distinct(tt, key)
    policy = tt.conf[C_POLICY]
    if policy == POLICY_TWO_LEVEL:
        _store_two_level(tt, base, key, move, score, depth, bound, size, line)
        return
    for way in range(tt.conf[C_WAYS]):          # an empty slot, level 1 first
        at = base + way * WORDS
        if is_empty(tt, at):
            tt.stats[S_EMPTY_FILLS] += 1
            write_slot(tt, at, key, move, score, depth, bound, size, 0, line)
            return
    tt.stats[S_COLLISIONS] += 1
    if policy == POLICY_AGE:
        _store_age(tt, base, key, move, score, depth, bound, size, line)
    else:
        _store_one_level(tt, base, key, move, score, depth, bound, size, line)
