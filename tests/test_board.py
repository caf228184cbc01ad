"""Board core: perft counts, FEN validation and round trips, keys, repetition, null move,
and the types numba inferred for the core kernels."""
import random

import chess
import chess.polyglot
import numpy as np
import pytest

from engine import movegen, position
from engine.board import Board, FenError, move_to_uci
from engine.types import WHITE
from tests.conftest import load_script

CASES = load_script("perft_suites").load_perft_suites()
FAST_LIMIT = 300_000        # leaves per count in the default run...
FIRST_LIMIT = 30_000_000    # ...plus each position's smallest count up to this size
SLOW_LIMIT = 2_000_000_000  # leaves per count with -m slow (scripts/perft_suites.py: all)


def _is_fast(case, count):
    return count <= FAST_LIMIT or (count == min(case.counts.values()) and count <= FIRST_LIMIT)


def _unique_counts():
    """{(FEN, depth): (count, fast in any suite, first source)}: the four suites share
    hundreds of positions; each (FEN, depth) is counted once."""
    unique = {}
    for case in CASES:
        for depth, count in sorted(case.counts.items()):
            key = (case.fen, depth)
            known = unique.get(key)
            fast = _is_fast(case, count) or (known is not None and known[1])
            unique[key] = (count, fast, known[2] if known else case.source)
    return unique


def _counts(fast):
    for (fen, depth), (count, is_fast, source) in _unique_counts().items():
        if is_fast == fast and count <= SLOW_LIMIT:
            yield pytest.param(fen, depth, count, id=f"{source}-D{depth}")


@pytest.mark.parametrize("fen,depth,expected", list(_counts(True)))
def test_perft_counts(fen, depth, expected):
    assert Board(fen).perft(depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize("fen,depth,expected", list(_counts(False)))
def test_perft_counts_deep(fen, depth, expected):
    assert Board(fen).perft(depth) == expected


def test_suites_are_all_read():
    """491 positions in the four files, each with at least one count; nearly all of them
    get a count checked in the default run (the rest only have very deep counts, and the
    depth-3 oracle test covers them)."""
    assert len(CASES) == 491
    assert all(case.counts for case in CASES)
    unchecked = [c for c in CASES if not any(_is_fast(c, n) for n in c.counts.values())]
    assert len(unchecked) <= 5, [c.source for c in unchecked]


def test_no_position_and_depth_is_counted_twice():
    """The suites agree wherever they overlap (one count per FEN and depth), and the
    parametrised perft tests run each (FEN, depth) once."""
    seen = {}
    for case in CASES:
        for depth, count in case.counts.items():
            assert seen.setdefault((case.fen, depth), count) == count, (case.source, depth)
    params = [p.values[:2] for p in list(_counts(True)) + list(_counts(False))]
    assert len(params) == len(set(params))
    assert len(params) == sum(1 for (fen, depth), count in seen.items() if count <= SLOW_LIMIT)


def test_bulk_and_full_perft_agree():
    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    assert board.perft(3, bulk=False) == board.perft(3) == 97862


@pytest.mark.parametrize("fen", [
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",   # fool's mate
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                  # stalemate
    "k7/1R6/1K6/8/8/8/8/8 b - - 0 1",                                   # stalemate
])
def test_no_moves_means_zero(fen):
    board = Board(fen)
    assert board.legal_moves() == []
    assert board.perft(1) == 0 and board.perft(3) == 0


@pytest.mark.parametrize("fen,fragment", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "6 fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra", "6 fields"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "malformed"),
    ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "malformed"),
    ("rnbqkknr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "more than one king"),
    ("rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", "black has no king"),
    ("rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w - - 0 1", "pawns on the first or eighth"),
    ("4k3/8/8/8/8/8/8/4K2R b K - 0 1", None),  # legal: black to move, white may castle
    ("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "not to move is in check"),
    ("4k3/8/8/8/8/8/8/4K3 w K - 0 1", "castling rights"),
    ("4k3/8/8/8/8/8/8/R2K3R w KQ - 0 1", None),  # castling only Chess960 allows: read as such
    ("4k3/8/8/8/8/8/8/R2K3R w C - 0 1", "castling rights"),  # no rook on c1
    ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", "en-passant"),
    ("4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1", "en-passant"),
])
def test_fen_validation(fen, fragment):
    if fragment is None:
        Board(fen)
        return
    with pytest.raises(FenError, match=fragment):
        Board(fen)


