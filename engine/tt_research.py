"""[jit] What only the thesis' experiments ask of the table: counters, the use switches of
section 2.7.2, the n-ply lines of 2.7.3, the set of distinct keys, and readers of the
whole table. Play pays for none of it beyond a counter increment into memory of its own
thread (each search thread gets its own `stats` array; engine.threads).

Counters (S_* fields of `stats`, reset by engine.tt.tt_new_search; `stats_dict` names
each by its constant: S_CUT_EXACT is "cut_exact").

Use switches (C_USE_*, C_ENABLED, C_SAME_DEPTH in conf; TABLE_USES): which parts of an
entry the search may use.

Open choices (C_TIES_NEW, C_SIZE_QNODES, C_LEAF_CUT, C_ROOT_LINES; set_open_choices):
what the thesis does not pin down, so that an experiment can show whether a conclusion
depends on it. The defaults are TwoBig's: ties go to the new entry, a subtree's size counts
its quiescence nodes, a stored score at a quiescence node replaces or bounds the stand-pat,
and only the previous iteration's PV guides the ordering (ALIBABA kept a refutation line
per root move; engine.search keeps them with root_lines on). In the exact-only and
bounds-only runs of 2.7.2 the table also stores only what it may use
(engine.tt.tt_store_line asks `stores_bound`).

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
"""
import numpy as np

from engine._jit import jit
from engine.tt_layout import (
    BOUND_EXACT, BOUND_FIELD, BOUND_NONE, C_BUCKETS, C_ENABLED, C_LEAF_CUT, C_PV_PLIES,
    C_ROOT_LINES, C_SIZE_QNODES, C_TIES_NEW, C_USE_BOUNDS, C_USE_EXACT, C_USE_MOVE,
    C_USE_SCORE, C_WAYS,
    MOVE_FIELD, TT, WORDS, bucket_base, get_field, lines_on, put_field, table_entries)
from engine.types import U0

# stats fields (reset by engine.tt.tt_new_search)
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
S_UNUSED_KIND = 16  # stores skipped because the search may not use their kind of score
                    # (the exact-only and bounds-only runs of 2.7.2)
S_LEN = 17


def _counter_names():
    """Each counter's name from its constant (S_CUT_EXACT: "cut_exact"), in index order."""
    by_index = {value: name for name, value in globals().items()
                if name.startswith("S_") and name != "S_LEN"}
    return tuple(by_index[i][2:].lower() for i in range(S_LEN))


COUNTER_NAMES = _counter_names()

# The 2.7.2 experiments: which parts of an entry the search may use.
TABLE_USES = {            # (enabled, use move, use score, exact scores, bound scores)
    "none": (0, 0, 0, 0, 0),
    "move": (1, 1, 0, 0, 0),
    "score": (1, 0, 1, 1, 1),
    "exact": (1, 0, 1, 1, 0),
    "bounds": (1, 0, 1, 0, 1),
    "full": (1, 1, 1, 1, 1),
}

# The moves 2..5 of a line in its `lines` word (layout in the module docstring).
LINE_FIELDS = ((0, 0xFFFF), (16, 0xFFFF), (32, 0xFFFF), (48, 0xFFFF))
LINE_MOVES = 4          # moves per line word: an entry's line is at most 1 + 4 = 5 plies
MAX_PV_PLIES = 1 + LINE_MOVES


@jit
def score_kind_usable(tt, bound):
    """The switches let the search use a stored score of this bound (exact or a bound)."""
    return tt.conf[C_USE_EXACT] != 0 if bound == BOUND_EXACT else tt.conf[C_USE_BOUNDS] != 0


@jit
def stores_bound(tt, bound):
    """Whether a result of this bound is worth storing: with the score in use, only the
    kinds the search may use (2.7.2's exact-only and bounds-only tables store only what they
    use); with the score unused (the move-only run), every result, for its move."""
    return tt.conf[C_USE_SCORE] == 0 or score_kind_usable(tt, bound)


@jit
def candidate_wins(tt, candidate, kept):
    """A candidate of importance `candidate` displaces an entry of importance `kept`: when
    more important, and on a tie when ties go to the new entry (C_TIES_NEW)."""
    return candidate > kept or (candidate == kept and tt.conf[C_TIES_NEW] != 0)


@jit
def size_counts_qnodes(tt):
    """A subtree's size (what BIG1, BIGALL and TwoBig1 compare) counts quiescence nodes."""
    return tt.conf[C_SIZE_QNODES] != 0


@jit
def leaf_cut(tt):
    """A stored score usable at a quiescence node returns there (Figure 2.7)."""
    return tt.conf[C_LEAF_CUT] != 0


