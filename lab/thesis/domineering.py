"""Domineering solved with the engine's transposition table (Breuker's thesis, 2.5.2 and 2.7.1).

The solver follows the thesis' DOMI: plain alpha-beta returning win or loss for the player to
move, Zobrist hashing by occupied squares (2.3.1: one random number per square, the XOR of the
occupied squares, no side-to-move number since the first player is fixed per solve), the
three reflections of the board looked up when a position itself is not in the table, and the
move ordering by the decrements of real and safe moves. The table is engine.tt, called as it
is: every entry is an exact score (+1 win, -1 loss for the player to move), no move, and a
depth and subtree size under the measures below, so DEEP, NEW, OLD, BIG1, BIGALL, TwoDEEP and
TwoBig1 decide replacement exactly as they do for chess.

Board layout: "lines" of empty-square bits, kept twice (the bit-index layout)

  rows   int64[m]   rows[r] bit c = 1 <=> square (r, c) is empty   (n <= 9 bits per word)
  cols   int64[n]   cols[c] bit r = 1 <=> square (r, c) is empty   (m <= 8 bits per word)

Up to 8 x 9 = 72 squares: one uint64 bitboard cannot hold them, two arrays of short words
can, and they make both players the same code. Horizontal places dominoes inside a row,
Vertical inside a column, so for the player to move its "own lines" are the lines its dominoes
lie in (rows for Horizontal, columns for Vertical) and the opponent's lines are the others. A
move is a pair (i, j): own line i, bits j and j + 1; it clears those two bits of own[i] and bit
i of opp[j] and opp[j + 1]. The recursion swaps the two arrays at every ply.

Move code (moves scratch array, one pack/unpack pair: _pack_move / _unpack_move)

  bits 0..3   j: the first bit of the domino in its line (0..8)
  bits 4..7   i: the line (row for Horizontal, column for Vertical; 0..8)

Squares are numbered r * n + c for the Zobrist keys. Key tables (built in Python, `Keys`):

  zobrist  uint64[m * n]          one random number per square (numpy generator, `key_seed`)
  mkeys    uint64[2, 9, 9, 4]     [side, i, j, s]: the XOR of the two squares of move (i, j)
                                  of `side` (0 Horizontal, 1 Vertical) under reflection s
                                  (0 none, 1 rows mirrored, 2 columns mirrored, 3 both)

The search carries four hashes, the position's and its three reflections', each updated
incrementally by one XOR of mkeys per move; h_s is the hash of the position mirrored by s.

Real and safe moves (thesis 2.5.2), for the player whose own lines are E (empty masks):
  real  the most dominoes the player could place if the opponent never moved: per own line,
        the sum over runs of empty bits of floor(run / 2) (lines are independent)   RUN[E[i]]
  safe  dominoes the opponent can never take away: a square is out of the opponent's reach
        when its neighbours in the two adjacent own lines are filled (the opponent's domino
        lies across lines); per line, floor(run / 2) over runs of such empty squares
        RUN[E[i] & ~E[i-1] & ~E[i+1]]. This is a lower bound of the thesis' "maximum number
        of moves ... irrespective of the moves the opponent will make" (the exact maximum is
        not defined further in the thesis).

Ordering value of a move (thesis 2.5.2; delta = before - after, so a move that costs the
opponent real moves scores high):
  delta(real opponent) - delta(real mover) + delta(safe opponent) - delta(safe mover)
Moves are searched in decreasing ordering value, ties in generation order (lines, then bits).

Forward cut-offs (the thesis' DOMI, switch `fc`): after a move, if the mover's safe moves >=
the opponent's real moves the move wins and the node is won without searching it; if the
opponent's safe moves > the mover's real moves the move is discarded as losing. Without `fc`
the search is alpha-beta with the ordering alone (the labelled "ab" rows).

What an entry's fields mean in domineering:
  score  +1 the player to move wins, -1 it loses (always BOUND_EXACT: no bounds exist)
  size   subtree size: the nodes searched to solve the position, itself included; a child
         answered by the table counts 1 (BIG1 and the others) or 1 + the size stored with it
         (BIGALL, engine.tt.tt_hit_weight): what BIG1 and BIGALL compare
  depth  `height` (default): the height of the subtree searched, in plies (0 for a position
         decided at once: a table hit, no move, or a forward cut-off). In chess depth is the
         draft, what the search was asked for; a solver asks for everything, so the nearest
         equivalent of "how deep this result was searched" is how deep it actually went.
         `empties`: the number of empty squares, the longest possible remaining game, the
         same for every position of one ply; DEEP then keeps the position nearer the root.
         Both fit the 8-bit depth field (at most 72).

Node count (the thesis' "all nodes investigated"): every call of the search, table hits and
leaves included; a move judged by a forward cut-off is not a node.
"""
import argparse
import collections
import csv
import subprocess
import sys
import time
from collections import namedtuple
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from engine import tt as T
from engine import tt_research as R
from engine._jit import jit, jit_alloc
from lab.statistics import THESIS_DEPTHS
from lab.thesis.experiments import RESULTS_CSV, open_text

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "experiments"
TABLE_CSV = DOCS / "domineering_table.csv"
GRID_CSV = DOCS / "domineering.csv"

MAX_ROWS = 8
MAX_COLS = 9
MAX_LINE = 9                 # bits per line word (rows are n <= 9 long, columns m <= 8)
MAX_PLY = 40                 # a game on 72 squares lasts at most 36 moves
MAX_MOVES = 128              # moves of one side in one position: at most 9 * 8 = 72

WIN = 1
LOSS = -1
HORIZONTAL = 0
VERTICAL = 1

# opts fields
O_FC = 0          # 1: the thesis' forward cut-offs; FC_RACE: with the race bound
O_TT = 1          # 1: probe and store the table
O_SYM = 2         # 1: look up the three reflections on a miss
O_DEPTH = 3       # depth measure: 0 height of the searched subtree, 1 empty squares
O_SQUARES = 4     # m * n
O_LEN = 5
DEPTH_MEASURES = ("height", "empties")
FC_RACE = 2

# stats fields
ST_NODES = 0      # search calls
ST_LOGGED = 1     # stores written to `log`
ST_SYM_HITS = 2   # hits found under a reflection
ST_FC_WINS = 3    # nodes decided by a winning move found during generation
ST_FC_LOSSES = 4  # moves discarded as losing
ST_LEN = 5

Search = namedtuple("Search", "run mkeys moves order stats opts log line_counts")
Keys = namedtuple("Keys", "zobrist mkeys")
Result = namedtuple("Result", "value nodes seconds size height stats table")


# -- kernels -----------------------------------------------------------------------------------
@jit_alloc
def run_table():
    """RUN[mask] = sum over runs of set bits of floor(run length / 2), for 9-bit masks."""
    out = np.zeros(1 << MAX_LINE, dtype=np.int64)
    for mask in range(1 << MAX_LINE):
        total = 0
        run = 0
        for b in range(MAX_LINE + 1):
            if b < MAX_LINE and (mask >> b) & 1:
                run += 1
            else:
                total += run // 2
                run = 0
        out[mask] = total
    return out


