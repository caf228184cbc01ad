"""n-ply lines per table entry (Breuker's thesis 2.7.3, the `pv_plies` setting): the line
word's codec, lines moving with their slots, pv_plies = 1 changing nothing, stored lines
being legal move sequences from their positions, and the ancestor-move counter."""
import chess
import chess.polyglot
import numpy as np
import pytest

from engine import tt as T
from engine import tt_layout as L
from engine import tt_research as R
from engine.tt_registry import scheme_index
from engine.board import Board, move_to_uci
from engine.driver import Limits
from engine.session import Session
from engine.types import MATE_BOUND, U0

MIDDLE = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10"
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
ENDGAME = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"
WAC = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"


def paper(fen, depth, positions=64 * 1024, **table):
    session = Session(profile="paper", positions=positions, **table)
    board = Board(fen)
    result = session.search(board, Limits(depth=depth))
    return session, board, result


# -- the table -----------------------------------------------------------------------------
def test_line_word_round_trips_and_cuts():
    moves = (0xFFFF, 1, 0x8000, 4095)
    assert R.unpack_line(R.pack_line(*moves)) == moves
    line = R.pack_line(11, 22, 33, 0)
    assert R.line_first(line) == 11
    assert R.unpack_line(R.line_rest(line)) == (22, 33, 0, 0)
    assert R.unpack_line(R.line_prepend(7, line, 4)) == (7, 11, 22, 33)
    assert R.unpack_line(R.line_prepend(7, line, 2)) == (7, 11, 0, 0)
    assert R.line_prepend(0, line, 4) == U0                       # no best move: empty
    assert R.unpack_line(R.line_cut(R.pack_line(1, 2, 3, 4), 3)) == (1, 2, 3, 0)


def test_lines_are_allocated_only_for_more_than_one_ply():
    assert T.new_table(positions=1024).lines.shape == (1,)
    assert T.new_table(positions=1024, pv_plies=1).lines.shape == (1,)
    table = T.new_table(positions=1024, pv_plies=3)
    assert table.lines.shape == (T.table_entries(table),)
    assert T.clear_table(table).lines.shape == table.lines.shape
    for bad in (0, 6):
        with pytest.raises(ValueError):
            T.new_table(positions=1024, pv_plies=bad)


def _store(tt, key, move, size, line=(0, 0, 0, 0)):
    T.tt_store_line(tt, np.uint64(key), np.int64(0), np.int64(move), np.int64(0), np.int64(3),
                    np.int64(T.BOUND_EXACT), np.int64(size), R.pack_line(*line))


def _line_of(tt, key):
    keys, lines = R.stored_keys(tt), R.stored_lines(tt)
    found = [tuple(int(m) for m in lines[i]) for i in np.flatnonzero(keys == np.uint64(key))]
    assert len(found) == 1
    return found[0]


def test_lines_move_with_their_slots_and_are_cut_to_n():
    tt = T.new_table(positions=8, scheme=scheme_index("TwoBig1"), pv_plies=3)     # 4 buckets of 2
    a, b, c = 4 * 1 + 1, 4 * 2 + 1, 4 * 3 + 1                        # one bucket
    _store(tt, a, 101, 10, (102, 103, 104, 0))
    assert _line_of(tt, a) == (101, 102, 103)                        # cut to 3 plies
    _store(tt, b, 201, 20, (202, 0, 0, 0))                           # bigger: a to level 2
    assert R.stored_keys(tt)[2:4].tolist() == [b, a]                 # bucket 1: b, a
    assert _line_of(tt, a) == (101, 102, 103) and _line_of(tt, b) == (201, 202, 0)
    _store(tt, a, 0, 30)                                             # no move: line kept, a up
    assert R.stored_keys(tt)[2:4].tolist() == [a, b]
    assert _line_of(tt, a) == (101, 102, 103) and _line_of(tt, b) == (201, 202, 0)
    _store(tt, c, 301, 25, (302, 303, 0, 0))                         # b evicted, c level 2
    assert R.stored_keys(tt)[2:4].tolist() == [a, c]
    assert _line_of(tt, c) == (301, 302, 303) and _line_of(tt, a) == (101, 102, 103)
    _store(tt, a, 111, 40)                                           # a new move: a new line
    assert _line_of(tt, a) == (111, 0, 0)


# -- the search ----------------------------------------------------------------------------
@pytest.mark.parametrize("fen,depth", [(MIDDLE, 5), (KIWIPETE, 4), (ENDGAME, 7), (WAC, 5)])
def test_one_ply_changes_nothing(fen, depth):
    default, _, a = paper(fen, depth, positions=4096)
    explicit, _, b = paper(fen, depth, positions=4096, pv_plies=1)
    assert (a.nodes, a.score, a.best_move) == (b.nodes, b.score, b.best_move)
    assert R.stats_dict(default.table) == R.stats_dict(explicit.table)
    assert R.stats_dict(explicit.table)["line_moves"] == 0


def _check_line(board, line):
    """`line` (moves, 0 past its end) is a legal sequence from `board`; returns the boards
    reached after each of its moves."""
    moves = [int(m) for m in line]
    length = moves.index(0) if 0 in moves else len(moves)
    assert length >= 1 and not any(moves[length:]), moves
    reached, board = [], board.copy(stack=False)
    for move in moves[:length]:
        uci = chess.Move.from_uci(move_to_uci(move))
        assert uci in board.legal_moves, (board.fen(), move_to_uci(move), moves)
        board.push(uci)
        reached.append(board.copy(stack=False))
    return reached


