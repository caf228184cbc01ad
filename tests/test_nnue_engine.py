"""engine/nnue.py: the shipped network as the search reads it.

The accumulators the search keeps up to date move by move must equal a sum from scratch;
the integer network must give the float network's value (lab/network/nnue.py) within rounding; a
position and its colour mirror must score the same for the side to move.
"""
import random
from pathlib import Path

import chess
import numpy as np
import pytest

from conftest import random_game
from engine.board import Board
from engine.nnue import NN_CP, NN_QA, new_accumulators, network_eval
from engine.position import make_null, unmake_null
from engine.tables import Tables, get_tables, network_arrays
from engine.types import I_NN_B2, MAX_PLY, N_NN_W2, NN_BUCKETS, NN_HIDDEN, STACK_LEN
from lab.network import nnue as lab_nnue

NET = Path(__file__).resolve().parent.parent / "engine" / "nnue_net.npz"


def _fresh(board, ply):
    """The evaluation summed from scratch: new accumulators, nothing to replay."""
    return network_eval(board.P, board.T, new_accumulators(MAX_PLY + 2),
                       np.zeros((MAX_PLY + 2, STACK_LEN), dtype=np.int64), ply)


def test_no_accumulator_can_overflow_int16():
    """A view's accumulator is the bias plus one first-layer row per piece: for each side,
    one king and at most 15 other men (at most 8 pawns, the other kinds their starting
    counts plus promotions), each on its own square. lab.network.nnue's accumulator_range
    bounds each end of every hidden unit from the signed weights (the positive ones for the
    top, the negative ones for the bottom). Replay's intermediate sums need no bound: int16
    sums wrap modulo 2^16, so only the final value has to fit."""
    q = np.load(NET)
    assert lab_nnue.fits_int16(q), lab_nnue.accumulator_range(q)


