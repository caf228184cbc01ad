"""[jit] Root search, principal-variation search and quiescence, with the transposition
table used as in Breuker's Figure 2.7.

The search state is a `SearchState` namedtuple of preallocated arrays (built by
`new_search_state`); nothing is allocated while searching. The Python side (engine.driver)
runs iterative deepening with aspiration windows and calls `search_root` once per
iteration; it stops a search by writing `ctrl[K_STOP] = 1`, which every node reads.

Node counting follows the thesis: every call of the full-width search or the quiescence
search is a node (interior nodes, leaves and quiescence nodes alike). `ctrl[K_WEIGHTED]`
is the same count with a BIGALL table hit weighted by the subtree size stored with it;
the size stored with an entry is the growth of that counter over its subtree, so BIG1
sees a retrieved position as one node and BIGALL as the nodes it originally cost.

Profiles (ctrl[K_PROFILE]):
  PLAY   the evaluation network (engine.nnue.network_eval, its accumulators in S.nn_acc; in
         quiescence only when material and PST alone leave the stand-pat within
         LAZY_MARGIN of the window), check
         extensions, null-move pruning, reverse futility pruning, futility and late-move
         pruning of quiet moves (all three harder when the static evaluation is not above
         that of two plies before: "improving"; reverse futility, null move and futility
         read the table's score instead of the static evaluation when its bound makes it
         the better guess), logarithmic late-move reductions (one ply more at an expected
         cut node, see `search`'s cut_node; up to two plies less or more by the move's
         history), internal iterative reduction, SEE and delta pruning of captures in
         quiescence, killers, a bounded history with a malus for the quiet moves searched
         before the best one (engine.movepick.update_history), quiet moves ordered (and so
         reduced) by the threats of cheaper enemy pieces (engine.movepick.threat_sets) and by
         continuation histories (engine.movepick.update_quiet_histories),
         singular extensions of the table move (with multi-cut and a shallower search
         of a table move that is not singular but already beats beta; constants SINGULAR_*),
         mate-distance pruning; no TT cut-offs at PV nodes.
  PAPER  the thesis' ALIBABA: material + PST evaluation, PVS + quiescence (captures and
         promotions; every move in check), ordering by refutation (previous PV), TT move,
         MVV-LVA, promotions, history; no extensions, no pruning beyond alpha-beta; TT
         cut-offs at every node.

n-ply lines (thesis 2.7.3; PAPER only, with a table made with pv_plies = n > 1): a node
whose table entry has a move takes the entry's line: the move is the TT move, and moves
2..n become the line inherited by the child that move leads to
(S.lines[LINE_INHERITED, ply + 1]). A node the table gives no move for, whose parent passed
it an inherited line (it was reached by the line's previous move), orders that line's first
move first as a TT move (if it is in the node's legal move list; counted in the table's
S_LINE_MOVES) and passes the rest on the same way. Any other child inherits nothing. Each
full-width node returns a line in S.lines[LINE_RETURNED, ply]: its best move followed by
the line of the child that move leads to, cut to n - 1 moves, and stores its best move with
that child's line as its entry's line. A node cut off by the table returns its entry's
line; quiescence nodes, draws and mates return the empty line (quiescence nodes are not
stored).
"""
import collections
import math

import numpy as np

from engine._jit import jit, jit_inline, jit_recursive
from engine.atomic import array_at, data_address, readonly_array_at
from engine.bitboard import popcount
from engine.codec import move_is_promotion, piece_of
from engine.eval import material_pst_eval, reference_eval
from engine.nnue import network_eval, new_accumulators
from engine.movegen import generate_all, generate_inline, is_legal
from engine.movepick import (
    CONTINUATION_NONE, ORDER_KILLER, ORDER_TT, capture_gain, continuation_index, history_bonus,
    is_capture, pick_next, reward_quiet, score_moves, score_noisy, see_at_least,
    update_quiet_histories,
)
from engine.position import (
    META_PLY, Position, check_info, current_key, gives_check_with, in_check, key_after,
    make_move, make_null,
    repeats_as_draw, repetitions, side_to_move, take_back, unmake_null,
)
from engine.tables import Tables
from engine.tt import (
    BOUND_EXACT, BOUND_LOWER, BOUND_NONE, BOUND_UPPER, bounded_guess, tt_bound_eval, tt_enabled,
    tt_hit_weight, tt_lookup, tt_prefetch, tt_store_line,
)
from engine.tt_layout import TT
from engine.tt_research import (
    line_first, line_prepend, line_rest, root_lines, size_counts_qnodes, tt_line_plies,
    tt_note_line_move, tt_note_type1, tt_root_line,
)
from engine.types import (
    BISHOP, BLACK, DRAW, GEN_NOISY, GEN_QUIET, INFINITE, KNIGHT, MATE, MATE_BOUND,
    MAX_MOVES, MAX_PLY, PAWN, QUEEN, ROOK, ST_HALFMOVE, ST_NULL_DIST, STACK_EVAL, STACK_KILLER_1,
    STACK_EXCLUDED, STACK_KILLER_2, STACK_LEN, STACK_MOVED, STACK_PREV_PV, STACK_PV_LEN, U0, WHITE,
)

SearchState = collections.namedtuple(
    "SearchState",
    "ctrl history pv stack moves scores root_moves root_nodes lines cont_history nn_acc")
# Keep this tuple short. Every jitted function that takes it receives each array as about
# seven scalar arguments, and past a size the compiled search runs at half speed: one more
# unused 1-D array (a 14th field, when it had 13) took `bench` from 2.5 to 1.2 M nodes/s.
# (The recursive kernels take ctrl alone and find the rest through its handles, K_HANDLES.)
# Per-ply scalars therefore share `stack` (columns STACK_* in engine.types), and the two
# n-ply lines and the refutation lines of the root moves share `lines`.

# lines rows (PAPER)
LINE_RETURNED = 0    # the n-ply line a node returns
LINE_INHERITED = 1   # the n-ply line its parent passed it
ROOT_LINES = 2       # from this row on, with the open choice root_lines, one refutation line
                     # per root move, as ALIBABA's refutation table kept them:
                     #   column 0     the root move (0: a free row)
                     #   column 1     L, the length of its line
                     #   columns 2..  the line: the moves at plies 1..L after the root move
                     # A row is written after each search of its move (the line its child
                     # returned: the PV's tail for the best move, else the refutation) and
                     # read before the next one; rows are cleared with the move ordering.

PROFILE_PLAY = 0
PROFILE_PAPER = 1
PROFILES = {"play": PROFILE_PLAY, "paper": PROFILE_PAPER}

# ctrl fields
K_STOP = 0           # set to 1 by the Python side (or the node limit): unwind now
K_NODES = 1          # nodes searched (full-width + quiescence)
K_QNODES = 2         # of which quiescence nodes
K_WEIGHTED = 3       # nodes with BIGALL weighting of table hits (subtree sizes)
K_MAX_NODES = 4      # node limit (0: none)
K_SELDEPTH = 5       # deepest ply reached
K_PROFILE = 6        # PROFILE_PLAY or PROFILE_PAPER
K_ROOT_COUNT = 7     # number of moves in root_moves
K_PREV_PV_LEN = 8    # length of the refutation line of the last iteration (STACK_PREV_PV)
K_CURRMOVE = 9       # root move being searched
K_CURRMOVE_NUMBER = 10
K_ROOT_COMPLETED = 11  # root moves fully searched in the current iteration
K_ROOT_BEST = 12     # best root move of the current iteration (valid moves only)
K_HORIZON = 13       # horizon leaves: full-width calls at depth 0 (each starts a quiescence
                     # search); interior nodes + these = the thesis' node count