@jit
def _pack_move(i, j):
    return (np.int64(i) << 4) | np.int64(j)


@jit
def _unpack_move(code):
    return code >> 4, code & 15


@jit
def _across(lines, k):
    """The empty squares of the lines beside line k (k - 1 and k + 1, where on the board), as
    a mask of line k's bits: where the opponent's domino could cover a square of line k."""
    near = np.int64(0)
    if k > 0:
        near |= lines[k - 1]
    if k < lines.shape[0] - 1:
        near |= lines[k + 1]
    return near


@jit
def _safe_exposed_near(run, lines, lo, hi):
    """(safe, exposed) dominoes of lines lo..hi (clipped to the board), in one pass."""
    safe = 0
    exposed_count = 0
    for k in range(max(lo, 0), min(hi, lines.shape[0] - 1) + 1):
        near = _across(lines, k)
        safe += run[lines[k] & ~near]
        exposed_count += run[lines[k] & near]
    return safe, exposed_count


@jit
def race_bound(safe, exposed_count, first):
    """Dominoes a player is sure to place, with `safe` safe and `exposed_count` exposed ones
    (`first`: 1 when it moves next). One opponent move covers a square in each of two
    adjacent lines of the player, so it destroys at most two exposed dominoes; taking an
    exposed domino a turn while any is left, the player keeps a third of them, rounded up
    when it moves first and down when not. Its safe ones nobody else can take."""
    return safe + (exposed_count + 2 * first) // 3


@jit
def play(own, opp, i, j):
    """Place the mover's domino (i, j): own line i bits j, j + 1; opp lines j, j + 1 bit i."""
    own[i] &= ~(np.int64(3) << j)
    opp[j] &= ~(np.int64(1) << i)
    opp[j + 1] &= ~(np.int64(1) << i)


@jit
def unplay(own, opp, i, j):
    own[i] |= np.int64(3) << j
    opp[j] |= np.int64(1) << i
    opp[j + 1] |= np.int64(1) << i


@jit
def _line_counts(run, lines, safe, exp):
    """Fill safe[k] and exp[k] with the safe and exposed dominoes of each line k of `lines`;
    returns the totals (real, safe, exposed). Safe: runs of the line's empty squares whose
    neighbours in lines k - 1 and k + 1 are filled (or off the board), which no opponent
    move can touch; exposed: runs of the others. A node computes these once; each of its
    moves then recounts only the lines it changes (_move_deltas)."""
    real = 0
    safe_total = 0
    exp_total = 0
    for k in range(lines.shape[0]):
        near = _across(lines, k)
        safe[k] = run[lines[k] & ~near]
        exp[k] = run[lines[k] & near]
        real += run[lines[k]]
        safe_total += safe[k]
        exp_total += exp[k]
    return real, safe_total, exp_total


@jit
def _window(counts_by_line, lo, hi, size):
    """counts_by_line[lo..hi] summed, the range clipped to 0..size - 1."""
    total = 0
    for k in range(max(lo, 0), min(hi, size - 1) + 1):
        total += counts_by_line[k]
    return total


@jit
def _move_deltas(run, own, opp, i, j, cache):
    """Decrements (real mover, safe mover, real opponent, safe opponent, exposed mover,
    exposed opponent) of move (i, j). The counts before the move come from `cache` (rows:
    mover safe, mover exposed, opponent safe, opponent exposed, per line, as _line_counts
    left them); after it, only own lines i - 1..i + 1 and opponent lines j - 1..j + 2 can
    differ. The lines are restored before returning."""
    real_own = run[own[i]]
    real_opp = run[opp[j]] + run[opp[j + 1]]
    play(own, opp, i, j)
    safe_own2, exp_own2 = _safe_exposed_near(run, own, i - 1, i + 1)
    safe_opp2, exp_opp2 = _safe_exposed_near(run, opp, j - 1, j + 2)
    d_real_own = real_own - run[own[i]]
    d_real_opp = real_opp - run[opp[j]] - run[opp[j + 1]]
    unplay(own, opp, i, j)
    m = own.shape[0]
    n = opp.shape[0]
    return (d_real_own, _window(cache[0], i - 1, i + 1, m) - safe_own2,
            d_real_opp, _window(cache[2], j - 1, j + 2, n) - safe_opp2,
            _window(cache[1], i - 1, i + 1, m) - exp_own2,
            _window(cache[3], j - 1, j + 2, n) - exp_opp2)


@jit
def _finish(tt, S, h0, ply, value, size, height):
    """Store a solved position (thesis Figure 2.7's TryToStore: exact score, no move)."""
    if S.opts[O_TT] != 0:
        depth = height if S.opts[O_DEPTH] == 0 else S.opts[O_SQUARES] - 2 * ply
        score = np.int64(WIN) if value != 0 else np.int64(LOSS)
        n = S.stats[ST_LOGGED]
        if n < S.log.shape[0]:
            S.log[n, 0] = np.int64(h0)
            S.log[n, 1] = score
            S.log[n, 2] = depth
            S.log[n, 3] = size
            S.stats[ST_LOGGED] = n + 1
        T.tt_store(tt, h0, np.int64(0), np.int64(0), score, np.int64(depth),
                   np.int64(T.BOUND_EXACT), np.int64(size))
    return value, size, height


@jit
def _probe(tt, S, key):
    """(found, value 1/0, size weight) of `key` in the table."""
    found, _, score, _, _, size = T.tt_probe(tt, key, np.int64(0))
    if found:
        return True, np.int64(1) if score > 0 else np.int64(0), 1 + T.tt_hit_weight(tt, size)
    return False, np.int64(0), np.int64(0)


