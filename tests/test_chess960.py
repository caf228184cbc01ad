"""Chess960: move generation, make/unmake, keys, FEN and UCI text against python-chess.

Castling is where Chess960 differs: the king and the castling rook start on any files, may
already stand on their destinations, may land on each other's squares, and the rook may
cross the king. python-chess (chess960=True) is the oracle for every position here; moves
are compared as king-takes-rook UCI text (e1h1), the form both write for Chess960.
"""
import random

import chess
import chess.polyglot
import numpy as np
import pytest

from engine.board import Board
from engine.codec import unpack_move
from engine.types import FLAG_CASTLE
from tests.conftest import load_script

# Positions whose castling geometry is unusual, each valid for python-chess in Chess960 mode.
UNUSUAL_FENS = [
    "4k3/8/8/8/8/8/8/RKR5 w AC - 0 1",                # king b1 between two adjacent rooks
    "k7/8/8/8/8/8/8/4R1KR w H - 0 1",                # king already on g1, rook h1 -> f1
    "4k3/8/8/8/8/8/8/5KR1 w G - 0 1",                 # king f1 and rook g1 swap squares
    "4k3/8/8/8/8/8/8/RK6 w A - 0 1",                  # king b1 -> c1, the rook crosses it to d1
    "4k3/8/8/8/8/8/8/rRK5 w B - 0 1",                 # king stays on c1; the rook's leaving
                                                      # exposes it to the rook on a1: illegal
    "4k3/8/8/8/8/8/8/2RK4 w C - 0 1",                 # king d1 and rook c1 swap squares
    "4k3/8/8/8/8/8/8/1R1K3q w B - 0 1",               # the queen x-rays through d1..c1: the
                                                      # king is in check, no castling at all
    "1r4kr/8/8/8/8/8/8/1R4KR w BHbh - 0 1",           # both sides: king already on g1 / g8
    "rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1",             # king b1: a-side to c1, h-side to g1
    "rk5r/8/8/8/8/8/8/RK4bR w AHah - 0 1",            # a bishop on g1 blocks the h-side
    "rk5r/8/8/8/3b4/8/8/RK5R w AHah - 0 1",           # d4 bishop attacks g1 (h-side blocked)
    "r5kr/8/8/8/8/8/8/R5KR b AHah - 0 1",             # king g8 already home on the h-side
    "1rk2r2/8/8/8/8/8/8/1RK2R2 w BFbf - 0 1",         # rook f1: h-side rook already beside
    "2r1kr2/8/8/8/8/8/8/2R1KR2 w CFcf - 0 1",         # king e1 with inner rooks c1 and f1
    "4k3/8/8/8/8/8/8/R3K1R1 w AG - 0 1",              # X-FEN would need a file letter (G)
    "4k3/8/8/8/8/8/8/RR2K2R w BH - 0 1",              # a-side rook b1 with another one a1
    "b3k3/8/8/8/8/8/8/1R3KR1 w BG - 0 1",             # king f1: g-side rook g1, b-side rook b1
    "4k3/8/8/8/8/5n2/8/1R3KR1 w BG - 0 1",            # a knight guards d1 and e1... and g1
    "4k3/8/8/8/8/8/8/R2rK2R w AH - 0 1",              # an enemy rook on d1 between a1 and e1
]


def _is_castle(move):
    return unpack_move(move)[2] == FLAG_CASTLE


def _oracle(fen):
    return chess.Board(fen, chess960=True)


def _engine_moves(board):
    return sorted(board.uci(m, chess960=True) for m in board.legal_moves())


def _oracle_moves(oracle):
    return sorted(oracle.uci(m, chess960=True) for m in oracle.legal_moves)


# python-chess's perft, the one scripts/bench_perft.py times TwoBig against
_oracle_perft = load_script("bench_perft").python_chess_perft


def _assert_same(board, oracle):
    """The same legal moves, key and FEN (X-FEN and Shredder-FEN)."""
    assert _engine_moves(board) == _oracle_moves(oracle), oracle.fen()
    assert board.key == chess.polyglot.zobrist_hash(oracle), oracle.fen()
    assert board.fen() == oracle.fen(en_passant="xfen")
    assert board.fen(shredder=True) == oracle.fen(shredder=True, en_passant="xfen")