K_ROOT_BEST_SCORE = 14  # what is known of K_ROOT_BEST's score: its exact value, or a lower
K_ROOT_BEST_EXACT = 15  # bound while its re-search runs (then this is 0)
K_ROOT_DEPTH = 16    # the depth of the current iteration
K_HANDLES = 17       # from here on: the handles below

# Handles: where the arrays of P, T, the table and S lie, written into ctrl by
# fill_handles before a search. The two recursive kernels, _search and _quiesce, take ctrl
# alone and rebuild the four tuples from these words (unpack_handles), because a call
# copies every array of its arguments (5 + 2 x ndim words each, 191 words for the four
# tuples): at every node that was 8-9% of the search's time, the largest single cost
# (docs/performance.md, "What a call costs"). Each array takes its data address, then its
# shape:
#
#   words                  array           dtype    shape
#   H_BB .. +1             P.bb            uint64   (n,)
#   H_BOARD .. +1          P.board         int8     (n,)
#   H_ST .. +2             P.st            int64    (n, m)
#   H_KEYS .. +1           P.keys          uint64   (n,)
#   H_META .. +1           P.meta          int64    (n,)
#   H_TU, H_TI, H_NN       T.u, T.i, T.nn  uint64, int64, int16: (n,) each, 2 words
#   H_SLOTS .. H_TLINES    tt.slots, conf, stats, locks, seen, lines:
#                                          uint64, int64, int64, int32, uint64, uint64
#   H_HISTORY .. +3        S.history       int64    (2, 64, 64)
#   H_PV .. +2             S.pv            int64    (n, m)
#   H_STACK .. +2          S.stack         int64    (n, m)
#   H_MOVES .. +1          S.moves         int32    (n,)
#   H_SCORES .. +1         S.scores        int64    (n,)
#   H_ROOT_MOVES .. +1     S.root_moves    int64    (n,)
#   H_ROOT_NODES .. +1     S.root_nodes    int64    (n,)
#   H_LINES .. +2          S.lines         uint64   (n, m)
#   H_CONT .. +2           S.cont_history  int16    (n, m)
#   H_ACC .. +2            S.nn_acc        int16    (n, m)
#
# S.ctrl itself is the array the kernels are given. The arrays stay owned by the Python
# side's tuples, which outlive every search of them.
H_BB = K_HANDLES
H_BOARD = H_BB + 2
H_ST = H_BOARD + 2
H_KEYS = H_ST + 3
H_META = H_KEYS + 2
H_TU = H_META + 2
H_TI = H_TU + 2
H_NN = H_TI + 2
H_SLOTS = H_NN + 2
H_CONF = H_SLOTS + 2
H_STATS = H_CONF + 2
H_LOCKS = H_STATS + 2
H_SEEN = H_LOCKS + 2
H_TLINES = H_SEEN + 2
H_HISTORY = H_TLINES + 2
H_PV = H_HISTORY + 4
H_STACK = H_PV + 3
H_MOVES = H_STACK + 3
H_SCORES = H_MOVES + 2
H_ROOT_MOVES = H_SCORES + 2
H_ROOT_NODES = H_ROOT_MOVES + 2
H_LINES = H_ROOT_NODES + 2
H_CONT = H_LINES + 3
H_ACC = H_CONT + 3
K_LEN = H_ACC + 3

# Arguments of the recursive calls are typed int64 explicitly: a bare literal makes numba
# compile (and cache, brokenly) a separate specialisation per literal value.
NO = np.int64(0)
YES = np.int64(1)
ONE_PLY = np.int64(1)

# Step 6's moves not yet in the list (the list fills in stages; see search).
PENDING_NONE = 0    # every move is in the list
PENDING_ALL = 1     # all the rest, generated at once
PENDING_NOISY = 2   # the captures and promotions, and after them the rest (PENDING_QUIET)
PENDING_QUIET = 3   # the moves that neither capture nor promote

# Tuning constants of the PLAY profile.
NULL_MIN_DEPTH = 3
NULL_REDUCTION = 3
RFP_MAX_DEPTH = 6
RFP_MARGIN = 120         # per ply...
RFP_IMPROVING = 30       # ...less this when improving
LMR_MIN_DEPTH = 3
LMR_MIN_MOVES = 2        # from the third move searched (9e7b73c: +13 Elo against starting at the fourth)
LMR_BASE = 0.8           # reduction = LMR_BASE + ln(depth) ln(moves searched) / LMR_DIVISOR
LMR_DIVISOR = 2.4
LMR_HISTORY = 8000       # a quiet move's reduction shrinks by its ordering score (history +
                         # continuation histories) / this, at most 2 plies either way: a
                         # move that often did well here is reduced less
IIR_MIN_DEPTH = 4        # internal iterative reduction: position not in the table at this depth or more
FUTILITY_MAX_DEPTH = 5
FUTILITY_MARGIN = 110    # per ply: quiet moves cannot lift static + margin above alpha
FUTILITY_REDUCED_PLIES = 3   # futility is tested at the depth after the late-move reduction,
                             # so nodes up to this much deeper than FUTILITY_MAX_DEPTH prune too
LAZY_MARGIN = 400        # quiescence: positional terms rarely move a score this much
DELTA_MARGIN = 200       # quiescence: a capture cannot lift stand-pat + victim + this above alpha
HISTORY_PRUNE_DEPTH = 3  # history pruning: at this depth or less a plain quiet move whose
HISTORY_PRUNE = 3000     # ordering score (history, threat shift, continuation histories) is
                         # below -this x depth is skipped
LMP_BASE = 4             # late-move pruning: quiet moves past LMP_BASE + depth^2 are skipped
                         # (two thirds of that when not improving)
# "Improving": the static evaluation is above that of two plies before (the same side to
# move); a position getting worse is pruned harder (not reduced more: that missed a mate in
# 3 at depth 7). NO_EVAL marks a ply whose side was in check (no static evaluation): a node
# after it counts as improving.
NO_EVAL = -INFINITE - 1
# Singular extension (PLAY): at depth SINGULAR_MIN_DEPTH or more, when the table's move has a
# stored lower (or exact) bound from at least depth - SINGULAR_DEPTH_SLACK plies, the other
# moves are searched to about half depth against that score less SINGULAR_MARGIN cp per ply.
# None reaching it: the table move is singular and searched a ply deeper. One reaching beta
# as well: the node cuts (multi-cut). Else, when the stored bound is itself at or above
# beta, several moves are good and the table move is searched a ply shallower. Only while
# the stored score is below SINGULAR_MAX_SCORE: in a won position the cut and the shallower
# search hide the mate (tests/test_mates.py's mates in 3 came two plies later).
SINGULAR_MIN_DEPTH = 7
SINGULAR_DEPTH_SLACK = 3
SINGULAR_MARGIN = 3
SINGULAR_MAX_SCORE = 600