def test_castling_field_forms_of_a_standard_position():
    """Shredder-FEN (HAha) and X-FEN of the standard start read as KQkq; Board.fen writes
    KQkq, or HAha when asked."""
    for field in ("KQkq", "HAha", "AHah"):
        board = Board(f"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w {field} - 0 1")
        assert board.fen() == chess.STARTING_FEN
        assert board.fen(shredder=True).split()[2] == "HAha"
        assert board.key == chess.polyglot.zobrist_hash(chess.Board())
        assert not board.chess960


def test_refused_fen_keeps_old_position():
    board = Board()
    board.push_uci("e2e4")
    before = board.fen()
    with pytest.raises(FenError):
        board.set_fen("not a fen at all x y")
    assert board.fen() == before


def test_fen_round_trip_and_keys_over_random_games():
    rng = random.Random(7)
    for _ in range(40):
        board, oracle = Board(), chess.Board()
        for _ in range(rng.randrange(10, 120)):
            moves = board.legal_moves()
            if not moves:
                break
            move = rng.choice(moves)
            board.push(move)
            oracle.push_uci(move_to_uci(move))
            assert board.fen() == oracle.fen(en_passant="xfen")
            assert board.key == chess.polyglot.zobrist_hash(oracle)
            assert Board(board.fen()).key == board.key


def test_polyglot_reference_keys():
    """The key values published with the Polyglot format (facts of the format)."""
    board = Board()
    assert board.key == 0x463B96181691FC9C
    for uci in ["e2e4", "d7d5", "e4e5", "f7f5"]:
        board.push_uci(uci)
    assert board.key == 0x22A48B5A8E47FF78   # en passant f6 counted: e5 pawn can take
    board = Board()
    for uci in ["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"]:
        board.push_uci(uci)
    assert board.key == 0x3C8123EA7B067637


def test_repetition_over_game_and_null_move():
    board = Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        board.push_uci(uci)
    assert board.repetitions() == 1
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8"]:
        board.push_uci(uci)
    assert board.repetitions() == 2
    board.push_uci("e2e4")
    assert board.repetitions() == 0
    # A null move flips the side and the key, and repetition never reaches across it.
    key = board.key
    position.make_null(board.P, board.T)
    assert board.key != key and board.turn == WHITE
    oracle = chess.Board(board.fen())
    assert board.key == chess.polyglot.zobrist_hash(oracle)
    assert position.repetitions(board.P) == 0
    position.unmake_null(board.P)
    assert board.key == key


def test_long_game_keeps_working():
    """A game far longer than the stack: the history is re-based, repetitions still seen."""
    board = Board()
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    for i in range(3000):
        board.push_uci(shuffle[i % 4])
    assert board.repetitions() >= 2
    assert board.fen().startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ")


def test_core_kernels_stay_integer():
    """numba must not have widened bitboard arithmetic to float anywhere in the core."""
    board = Board()
    board.perft(2)
    board.legal_moves()
    board.push_uci("e2e4")
    board.pop()
    occ = board.P.bb[12] | board.P.bb[13]
    position.attackers_to(board.T, board.P.bb, np.int64(4), occ)
    position.is_attacked(board.T, board.P.bb, np.int64(4), np.int64(1), occ)
    for kernel in (movegen.generate_all, movegen.perft, position.make_move,
                   position.unmake_move, position.attackers_to, position.is_attacked):
        for sig in kernel.nopython_signatures:
            assert "float" not in str(sig), (kernel, sig)
    assert str(movegen.perft.nopython_signatures[0].return_type) == "int64"
    assert str(position.attackers_to.nopython_signatures[0].return_type) == "uint64"