def test_perft_of_every_start_position_depth_2():
    """All 960 start positions to depth 2 (python-chess counts the leaves below each move)."""
    for number in range(960):
        oracle = chess.Board.from_chess960_pos(number)
        board = Board(oracle.fen())
        assert board.fen() == oracle.fen()
        assert board.key == chess.polyglot.zobrist_hash(oracle)
        divided = dict(board.divide(2, chess960=True))
        expected = {}
        for move in oracle.legal_moves:
            oracle.push(move)
            expected[move.uci()] = oracle.legal_moves.count()
            oracle.pop()
        assert divided == expected, number


def test_perft_of_every_fourth_start_position_depth_3():
    for number in range(0, 960, 4):
        oracle = chess.Board.from_chess960_pos(number)
        assert Board(oracle.fen()).perft(3) == _oracle_perft(oracle, 3), number


@pytest.mark.slow
def test_perft_of_every_start_position_depth_3():
    for number in range(960):
        oracle = chess.Board.from_chess960_pos(number)
        assert Board(oracle.fen(shredder=True)).perft(3) == _oracle_perft(oracle, 3), number


@pytest.mark.slow
@pytest.mark.parametrize("number", [0, 1, 100, 355, 518, 600, 777, 959])
def test_perft_of_start_positions_depth_4(number):
    oracle = chess.Board.from_chess960_pos(number)
    assert Board(oracle.fen()).perft(4) == _oracle_perft(oracle, 4)


@pytest.mark.slow
@pytest.mark.parametrize("fen", UNUSUAL_FENS[7:14])
def test_perft_of_unusual_positions_depth_4(fen):
    oracle = _oracle(fen)
    assert Board(fen).perft(4) == _oracle_perft(oracle, 4)


@pytest.mark.parametrize("fen", UNUSUAL_FENS)
def test_unusual_castling_geometry(fen):
    """Legal moves, keys and FENs at the root and one ply down; perft 3 below it."""
    oracle = _oracle(fen)
    assert oracle.is_valid(), fen
    board = Board(fen)
    _assert_same(board, oracle)
    for move in list(oracle.legal_moves):
        text = oracle.uci(move, chess960=True)
        played = board.push_uci(text)
        oracle.push(move)
        _assert_same(board, oracle)
        board.pop()
        oracle.pop()
        assert board.gives_check(played) == oracle.gives_check(move), text
    _assert_same(board, oracle)
    assert board.perft(3) == _oracle_perft(oracle, 3)
    assert board.perft(3, bulk=False) == board.perft(3)


def test_castling_moves_of_unusual_positions():
    """The castling moves each geometry allows, spelled king-takes-rook."""
    def castles(fen):
        oracle = _oracle(fen)
        board = Board(fen)
        ours = {board.uci(m, chess960=True) for m in board.legal_moves() if _is_castle(m)}
        theirs = {oracle.uci(m, chess960=True) for m in oracle.legal_moves if oracle.is_castling(m)}
        assert ours == theirs, fen
        return ours

    assert castles("4k3/8/8/8/8/8/8/RKR5 w AC - 0 1") == {"b1c1"}   # a-side blocked on c1
    assert castles("k7/8/8/8/8/8/8/4R1KR w H - 0 1") == {"g1h1"}
    assert castles("4k3/8/8/8/8/8/8/5KR1 w G - 0 1") == {"f1g1"}
    assert castles("4k3/8/8/8/8/8/8/RK6 w A - 0 1") == {"b1a1"}
    assert castles("4k3/8/8/8/8/8/8/rRK5 w B - 0 1") == set()
    assert castles("4k3/8/8/8/8/8/8/2RK4 w C - 0 1") == {"d1c1"}
    assert castles("1r4kr/8/8/8/8/8/8/1R4KR w BHbh - 0 1") == {"g1h1", "g1b1"}


def _castling_fuzz_position(rng):
    """A Chess960 start with the back ranks thinned out and a few enemy sliders and knights
    dropped anywhere: castling paths blocked, attacked, x-rayed through the rook, or free.
    None when python-chess finds the result invalid (a side not to move in check...)."""
    oracle = chess.Board.from_chess960_pos(rng.randrange(960))
    for square in list(chess.SquareSet(oracle.occupied)):
        piece = oracle.piece_at(square)
        if piece.piece_type in (chess.KING, chess.ROOK):
            continue
        keep = 0.3 if piece.piece_type != chess.PAWN else 0.5
        if rng.random() > keep:
            oracle.remove_piece_at(square)
    oracle.turn = rng.random() < 0.5
    for _ in range(rng.randrange(4)):
        square = rng.randrange(64)
        if oracle.piece_at(square) is None:
            kind = rng.choice((chess.ROOK, chess.BISHOP, chess.QUEEN, chess.KNIGHT))
            oracle.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
    if rng.random() < 0.5:
        # An enemy rook or queen on the castling side's own back rank: behind a castling
        # rook it x-rays through the rook's home square.
        square = rng.randrange(8) + (0 if oracle.turn == chess.WHITE else 56)
        if oracle.piece_at(square) is None:
            kind = rng.choice((chess.ROOK, chess.QUEEN))
            oracle.set_piece_at(square, chess.Piece(kind, not oracle.turn))
    fen = oracle.fen(shredder=True)
    oracle = chess.Board(fen, chess960=True)
    return oracle if oracle.is_valid() else None