def _slots_by_key(table):
    keys, lines = R.stored_keys(table), R.stored_lines(table)
    filled = lines[:, 0] != 0
    return {int(k): lines[i] for i, k in enumerate(keys) if filled[i]}


def _positions(board, plies, out):
    out.setdefault(chess.polyglot.zobrist_hash(board), board.copy(stack=False))
    if plies:
        for move in list(board.legal_moves):
            board.push(move)
            _positions(board, plies - 1, out)
            board.pop()
    return out


def test_every_stored_line_is_legal_from_its_position():
    """A depth-4 search stores positions at most 3 plies from the root (quiescence nodes are
    not stored): every one of them is found, and its line is legal from it."""
    session, _, result = paper(ENDGAME, 4, pv_plies=5)
    slots = _slots_by_key(session.table)
    positions = _positions(chess.Board(ENDGAME), 3, {})
    assert set(slots) <= set(positions)
    lengths = [len(_check_line(positions[key], line)) for key, line in slots.items()]
    assert max(lengths) == 4 and len(lengths) > 100
    root = slots[chess.polyglot.zobrist_hash(chess.Board(ENDGAME))]
    assert int(root[0]) == result.best_move


@pytest.mark.parametrize("fen", [MIDDLE, KIWIPETE])
def test_lines_along_the_root_pv_are_legal_and_follow_it(fen):
    session, _, result = paper(fen, 6, pv_plies=5)
    slots = _slots_by_key(session.table)
    pv = result.iterations[-1].pv
    board = chess.Board(fen)
    root = slots[chess.polyglot.zobrist_hash(board)]
    shared = min(5, len(pv))        # the PV ends early where the table cut it off
    assert shared >= 2 and [int(m) for m in root[:shared]] == list(pv[:shared])
    checked, todo = set(), [board]
    for move in pv[:4]:                                # and the positions along it
        board = board.copy(stack=False)
        board.push(chess.Move.from_uci(move_to_uci(move)))
        todo.append(board)
    while todo:                     # and every stored position along a checked line
        board = todo.pop()
        key = chess.polyglot.zobrist_hash(board)
        if key in checked or key not in slots:
            continue
        checked.add(key)
        todo.extend(_check_line(board, slots[key]))
    assert len(checked) >= 5


def test_ancestor_moves_are_used_and_counted_with_a_tiny_table():
    one, _, _ = paper(MIDDLE, 6, positions=1024, pv_plies=1)
    five, _, _ = paper(MIDDLE, 6, positions=1024, pv_plies=5)
    assert R.stats_dict(one.table)["line_moves"] == 0
    assert R.stats_dict(five.table)["line_moves"] > 0


@pytest.mark.parametrize("fen", [MIDDLE, KIWIPETE, ENDGAME])
def test_longer_lines_keep_a_legal_move_and_the_score(fen):
    """Lines change the order of moves only: with scores used at equal depth only (no
    deeper-result effects, thesis footnote 7) the score is the 1-ply one exactly."""
    def search(plies, same_depth):
        session = Session(profile="paper", positions=2048, pv_plies=plies)
        session.table.conf[L.C_SAME_DEPTH] = same_depth
        board = Board(fen)
        result = session.search(board, Limits(depth=5))
        assert result.best_move in board.legal_moves()
        return result

    base = search(1, 1).score
    plain = search(1, 0).score
    for plies in range(2, 6):
        assert search(plies, 1).score == base, plies
        score = search(plies, 0).score
        assert abs(score) < MATE_BOUND and abs(score - plain) <= 100, (plies, score, plain)


def test_an_inherited_line_guides_only_the_child_its_move_leads_to():
    """A node at ply 1 with an empty table and an inherited line (a3a4, h7h6): it orders
    a3a4 first, and of its children only the one after a3a4 inherits h7h6 (h7h6 is legal
    after every white move, so a line passed to any other child would be counted there).
    The node then returns and stores its best move and its best child's best move."""
    from engine.search import (
        K_PROFILE, LINE_INHERITED, LINE_RETURNED, PROFILE_PAPER, new_search_state, search,
    )
    from engine.types import INFINITE

    board = Board(MIDDLE)
    after = Board(MIDDLE)
    first, second = after.push_uci("a3a4"), after.parse_uci("h7h6")
    table = T.new_table(positions=4096, pv_plies=3)
    S = new_search_state()
    S.ctrl[K_PROFILE] = PROFILE_PAPER
    S.lines[LINE_INHERITED, 1] = R.pack_line(first, second, 0, 0)
    search(board.P, board.T, table, S, np.int64(2), np.int64(-INFINITE), np.int64(INFINITE),
           np.int64(1), np.int64(0), np.int64(1), np.int64(0))
    assert R.stats_dict(table)["line_moves"] == 2
    best, reply, rest, _ = R.unpack_line(S.lines[LINE_RETURNED, 1])
    assert best != 0 and reply != 0 and rest == 0        # cut to pv_plies - 1 = 2 moves
    stored = _line_of(table, chess.polyglot.zobrist_hash(chess.Board(MIDDLE)))
    assert stored == (best, reply, 0)
    _check_line(chess.Board(MIDDLE), stored)