@pytest.mark.parametrize("seed", range(3))
def test_the_accumulator_range_holds_every_accumulator_of_random_games(seed):
    """The range is never short: every hidden unit's accumulator, summed from scratch in
    int64 along random games, lies inside it."""
    q = np.load(NET)
    low, high = lab_nnue.accumulator_range(q)
    w1 = q["w1"].astype(np.int64)
    rng = random.Random(seed)
    seen_low, seen_high = 0, 0
    for _ in range(10):
        board = chess.Board()
        for _ in range(rng.randrange(20, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            for view in (chess.WHITE, chess.BLACK):
                rows = [lab_nnue.feature_index(view == chess.WHITE, piece.color == chess.WHITE,
                                               piece.piece_type - 1, square)
                        for square, piece in board.piece_map().items()]
                acc = q["b1"].astype(np.int64) + w1[rows].sum(axis=0)
                seen_low, seen_high = min(seen_low, acc.min()), max(seen_high, acc.max())
    assert low <= seen_low and seen_high <= high


def test_the_output_sum_cannot_overflow_int32():
    """engine.nnue._output sums the clipped activations (0..NN_QA) times the output weights
    in int32 (so that it vectorizes): the largest possible sum must fit."""
    q = np.load(NET)
    per_bucket = np.abs(q["w2"].astype(np.int64).reshape(-1, 2 * NN_HIDDEN)).sum(axis=1)
    assert NN_QA * per_bucket.max() < 2 ** 31


@pytest.mark.parametrize("seed", range(4))
def test_replayed_accumulators_equal_a_sum_from_scratch(seed):
    """Random games (castling, en passant, promotions, captures and null moves all occur),
    evaluated at a random subset of plies, so that one to several moves are replayed."""
    rng = random.Random(seed)
    board = Board()
    accs = new_accumulators(MAX_PLY + 2)
    stack = np.zeros((MAX_PLY + 2, STACK_LEN), dtype=np.int64)
    checked = replayed_flags = 0
    for _ in range(40):
        board.set_fen(chess.STARTING_FEN)
        mirror = chess.Board()
        for ply in range(1, 110):
            moves = list(mirror.legal_moves)
            if not moves:
                break
            if rng.random() < 0.05 and not mirror.is_check():
                make_null(board.P, board.T)
                mirror.push(chess.Move.null())
            else:
                move = rng.choice(moves)
                replayed_flags += mirror.is_castling(move) or mirror.is_en_passant(move) \
                    or move.promotion is not None
                mirror.push(move)
                board.push_uci(move.uci())
            if rng.random() < 0.5:
                continue
            kept = network_eval(board.P, board.T, accs, stack, ply)
            assert kept == _fresh(board, ply), mirror.fen()
            checked += 1
    assert checked > 500 and replayed_flags >= 6


def test_the_engine_gives_the_float_networks_value():
    """The shipped integer network against lab/network/nnue.py's float arithmetic on its integers
    scaled back (the quantized weights / 255 and / 64), in centipawns."""
    net = lab_nnue.from_quantized(np.load(NET))
    rng = random.Random(9)
    board = Board()
    for _ in range(60):
        mirror = random_game(rng, rng.randrange(4, 70))
        board.set_fen(mirror.fen())
        p = lab_nnue.predict(*net, lab_nnue.position_features(mirror)[None])[0]
        p = min(max(p, 1e-12), 1 - 1e-12)
        logit = np.log(p / (1 - p))
        assert _fresh(board, 0) == pytest.approx(logit * NN_CP, abs=1.0)


@pytest.mark.parametrize("fen", [
    chess.STARTING_FEN,
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    "6k1/5ppp/8/1P6/8/8/2p2PPP/6K1 b - - 0 1",
    "r4rk1/1b3ppp/p7/1p1Q4/8/1B3N2/PP3PPP/3R1RK1 w - - 0 1",
])
def test_a_position_and_its_colour_mirror_score_alike(fen):
    board = Board(fen)
    mirrored = Board(chess.Board(fen).mirror().fen())
    assert _fresh(board, 0) == _fresh(mirrored, 0)


def test_each_output_bucket_is_read_for_its_number_of_pieces():
    """The engine with a network of NN_BUCKETS different output layers (a random float network,
    quantised) against lab/network/nnue.py's float arithmetic on the same integers: equal within
    a centipawn in positions of every bucket, each bucket read for its own number of pieces."""
    net = lab_nnue.new_network(NN_HIDDEN, seed=21, buckets=NN_BUCKETS)
    net = lab_nnue.Network(net.w1 * 0.2, net.b1, net.w2 * 4.0, net.b2 + np.linspace(-1, 1, NN_BUCKETS))
    q = lab_nnue.quantized(net)
    nn, b2 = network_arrays(q)
    tables = get_tables()
    i = tables.i.copy()
    i[I_NN_B2:I_NN_B2 + NN_BUCKETS] = b2
    T = Tables(tables.u, i, nn)
    scaled = lab_nnue.from_quantized(q)
    rng = random.Random(3)
    seen = set()
    while len(seen) < NN_BUCKETS:
        mirror = chess.Board(None)
        squares = rng.sample(range(64), rng.randrange(2, 33))
        mirror.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        mirror.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for square in squares[2:]:
            kind = rng.choice([chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN] +
                              ([chess.PAWN] if chess.square_rank(square) not in (0, 7) else []))
            mirror.set_piece_at(square, chess.Piece(kind, rng.random() < 0.5))
        mirror.turn = rng.random() < 0.5
        if not mirror.is_valid():
            continue
        seen.add(min((len(squares) - 2) * NN_BUCKETS // 32, NN_BUCKETS - 1))
        board = Board(mirror.fen())
        engine_cp = network_eval(board.P, T, new_accumulators(1),
                                 np.zeros((1, STACK_LEN), dtype=np.int64), 0)
        p = lab_nnue.predict(*scaled, lab_nnue.position_features(mirror)[None])[0]
        p = min(max(p, 1e-12), 1 - 1e-12)
        assert engine_cp == pytest.approx(np.log(p / (1 - p)) * NN_CP, abs=1.0), mirror.fen()


def test_a_network_of_one_output_layer_fills_every_bucket():
    q = dict(np.load(NET))
    layer, bias = q["w2"].reshape(-1, 2 * NN_HIDDEN)[0], int(q["b2"].ravel()[0])
    nn, b2 = network_arrays(dict(q, w2=layer, b2=np.array([bias])))
    assert np.array_equal(nn[N_NN_W2:].reshape(NN_BUCKETS, -1), np.tile(layer, (NN_BUCKETS, 1)))
    assert list(b2) == [bias] * NN_BUCKETS
    with pytest.raises(ValueError):       # neither one layer nor NN_BUCKETS
        network_arrays(dict(q, w2=np.zeros((3, 2 * NN_HIDDEN)), b2=np.zeros(3)))