@jit
def _solve(own, opp, side, ply, h0, h1, h2, h3, tt, S):
    """Solve the position for the player to move, whose own lines are `own`. Returns
    (value: 1 win / 0 loss, subtree size as the scheme counts it, height searched)."""
    S.stats[ST_NODES] += 1
    run = S.run

    # 1. The table: the position, then its reflections.
    if S.opts[O_TT] != 0:
        if S.opts[O_SYM] != 0:      # the reflections' buckets load while h0's is read
            T.tt_prefetch(tt, h1)
            T.tt_prefetch(tt, h2)
            T.tt_prefetch(tt, h3)
        found, value, weight = _probe(tt, S, h0)
        if not found and S.opts[O_SYM] != 0:
            found, value, weight = _probe(tt, S, h1)
            if not found:
                found, value, weight = _probe(tt, S, h2)
            if not found:
                found, value, weight = _probe(tt, S, h3)
            if found:
                S.stats[ST_SYM_HITS] += 1
        if found:
            return value, weight, np.int64(0)

    # 2. Moves, their ordering values and the forward cut-offs.
    fc = S.opts[O_FC] != 0
    race = S.opts[O_FC] == FC_RACE
    # The ordering value needs the safe counts also without the forward cut-offs.
    cache = S.line_counts
    real_own, safe_own, exp_own = _line_counts(run, own, cache[0], cache[1])
    real_opp, safe_opp, exp_opp = _line_counts(run, opp, cache[2], cache[3])
    if not race:      # DOMI counts nothing as exposed
        exp_own = exp_opp = np.int64(0)
    count = 0
    span = opp.shape[0] - 1
    for i in range(own.shape[0]):
        line = own[i]
        for j in range(span):
            if (line >> j) & 3 != 3:
                continue
            d_ro, d_so, d_rp, d_sp, d_eo, d_ep = _move_deltas(run, own, opp, i, j, cache)
            if not race:
                d_eo = d_ep = np.int64(0)
            if fc:
                # After the move the opponent moves first (race_bound is DOMI's safe count
                # when nothing is counted as exposed, as without the race bound).
                mine = race_bound(safe_own - d_so, exp_own - d_eo, 0)
                theirs = race_bound(safe_opp - d_sp, exp_opp - d_ep, 1)
                if mine >= real_opp - d_rp:                  # a winning move
                    S.stats[ST_FC_WINS] += 1
                    return _finish(tt, S, h0, ply, np.int64(1), np.int64(1), np.int64(0))
                if theirs > real_own - d_ro:                 # a losing move
                    S.stats[ST_FC_LOSSES] += 1
                    continue
            S.moves[ply, count] = _pack_move(i, j)
            S.order[ply, count] = d_rp - d_ro + d_sp - d_so
            count += 1

    # 3. Order: decreasing value, ties in generation order (insertion sort, stable).
    for a in range(1, count):
        move = S.moves[ply, a]
        key = S.order[ply, a]
        b = a - 1
        while b >= 0 and S.order[ply, b] < key:
            S.moves[ply, b + 1] = S.moves[ply, b]
            S.order[ply, b + 1] = S.order[ply, b]
            b -= 1
        S.moves[ply, b + 1] = move
        S.order[ply, b + 1] = key

    # 4. Alpha-beta on win/loss: the first child lost by the opponent wins the node.
    value = np.int64(0)
    size = np.int64(1)
    height = np.int64(0)
    for k in range(count):
        i, j = _unpack_move(S.moves[ply, k])
        play(own, opp, i, j)
        child, child_size, child_height = _solve(
            opp, own, np.int64(1 - side), np.int64(ply + 1),
            h0 ^ S.mkeys[side, i, j, 0], h1 ^ S.mkeys[side, i, j, 1],
            h2 ^ S.mkeys[side, i, j, 2], h3 ^ S.mkeys[side, i, j, 3], tt, S)
        unplay(own, opp, i, j)
        size += child_size
        height = max(height, child_height + 1)
        if child == 0:
            value = np.int64(1)
            break
    return _finish(tt, S, h0, ply, value, size, height)


@jit
def walk(own, opp, side, codes, mkeys, hashes):
    """Play the move codes in turn from the lines given (the mover's first), updating the
    four hashes incrementally as the search does; returns how many moves were legal and
    played (the walk stops at the first illegal one). Tests compare with `position_hash`."""
    played = 0
    a = own
    b = opp
    s = side
    for k in range(codes.shape[0]):
        i, j = _unpack_move(codes[k])
        if i >= a.shape[0] or j + 1 >= b.shape[0] or (a[i] >> j) & 3 != 3:
            break
        play(a, b, i, j)
        for r in range(4):
            hashes[r] ^= mkeys[s, i, j, r]
        a, b = b, a
        s = 1 - s
        played += 1
    return played


# -- Python side -------------------------------------------------------------------------------
def reflect(m, n, r, c, s):
    """Square (r, c) mirrored by reflection s (bit 0: rows, bit 1: columns)."""
    return (m - 1 - r if s & 1 else r), (n - 1 - c if s & 2 else c)


def make_keys(m, n, key_seed):
    """The Zobrist numbers of an m x n board from numpy's generator seeded with `key_seed`."""
    rng = np.random.default_rng(key_seed)
    zobrist = rng.integers(0, np.iinfo(np.uint64).max, size=m * n, dtype=np.uint64,
                           endpoint=True)
    mkeys = np.zeros((2, MAX_LINE, MAX_LINE, 4), dtype=np.uint64)
    for side in (HORIZONTAL, VERTICAL):
        lines, length = (m, n) if side == HORIZONTAL else (n, m)
        for i in range(lines):
            for j in range(length - 1):
                cells = [(i, j), (i, j + 1)] if side == HORIZONTAL else [(j, i), (j + 1, i)]
                for s in range(4):
                    word = np.uint64(0)
                    for r, c in cells:
                        rr, cc = reflect(m, n, r, c, s)
                        word ^= zobrist[rr * n + cc]
                    mkeys[side, i, j, s] = word
    return Keys(zobrist, mkeys)


def position_hash(keys, m, n, occupied, s=0):
    """The thesis' hash from scratch: XOR of the numbers of the occupied squares
    (`occupied`: (r, c) pairs), of the position mirrored by reflection s."""
    h = np.uint64(0)
    for r, c in occupied:
        rr, cc = reflect(m, n, r, c, s)
        h ^= keys.zobrist[rr * n + cc]
    return h


def empty_lines(m, n):
    """(rows, cols) of the empty m x n board."""
    rows = np.full(m, (1 << n) - 1, dtype=np.int64)
    cols = np.full(n, (1 << m) - 1, dtype=np.int64)
    return rows, cols


def new_search(m, n, fc=True, use_tt=True, sym=True, depth="height", log_size=0):
    opts = np.zeros(O_LEN, dtype=np.int64)
    opts[O_FC] = int(fc)
    opts[O_TT] = int(use_tt)
    opts[O_SYM] = int(sym)
    opts[O_DEPTH] = DEPTH_MEASURES.index(depth)
    opts[O_SQUARES] = m * n
    return Search(run_table(), None, np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
                  np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
                  np.zeros(ST_LEN, dtype=np.int64), opts,
                  np.zeros((max(log_size, 0), 4), dtype=np.int64),
                  np.zeros((4, MAX_LINE), dtype=np.int64))