def new_search_state() -> SearchState:
    plies = MAX_PLY + 2
    return SearchState(
        ctrl=np.zeros(K_LEN, dtype=np.int64),
        history=np.zeros((2, 64, 64), dtype=np.int64),
        pv=np.zeros((plies, plies), dtype=np.int64),
        stack=_new_stack(plies),
        moves=np.zeros(plies * MAX_MOVES, dtype=np.int32),
        scores=np.zeros(plies * MAX_MOVES, dtype=np.int64),
        root_moves=np.zeros(MAX_MOVES, dtype=np.int64),
        root_nodes=np.zeros(MAX_MOVES, dtype=np.int64),
        lines=np.zeros((ROOT_LINES + MAX_MOVES, plies), dtype=np.uint64),  # rows: see LINE_*
        # PLAY: continuation history (engine.movepick)
        cont_history=np.zeros((CONTINUATION_NONE + 1, 12 * 64), dtype=np.int16),
        nn_acc=new_accumulators(plies),
    )


def clear_move_ordering(S: SearchState) -> None:
    """Forget what move ordering learnt (killers, history, continuation histories): each
    search, and each helper thread's, starts from nothing."""
    S.stack[:, STACK_KILLER_1:STACK_KILLER_2 + 1] = 0
    S.history[:] = 0
    S.cont_history[:] = 0
    S.lines[ROOT_LINES:, 0] = 0


def _new_stack(plies):
    stack = np.zeros((plies, STACK_LEN), dtype=np.int64)
    stack[:, STACK_EVAL] = NO_EVAL
    stack[:, STACK_MOVED] = CONTINUATION_NONE
    return stack


@jit_inline
def _put(ctrl, at, array):
    """Write an array's handle at ctrl[at]: its data address, then its shape."""
    ctrl[at] = data_address(array)
    for d in range(array.ndim):
        ctrl[at + 1 + d] = array.shape[d]


@jit
def fill_handles(P, T, tt, S):
    """Write the handles of P, T, tt and S into S.ctrl (the word table at K_HANDLES)."""
    ctrl = S.ctrl
    _put(ctrl, H_BB, P.bb)
    _put(ctrl, H_BOARD, P.board)
    _put(ctrl, H_ST, P.st)
    _put(ctrl, H_KEYS, P.keys)
    _put(ctrl, H_META, P.meta)
    _put(ctrl, H_TU, T.u)
    _put(ctrl, H_TI, T.i)
    _put(ctrl, H_NN, T.nn)
    _put(ctrl, H_SLOTS, tt.slots)
    _put(ctrl, H_CONF, tt.conf)
    _put(ctrl, H_STATS, tt.stats)
    _put(ctrl, H_LOCKS, tt.locks)
    _put(ctrl, H_SEEN, tt.seen)
    _put(ctrl, H_TLINES, tt.lines)
    _put(ctrl, H_HISTORY, S.history)
    _put(ctrl, H_PV, S.pv)
    _put(ctrl, H_STACK, S.stack)
    _put(ctrl, H_MOVES, S.moves)
    _put(ctrl, H_SCORES, S.scores)
    _put(ctrl, H_ROOT_MOVES, S.root_moves)
    _put(ctrl, H_ROOT_NODES, S.root_nodes)
    _put(ctrl, H_LINES, S.lines)
    _put(ctrl, H_CONT, S.cont_history)
    _put(ctrl, H_ACC, S.nn_acc)


@jit_inline
def _view1(ctrl, at, dtype):
    return array_at(ctrl[at], (ctrl[at + 1],), dtype)


@jit_inline
def _readonly_view1(ctrl, at, dtype):
    return readonly_array_at(ctrl[at], (ctrl[at + 1],), dtype)


@jit_inline
def _view2(ctrl, at, dtype):
    return array_at(ctrl[at], (ctrl[at + 1], ctrl[at + 2]), dtype)


@jit_inline
def _view3(ctrl, at, dtype):
    return array_at(ctrl[at], (ctrl[at + 1], ctrl[at + 2], ctrl[at + 3]), dtype)


@jit_inline
def _position_from(ctrl):
    return Position(_view1(ctrl, H_BB, np.uint64), _view1(ctrl, H_BOARD, np.int8),
                    _view2(ctrl, H_ST, np.int64), _view1(ctrl, H_KEYS, np.uint64),
                    _view1(ctrl, H_META, np.int64))


@jit_inline
def _tables_from(ctrl):
    return Tables(_readonly_view1(ctrl, H_TU, np.uint64), _readonly_view1(ctrl, H_TI, np.int64),
                  _readonly_view1(ctrl, H_NN, np.int16))


@jit_inline
def unpack_handles(ctrl):
    """(P, T, tt, S) again from the handles fill_handles wrote into ctrl."""
    P = _position_from(ctrl)
    T = _tables_from(ctrl)
    tt = TT(_view1(ctrl, H_SLOTS, np.uint64), _view1(ctrl, H_CONF, np.int64),
            _view1(ctrl, H_STATS, np.int64), _view1(ctrl, H_LOCKS, np.int32),
            _view1(ctrl, H_SEEN, np.uint64), _view1(ctrl, H_TLINES, np.uint64))
    S = SearchState(ctrl, _view3(ctrl, H_HISTORY, np.int64), _view2(ctrl, H_PV, np.int64),
                    _view2(ctrl, H_STACK, np.int64), _view1(ctrl, H_MOVES, np.int32),
                    _view1(ctrl, H_SCORES, np.int64), _view1(ctrl, H_ROOT_MOVES, np.int64),
                    _view1(ctrl, H_ROOT_NODES, np.int64), _view2(ctrl, H_LINES, np.uint64),
                    _view2(ctrl, H_CONT, np.int16), _view2(ctrl, H_ACC, np.int16))
    return P, T, tt, S


# The calls every node makes, given the handles: a few words instead of the arrays of P, T
# and S (the bodies are engine.movegen's and engine.position's, compiled in here).
@jit
def _noisy_moves(ctrl, start):
    """generate_noisy into S.moves[start:]; the end index."""
    return generate_inline(_position_from(ctrl), _tables_from(ctrl),
                           _view1(ctrl, H_MOVES, np.int32), start, np.int64(GEN_NOISY))


@jit
def _quiet_moves(ctrl, start):
    """generate_quiet into S.moves[start:]; the end index."""
    return generate_inline(_position_from(ctrl), _tables_from(ctrl),
                           _view1(ctrl, H_MOVES, np.int32), start, np.int64(GEN_QUIET))


@jit
def _unmake(ctrl):
    """unmake_move of P."""
    take_back(_position_from(ctrl))


@jit
def _make(ctrl, move):
    """make_move of P."""
    make_move(_position_from(ctrl), _tables_from(ctrl), move)


@jit
def _evaluate(ctrl, ply):
    """network_eval of P at `ply` (the accumulators on S's stack)."""
    return network_eval(_position_from(ctrl), _tables_from(ctrl), _view2(ctrl, H_ACC, np.int16),
                        _view2(ctrl, H_STACK, np.int64), ply)


