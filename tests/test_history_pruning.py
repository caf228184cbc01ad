"""History pruning (play profile): near the horizon a non-PV node skips a plain quiet move
whose ordering score (history + threat shift) is below -HISTORY_PRUNE x depth."""
import chess
import numpy as np

from engine.board import Board
from engine.nnue import network_eval_fresh
from engine.codec import move_from, move_to
from engine.movepick import HISTORY_LIMIT
from engine.search import (
    FUTILITY_MARGIN, HISTORY_PRUNE_DEPTH, K_PROFILE, PROFILE_PLAY, RFP_IMPROVING, RFP_MARGIN,
    new_search_state, search,
)
from engine.tt import new_table, set_store_rules
from engine.types import MATE, WHITE

NO, YES = np.int64(0), np.int64(1)

# White to move; the black king attacks the rook on f7, which has many safe squares. With
# every rook move's history at the floor, history pruning skips them all and the rook is
# lost; without it, late-move pruning still searches the first rook moves (few other moves).
HANGING_ROOK = "6k1/5R2/8/8/8/8/6PP/7K w - - 0 1"
ROOK_MOVES = [m.uci() for m in chess.Board(HANGING_ROOK).legal_moves
              if m.from_square == chess.F7]


def node_value(depth, alpha, beta, rook_history):
    """The play profile's value of HANGING_ROOK as a non-root node (ply 1), with every rook
    move's history set to `rook_history` and the other moves' at 0."""
    board = Board(HANGING_ROOK)
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PLAY
    for uci in ROOK_MOVES:
        move = board.parse_uci(uci)
        S.history[WHITE, move_from(move), move_to(move)] = rook_history
    tt = new_table(mb=1)
    set_store_rules(tt, True)
    return int(search(board.P, board.T, tt, S, np.int64(depth), np.int64(alpha),
                      np.int64(beta), np.int64(1), NO, YES, NO))


def window_for(depth):
    """A zero window where only the rook's fate decides: above the line where reverse
    futility could cut (static - RFP_MARGIN x depth + RFP_IMPROVING), below both the value
    a rook move saves (a full-window search with neutral histories) and the line where
    futility would skip the quiet moves (static + FUTILITY_MARGIN x depth), so that losing
    the rook fails low. The middle of that interval, since both ends move with the
    network's weights."""
    board = Board(HANGING_ROOK)
    static = int(network_eval_fresh(board.P, board.T))
    low = static - RFP_MARGIN * depth + RFP_IMPROVING
    high = min(node_value(depth, -MATE, MATE, 0), static + FUTILITY_MARGIN * depth)
    assert low + 2 < high, (depth, low, high)
    alpha = (low + high) // 2
    return alpha, alpha + 1


def test_rook_moves_with_a_bad_history_are_pruned_near_the_horizon():
    for depth in range(1, HISTORY_PRUNE_DEPTH + 1):
        alpha, beta = window_for(depth)
        assert node_value(depth, alpha, beta, 0) > alpha, depth   # a rook move saves it
        # all pruned (at depth 1 late-move pruning alone would skip them too; at 2 and 3
        # only history pruning does)
        assert node_value(depth, alpha, beta, -HISTORY_LIMIT) <= alpha, depth


def test_no_history_pruning_at_a_pv_node():
    for depth in range(1, HISTORY_PRUNE_DEPTH + 1):
        alpha, _ = window_for(depth)
        # a PV node (full window) searches the rook moves whatever their history
        assert node_value(depth, -MATE, MATE, -HISTORY_LIMIT) > alpha, depth