def test_castling_fuzz():
    """Many thinned-out Chess960 positions: legal moves, keys, FENs; each castling move
    played and taken back."""
    rng = random.Random(960)
    tested = castles = 0
    while tested < 1500:
        oracle = _castling_fuzz_position(rng)
        if oracle is None:
            continue
        tested += 1
        board = Board(oracle.fen(shredder=True))
        _assert_same(board, oracle)
        for move in list(oracle.legal_moves):
            if not oracle.is_castling(move):
                continue
            castles += 1
            played = board.push_uci(oracle.uci(move, chess960=True))
            oracle.push(move)
            _assert_same(board, oracle)
            board.pop()
            oracle.pop()
            assert board.gives_check(played) == oracle.gives_check(move)
        _assert_same(board, oracle)
        if tested % 10 == 0:
            assert board.perft(2) == _oracle_perft(oracle, 2), oracle.fen()
    assert castles > 800


def _random_chess960_game(board, oracle, rng, plies):
    """Play up to `plies` random moves on both, castling whenever it is legal (mostly),
    checking moves, keys and FENs at every ply; return how many moves were castling."""
    castles = 0
    for _ in range(plies):
        _assert_same(board, oracle)
        moves = list(oracle.legal_moves)
        if not moves:
            break
        castling = [m for m in moves if oracle.is_castling(m)]
        move = rng.choice(castling) if castling and rng.random() < 0.8 else rng.choice(moves)
        castles += oracle.is_castling(move)
        ours = board.parse_uci(oracle.uci(move, chess960=True))
        assert board.gives_check(ours) == oracle.gives_check(move)
        board.push(ours)
        oracle.push(move)
    return castles


def test_random_chess960_games():
    """Seeded random games from random start positions with a thinned back rank (castling
    comes early, and is taken when legal), compared with python-chess move by move, then
    taken back to the start."""
    rng = random.Random(1960)
    castles = 0
    for _ in range(40):
        oracle = chess.Board.from_chess960_pos(rng.randrange(960))
        for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
            piece = oracle.piece_at(square)
            if piece.piece_type in (chess.KNIGHT, chess.BISHOP, chess.QUEEN) and rng.random() < 0.7:
                oracle.remove_piece_at(square)
        oracle = chess.Board(oracle.fen(shredder=True), chess960=True)
        board = Board(oracle.fen())
        start = board.fen(shredder=True)
        castles += _random_chess960_game(board, oracle, rng, 80)
        while board.ply:
            board.pop()
        assert board.fen(shredder=True) == start
    assert castles >= 40


def test_key_is_the_same_by_any_path():
    """A position has one key however it was reached: after castling, after moves in
    another order, and when set up from its own FEN (the same rights, by rook file)."""
    fen = "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w BHbh - 0 1"
    oracle = _oracle(fen)
    castled = Board(fen)
    for text in ("g1b1", "a7a6", "a2a3", "g8h8"):     # white a-side, black h-side castling
        castled.push_uci(text)
        oracle.push(oracle.parse_uci(text))
    assert castled.key == chess.polyglot.zobrist_hash(oracle)
    other_order = Board(fen)
    for text in ("a2a3", "g8h8", "g1b1", "a7a6"):
        other_order.push_uci(text)
    assert other_order.key == castled.key
    assert Board(castled.fen()).key == castled.key
    assert Board(castled.fen(shredder=True)).key == castled.key
    # The b-file rooks go out and back: their rights are lost, as if never given.
    back = Board(fen)
    for text in ("b1c1", "b8c8", "c1b1", "c8b8"):
        back.push_uci(text)
    fewer = Board(fen.replace("BHbh", "Hh"))
    assert back.key == fewer.key
    assert back.fen(shredder=True).split()[:4] == fewer.fen(shredder=True).split()[:4]