@jit
def insufficient_material(P):
    """Neither side can mate: bare kings, or a single minor piece against a bare king."""
    bb = P.bb
    for piece_type in (PAWN, ROOK, QUEEN):
        if bb[piece_of(WHITE, piece_type)] | bb[piece_of(BLACK, piece_type)]:
            return False
    minors = popcount(bb[piece_of(WHITE, KNIGHT)] | bb[piece_of(BLACK, KNIGHT)]
                      | bb[piece_of(WHITE, BISHOP)] | bb[piece_of(BLACK, BISHOP)])
    return minors <= 1


@jit_inline
def is_draw(P, T, moves, ply, paper):
    """Repetition (play: once before after the root, or twice before in the game, see
    repeats_as_draw; paper: any earlier occurrence), the 50-move rule, or insufficient
    material. A checkmate on the hundredth half-move is a mate, not a
    draw (the move that ends the fifty wins), so the 50-move rule first looks for a legal
    move when the side to move is in check (into this ply's part of `moves`, the search's
    move buffer, which the node would fill anyway). `paper`: the PAPER profile. It takes
    the one array of the search state it uses (a call copies every array it is given)."""
    row = P.meta[META_PLY]
    if P.st[row, ST_HALFMOVE] >= 100:
        if not in_check(P, T):
            return True
        start = ply * MAX_MOVES
        return generate_all(P, T, moves, start) > start
    # A position can repeat only after four reversible half-moves (no null move between).
    if min(P.st[row, ST_HALFMOVE], P.st[row, ST_NULL_DIST]) >= 4:
        if paper:
            if repetitions(P) >= 1:   # the thesis' runs: any earlier occurrence (kept frozen)
                return True
        elif repeats_as_draw(P, row - ply):
            return True
    return insufficient_material(P)


@jit
def _has_pieces(P, side):
    return (P.bb[piece_of(side, KNIGHT)] | P.bb[piece_of(side, BISHOP)]
            | P.bb[piece_of(side, ROOK)] | P.bb[piece_of(side, QUEEN)]) != 0


@jit
def _update_pv(S, ply, move):
    S.pv[ply, ply] = move
    child = ply + 1
    for i in range(child, S.stack[child, STACK_PV_LEN]):
        S.pv[ply, i] = S.pv[child, i]
    S.stack[ply, STACK_PV_LEN] = max(S.stack[child, STACK_PV_LEN], child)


@jit
def _root_line_row(S, move):
    """The row of S.lines (from ROOT_LINES on) that holds `move`'s refutation line, or the
    first free row when none does yet."""
    wanted = np.uint64(move)
    last = S.lines.shape[0] - 1
    for row in range(ROOT_LINES, last):
        held = S.lines[row, 0]
        if held == wanted or held == U0:
            return row
    return last   # a row per root move: not reached


@jit
def _follow_root_line(S, move):
    """Before a search of root move `move` (root_lines): its refutation line becomes the
    line the ordering follows from ply 1 on (STACK_PREV_PV); YES when it has one."""
    row = _root_line_row(S, move)
    length = np.int64(S.lines[row, 1])
    if S.lines[row, 0] == U0 or length == 0:
        return NO
    for k in range(length):
        S.stack[1 + k, STACK_PREV_PV] = np.int64(S.lines[row, 2 + k])
    S.ctrl[K_PREV_PV_LEN] = 1 + length
    return YES


@jit
def _keep_root_line(S, move):
    """After a finished search of root move `move` (root_lines): the line its child
    returned is kept as the move's refutation line."""
    row = _root_line_row(S, move)
    end = min(S.stack[1, STACK_PV_LEN], S.lines.shape[1] - 1)
    S.lines[row, 0] = np.uint64(move)
    S.lines[row, 1] = np.uint64(end - 1)
    for k in range(1, end):
        S.lines[row, 1 + k] = np.uint64(S.pv[1, k])


