"""Every `pv` the engine reports is a legal line from the root, replayed through python-chess:
at every depth, with MultiPV 3, with two threads, after a search cut short by a node limit,
and through positions where the search meets draws by repetition and by the 50-move rule.
A line also ends where the game ends: a move after a position that is drawn (threefold
repetition within the line's history, the 50-move rule) or mate is not a searched move."""
import random

import chess
import pytest

from engine.board import Board, move_to_uci
from engine.codec import move_pack
from engine.driver import Limits
from engine.session import Session

# (FEN, moves played from it): the history matters, since repetitions count it.
NEAR_REPETITION = [
    (chess.STARTING_FEN, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1"),
    ("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
     "b1c3 f8c5 c3b1 c5f8 b1c3 f8c5"),
    ("6k1/5pp1/7p/8/8/8/5PPP/3R2K1 w - - 0 1", "d1d8 g8h7 d8d1 h7g8 d1d8 g8h7 d8d1"),
    ("8/8/4k3/8/8/8/2Q1K3/q7 b - - 10 60", "a1a2 e2e3 a2a1 e3e2 a1a2"),
]
NEAR_FIFTY_MOVES = [
    "8/5k2/8/3R4/8/8/2r5/4K3 w - - 96 120",
    "8/5k2/8/3R4/4K3/8/2r5/8 w - - 99 120",
    "8/5k2/8/3R4/4K3/8/2r5/8 b - - 100 120",
    "r4rk1/pp3ppp/2n5/3p4/3P4/2N5/PP3PPP/R4RK1 w - - 97 40",
    "6k1/6p1/6Kp/8/8/8/8/1r4R1 w - - 98 70",
]
QUIET = [
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R2QK2R w KQ - 0 8",
    "2r3k1/pp3pp1/4p2p/3pP3/3P4/P4N2/1P3PPP/2R3K1 b - - 1 25",
]


def _cases():
    for fen, moves in NEAR_REPETITION:
        yield fen, moves.split()
    for fen in NEAR_FIFTY_MOVES + QUIET:
        yield fen, []


def _board(fen, moves):
    board = Board(fen)
    oracle = chess.Board(fen)
    for text in moves:
        board.push_uci(text)
        oracle.push_uci(text)
    return board, oracle


def illegal_step(oracle: chess.Board, pv):
    """None if `pv` replays legally from `oracle` and stops where the game is over; else
    a description of the first bad move."""
    board = oracle.copy()
    for index, move in enumerate(pv):
        text = move_to_uci(move)
        # The root may already be drawn (a GUI still asks for a move); the line may not
        # go on past a drawn position inside it.
        if index > 0 and (board.is_game_over(claim_draw=False) or board.is_fifty_moves()
                          or board.is_repetition(3)):
            return f"ply {index}: {text} after the game ended ({board.fen()})"
        if chess.Move.from_uci(text) not in board.legal_moves:
            return f"ply {index}: {text} illegal in {board.fen()}"
        board.push_uci(text)
    return None


def _search_all(session, limits_list):
    failures = []
    for fen, moves in _cases():
        for limits in limits_list:
            board, oracle = _board(fen, moves)
            lines = []
            session.search(board, limits, on_iteration=lines.append)
            for iteration in lines:
                bad = illegal_step(oracle, iteration.pv)
                if bad:
                    failures.append((fen, " ".join(moves), iteration.depth, iteration.multipv,
                                     [move_to_uci(m) for m in iteration.pv], bad))
    return failures


def _limits(seed, multipv=1):
    rng = random.Random(seed)
    return ([Limits(depth=d, multipv=multipv) for d in (4, 8)]
            + [Limits(nodes=rng.randrange(2_000, 60_000), multipv=multipv) for _ in range(2)])


def test_every_pv_is_legal_one_thread():
    session = Session(profile="play", hash_mb=16)
    assert _search_all(session, _limits(1)) == []


def test_every_pv_is_legal_with_multipv_3():
    session = Session(profile="play", hash_mb=16)
    assert _search_all(session, _limits(2, multipv=3)) == []


def test_every_pv_is_legal_with_two_threads():
    session = Session(profile="play", hash_mb=16)
    session.set_threads(2)
    assert _search_all(session, _limits(3)) == []


def test_the_replay_check_catches_what_it_guards():
    oracle = chess.Board("8/5k2/8/3R4/4K3/8/2r5/8 w - - 99 120")
    board = Board(oracle.fen())
    first = board.parse_uci("d5d6")
    assert illegal_step(oracle, [first]) is None
    board.push(first)
    second = board.parse_uci("c2c3")
    assert illegal_step(oracle, [first, second]) is not None   # past the 50-move draw
    start = chess.Board()
    e2e4 = Board().parse_uci("e2e4")
    assert illegal_step(start, [e2e4, e2e4]) is not None          # e2e4 twice: illegal


def test_a_reported_line_is_cut_at_its_first_unplayable_move():
    """The last guard before the GUI: a line is cut at a move that is not legal where it
    falls (here a knight move onto White's own pawn) and after a 50-move draw; the board is
    restored."""
    from engine.driver import playable_line

    board = Board("8/5k2/8/3R4/4K3/8/2r5/8 w - - 99 120")
    before = board.fen()
    d5d6 = board.parse_uci("d5d6")
    board.push(d5d6)
    c2c3 = board.parse_uci("c2c3")
    board.pop()
    assert playable_line(board, [d5d6, c2c3]) == [d5d6]
    assert board.fen() == before

    start = Board()
    e2e4, g1f3 = start.parse_uci("e2e4"), start.parse_uci("g1f3")
    start.push(e2e4)
    e7e5 = start.parse_uci("e7e5")
    start.pop()
    onto_own_pawn = int(move_pack(chess.B1, chess.D2, 0))     # Nb1-d2: d2 holds White's pawn
    assert playable_line(start, [onto_own_pawn, e7e5]) == []
    assert playable_line(start, [e2e4, e7e5, g1f3, e2e4]) == [e2e4, e7e5, g1f3]   # e2 empty by then
    assert start.fen() == chess.STARTING_FEN