def test_castling_onto_the_own_rook_takes_nothing():
    """The search orders and prunes captures apart: a king castling onto its own rook's
    square (f1 -> g1 with the rook on g1) is a quiet move."""
    from engine.movepick import is_capture

    for fen, text in (("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "f1g1"),
                      ("4k3/8/8/8/8/8/8/2RK4 w C - 0 1", "d1c1")):
        board = Board(fen)
        castle = board.parse_uci(text)
        assert _is_castle(castle) and not is_capture(board.P, castle)


def test_network_accumulators_across_chess960_castling():
    """The network's accumulators, brought up to date by replaying moves (castling among
    them, the rook read from the position), equal a sum from scratch."""
    from engine.nnue import new_accumulators, network_eval
    from engine.types import MAX_PLY, STACK_LEN

    def fresh(board, ply):
        return network_eval(board.P, board.T, new_accumulators(MAX_PLY + 2),
                           np.zeros((MAX_PLY + 2, STACK_LEN), dtype=np.int64), ply)

    rng = random.Random(61)
    checked = castles = 0
    for _ in range(20):
        oracle = chess.Board.from_chess960_pos(rng.randrange(960))
        for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
            if oracle.piece_type_at(square) in (chess.KNIGHT, chess.BISHOP, chess.QUEEN):
                oracle.remove_piece_at(square)
        oracle = chess.Board(oracle.fen(shredder=True), chess960=True)
        board = Board(oracle.fen())
        accs = new_accumulators(MAX_PLY + 2)
        stack = np.zeros((MAX_PLY + 2, STACK_LEN), dtype=np.int64)
        for ply in range(1, 60):
            moves = list(oracle.legal_moves)
            if not moves:
                break
            castling = [m for m in moves if oracle.is_castling(m)]
            move = rng.choice(castling) if castling else rng.choice(moves)
            castles += oracle.is_castling(move)
            board.push_uci(oracle.uci(move, chess960=True))
            oracle.push(move)
            if rng.random() < 0.5:
                continue
            assert network_eval(board.P, board.T, accs, stack, ply) == fresh(board, ply)
            checked += 1
    assert checked > 200 and castles >= 20


def test_uci_text_of_castling():
    board = Board("rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1")
    castles = sorted(m for m in board.legal_moves() if _is_castle(m))
    assert sorted(board.uci(m) for m in castles) == ["b1c1", "b1g1"]
    assert sorted(board.uci(m, chess960=True) for m in castles) == ["b1a1", "b1h1"]
    # Both spellings are read; a plain king step that reads like castling stays a step.
    assert board.parse_uci("b1h1") == board.parse_uci("b1g1")
    step = Board("4k3/8/8/8/8/8/8/5K1R w H - 0 1")
    assert not _is_castle(step.parse_uci("f1g1"))
    assert _is_castle(step.parse_uci("f1h1"))
    # Standard chess: e1g1 as ever, e1h1 with chess960.
    standard = Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    texts = {standard.uci(m) for m in standard.legal_moves() if _is_castle(m)}
    assert texts == {"e1g1", "e1c1"}
    assert {standard.uci(m, chess960=True) for m in standard.legal_moves() if _is_castle(m)} \
        == {"e1h1", "e1a1"}


def test_fen_forms():
    """Shredder-FEN and X-FEN are both read; X-FEN uses a file letter where KQkq would be
    ambiguous; a standard position keeps KQkq."""
    oracle = chess.Board.from_chess960_pos(518)
    board = Board(oracle.fen(shredder=True))
    assert board.fen() == chess.STARTING_FEN
    assert board.fen(shredder=True) == oracle.fen(shredder=True)
    fen = "4k3/8/8/8/8/8/8/RR2K2R w BH - 0 1"
    board = Board(fen)
    assert board.fen().split()[2] == "KB" == _oracle(fen).fen().split()[2]
    assert Board(board.fen()).fen(shredder=True) == board.fen(shredder=True) == _oracle(fen).fen(shredder=True)
    assert Board("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1").fen(shredder=True).split()[2] == "HA"


def test_search_plays_legal_chess960_moves():
    """A short search from Chess960 positions returns a legal move, castling included."""
    from engine.driver import Limits
    from engine.session import Session

    session = Session(hash_mb=4)
    for fen in ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "1r4kr/pppppppp/8/8/8/8/PPPPPPPP/1R4KR w BHbh - 0 1",
                chess.Board.from_chess960_pos(0).fen()):
        board = Board(fen)
        result = session.search(board, Limits(depth=6))
        assert result.best_move in board.legal_moves()
        for move in result.iterations[-1].pv:
            assert move in board.legal_moves()
            board.push(move)