@jit
def root_lines(tt):
    """Each root move's search follows its own refutation line (engine.search)."""
    return tt.conf[C_ROOT_LINES] != 0


@jit
def pack_line(second, third, fourth, fifth):
    """The `lines` word of moves 2..5 of an entry's line (layout in the module docstring);
    pass 0 for the moves past the line's end."""
    return (put_field(second, LINE_FIELDS[0]) | put_field(third, LINE_FIELDS[1])
            | put_field(fourth, LINE_FIELDS[2]) | put_field(fifth, LINE_FIELDS[3]))


@jit
def unpack_line(line):
    """(move 2, move 3, move 4, move 5) of a `lines` word (0 past the line's end)."""
    return (get_field(line, LINE_FIELDS[0]), get_field(line, LINE_FIELDS[1]),
            get_field(line, LINE_FIELDS[2]), get_field(line, LINE_FIELDS[3]))


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
def tt_line_plies(tt):
    """n of the n-ply lines the table stores per entry (1: the best move only)."""
    return tt.conf[C_PV_PLIES]


@jit
def tt_root_line(tt, key):
    """(move, line) stored for the root `key` (0, U0 if absent or with lines off), read
    without counting a probe: the root is not one of the search's lookups."""
    if not lines_on(tt) or tt.conf[C_USE_MOVE] == 0:
        return np.int64(0), U0
    base = bucket_base(tt, key)
    for way in range(tt.conf[C_WAYS]):
        at = base + way * WORDS
        data = tt.slots[at + 1]
        if get_field(data, BOUND_FIELD) != BOUND_NONE and \
                tt.slots[at] ^ data ^ tt.slots[at + 2] == key:
            move = get_field(data, MOVE_FIELD)
            return move, (tt.lines[at // WORDS] if move != 0 else U0)
    return np.int64(0), U0


@jit
def tt_note_line_move(tt):
    """The search ordered first a move of an ancestor's line at a node the table had no
    move for (n-ply lines, 2.7.3)."""
    tt.stats[S_LINE_MOVES] += 1


@jit
def tt_note_type1(tt):
    """The search refused a stored move that is not legal here (a type-1 error caught)."""
    tt.stats[S_TYPE1_CAUGHT] += 1


@jit
def note_distinct(tt, key):
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
def _fill_lines(tt, out):
    """stored_lines' kernel: out[slot] = the slot's move, then moves 2..n of its line."""
    for slot in range(out.shape[0]):
        out[slot, 0] = get_field(tt.slots[slot * WORDS + 1], MOVE_FIELD)
        if out.shape[1] > 1:
            moves = unpack_line(tt.lines[slot])
            for i in range(out.shape[1] - 1):
                out[slot, i + 1] = moves[i]


@jit
def tt_count_filled(tt):
    """Slots holding any entry (all generations): the thesis' 'non-empty positions'."""
    filled = 0
    for slot in range(tt.conf[C_BUCKETS] * tt.conf[C_WAYS]):
        if get_field(tt.slots[slot * WORDS + 1], BOUND_FIELD) != BOUND_NONE:
            filled += 1
    return filled


# -- Python side -------------------------------------------------------------------------
def set_table_use(tt: TT, use: str = "full") -> None:
    """What the search may use of an entry: one of TABLE_USES ("none": no table at all)."""
    enabled, move, score, exact, bounds = TABLE_USES[use]
    tt.conf[C_ENABLED], tt.conf[C_USE_MOVE], tt.conf[C_USE_SCORE] = enabled, move, score
    tt.conf[C_USE_EXACT], tt.conf[C_USE_BOUNDS] = exact, bounds


OPEN_CHOICES = {          # name: (conf field, TwoBig's default)
    "ties_new": (C_TIES_NEW, True),
    "size_qnodes": (C_SIZE_QNODES, True),
    "leaf_cut": (C_LEAF_CUT, False),
    "root_lines": (C_ROOT_LINES, False),
}


def set_open_choices(tt: TT, **choices: bool) -> None:
    """Set the choices the thesis leaves open (OPEN_CHOICES; the module docstring). Raises
    KeyError for an unknown name."""
    for name, value in choices.items():
        tt.conf[OPEN_CHOICES[name][0]] = 1 if value else 0


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
    """The counters of the last search by name (COUNTER_NAMES), as counted by the thread
    that owns `tt.stats` (the main search thread for a table the engine plays with)."""
    return {name: int(tt.stats[i]) for i, name in enumerate(COUNTER_NAMES)}
