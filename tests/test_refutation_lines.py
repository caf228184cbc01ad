"""The open choice root_lines (engine.tt_research.OPEN_CHOICES): each root move's search
follows the refutation line its last search returned, as ALIBABA's refutation table did,
instead of the previous iteration's PV only. Ordering changes the tree, never the value of a
search without a table; the kept lines are checked move by move with python-chess."""
import chess
import pytest

from engine.board import Board, move_to_uci
from engine.driver import Limits
from engine.search import K_NODES, ROOT_LINES
from engine.session import Session
from engine.tt_registry import scheme_index

POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
]


def _search(fen, depth, root_lines, use="full"):
    session = Session(profile="paper", positions=1 << 14, scheme=scheme_index("TwoBig1"),
                      use=use, choices=dict(root_lines=root_lines))
    result = session.search(Board(fen), Limits(depth=depth))
    return session, result


def _kept_lines(session):
    """{root move: its kept line} from the searcher's rows."""
    lines = session.searcher.S.lines
    kept = {}
    for row in range(ROOT_LINES, lines.shape[0]):
        move = int(lines[row, 0])
        if move == 0:
            break
        length = int(lines[row, 1])
        kept[move] = [int(m) for m in lines[row, 2:2 + length]]
    return kept


@pytest.mark.parametrize("fen", POSITIONS)
def test_refutation_lines_change_the_tree_but_not_the_value_without_a_table(fen):
    plain, plain_result = _search(fen, 4, False, use="none")
    guided, guided_result = _search(fen, 4, True, use="none")
    assert guided_result.score == plain_result.score
    assert int(guided.searcher.S.ctrl[K_NODES]) != int(plain.searcher.S.ctrl[K_NODES])


@pytest.mark.parametrize("fen", POSITIONS)
def test_every_root_move_keeps_a_legal_line_and_the_best_keeps_the_pv(fen):
    session, result = _search(fen, 4, True)
    kept = _kept_lines(session)
    board = Board(fen)
    assert sorted(kept) == sorted(board.legal_moves())
    for move, line in kept.items():
        oracle = chess.Board(fen)
        for played in [move] + line:
            uci = chess.Move.from_uci(move_to_uci(played))
            assert uci in oracle.legal_moves, (fen, move_to_uci(move), line)
            oracle.push(uci)
        # a refuted move keeps at least the refutation move (the ply-1 node failed high)
        assert line, move_to_uci(move)
    pv = result.iterations[-1].pv
    assert pv[0] == result.best_move
    assert kept[result.best_move] == pv[1:]


def test_without_the_choice_no_line_is_kept():
    session, _ = _search(POSITIONS[0], 3, False)
    assert _kept_lines(session) == {}