def solve(m, n, first="V", scheme="TwoBig1", positions=2048 * 1024, key_seed=1, fc=True,
          use_tt=True, sym=True, depth="height", log_size=0, occupied=()):
    """Solve the m x n board, empty or with the squares `occupied` ((row, column) pairs)
    filled, with `first` ('V' or 'H') to move. `fc`: 0 none, 1 (or True) the thesis' forward
    cut-offs, FC_RACE with the race bound. Returns a Result:
    value 1 when the first player wins, 0 when it loses; nodes searched; the root's
    subtree size and height; the solver's counters and the table (with its counters).
    Raises ValueError for a board outside 1..8 x 1..9 or an unknown scheme."""
    if not (1 <= m <= MAX_ROWS and 1 <= n <= MAX_COLS):
        raise ValueError(f"boards up to {MAX_ROWS} x {MAX_COLS}, not {m} x {n}")
    if first not in ("V", "H"):
        raise ValueError(f"first must be 'V' or 'H', not {first!r}")
    keys = make_keys(m, n, key_seed)
    search = new_search(m, n, fc, use_tt, sym, depth, log_size)._replace(mkeys=keys.mkeys)
    search.opts[O_SQUARES] -= len(set(occupied))      # the empty squares at the root
    table = T.new_table(positions=max(int(positions), 1), scheme=T.scheme_index(scheme),
                        aging=False)
    T.set_sharing(table, False)
    T.set_store_rules(table, False)
    T.tt_new_search(table)
    rows, cols = empty_lines(m, n)
    for r, c in occupied:
        rows[r] &= ~(1 << c)
        cols[c] &= ~(1 << r)
    own, opp, side = (cols, rows, VERTICAL) if first == "V" else (rows, cols, HORIZONTAL)
    zero = np.uint64(0)
    hashes = [position_hash(keys, m, n, occupied, s) for s in range(4)]
    _solve(np.ones(1, dtype=np.int64), np.zeros(2, dtype=np.int64), np.int64(side),
           np.int64(0), zero, zero, zero, zero, table, search._replace(opts=search.opts * 0))
    search.stats[:] = 0                 # the call above compiles (or loads) the kernel
    start = time.perf_counter()
    value, size, height = _solve(own, opp, np.int64(side), np.int64(0), *hashes, table, search)
    seconds = time.perf_counter() - start
    stats = dict(R.stats_dict(table), nodes=int(search.stats[ST_NODES]),
                 sym_hits=int(search.stats[ST_SYM_HITS]), fc_wins=int(search.stats[ST_FC_WINS]),
                 fc_losses=int(search.stats[ST_FC_LOSSES]), filled=int(R.tt_count_filled(table)),
                 logged=int(search.stats[ST_LOGGED]))
    return Result(int(value), int(search.stats[ST_NODES]), seconds, int(size), int(height),
                  dict(stats, log=search.log[:search.stats[ST_LOGGED]].copy()), table)


def outcome(v_first_wins, h_first_wins):
    """The thesis' 2.6.3 code from the two solves: 1, 2, V or H."""
    if v_first_wins and h_first_wins:
        return "1"
    if not v_first_wins and not h_first_wins:
        return "2"
    return "V" if v_first_wins else "H"


# -- Table 2.1 and Figure 2.12 -----------------------------------------------------------------
# Table 2.1 of the thesis (TwoBig1, 2048K positions): board -> (result, nodes).
THESIS_TABLE = {
    (2, 2): ("1", 1), (2, 3): ("1", 2), (2, 4): ("H", 13), (2, 5): ("V", 15),
    (2, 6): ("1", 14), (2, 7): ("1", 17), (2, 8): ("H", 67), (2, 9): ("V", 126),
    (3, 3): ("H", 1), (3, 4): ("H", 10), (3, 5): ("H", 19), (3, 6): ("H", 40),
    (3, 7): ("H", 77), (3, 8): ("H", 74), (3, 9): ("H", 99),
    (4, 4): ("1", 40), (4, 5): ("V", 87), (4, 6): ("1", 1_327), (4, 7): ("V", 1_984),
    (4, 8): ("H", 12_024), (4, 9): ("V", 45_314),
    (5, 5): ("2", 604), (5, 6): ("H", 1_500), (5, 7): ("H", 13_584), (5, 8): ("H", 30_348),
    (5, 9): ("H", 177_324),
    (6, 6): ("1", 17_232), (6, 7): ("V", 302_259), (6, 8): ("H", 3_362_436),
    (6, 9): ("V", 18_421_911),
    (7, 7): ("1", 408_260), (7, 8): ("H", 12_339_876), (7, 9): ("H", 320_589_295),
    (8, 8): ("1", 441_990_070), (8, 9): ("V", 70_918_073_509),
}
# Figure 2.12's schemes (the thesis drops OLD and BIGALL for domineering) and sizes (K = 1024).
FIGURE_SCHEMES = ("TwoBig1", "TwoDEEP", "BIG1", "DEEP", "NEW")
FIGURE_SIZES_K = (256, 512, 1024, 2048)

FIELDS = ("experiment", "board", "first", "search", "scheme", "positions_k", "key_seed",
          "depth_measure", "sym", "value", "nodes", "thesis_result", "thesis_nodes", "size",
          "height", "probes", "hits", "sym_hits", "stores", "updates", "collisions", "replaced",
          "refused", "filled", "fc_wins", "fc_losses", "seconds", "nodes_per_s", "commit", "date")
CELL_KEY = ("experiment", "board", "first", "search", "scheme", "positions_k", "key_seed",
            "depth_measure", "sym")
# DOMI with its forward cut-offs; ordering alone; DOMI's cut-offs with the race bound (labelled)
SEARCHES = {"ab+fc": 1, "ab": 0, "ab+fc+race": FC_RACE}


def commit_id():
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                             capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "lab/thesis/domineering.py"], cwd=ROOT,
                               text=True, capture_output=True).stdout.strip()
        return out + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return ""