# -- the protocol ---------------------------------------------------------------------------
TWO_WAY = "rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1"    # white castles to c1 or g1


def test_uci_option_switches_castling_text(pipe):
    """UCI_Chess960 on: bestmove, go perft and d write king-takes-rook and Shredder-FEN;
    off: e1g1-style castling and X-FEN, as for standard chess."""
    oracle = _oracle(TWO_WAY)
    pipe.send("setoption name UCI_Chess960 value true")
    pipe.send(f"position fen {oracle.fen(shredder=True)}")
    assert pipe.display()["Fen"] == oracle.fen(shredder=True)
    lines = pipe.ask("go perft 2", "Nodes searched")
    divided = dict(l.split(": ") for l in lines[:-2])
    assert {"b1a1", "b1h1"} <= set(divided) and "b1g1" not in divided   # b1c1: a king step
    assert len(divided) == oracle.legal_moves.count()
    assert int(lines[-1].split()[-1]) == _oracle_perft(oracle, 2)
    assert pipe.ask("go depth 2 searchmoves b1h1", "bestmove")[-1].split()[:2] == ["bestmove", "b1h1"]
    pipe.send("position fen " + TWO_WAY + " moves b1h1 b8a8")
    oracle.push_uci("b1h1")
    oracle.push_uci("b8a8")
    info = pipe.display()
    assert info["Fen"] == oracle.fen(shredder=True)
    assert int(info["Key"], 16) == chess.polyglot.zobrist_hash(oracle)

    pipe.send("setoption name UCI_Chess960 value false")
    pipe.send("position fen " + TWO_WAY)
    assert pipe.display()["Fen"] == _oracle(TWO_WAY).fen()        # X-FEN: KQkq here
    assert pipe.ask("go depth 2 searchmoves b1h1", "bestmove")[-1].split()[:2] == ["bestmove", "b1g1"]
    lines = pipe.ask("go perft 1", "Nodes searched")
    assert {"b1c1", "b1g1"} <= {l.split(":")[0] for l in lines[:-2]}


def test_uci_bad_chess960_input_keeps_position(pipe):
    pipe.send("setoption name UCI_Chess960 value true")
    pipe.send("position fen " + TWO_WAY + " moves b1h1")
    before = pipe.display()["Fen"]
    oracle = _oracle(TWO_WAY)
    oracle.push_uci("b1h1")
    assert before == oracle.fen(shredder=True)
    pipe.assert_each_rejected(
        ["position fen rk5r/8/8/8/8/8/8/RK5R w CHah - 0 1",      # no rook on c1
         "position fen rk5r/8/8/8/8/8/8/RK5R w AHahx - 0 1",     # not a castling letter
         "position fen rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1 moves b1h1 b8h8 g1h1",
         "position fen rk5r/8/8/8/8/8/8/RK5R w AHah - 0 1 moves b1a2",
         "setoption name UCI_Chess960 value maybe"], before)
    assert pipe.ask("isready", "readyok")[-1] == "readyok"


def test_python_chess_plays_chess960_games():
    """python-chess as the GUI (it sets UCI_Chess960 and sends Shredder-FEN and
    king-takes-rook moves): games from Chess960 starts with castling in their history."""
    import chess.engine
    import sys
    from tests.uci_pipe import ROOT

    rng = random.Random(96)
    with chess.engine.SimpleEngine.popen_uci([sys.executable, str(ROOT / "uci_main.py")],
                                             timeout=120) as engine:
        assert engine.options["UCI_Chess960"].default is False
        castled = 0
        for number in (0, 518, 959, 420):
            board = chess.Board.from_chess960_pos(number)
            for square in chess.SquareSet(chess.BB_RANK_1 | chess.BB_RANK_8):
                if board.piece_type_at(square) in (chess.KNIGHT, chess.BISHOP, chess.QUEEN):
                    board.remove_piece_at(square)
            board = chess.Board(board.fen(shredder=True), chess960=True)
            for ply in range(16):
                if board.is_game_over():
                    break
                if ply % 2:
                    move = engine.play(board, chess.engine.Limit(depth=3)).move
                else:
                    castles = [m for m in board.legal_moves if board.is_castling(m)]
                    move = castles[0] if castles else rng.choice(list(board.legal_moves))
                assert move in board.legal_moves
                castled += board.is_castling(move)
                board.push(move)
            info = engine.analyse(board, chess.engine.Limit(depth=4))
            for move in info.get("pv", []):
                assert move in board.legal_moves
                board.push(move)
        assert castled >= 4
