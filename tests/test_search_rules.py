"""Search correctness rules, each with a position where the old code was wrong:
pruning never invents a mate nor an upper bound below the truth, repetitions count as the
game's rules and strong engines count them, and a root move that failed high is not lost
when the search stops."""
import chess
import numpy as np
import pytest

from engine.bench import BENCH_FENS
from engine.board import Board, move_to_uci
from engine.driver import Limits, Searcher
from engine.search import K_PROFILE, PROFILE_PLAY, new_search_state, search
from engine.nnue import network_eval_fresh
from engine.search import FUTILITY_MARGIN
from engine.tt import BOUND_LOWER, new_table, set_store_rules, tt_store
from engine.types import MATE, MATE_BOUND

NO, YES = np.int64(0), np.int64(1)


def node_value(fen, depth, alpha, beta, hints=()):
    """The play profile's value of a non-root node (ply 1) searched in (alpha, beta) on a
    fresh table. hints: (moves from the node, move) pairs: a table entry too shallow to
    cut that makes `move` the first one tried in the position after `moves`."""
    board = Board(fen)
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PLAY
    tt = new_table(mb=1)
    set_store_rules(tt, True)
    for path, move in hints:
        hinted = Board(fen)
        for step in path:
            hinted.push_uci(step)
        tt_store(tt, np.uint64(hinted.key), 1 + len(path), hinted.parse_uci(move), 0, 0,
                 BOUND_LOWER, 1)
    return int(search(board.P, board.T, tt, S, np.int64(depth), np.int64(alpha), np.int64(beta),
                      np.int64(1), NO, YES, NO))


# Black to move; the capture Bxc4 allows Ra8 mate, every quiet move (h6, g6, Bc6...)
# defends.
BACK_RANK = "6k1/5ppp/8/1b6/2P5/8/8/R5K1 b - - 0 1"
# Black to move; Bxc4 loses the bishop to Qxc4, quiet moves keep the material.
LOSING_CAPTURE = "6k1/5ppp/8/1b6/2P5/8/4Q3/6K1 b - - 0 1"


def static_of(fen):
    board = Board(fen)
    return int(network_eval_fresh(board.P, board.T))


def test_pruning_never_turns_a_defended_position_into_a_mate():
    """Depth 3, zero window just above the futility value, so every plain quiet move is
    futile; table hints make Bxc4 the first move and Ra8 White's first answer. The node
    has then searched one move, which loses to mate, and must not return that mate."""
    depth = 3
    alpha = static_of(BACK_RANK) + FUTILITY_MARGIN * depth + 5
    hints = [((), "b5c4"), (("b5c4",), "a1a8")]
    value = node_value(BACK_RANK, depth, alpha, alpha + 1, hints)
    assert value > -MATE_BOUND, "the only defences were pruned and a false mate returned"
    assert node_value(BACK_RANK, depth, -MATE, MATE, hints) > -MATE_BOUND   # the truth


@pytest.mark.parametrize("fen", [LOSING_CAPTURE, BACK_RANK])
def test_a_fail_low_after_pruning_is_still_an_upper_bound(fen):
    """A zero-window search that fails low returns an upper bound on the node's value: it
    may not fall below the value a full-window (unpruned, PV) search finds."""
    for depth in (1, 2, 3):
        true_value = node_value(fen, depth, -MATE, MATE)
        alpha = max(true_value, static_of(fen) + FUTILITY_MARGIN * depth) + 5   # futile
        bound = node_value(fen, depth, alpha, alpha + 1)
        assert bound <= alpha                      # it does fail low...
        assert bound >= true_value, (depth, bound, true_value)   # ...but not below the truth


def _after(fen, moves):
    board = Board(fen)
    for move in moves:
        board.push_uci(move)
    return board


# Mate in 2 whose only key is Qc7 (tests/test_mates.py). The game went Qc7 Kh8 Qc1 Kg8, so
# the position after Qc7 occurred once before the root: not a draw yet.
MATE2 = "6k1/8/3B1P2/8/8/8/8/2QK4 w - - 0 1"
# A search of MATE2 itself to this depth finds Qc7 and its mate (test below: at depth 5
# the 256-unit network's pruning and reductions leave it for d6e5), so both tests below
# decide between the mate and the draw the repetition rule makes of it.
MATE2_DEPTH = 6


def test_the_mate_is_found_at_that_depth_without_a_repetition():
    result = Searcher().run(Board(MATE2), new_table(mb=4), Limits(depth=MATE2_DEPTH))
    assert move_to_uci(result.best_move) == "c1c7" and result.score == MATE - 3


def test_one_earlier_occurrence_before_the_root_is_not_a_draw():
    board = _after(MATE2, ["c1c7", "g8h8", "c7c1", "h8g8"])
    result = Searcher().run(board, new_table(mb=4), Limits(depth=MATE2_DEPTH))
    assert move_to_uci(result.best_move) == "c1c7"
    assert result.score == MATE - 3


def test_two_earlier_occurrences_before_the_root_are_a_draw():
    """The same line played twice: Qc7 now repeats a position for the third time, which
    the search scores as a draw, so it looks for another win (it has many)."""
    board = _after(MATE2, ["c1c7", "g8h8", "c7c1", "h8g8"] * 2)
    reference = chess.Board(MATE2)
    for move in ["c1c7", "g8h8", "c7c1", "h8g8"] * 2 + ["c1c7"]:
        reference.push_uci(move)
    assert reference.is_repetition(3)
    result = Searcher().run(board, new_table(mb=4), Limits(depth=MATE2_DEPTH))
    assert move_to_uci(result.best_move) != "c1c7"


def test_a_repetition_inside_the_search_path_is_a_draw_at_once():
    """Root after 1.e4 e5 (row 2). Nf3 Nf6 Ng1 Ng8 brings the root position back: its one
    earlier occurrence is the root itself, game history, so no draw yet; one more Nf3
    repeats a position first reached inside the search (row 3): a draw."""
    from engine.position import repeats_as_draw
    board = _after(chess.STARTING_FEN, ["e2e4", "e7e5"])
    root_row = board.ply
    for move in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        board.push_uci(move)
        assert not repeats_as_draw(board.P, root_row)
    board.push_uci("g1f3")
    assert repeats_as_draw(board.P, root_row)


def test_a_root_move_that_failed_high_is_played_when_the_search_stops():
    """Whenever the last thing a search reported was a fail high (lowerbound) of some move
    and no iteration completed after it, that move is played: the search stopped while it
    was measuring how much better the move is, not whether it is. And whatever stopped
    where, the last line reported starts with the move played (a stopped iteration that
    plays a move which beat the last best one says so). Node limits stop searches at many
    points; some of them land in such a re-search, some after such a move."""
    fail_highs = replaced = 0
    for fen in (BENCH_FENS[1], BENCH_FENS[2], BENCH_FENS[5], BENCH_FENS[7], BENCH_FENS[13]):
        for nodes in range(2_000, 200_000, 1_500):
            result = Searcher().run(Board(fen), new_table(mb=4), Limits(nodes=nodes))
            last = result.iterations[-1]
            where = (fen, nodes, move_to_uci(result.best_move))
            assert last.pv[0] == result.best_move, where
            finished = [it for it in result.iterations if it.bound is None
                        and it.depth == result.depth]
            if last.depth > result.depth:
                if last.bound == "lowerbound":
                    fail_highs += 1
                if finished and finished[-1].pv[0] != result.best_move:
                    replaced += 1
    assert fail_highs > 0    # the node limits did stop searches inside a re-search
    assert replaced > 0      # ... and after a move beat the last iteration's best