def run_cell(cell):
    """One solve; its CSV row (all FIELDS but commit). A cell with a `root` move solves the
    position after that move of `first`, with the other player to move (a split solve)."""
    m, n = (int(x) for x in cell["board"].split("x"))
    mover, occupied = cell["first"], ()
    if cell.get("root", "") != "":
        mover = "H" if cell["first"] == "V" else "V"
        occupied = move_squares(cell["first"], int(cell["root"]))
    r = solve(m, n, mover, cell["scheme"], int(float(cell["positions_k"]) * 1024),
              int(cell["key_seed"]), SEARCHES[cell["search"]], depth=cell["depth_measure"],
              sym=bool(int(cell["sym"])), occupied=occupied)
    s = r.stats
    thesis = THESIS_TABLE.get((m, n), ("", ""))
    row = dict(cell, value="win" if r.value else "loss", nodes=r.nodes, thesis_result=thesis[0],
               thesis_nodes=thesis[1], size=r.size, height=r.height, seconds=round(r.seconds, 2),
               nodes_per_s=int(r.nodes / max(r.seconds, 1e-9)),
               date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"))
    for name in ("probes", "hits", "sym_hits", "stores", "updates", "collisions", "replaced",
                 "refused", "filled", "fc_wins", "fc_losses"):
        row[name] = s[name]
    return row


def _key(row, key=CELL_KEY):
    return tuple(str(row[k]) for k in key)


def done_cells(path, key=CELL_KEY):
    if not Path(path).exists():
        return set()
    with open(path, newline="") as f:
        return {_key(row, key) for row in csv.DictReader(f)}


def run_cells(cells, path, jobs=1, fields=FIELDS, key=CELL_KEY, until=None):
    """Run the cells not yet in the CSV at `path` (in order; `jobs` processes), appending
    each row as it finishes: an interrupted run resumes where it stopped. `until(row)`: stop
    once it is true for a row written (rows of cells already started are still written)."""
    done = done_cells(path, key)
    todo = [c for c in cells if _key(c, key) not in done]
    print(f"{len(cells) - len(todo)} of {len(cells)} cells already in {path}; {len(todo)} to run",
          flush=True)
    if not todo:
        return
    commit = commit_id()
    new = not Path(path).exists()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        if new:
            writer.writeheader()
        if jobs > 1:
            import multiprocessing
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                rows = pool.imap_unordered(run_cell, todo)
                for row in rows:
                    writer.writerow(dict(row, commit=commit))
                    f.flush()
                    _progress(row)
                    if until is not None and until(row):
                        pool.terminate()
                        break
        else:
            for cell in todo:
                row = run_cell(cell)
                writer.writerow(dict(row, commit=commit))
                f.flush()
                _progress(row)
                if until is not None and until(row):
                    break


def _progress(row):
    root = f" root {describe_move(row['first'], int(row['root']))}" if row.get("root", "") != "" else ""
    print(f"{row['board']} {row['first']}{root} {row['search']} {row['scheme']} {row['positions_k']}K "
          f"seed {row['key_seed']}: {row['value']} {row['nodes']:,} nodes {row['seconds']} s",
          flush=True)


def _cell(experiment, board, first, search, scheme, positions_k, key_seed, depth, sym):
    return dict(experiment=experiment, board=board, first=first, search=search, scheme=scheme,
                positions_k=positions_k, key_seed=key_seed, depth_measure=depth, sym=int(sym))


def table_cells(max_squares, searches, positions_k=2048, key_seed=1, boards=None):
    """Table 2.1's solves: every m x n (2 <= m <= 8, m <= n <= 9) up to `max_squares`
    squares (or the `boards` named), Vertical and Horizontal first (square boards: Vertical
    only, the thesis' "irrelevant whether Vertical or Horizontal starts")."""
    chosen = boards or [(m, n) for m in range(2, 9) for n in range(m, 10) if m * n <= max_squares]
    cells = []
    for search in searches:
        for m, n in sorted(chosen, key=lambda b: (b[0] * b[1], b)):
            for first in ("V",) if m == n else ("V", "H"):
                cells.append(_cell("table", f"{m}x{n}", first, search, "TwoBig1", positions_k,
                                   key_seed, "height", True))
    return cells


def grid_cells(board, first, schemes, sizes_k, seeds, search, depth):
    return [_cell("schemes", board, first, search, scheme, size, seed, depth, True)
            for seed in seeds for size in sizes_k for scheme in schemes]


# -- split solves: the first player's moves one at a time -------------------------------------
# A solve of a large board split at the root: each of the first player's moves (one per class
# of the board's reflections, which map the empty board onto itself) is a cell of its own, the
# position after it solved for the opponent with a fresh table. The first player wins when
# some cell's position is lost by the opponent. Cells run in the solver's root order and stop
# at the first such move; each is a row of SPLIT_CSV, so a split solve resumes after any
# interruption and spreads over as many processes as there are cores. Its node count is the sum of
# the cells' (plus one for the root), not the thesis' count of one solve with one table.
SPLIT_CSV = DOCS / "domineering_split.csv"
SPLIT_FIELDS = FIELDS[:3] + ("root", "root_move", "class_size") + FIELDS[3:]
SPLIT_KEY = CELL_KEY + ("root",)


def move_squares(first, code):
    """The two squares ((row, column) pairs) of move `code` of player `first`."""
    i, j = code >> 4, code & 15
    return ((j, i), (j + 1, i)) if first == "V" else ((i, j), (i, j + 1))


def describe_move(first, code):
    (r1, c1), (r2, c2) = move_squares(first, code)
    return f"{first}({r1},{c1})-({r2},{c2})"


def root_moves(m, n, first):
    """[(code, class size)]: one move of `first` per class of reflections of the empty m x n
    board, in the solver's root order (decreasing ordering value, then generation order);
    the class sizes add up to the number of moves."""
    rows, cols = empty_lines(m, n)
    own, opp = (cols, rows) if first == "V" else (rows, cols)
    run = run_table()
    cache = np.zeros((4, MAX_LINE), dtype=np.int64)
    _line_counts(run, own, cache[0], cache[1])
    _line_counts(run, opp, cache[2], cache[3])
    classes = {}
    for i in range(own.shape[0]):
        for j in range(opp.shape[0] - 1):
            code = (i << 4) | j
            squares = move_squares(first, code)
            canon = min(tuple(sorted(reflect(m, n, r, c, s) for r, c in squares)) for s in range(4))
            if canon not in classes:
                d_ro, d_so, d_rp, d_sp, _, _ = _move_deltas(run, own, opp, np.int64(i),
                                                            np.int64(j), cache)
                classes[canon] = [code, 0, int(d_rp - d_ro + d_sp - d_so)]
            classes[canon][1] += 1
    ordered = sorted(classes.values(), key=lambda c: -c[2])     # stable: generation order
    return [(code, size) for code, size, _ in ordered]


def split_cells(m, n, first, search, scheme, positions_k, key_seed):
    return [dict(_cell("split", f"{m}x{n}", first, search, scheme, positions_k, key_seed,
                       "height", True), root=code, root_move=describe_move(first, code),
                 class_size=size)
            for code, size in root_moves(m, n, first)]


def split_outcome(rows, m, n, first, search):
    """(first player wins: True / False / None while unknown, cells run, cells in all,
    nodes) of a split solve from its rows."""
    rows = [r for r in rows if r["board"] == f"{m}x{n}" and r["first"] == first
            and r["search"] == search]
    total = len(root_moves(m, n, first))
    nodes = 1 + sum(int(r["nodes"]) for r in rows)
    if any(r["value"] == "loss" for r in rows):
        return True, len(rows), total, nodes
    return (False if len(rows) == total else None), len(rows), total, nodes


# -- the report (docs/domineering.md: the sections between <!-- NAME --> and <!-- /NAME -->) --
CHESS_CSV = DOCS / RESULTS_CSV
PAGE = ROOT / "docs" / "domineering.md"


def _rows(path):
    if not Path(path).exists():
        return []
    with open_text(path, "r") as f:
        return list(csv.DictReader(f))


def _millions(x):
    return f"{x / 1e6:,.2f}M" if x >= 1e6 else f"{x:,.0f}"


def provenance(rows):
    """"Rows dated A to B (UTC), commits X, Y" of the rows a section is made of."""
    if not rows:
        return ""
    dates = sorted(r["date"] for r in rows)
    commits = sorted({r["commit"] for r in rows})
    rate = sum(int(r["nodes"]) for r in rows) / max(sum(float(r["seconds"]) for r in rows), 1e-9)
    return (f"Rows dated {dates[0]} to {dates[-1]} UTC, commit {', '.join(commits)}; "
            f"{rate / 1e6:.2f}M nodes/s over these rows (each cell one process under `nice` on "
            f"a 2-core machine running other processes too).")


def table_section(rows, split_rows=()):
    """Table 2.1 beside the solver's: results and nodes (square boards: one solve, Vertical first;
    other boards: the sum of the two solves, as the thesis' counts are). A board DOMI's search
    has not solved shows the value of a labelled search's split solve where one decided it
    (its nodes stay out of the thesis' columns)."""
    labelled = {board: (search, value) for board, search, value, _ in split_values(split_rows)}
    by = {}
    for r in rows:
        if r["experiment"] == "table" and r["search"] == "ab+fc":
            by[(r["board"], r["first"])] = r
    lines = ["| board | thesis | solver | agree | thesis nodes | nodes V first | nodes H first "
             "| nodes (thesis' count) | nodes / thesis | seconds |", "|---|---|---|---|---|---|---|---|---|---|"]
    solved = agree = 0
    for (m, n), (res, nodes) in THESIS_TABLE.items():
        v = by.get((f"{m}x{n}", "V"))
        h = by.get((f"{m}x{n}", "H")) if m != n else v
        if v is None or h is None:
            known = [format(int(r["nodes"]), ",") + " (" + r["value"] + ")" if r else ""
                     for r in (v, by.get((f"{m}x{n}", "H")))]
            solver, agrees = "not run", ""
            if f"{m}x{n}" in labelled:
                search, value = labelled[f"{m}x{n}"]
                solver = f"not run; {value} by {search} (split solve below)"
                agrees = "yes" if value == res else "**no**"
            lines.append(f"| {m}x{n} | {res} | {solver} | {agrees} | {nodes:,} | {known[0]} | {known[1]} | | | |")
            continue
        ours = outcome(v["value"] == "win", h["value"] == "win")
        total = int(v["nodes"]) + (int(h["nodes"]) if m != n else 0)
        seconds = float(v["seconds"]) + (float(h["seconds"]) if m != n else 0)
        solved += 1
        agree += ours == res
        lines.append(f"| {m}x{n} | {res} | {ours} | {'yes' if ours == res else '**no**'} | {nodes:,} "
                     f"| {int(v['nodes']):,} | {format(int(h['nodes']), ',') if m != n else '(same)'} | {total:,} | {total / nodes:.2f} | {seconds:.1f} |")
    lines.append("")
    lines.append(f"{solved} of {len(THESIS_TABLE)} boards solved; {agree} of them agree with the thesis' value. "
                 + provenance([r for r in rows if r["experiment"] == "table" and r["search"] == "ab+fc"]))
    return "\n".join(lines)


def variant_section(rows, variant):
    """A labelled variant of the search beside DOMI's (ab+fc), board by board."""
    by = {(r["board"], r["first"], r["search"]): r for r in rows if r["experiment"] == "table"}
    lines = [f"| board | first | value {variant} | value ab+fc | nodes {variant} | nodes ab+fc "
             f"| {variant} / ab+fc |", "|---|---|---|---|---|---|---|"]
    for (m, n) in THESIS_TABLE:
        for first in ("V",) if m == n else ("V", "H"):
            a = by.get((f"{m}x{n}", first, variant))
            f = by.get((f"{m}x{n}", first, "ab+fc"))
            if a and f:
                lines.append(f"| {m}x{n} | {first} | {a['value']} | {f['value']} | {int(a['nodes']):,} "
                             f"| {int(f['nodes']):,} | {int(a['nodes']) / int(f['nodes']):.2f} |")
    return "\n".join(lines)


def split_section(rows):
    """The split solves: one line per root class run, then each solve's outcome so far."""
    if not rows:
        return "No split solve has run yet."
    lines = ["| board | first | search | root move (class size) | opponent to move | nodes | seconds | commit | date |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['board']} | {r['first']} | {r['search']} | {r['root_move']} ({r['class_size']}) "
                     f"| {r['value']} | {int(r['nodes']):,} | {float(r['seconds']):,.0f} | {r['commit']} "
                     f"| {r['date']} |")
    lines.append("")
    solves = dict.fromkeys((r["board"], r["first"], r["search"]) for r in rows)
    for board, first, search in solves:
        m, n = _board(board)
        wins, done, total, nodes = split_outcome(rows, m, n, first, search)
        verdict = {True: "a win for the first player", False: "a loss for the first player",
                   None: "not decided yet"}[wins]
        seconds = sum(float(r["seconds"]) for r in rows
                      if (r["board"], r["first"], r["search"]) == (board, first, search))
        lines.append(f"- {board}, {first} first, {search}: {verdict}; {done} of {total} root "
                     f"classes solved, {nodes:,} nodes with the root, {seconds / 3600:.2f} hours (the "
                     f"cells' times added up).")
    for board, search, value, thesis in split_values(rows):
        beside = f", {'equal to' if value == thesis else 'unlike'} the thesis' {thesis}" if thesis else ""
        lines.append(f"- {board}, {search}: value {value}{beside}.")
    return "\n".join(lines)


def split_values(rows):
    """[(board, search, value 1/2/V/H, the thesis' value or "")] of the boards whose split
    solves are decided for both first players."""
    values = []
    for board, search in dict.fromkeys((r["board"], r["search"]) for r in rows):
        m, n = _board(board)
        v_wins, h_wins = (split_outcome(rows, m, n, first, search)[0] for first in "VH")
        if v_wins is not None and h_wins is not None:
            values.append((board, search, outcome(v_wins, h_wins),
                           THESIS_TABLE.get((m, n), ("",))[0]))
    return values


def grid_means(rows, board, search="ab+fc"):
    """{(size_k, scheme): [nodes per key seed]} of the Figure 2.12 rows of `board`."""
    out = collections.defaultdict(list)
    for r in rows:
        if r["experiment"] == "schemes" and r["board"] == board and r["search"] == search \
                and r["depth_measure"] == "height":
            out[(float(r["positions_k"]), r["scheme"])].append(int(r["nodes"]))
    return out


def grid_section(rows, board):
    cells = grid_means(rows, board)
    if not cells:
        return f"No rows for {board} yet."
    sizes = sorted({k for k, _ in cells})
    extra = sorted({s for _, s in cells} - set(FIGURE_SCHEMES))    # e.g. BIGALL, OLD
    schemes = list(FIGURE_SCHEMES) + extra
    head = "| positions | " + " | ".join(schemes) + " | key sets | best two-level vs best one-level |"
    lines = [head, "|---" * (len(schemes) + 3) + "|"]
    for size in sizes:
        out = []
        means = {}
        seeds = set()
        for scheme in schemes:
            got = cells.get((size, scheme), [])
            if got:
                seeds.add(len(got))
                means[scheme] = sum(got) / len(got)
                spread = f" ({_millions(min(got))}-{_millions(max(got))})" if len(got) > 1 else ""
                out.append(_millions(means[scheme]) + spread)
            else:
                out.append("")
        best = min(means.values()) if means else None
        out = [f"**{o}**" if o and means.get(s) == best else o for o, s in zip(out, schemes)]
        two = [means[s] for s in ("TwoBig1", "TwoDEEP") if s in means]
        one = [means[s] for s in ("BIG1", "DEEP", "NEW") if s in means]
        cmp = f"{100 * (min(two) / min(one) - 1):+.1f}%" if two and one else ""
        label = f"{size:g}K"
        lines.append(f"| {label} | " + " | ".join(out) + f" | {'/'.join(str(x) for x in sorted(seeds))} | {cmp} |")
    used = [r for r in rows if r["experiment"] == "schemes" and r["board"] == board
            and r["search"] == "ab+fc" and r["depth_measure"] == "height"]
    lines += ["", f"{len(used)} cells. " + provenance(used)]
    return "\n".join(lines)


def plot_grid(rows, board, path):
    """Figure 2.12's picture of `board`: nodes to solve against table size, a line per
    scheme through the means over the key sets, each bar from the fewest nodes of a key
    set to the most; returns the schemes drawn. Needs matplotlib (the experiments extra):
    ImportError without it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from lab.thesis.experiments_report import save_plot, size_axis
    cells = grid_means(rows, board)
    sizes = sorted({int(k) for k, _ in cells})
    schemes = list(FIGURE_SCHEMES) + sorted({s for _, s in cells} - set(FIGURE_SCHEMES))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = []
    for scheme in schemes:
        counts = [(size, cells[(float(size), scheme)]) for size in sizes
                  if cells.get((float(size), scheme))]
        if not counts:
            continue
        drawn.append(scheme)
        means = [sum(c) / len(c) / 1e6 for _, c in counts]
        below = [m - min(c) / 1e6 for m, (_, c) in zip(means, counts)]
        above = [max(c) / 1e6 - m for m, (_, c) in zip(means, counts)]
        style = "-o" if scheme in ("TwoBig1", "TwoDEEP") else ("--s" if scheme in FIGURE_SCHEMES else ":.")
        ax.errorbar([size for size, _ in counts], means, yerr=[below, above], fmt=style,
                    capsize=3, label=scheme)
    size_axis(ax, sizes)
    ax.set_ylabel("nodes to solve (millions)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Domineering {board}, Vertical first, DOMI's search")
    ax.legend()
    fig.tight_layout()
    save_plot(fig, path)
    return drawn


CHESS_ENDGAME_DEPTH = str(THESIS_DEPTHS["endgame"])   # the CSV's depth column is text


def chess_big_gain(test_set="middle", depth="7", stamping="False"):
    """Mean over table sizes of (DEEP - BIG1) / DEEP and (TwoDEEP - TwoBig1) / TwoDEEP in
    the chess rows (docs/experiments/results.csv.gz)."""
    nodes = {}
    for r in _rows(CHESS_CSV):
        if (r["experiment"], r["test_set"], r["depth"], r["stamping"], r["key_seed"]) == \
                ("schemes", test_set, depth, stamping, ""):
            nodes[(int(r["positions_k"]), r["scheme"])] = int(r["nodes"])
    return _big_gain({(float(k), s): [v] for (k, s), v in nodes.items()})


def _big_gain(cells):
    one, two = [], []
    for size in sorted({k for k, _ in cells}):
        get = lambda s: sum(cells[(size, s)]) / len(cells[(size, s)]) if cells.get((size, s)) else None
        deep, big, tdeep, tbig = get("DEEP"), get("BIG1"), get("TwoDEEP"), get("TwoBig1")
        if deep and big:
            one.append((deep - big) / deep)
        if tdeep and tbig:
            two.append((tdeep - tbig) / tdeep)
    mean = lambda xs: 100 * sum(xs) / len(xs) if xs else float("nan")
    return mean(one), mean(two), len(one), len(two)


def key_set_noise(rows, board):
    """The mean spread (max - min) / mean, in percent, of `board`'s Figure 2.12 cells run
    with several key sets; None when no cell has more than one."""
    spreads = [(max(v) - min(v)) / (sum(v) / len(v)) for v in grid_means(rows, board).values()
               if len(v) > 1]
    return 100 * sum(spreads) / len(spreads) if spreads else None


def claims_section(rows, board):
    cells = grid_means(rows, board)
    if not cells:
        return "No rows yet."
    sizes = sorted({k for k, _ in cells})
    holds = []
    detail = []
    for size in sizes:
        get = {s: cells.get((size, s)) for s in FIGURE_SCHEMES if cells.get((size, s))}
        two = [s for s in ("TwoBig1", "TwoDEEP") if s in get]
        one = [s for s in ("BIG1", "DEEP", "NEW") if s in get]
        if not two or not one:
            continue
        worst_two = max(max(get[s]) for s in two)
        best_one = min(min(get[s]) for s in one)
        ok = worst_two < best_one
        holds.append(ok)
        missing = [s for s in FIGURE_SCHEMES if s not in get]
        detail.append(f"{size:g}K: worst two-level key set {_millions(worst_two)} vs best one-level key set "
                      f"{_millions(best_one)} ({'separated' if ok else 'overlapping'}"
                      f"{'; not run: ' + ', '.join(missing) if missing else ''})")
    if holds:
        verdict1 = "holds" if all(holds) else ("holds at some sizes" if any(holds) else "does not hold")
    else:
        verdict1 = "not decided (no size with a one-level and a two-level scheme)"
    d1, d2, k1, k2 = _big_gain(cells)
    c1, c2, _, _ = chess_big_gain()
    e1, e2, _, _ = chess_big_gain("endgame", CHESS_ENDGAME_DEPTH, "True")
    rule1 = (f"Rule 1 (\"two-level schemes work much better than one-level schemes\"): at each "
             f"table size (over the schemes run there), it holds when every key set of TwoBig1 and "
             f"TwoDEEP searched fewer nodes than every key set of BIG1, DEEP and NEW (the two groups "
             f"do not overlap). **Verdict on {board}: {verdict1}.** " + "; ".join(detail)
             + ("." if detail else ""))
    if not (k1 or k2):
        return "\n".join([
            rule1,
            "",
            f"Rule 2 (\"the concept Big shows more improvement over the concept Deep than in chess\") "
            f"needs DEEP with BIG1, or TwoDEEP with TwoBig1, at one size: **not decided on {board}** "
            f"(see 6x8 below)."])
    measured = [d for d, k in ((d1, k1), (d2, k2)) if k]
    dom = sum(measured) / len(measured)             # over the pairs run
    chess = (c1 + c2) / 2
    noise = key_set_noise(rows, board)
    stand_in = None
    if noise is None:   # a board with one key set per cell borrows another board's noise
        others = sorted({r["board"] for r in rows if r["experiment"] == "schemes"} - {board})
        measured_noise = [(b, key_set_noise(rows, b)) for b in others]
        measured_noise = [(b, n) for b, n in measured_noise if n is not None]
        if measured_noise:
            stand_in, noise = measured_noise[0]
    if noise is None:
        verdict2 = ("holds" if dom > chess else "does not hold") + \
            " on one key set per cell (the key-set noise is not measured)"
    else:
        verdict2 = ("holds" if dom - chess > noise else
                    "within the key-set noise" if dom > chess else "does not hold")
        if stand_in:
            verdict2 += f" ({stand_in}'s noise standing in)"
    where = (f"not measured on {board} (one key set per cell); that of the {stand_in} cells, "
             if stand_in else "")
    noise_text = ("" if noise is None else
                  f" Key-set noise: {where}the mean spread (max - min) / mean of the cells run "
                  f"with several key sets, {noise:.1f}%; the claim holds when domineering's mean "
                  f"gain exceeds the chess one by more than that.")
    missing = "" if k1 and k2 else "; nan: that pair not run"
    return "\n".join([
        rule1,
        "",
        f"Rule 2 (\"the concept Big shows more improvement over the concept Deep than in chess\"): "
        f"the mean over table sizes of (DEEP - BIG1) / DEEP and of (TwoDEEP - TwoBig1) / TwoDEEP, "
        f"domineering against the chess middle game (depth 7, tables cleared, the rows of "
        f"docs/experiments/{RESULTS_CSV}, Figure 2.8's experiment; chess counts all nodes, "
        f"quiescence nodes included, as domineering's solver counts every node it "
        f"visits). Domineering {board}: BIG1 "
        f"{d1:+.1f}%, TwoBig1 {d2:+.1f}% (mean of the pairs run {dom:+.1f}%, over {k1} and {k2} sizes"
        f"{missing}); chess "
        f"middle game: BIG1 {c1:+.1f}%, TwoBig1 {c2:+.1f}% (mean {chess:+.1f}%); chess endgame "
        f"(depth {CHESS_ENDGAME_DEPTH}, time stamping): BIG1 {e1:+.1f}%, TwoBig1 {e2:+.1f}%."
        + noise_text +
        f" **Verdict on {board}: {verdict2}.**"])


def write_report(page=PAGE):
    """Fill the generated sections of docs/domineering.md from the CSVs."""
    text = Path(page).read_text()
    table = _rows(TABLE_CSV)
    grid = _rows(GRID_CSV)
    boards = sorted({r["board"] for r in grid if r["experiment"] == "schemes"},
                    key=lambda b: [int(x) for x in b.split("x")])
    # A Figure 2.12 cell run with Table 2.1's configuration is also that board's table row.
    same = [dict(r, experiment="table") for r in grid
            if r["experiment"] == "schemes" and r["scheme"] == "TwoBig1"
            and float(r["positions_k"]) == 2048 and r["key_seed"] == "1"
            and r["depth_measure"] == "height" and r["sym"] == "1"]
    split = _rows(SPLIT_CSV)
    sections = {"table21": table_section(table + same, split), "ab": variant_section(table, "ab"),
                "race": variant_section(table + same, "ab+fc+race"),
                "split": split_section(split)}
    for board in boards:
        sections[f"grid-{board}"] = grid_section(grid, board)
        png = f"domineering_{board}.png"
        try:
            plot_grid(grid, board, DOCS / png)
            sections[f"grid-{board}"] += f"\n\n![{png}](experiments/{png})"
        except ImportError:
            sections[f"grid-{board}"] += "\n\n(matplotlib not installed: no plot)"
        sections[f"claims-{board}"] = claims_section(grid, board)
    for name, body in sections.items():
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        if start in text:
            before, rest = text.split(start, 1)
            _, after = rest.split(end, 1)
            text = before + start + "\n" + body + "\n" + end + after
    Path(page).write_text(text)


def _board(text):
    m, n = (int(x) for x in text.lower().split("x"))
    return m, n


def _one_board_options(p):
    """The options of the commands that solve one board: which, who starts, the table."""
    p.add_argument("board", type=_board)
    p.add_argument("--first", default="V", choices=["V", "H"])
    p.add_argument("--scheme", default="TwoBig1")
    p.add_argument("--positions-k", type=float, default=2048)
    p.add_argument("--key-seed", type=int, default=1)
    p.add_argument("--search", default="ab+fc", choices=list(SEARCHES))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m lab.thesis.domineering", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("solve", help="solve one board")
    _one_board_options(p)
    p.add_argument("--depth", default="height", choices=DEPTH_MEASURES)
    p.add_argument("--no-sym", action="store_true")
    p = sub.add_parser("table", help="Table 2.1: solve the boards, append rows to a CSV")
    p.add_argument("--max-squares", type=int, default=56)
    p.add_argument("--boards", nargs="*", type=_board, help="only these, e.g. 7x9 8x8")
    p.add_argument("--search", nargs="+", default=["ab+fc"], choices=list(SEARCHES))
    p.add_argument("--out", default=str(TABLE_CSV))
    p.add_argument("--jobs", type=int, default=1)
    sub.add_parser("report", help="fill docs/domineering.md's tables from the CSVs")
    p = sub.add_parser("split", help="solve a board one root move at a time (resumable)")
    _one_board_options(p)
    p.add_argument("--out", default=str(SPLIT_CSV))
    p.add_argument("--jobs", type=int, default=1)
    p = sub.add_parser("grid", help="Figure 2.12: schemes x table sizes x key seeds")
    p.add_argument("--board", default="8x8")
    p.add_argument("--first", default="V", choices=["V", "H"])
    p.add_argument("--schemes", nargs="+", default=list(FIGURE_SCHEMES))
    p.add_argument("--sizes-k", nargs="+", type=float, default=list(FIGURE_SIZES_K))
    p.add_argument("--seeds", nargs="+", type=int, default=[1, 2, 3])
    p.add_argument("--search", default="ab+fc", choices=list(SEARCHES))
    p.add_argument("--depth", default="height", choices=DEPTH_MEASURES)
    p.add_argument("--out", default=str(GRID_CSV))
    p.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)

    if args.cmd == "solve":
        m, n = args.board
        r = solve(m, n, args.first, args.scheme, int(args.positions_k * 1024), args.key_seed,
                  SEARCHES[args.search], depth=args.depth, sym=not args.no_sym)
        stats = {k: v for k, v in r.stats.items() if k != "log"}
        print(f"{m}x{n}, {args.first} first: {'win' if r.value else 'loss'} for the first player; "
              f"{r.nodes:,} nodes in {r.seconds:.2f} s ({r.nodes / max(r.seconds, 1e-9):,.0f} nodes/s)")
        print(stats)
    elif args.cmd == "report":
        write_report()
    elif args.cmd == "split":
        m, n = args.board
        size = int(args.positions_k) if float(args.positions_k).is_integer() else args.positions_k
        cells = split_cells(m, n, args.first, args.search, args.scheme, size, args.key_seed)
        wins, _, _, _ = split_outcome(_rows(args.out), m, n, args.first, args.search)
        if wins is None:
            run_cells(cells, args.out, args.jobs, SPLIT_FIELDS, SPLIT_KEY,
                      until=lambda row: row["value"] == "loss")
        wins, done, total, nodes = split_outcome(_rows(args.out), m, n, args.first, args.search)
        verdict = {True: "a win", False: "a loss", None: "not known yet"}[wins]
        print(f"{m}x{n}, {args.first} first: {verdict} for the first player; {done} of {total} "
              f"root classes solved, {nodes:,} nodes")
    elif args.cmd == "table":
        cells = table_cells(args.max_squares, args.search, boards=args.boards)
        run_cells(cells, args.out, args.jobs)
    else:
        sizes = [int(s) if float(s).is_integer() else s for s in args.sizes_k]
        cells = grid_cells(args.board, args.first, args.schemes, sizes, args.seeds, args.search,
                           args.depth)
        run_cells(cells, args.out, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