@pytest.mark.parametrize("piece", ["rook", "bishop"])
def test_the_recorded_magics_are_those_the_seeded_search_finds(piece):
    """engine.attacks records the magics of its seeded search so that a start skips the
    search; searching again from the seed alone finds the same magics and the same table."""
    from engine import attacks
    from engine.types import BISHOP_ATTACKS_SIZE, ROOK_ATTACKS_SIZE

    dirs, seed, recorded, size = {
        "rook": (attacks.ROOK_DIRS, attacks.ROOK_SEED, attacks.ROOK_MAGICS, ROOK_ATTACKS_SIZE),
        "bishop": (attacks.BISHOP_DIRS, attacks.BISHOP_SEED, attacks.BISHOP_MAGICS,
                   BISHOP_ATTACKS_SIZE)}[piece]
    found = []
    for known in (np.zeros(0, dtype=np.uint64), recorded):
        masks, magics, shifts = (np.zeros(64, dtype=np.uint64) for _ in range(3))
        offsets = np.zeros(64, dtype=np.int64)
        table = np.zeros(size, dtype=np.uint64)
        assert attacks._find_magics(dirs, masks, magics, shifts, offsets, table, seed,
                                    known) == size
        found.append((magics, table))
    (searched, searched_table), (used, used_table) = found
    assert np.array_equal(searched, recorded) and np.array_equal(used, recorded)
    assert np.array_equal(searched_table, used_table)


def test_the_start_position_set_up_directly_equals_the_parsed_one():
    """Board() sets up the start position without python-chess; every array of the position
    equals that of the start FEN read through python-chess."""
    direct = Board()
    parsed = Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ")  # not the constant
    for name in direct.P._fields:
        assert np.array_equal(getattr(direct.P, name), getattr(parsed.P, name)), name
    assert direct.chess960 is parsed.chess960 is False


def test_the_stored_polyglot_keys_are_python_chess_ones():
    from engine.tables import POLYGLOT_RANDOM

    stored = np.load(POLYGLOT_RANDOM)
    assert stored.dtype == np.uint64
    assert [int(x) for x in stored] == list(chess.polyglot.POLYGLOT_RANDOM_ARRAY)


def test_a_start_imports_no_python_chess():
    """The engine loads, warms its kernels and searches the start position (a GUI's
    `position startpos moves ...`) without python-chess; only a FEN imports it."""
    import subprocess
    import sys

    code = ("import sys; from engine.facade import Engine; from engine.driver import Limits; "
            "e = Engine(); e.warm_up(); e.set_position(None, ['e2e4', 'e7e5']); "
            "print('chess' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[-1] == "False"


def test_the_key_a_move_leads_to_is_known_before_it_is_made():
    """position.key_after (the search prefetches the child's table bucket with it) is the
    key after the move for every quiet move and capture that changes no castling right and
    leaves no en-passant square; for the others it only has to return."""
    from engine.codec import unpack_move
    from engine.types import (
        FLAG_CASTLE, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, NO_SQUARE, ST_CASTLE, ST_EP,
    )

    rng = random.Random(11)
    exact = 0
    for _ in range(12):
        board = Board()
        for _ in range(rng.randrange(20, 100)):
            moves = board.legal_moves()
            if not moves:
                break
            rights = int(board._row()[ST_CASTLE])
            for move in moves:
                guess = int(position.key_after(board.P, board.T, move))
                board.push(move)
                flag = unpack_move(move)[2]
                plain = (flag not in (FLAG_CASTLE, FLAG_EN_PASSANT) and flag < FLAG_PROMO_KNIGHT
                         and int(board._row()[ST_CASTLE]) == rights
                         and int(board._row()[ST_EP]) == NO_SQUARE)
                if plain:
                    assert guess == board.key, (board.fen(), move_to_uci(move))
                    exact += 1
                board.pop()
            board.push(rng.choice(moves))
    assert exact > 10_000