@jit
def lmr_history_adjustment(history):
    """Plies a quiet move's late-move reduction shrinks by (negative: grows by) for its
    ordering score (history plus continuation histories): that / LMR_HISTORY rounded
    towards zero, at most 2 either way."""
    if history >= 0:
        return min(2, history // LMR_HISTORY)
    return -min(2, -history // LMR_HISTORY)


def lmr_table():
    """LMR_BASE + ln(depth) ln(searched) / LMR_DIVISOR, truncated, for depth 1..MAX_PLY and
    searched 1..MAX_MOVES (row or column 0: 0). Computed once here: two logarithms at every
    late move were about 1% of a search's time."""
    # math.log on each index, then the same float operations elementwise: a loop over the
    # 65,000 cells took 20 ms of every start.
    log_depth = np.array([0.0] + [math.log(d) for d in range(1, MAX_PLY + 1)])
    log_searched = np.array([0.0] + [math.log(s) for s in range(1, MAX_MOVES + 1)])
    table = np.trunc(LMR_BASE + np.multiply.outer(log_depth, log_searched) / LMR_DIVISOR)
    table = table.astype(np.int8)
    table[0, :] = 0
    table[:, 0] = 0
    table.setflags(write=False)   # numba freezes a global array into the compiled code
    return table


LMR_TABLE = lmr_table()


@jit
def late_move_reduction(depth, searched):
    """The logarithmic late-move reduction of a move searched after `searched` others, before
    the adjustments for PV, cut nodes and history (the caller checks
    late_move_reduction_applies)."""
    return np.int64(LMR_TABLE[min(depth, MAX_PLY), min(searched, MAX_MOVES)])


@jit_inline
def late_move_reduction_applies(depth, searched):
    """Whether a quiet move searched after `searched` others at `depth` may be reduced
    (PLAY, below the root): from the third move searched, at depth LMR_MIN_DEPTH or more."""
    return depth >= LMR_MIN_DEPTH and searched >= LMR_MIN_MOVES


@jit
def futility_reduction(depth, searched):
    """Plies a quiet move's futility test takes off the node's depth: the late-move
    reduction it would get (the logarithmic formula alone) after `searched` moves."""
    if not late_move_reduction_applies(depth, searched):
        return 0
    return min(depth - 1, late_move_reduction(depth, searched))


@jit
def _count_node(S, ply):
    S.ctrl[K_NODES] += 1
    S.ctrl[K_WEIGHTED] += 1
    if ply > S.ctrl[K_SELDEPTH]:
        S.ctrl[K_SELDEPTH] = ply
    if S.ctrl[K_MAX_NODES] > 0 and S.ctrl[K_NODES] >= S.ctrl[K_MAX_NODES]:
        S.ctrl[K_STOP] = 1


@jit
def _move_in_list(moves, start, end, move):
    for i in range(start, end):
        if moves[i] == move:
            return True
    return False


@jit
def _drop_move(moves, start, end, move):
    """Remove `move` (searched already) from moves[start:end], the last move taking its
    place; return the new end."""
    for i in range(start, end):
        if moves[i] == move:
            moves[i] = moves[end - 1]
            return end - 1
    return end


@jit_inline
def _any_gives_check(P, T, moves, start, end, info):
    for i in range(start, end):
        if gives_check_with(P, T, moves[i], info):
            return True
    return False


@jit
def _tracks_lines(tt, paper):
    """This search keeps n-ply lines (module docstring): PAPER with a table of n > 1."""
    return paper and tt_enabled(tt) and tt_line_plies(tt) > 1


@jit
def _line_move(tt, S, ply, tt_move, tt_line, start, end):
    """n-ply lines at a node with its legal moves in S.moves[start:end]: (the move to order
    as the TT move, the move whose child inherits a line, that line). The table's move and
    line come first; else the first move of the line inherited from the parent, if legal."""
    if tt_move != 0:
        return np.int64(tt_move), np.int64(tt_move), tt_line
    inherited = S.lines[LINE_INHERITED, ply]
    move = line_first(inherited)
    if move != 0 and _move_in_list(S.moves, start, end, move):
        tt_note_line_move(tt)
        return move, move, line_rest(inherited)
    return np.int64(0), np.int64(0), U0


@jit
def _pass_line(S, ply, move, line_move, line):
    """Before searching `move`'s child: it inherits `line` if reached by `line_move`, and
    returns the empty line unless it sets one."""
    S.lines[LINE_INHERITED, ply + 1] = line if move == line_move else U0
    S.lines[LINE_RETURNED, ply + 1] = U0


@jit
def eval_at_max_ply(P, T, paper):
    """The value of a node at MAX_PLY, where neither search may go deeper: PAPER the
    material + PST evaluation, PLAY the hand-written reference evaluation."""
    return material_pst_eval(P) if paper else reference_eval(P, T)


@jit
def quiesce(P, T, tt, S, alpha, beta, ply):
    """Captures and promotions (every move in check) until the position is quiet."""
    fill_handles(P, T, tt, S)
    return _quiesce(S.ctrl, alpha, beta, ply)


@jit_recursive(np.int64)
def _quiesce(ctrl, alpha, beta, ply):
    """quiesce, given only ctrl with the handles written (see K_HANDLES)."""
    P, T, tt, S = unpack_handles(ctrl)
    _count_node(S, ply)
    S.ctrl[K_QNODES] += 1
    S.stack[ply, STACK_PV_LEN] = ply
    if S.ctrl[K_STOP] != 0:
        return 0
    paper = S.ctrl[K_PROFILE] == PROFILE_PAPER
    if ply >= MAX_PLY - 1:
        return eval_at_max_ply(P, T, paper)
    if insufficient_material(P):
        return DRAW
    checked = in_check(P, T)
    start = ply * MAX_MOVES
    tt_move = 0
    if checked:
        best = -INFINITE
        end = generate_all(P, T, S.moves, start)
        if end == start:
            return -(MATE - ply)
    else:
        stand_pat = material_pst_eval(P)
        # PLAY: the network is asked only when material and piece-square values alone do
        # not already decide the stand-pat against the window (lazy evaluation).
        if not paper and alpha - LAZY_MARGIN < stand_pat < beta + LAZY_MARGIN:
            stand_pat = _evaluate(ctrl, ply)
        if tt_enabled(tt):
            # Figure 2.7's Evaluate: a stored score replaces or bounds the evaluation.
            tt_move, stand_pat, cut = tt_bound_eval(tt, current_key(P), ply, stand_pat,
                                                    alpha, beta)
            if cut:
                return stand_pat
        if stand_pat >= beta:
            return stand_pat
        if stand_pat > alpha:
            alpha = stand_pat
        best = stand_pat
        end = _noisy_moves(ctrl, start)
        if end == start:
            return best   # quiet: the stand-pat stands (saves the calls below)
    side = side_to_move(P)
    prune_losing = not checked and not paper
    delta_base = best + DELTA_MARGIN
    if checked:
        score_moves(P, T, S, S.moves, S.scores, start, end, 0, tt_move, ply, side, False)
    else:
        score_noisy(P, S.moves, S.scores, start, end, 0, tt_move)
    for i in range(start, end):
        move = pick_next(S.moves, S.scores, i, end)
        if prune_losing and not move_is_promotion(move):
            # Delta pruning: even winning the victim outright leaves the score at or below
            # alpha; that optimistic value is what the skipped capture may be worth.
            hope = delta_base + capture_gain(P, move)
            if hope <= alpha:
                best = max(best, hope)
                continue
            if not see_at_least(P, T, move, 0):
                continue  # a capture that loses material cannot raise a quiet position's score
        tt_prefetch(tt, key_after(P, T, move))   # before the move: more time to arrive
        _make(ctrl, move)
        score = -_quiesce(ctrl, -beta, -alpha, ply + 1)
        _unmake(ctrl)
        if S.ctrl[K_STOP] != 0:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                _update_pv(S, ply, move)
                if score >= beta:
                    break
    return best


# -- the steps of `search`, each inlined into its caller (search_root shares 8a and 8b) --
@jit_inline
def _horizon(P, T, tt, S, alpha, beta, ply):
    """Step 0: at depth 0, quiescence. PLAY: a horizon leaf that repeats (or ends by the
    50-move rule) is a draw, not a quiescence score; quiescence itself plays only captures,
    which never repeat. The PAPER profile keeps the thesis' count: the draw is found one ply
    earlier only."""
    S.ctrl[K_HORIZON] += 1
    if S.ctrl[K_PROFILE] != PROFILE_PAPER and ply > 0 and is_draw(P, T, S.moves, ply, False):
        _count_node(S, ply)   # a call of the search is a node, as quiescence's would be
        return DRAW
    weighted = S.ctrl[K_WEIGHTED]
    score = _quiesce(S.ctrl, alpha, beta, ply)
    if not size_counts_qnodes(tt):
        S.ctrl[K_WEIGHTED] = weighted + 1   # the horizon leaf alone, as the thesis counts
    return score


@jit_inline
def _rules_end(P, T, S, alpha, beta, ply, paper):
    """Step 1, below the root: a draw by rule, the ply limit, or (PLAY) mate-distance
    pruning ends the node. Returns (ended, score, alpha, beta)."""
    if is_draw(P, T, S.moves, ply, paper):
        return True, np.int64(DRAW), alpha, beta
    if ply >= MAX_PLY - 1:
        return True, np.int64(eval_at_max_ply(P, T, paper)), alpha, beta
    if not paper:
        alpha = max(alpha, -(MATE - ply))
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return True, alpha, alpha, beta
    return False, np.int64(0), alpha, beta


@jit_inline
def _network_value(S, ply):
    """(PLAY, not in check) The network's value of the node, kept on the stack, and whether
    it improves on that of two plies before: (value, improving)."""
    value = _evaluate(S.ctrl, ply)
    S.stack[ply, STACK_EVAL] = value
    earlier = S.stack[ply - 2, STACK_EVAL] if ply >= 2 else NO_EVAL
    return value, 0 if earlier != NO_EVAL and value <= earlier else 1


@jit_inline
def _static_value(network_value, tscore, tbound):
    """Step 3 (PLAY, not in check): the node's static value for pruning. A stored score on
    the right side of the network's value is the better guess of the node's value
    (whatever depth it came from), so pruning uses it; "improving" does not."""
    if abs(tscore) < MATE_BOUND:
        return bounded_guess(network_value, tscore, tbound)
    return network_value


@jit_inline
def _prune_quiet(S, i, start, depth, searched, static, alpha, late_moves, may_lmp):
    """Step 7a: whether a plain quiet move of a non-PV node is hopeless, and the score it
    is taken to reach. Futility is tested at the depth the move would be searched to after
    its late-move reduction (a late move at depth 8 can be as hopeless as an early one at
    5); late-move and history pruning take it to score at most alpha."""
    futility_depth = depth - futility_reduction(depth, searched)
    futility_value = static + FUTILITY_MARGIN * futility_depth
    if (futility_depth <= FUTILITY_MAX_DEPTH and futility_value <= alpha
            and alpha < MATE_BOUND):   # no static value beats a mate: search it
        return True, futility_value
    if may_lmp and (i - start >= late_moves
                    or (depth <= HISTORY_PRUNE_DEPTH and S.scores[i] < -HISTORY_PRUNE * depth)):
        return True, alpha
    return False, alpha


@jit_inline
def _reduction(depth, searched, is_pv, plain_quiet, cut_node, ordering):
    """Step 7b (PLAY): plies a late quiet move is reduced by: the logarithmic formula, one
    less at PV nodes and for killers, one more at expected cut nodes, shifted by the move's
    ordering score (history); at least 0, and the child keeps at least one ply."""
    reduction = late_move_reduction(depth, searched)
    if is_pv or not plain_quiet:
        reduction -= 1
    if cut_node:
        reduction += 1
    if plain_quiet:
        reduction -= lmr_history_adjustment(ordering)
    return max(0, min(reduction, depth - 2))


@jit_inline
def _learn_quiets(P, S, ply, side, best_move, depth, play, start, end, tried_quiets):
    """Step 8a: a quiet best move that raised alpha is rewarded in the histories. PLAY: the
    quiet moves searched before it (pick_next leaves the moves it has picked at the front,
    in the order picked) did worse: a history malus, when there were any."""
    if best_move == 0 or is_capture(P, best_move) or move_is_promotion(best_move):
        return
    reward_quiet(P, S, ply, side, best_move, depth, play)
    if play and tried_quiets > 1:
        malus = -history_bonus(depth)
        for j in range(start, end):
            other = S.moves[j]
            if other == best_move:
                break
            if not is_capture(P, other) and not move_is_promotion(other):
                update_quiet_histories(P, S, ply, side, other, malus)


@jit_inline
def _store_node(tt, S, key, ply, best_move, best, old_alpha, beta, depth, weighted_start,
                best_line, track):
    """Step 8b: the node's n-ply line (when tracked) and its table entry: the bound its
    result is, the subtree size as the scheme counts it, the line of its best move."""
    if track:
        S.lines[LINE_RETURNED, ply] = line_prepend(best_move, best_line, tt_line_plies(tt) - 1)
    if tt_enabled(tt):
        if best <= old_alpha:
            bound = BOUND_UPPER
        elif best >= beta:
            bound = BOUND_LOWER
        else:
            bound = BOUND_EXACT
        tt_store_line(tt, key, ply, best_move, best, depth, bound,
                      S.ctrl[K_WEIGHTED] - weighted_start, best_line)


@jit
def search(P, T, tt, S, depth, alpha, beta, ply, on_pv, allow_null, cut_node):
    """The search below (_search) of P from outside the recursion: the handles first."""
    fill_handles(P, T, tt, S)
    return _search(S.ctrl, depth, alpha, beta, ply, on_pv, allow_null, cut_node)


@jit_recursive(np.int64)
def _search(ctrl, depth, alpha, beta, ply, on_pv, allow_null, cut_node):
    """Principal-variation search of the current position to `depth` plies; returns the
    score from the side to move's view. `on_pv`: the path so far follows the previous
    iteration's PV, whose next move is then tried first (the refutation move). `cut_node`:
    a non-PV node expected to fail high (PLAY: its late quiet moves are reduced one ply
    more). Along a first move or a null move, cut nodes and expected fail-low nodes
    alternate; the null-window child of a late move is a cut node (once re-searched at full
    depth after failing high reduced, it takes the parent's opposite)."""
    P, T, tt, S = unpack_handles(ctrl)
    # Every return below leaves this node's line empty unless a move raised alpha: the
    # parent copies the line of the child it keeps, so a stale one would reach the GUI.
    S.stack[ply, STACK_PV_LEN] = ply
    # 0. The horizon.
    if depth <= 0:
        return _horizon(P, T, tt, S, alpha, beta, ply)
    _count_node(S, ply)
    if ctrl[K_STOP] != 0:
        return 0
    paper = ctrl[K_PROFILE] == PROFILE_PAPER
    is_pv = beta - alpha > 1
    # root_lines: every node returns the line of its best move, also when it fails low, so
    # that a refuted root move's line reaches past the refutation move
    fail_low_lines = paper and root_lines(tt)

    # 1. Draws by rule, the ply limit, mate-distance pruning.
    if ply > 0:
        ended, score, alpha, beta = _rules_end(P, T, S, alpha, beta, ply, paper)
        if ended:
            return score
    weighted_start = ctrl[K_WEIGHTED] - 1
    key = current_key(P)
    old_alpha = alpha
    # PLAY: a singular search of this node leaves out this move, and neither uses nor
    # stores the node's table entry nor prunes before the moves
    excluded = S.stack[ply, STACK_EXCLUDED]
    checked = in_check(P, T)
    # PLAY, not in check: the network's value before the table is asked. It does not
    # depend on the entry, and its work gives the entry's cache line, prefetched by the
    # parent, the time to arrive; a cut-off by the entry leaves it unused.
    network_value = 0
    improving = 1
    if not paper and not checked:
        network_value, improving = _network_value(S, ply)

    # 2. Transposition table (Figure 2.7): an exact score returns, bounds move the window.
    tt_move = 0
    tt_line = U0
    static = 0
    use_table = tt_enabled(tt)
    track = _tracks_lines(tt, paper)
    known = False   # the table holds this position (with or without a move)
    tscore = 0
    tbound = BOUND_NONE
    tdepth = -1
    if use_table and excluded == 0:
        known, tt_move, cut, tscore, alpha, beta, tsize, tt_line, tbound, tdepth = tt_lookup(
            tt, key, ply, depth, alpha, beta, ply > 0 and (paper or not is_pv))
        if cut:
            ctrl[K_WEIGHTED] += tt_hit_weight(tt, tsize)
            if track:
                S.lines[LINE_RETURNED, ply] = line_prepend(tt_move, tt_line, tt_line_plies(tt) - 1)
            return tscore

    side = side_to_move(P)

    # 3. Static value and extensions (PLAY): a check extends; a position never searched
    # this deep is searched a ply shallower (internal iterative reduction), so that a
    # cheaper search finds a move for the next visit.
    if not paper:
        if checked:
            depth += 1
            S.stack[ply, STACK_EVAL] = NO_EVAL
        else:
            static = _static_value(network_value, tscore, tbound)
            if use_table and not known and excluded == 0 and depth >= IIR_MIN_DEPTH:
                depth -= 1

        # 4. Pruning before the moves (PLAY): reverse futility, then the null move.
        if not checked and not is_pv and excluded == 0 and abs(beta) < MATE_BOUND:
            if depth <= RFP_MAX_DEPTH and static - RFP_MARGIN * depth + RFP_IMPROVING * improving >= beta:
                return (static + beta) // 2   # halfway: a static value far above beta is an overestimate
            if (allow_null and depth >= NULL_MIN_DEPTH and static >= beta
                    and _has_pieces(P, side)):
                S.stack[ply, STACK_MOVED] = CONTINUATION_NONE
                make_null(P, T)
                tt_prefetch(tt, current_key(P))
                score = -_search(ctrl, depth - 1 - NULL_REDUCTION - depth // 6, -beta,
                                -beta + 1, ply + 1, NO, NO, NO if cut_node else YES)
                unmake_null(P)
                if ctrl[K_STOP] != 0:
                    return 0
                if score >= beta:
                    return beta if score >= MATE_BOUND else score

    # 5. Singular extension of the table move (PLAY; constants SINGULAR_*), before this
    # node's moves are generated: the excluded search reuses this ply's move list.
    tt_extension = 0
    if (not paper and ply > 0 and tt_move != 0 and excluded == 0 and depth >= SINGULAR_MIN_DEPTH
            and ply < 2 * ctrl[K_ROOT_DEPTH]):
        if (tdepth >= depth - SINGULAR_DEPTH_SLACK
                and (tbound == BOUND_LOWER or tbound == BOUND_EXACT)
                and abs(tscore) < SINGULAR_MAX_SCORE):
            singular_beta = tscore - SINGULAR_MARGIN * depth
            S.stack[ply, STACK_EXCLUDED] = tt_move
            score = _search(ctrl, (depth - 1) // 2, singular_beta - 1, singular_beta, ply,
                           NO, NO, cut_node)
            S.stack[ply, STACK_EXCLUDED] = 0
            S.stack[ply, STACK_PV_LEN] = ply
            if ctrl[K_STOP] != 0:
                return 0
            if score < singular_beta:
                tt_extension = 1
            elif singular_beta >= beta:
                return singular_beta   # multi-cut: another move beats beta as well
            elif tscore >= beta:
                tt_extension = -1

    # 6. Moves, ordered: none means mate or stalemate. PLAY: a table move that will be
    # searched first is searched before the others are generated and scored (it is checked
    # by is_legal, the generator's rules for its one piece); a cut-off by it saves both.
    # Outside check the rest come in two stages, captures and promotions, then the moves
    # that do neither only if no capture cut off (ordering puts them after the captures in
    # any case; a stalemate shows when both stages are empty).
    start = ply * MAX_MOVES
    pv_move = S.stack[ply, STACK_PREV_PV] if on_pv and ply < ctrl[K_PREV_PV_LEN] else 0
    ahead = not paper and not track and (pv_move == 0 or pv_move == tt_move)
    staged = ahead and not checked
    pending = PENDING_NOISY if staged else PENDING_NONE
    first = 0   # the table move when it is searched before the generation
    end = start
    if ahead and tt_move != 0 and excluded == 0:
        if is_legal(P, T, tt_move, S.moves, start):
            S.moves[start] = tt_move
            S.scores[start] = ORDER_TT
            end = start + 1
            first = tt_move
            if not staged:
                pending = PENDING_ALL
        else:
            tt_note_type1(tt)   # a wrong position's move: never play it
            tt_move = 0
    line_move = 0
    line_next = U0
    if pending == PENDING_NONE:
        end = generate_all(P, T, S.moves, start)
        if end == start:
            return -(MATE - ply) if checked else DRAW
        if tt_move != 0 and not _move_in_list(S.moves, start, end, tt_move):
            tt_note_type1(tt)
            tt_move = 0
        if track:   # n-ply lines: no table move, but maybe an ancestor's
            tt_move, line_move, line_next = _line_move(tt, S, ply, tt_move, tt_line, start, end)
        score_moves(P, T, S, S.moves, S.scores, start, end, pv_move, tt_move, ply, side,
                    not paper)

    # 7. PVS over the ordered moves.
    best = -INFINITE
    best_move = 0
    best_line = U0   # n-ply lines: the line returned by best_move's child
    searched = 0
    # Quiet late moves of a non-PV node near the horizon are pruned when they look hopeless
    # (never while every move searched so far loses to mate: a pruned move may be the only
    # defence). A pruned move is taken to score at most what pruned it: the futility value,
    # or alpha for late-move and history pruning, so a fail-low stores an upper bound that
    # allows for it.
    prune_quiets = (not paper and not is_pv and not checked
                    and depth <= FUTILITY_MAX_DEPTH + FUTILITY_REDUCED_PLIES
                    and alpha > -MATE_BOUND)
    may_lmp = depth <= FUTILITY_MAX_DEPTH
    pruned_bound = -INFINITE
    late_moves = LMP_BASE + depth * depth if improving else (LMP_BASE + depth * depth) * 2 // 3
    pruned = False
    tried_quiets = 0   # PLAY: quiet moves searched (for the history malus below)
    rest_scanned = False
    check_info_known = False   # check_info is computed when the first pruning test needs it
    info = (np.int64(0), U0, U0, U0, U0, U0)
    i = start
    while i < end or pending != PENDING_NONE:
        if i == end:
            if pending == PENDING_ALL:
                # The table move searched alone did not cut off: the other moves now.
                # Picking the table move again (the top score) leaves the list as picking
                # it first had.
                end = generate_all(P, T, S.moves, start)
                score_moves(P, T, S, S.moves, S.scores, start, end, pv_move, tt_move, ply,
                            side, not paper)
                pick_next(S.moves, S.scores, start, end)
                pending = PENDING_NONE
                i = start + 1
                if i == end:
                    break
            else:
                # The next stage goes after the moves searched so far.
                if pending == PENDING_NOISY:
                    end = _noisy_moves(ctrl, i)
                    pending = PENDING_QUIET
                else:
                    end = _quiet_moves(ctrl, i)
                    pending = PENDING_NONE
                    if end == start:
                        return DRAW   # no move, and not in check
                if first != 0:
                    end = _drop_move(S.moves, i, end, first)
                if end > i:
                    if pending == PENDING_QUIET:   # the captures and promotions just made
                        score_noisy(P, S.moves, S.scores, i, end, pv_move, tt_move)
                    else:
                        score_moves(P, T, S, S.moves, S.scores, i, end, pv_move, tt_move, ply,
                                    side, not paper)
                continue
        cur = i
        i += 1
        move = pick_next(S.moves, S.scores, cur, end)
        if move == excluded:
            continue
        quiet = not is_capture(P, move) and not move_is_promotion(move)
        plain_quiet = quiet and S.scores[cur] < ORDER_KILLER   # not a PV, TT or killer move
        prune = False
        prune_bound = alpha
        if prune_quiets and plain_quiet and searched > 0 and best > -MATE_BOUND:
            prune, prune_bound = _prune_quiet(S, cur, start, depth, searched, static, alpha,
                                              late_moves, may_lmp)
        if prune:
            if not check_info_known:
                info = check_info(P, T)
                check_info_known = True
            prune = not gives_check_with(P, T, move, info)   # checks may mate: never pruned
        if prune:
            pruned = True
            pruned_bound = max(pruned_bound, prune_bound)
            if not rest_scanned:
                # Ordering puts plain quiet moves last, and the condition above stays true
                # while nothing is searched: every later move is pruned too unless it gives
                # check. With no check among them the node is done; the selection sort
                # would only pick each of them to skip it.
                rest_scanned = True
                if not _any_gives_check(P, T, S.moves, cur + 1, end, info):
                    break
            continue
        tt_prefetch(tt, key_after(P, T, move))   # before the move: more time to arrive
        S.stack[ply, STACK_MOVED] = continuation_index(P, move)
        _make(ctrl, move)
        if track:
            _pass_line(S, ply, move, line_move, line_next)
        child_depth = depth - 1 + (tt_extension if move == tt_move else 0)
        # PVS: the first move at the full window; a later one at a null window above alpha,
        # reduced first (again unreduced if it beats alpha), then at the full window if its
        # score lies inside. One call site for all of these: numba types each recursive
        # call site by inferring the whole function again, three times over.
        reduction = 0
        if searched == 0:
            child_alpha, child_beta = alpha, beta
            child_pv = YES if (on_pv and move == pv_move) else NO
            child_cut = YES if not (is_pv or cut_node) else NO
            last_try = True
        else:
            if (not paper and quiet and not checked and late_move_reduction_applies(depth, searched)
                    and not in_check(P, T)):
                reduction = _reduction(depth, searched, is_pv, plain_quiet, cut_node, S.scores[cur])
            child_alpha, child_beta, child_pv, child_cut = alpha, alpha + 1, NO, YES
            last_try = False
        while True:
            if child_depth - reduction <= 0:
                # A horizon leaf: quiescence called from here saves a call of this kernel
                # (the search's every array passed again) for each of them.
                S.stack[ply + 1, STACK_PV_LEN] = ply + 1
                score = -_horizon(P, T, tt, S, -child_beta, -child_alpha, ply + 1)
            else:
                score = -_search(ctrl, child_depth - reduction, -child_beta, -child_alpha,
                                ply + 1, child_pv, YES, child_cut)
            if last_try:
                break
            if reduction > 0 and score > alpha:
                reduction = 0
                child_cut = NO if cut_node else YES
            elif alpha < score < beta:
                child_beta, child_cut = beta, NO
                last_try = True
            else:
                break
        _unmake(ctrl)
        if ctrl[K_STOP] != 0:
            return 0
        searched += 1
        if quiet and not paper:
            tried_quiets += 1
        if score > best:
            best = score
            best_move = move
            if track:
                best_line = S.lines[LINE_RETURNED, ply + 1]
            if score > alpha:
                alpha = score
                _update_pv(S, ply, move)
                if score >= beta:
                    break
            elif fail_low_lines:
                _update_pv(S, ply, move)

    if pruned and best < pruned_bound:
        best = pruned_bound
    if excluded != 0:   # a singular search: nothing learnt or stored
        return best if best > -INFINITE else alpha

    # 8. Learn and store.
    if best > old_alpha:
        _learn_quiets(P, S, ply, side, best_move, depth, not paper, start, end, tried_quiets)
    _store_node(tt, S, key, ply, best_move, best, old_alpha, beta, depth, weighted_start,
                best_line, track)
    return best


@jit
def search_root(P, T, tt, S, depth, alpha, beta):
    """One iteration over the root moves in S.root_moves (ordered by the driver). Records
    each move's subtree size and score, the PV in S.pv[0], the number of root moves fully
    searched (ctrl[K_ROOT_COMPLETED]) and the best of them (ctrl[K_ROOT_BEST], with what is
    known of its score); returns the best score (meaningful only if the iteration was not
    stopped)."""
    fill_handles(P, T, tt, S)
    ctrl = S.ctrl
    paper = ctrl[K_PROFILE] == PROFILE_PAPER
    _count_node(S, 0)
    S.stack[0, STACK_PV_LEN] = 0
    ctrl[K_ROOT_COMPLETED] = 0
    ctrl[K_ROOT_DEPTH] = depth
    ctrl[K_ROOT_BEST] = 0
    weighted_start = ctrl[K_WEIGHTED] - 1
    key = current_key(P)
    old_alpha = alpha
    best = -INFINITE
    best_move = 0
    best_line = U0
    track = _tracks_lines(tt, paper)
    line_move = np.int64(0)
    line_next = U0
    if track:   # n-ply lines: the root's stored line guides the child of its first move
        line_move, line_next = tt_root_line(tt, key)
    own_lines = paper and root_lines(tt)   # each root move follows its refutation line
    count = ctrl[K_ROOT_COUNT]
    pv_move = S.stack[0, STACK_PREV_PV] if ctrl[K_PREV_PV_LEN] > 0 else 0
    checked = in_check(P, T)
    side = side_to_move(P)
    if not paper:
        S.stack[0, STACK_EVAL] = NO_EVAL if checked else _evaluate(ctrl, 0)
    for i in range(count):
        move = S.root_moves[i]
        ctrl[K_CURRMOVE] = move
        ctrl[K_CURRMOVE_NUMBER] = i + 1
        nodes_before = ctrl[K_NODES]
        quiet = not is_capture(P, move) and not move_is_promotion(move)
        S.stack[0, STACK_MOVED] = continuation_index(P, move)
        _make(ctrl, move)
        if track:
            _pass_line(S, 0, move, line_move, line_next)
        follow = NO
        if own_lines:
            follow = _follow_root_line(S, move)
        elif i == 0 and move == pv_move:
            follow = YES
        if i == 0:
            score = -_search(ctrl, depth - 1, -beta, -alpha, ONE_PLY, follow, YES, NO)
        else:
            reduction = 0
            if (not paper and quiet and not checked and depth >= LMR_MIN_DEPTH
                    and i >= 2 * LMR_MIN_MOVES and not in_check(P, T)):
                reduction = 1
            score = -_search(ctrl, depth - 1 - reduction, -alpha - 1, -alpha, ONE_PLY,
                            follow, YES, YES)
            if score > alpha and reduction > 0:
                score = -_search(ctrl, depth - 1, -alpha - 1, -alpha, ONE_PLY, follow, YES,
                                YES)
            if alpha < score < beta:
                if ctrl[K_STOP] == 0:
                    # Beat the best move at full depth: it is the answer if time runs out
                    # during the re-search that measures by how much.
                    ctrl[K_ROOT_BEST] = move
                    ctrl[K_ROOT_BEST_SCORE] = score
                    ctrl[K_ROOT_BEST_EXACT] = 0
                score = -_search(ctrl, depth - 1, -beta, -alpha, ONE_PLY, follow, YES, NO)
        _unmake(ctrl)
        if ctrl[K_STOP] != 0:
            break
        if own_lines:
            _keep_root_line(S, move)
        S.root_nodes[i] = ctrl[K_NODES] - nodes_before
        ctrl[K_ROOT_COMPLETED] = i + 1
        if score > best:
            best = score
            best_move = move
            if track:
                best_line = S.lines[LINE_RETURNED, 1]
            if score > alpha:
                ctrl[K_ROOT_BEST] = move  # proven better than alpha: usable even if stopped
                ctrl[K_ROOT_BEST_SCORE] = score
                ctrl[K_ROOT_BEST_EXACT] = score < beta
                alpha = score
                _update_pv(S, 0, move)
                if score >= beta:
                    break
    if ctrl[K_STOP] == 0:   # steps 8a and 8b of `search` (no malus at the root)
        if best > old_alpha:
            _learn_quiets(P, S, 0, side, best_move, depth, not paper, 0, 0, 0)
        _store_node(tt, S, key, 0, best_move, best, old_alpha, beta, depth, weighted_start,
                    best_line, track)
    if S.stack[0, STACK_PV_LEN] == 0 and best_move != 0:
        S.pv[0, 0] = best_move
        S.stack[0, STACK_PV_LEN] = 1
    return best
