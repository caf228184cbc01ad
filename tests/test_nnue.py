"""lab/network/nnue.py: the network's inputs, its gradients and its training."""
import chess
import numpy as np
import pytest

from lab.network import nnue, texel


def _rows(board):
    feats = nnue.position_features(board)
    return [sorted(int(f) for f in row if f >= 0) for row in feats]


def test_inputs_name_each_piece_from_each_side():
    board = chess.Board("4k3/8/8/8/8/8/4P3/4K2R b K - 0 1")
    us, them = _rows(board)          # black to move: row 0 is black's view
    # Black sees its own king on e8 as an own king on e1 (flipped): (0 * 6 + 5) * 64 + 4.
    assert us == sorted([(0 * 6 + 5) * 64 + chess.E1,
                         (1 * 6 + 5) * 64 + (chess.E1 ^ 56),
                         (1 * 6 + 0) * 64 + (chess.E2 ^ 56),
                         (1 * 6 + 3) * 64 + (chess.H1 ^ 56)])
    assert them == sorted([(0 * 6 + 5) * 64 + chess.E1, (0 * 6 + 0) * 64 + chess.E2,
                           (0 * 6 + 3) * 64 + chess.H1, (1 * 6 + 5) * 64 + chess.E8])


@pytest.mark.parametrize("fen", [chess.STARTING_FEN,
                                 "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
                                 "6k1/5ppp/8/1P6/8/8/2p2PPP/6K1 b - - 0 1"])
def test_a_position_and_its_colour_mirror_have_the_same_inputs(fen):
    board = chess.Board(fen)
    assert _rows(board) == _rows(board.mirror())
    net = nnue.new_network(8, seed=3)
    both = np.stack([nnue.position_features(board), nnue.position_features(board.mirror())])
    p = nnue.predict(*net, both)
    assert p[0] == pytest.approx(p[1], abs=1e-6)


def test_inputs_read_from_a_fen_equal_those_of_the_board():
    import random

    from conftest import random_game

    rng = random.Random(5)
    for _ in range(40):
        board = random_game(rng, rng.randrange(0, 80))
        fast = nnue.fen_features(board.fen())
        assert [sorted(row) for row in fast.tolist()] == \
            [sorted(row) for row in nnue.position_features(board).tolist()]


def _dataset(fens, targets, king_buckets=0):
    feats = np.stack([nnue.position_features(chess.Board(f), king_buckets) for f in fens])
    return nnue.Dataset(feats, np.array(targets, dtype=np.float32), np.arange(len(fens)))


FENS = ["r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
        "6k1/5ppp/8/1P6/8/8/2p2PPP/6K1 b - - 0 1",
        "4k3/8/2p5/2p5/8/P7/P4P2/4K3 b - - 0 1",
        "r4rk1/1b3ppp/p7/1p1Q4/8/1B3N2/PP3PPP/3R1RK1 w - - 0 1"]


@pytest.mark.parametrize("buckets, king_buckets", [(1, 0), (8, 0), (1, nnue.KING_BUCKETS)])
def test_gradients_match_finite_differences(buckets, king_buckets):
    data = _dataset(FENS, [0.7, 0.2, 0.5, 0.9], king_buckets)
    net = nnue.new_network(6, seed=1, buckets=buckets, king_buckets=king_buckets)
    net = nnue.Network(*(a.astype(np.float64) for a in net))   # float64: a clean difference
    # the king buckets' copies start at zero: give them weights of their own
    net.w1[:king_buckets * nnue.N_FEATURES] = np.random.default_rng(2).standard_normal(
        (king_buckets * nnue.N_FEATURES, 6)) * 0.05
    grads = [np.zeros_like(a) for a in net]
    batch = np.arange(len(FENS), dtype=np.int64)
    nnue._gradients(*net, data.features, data.target.astype(np.float64), batch, *grads)

    def loss():
        p = nnue.predict(*net, data.features)
        return np.mean((p - data.target.astype(np.float64)) ** 2)

    rng = np.random.default_rng(0)
    checked = 0
    for param, grad in zip(net, grads):
        flat_p, flat_g = param.reshape(-1), grad.reshape(-1)
        candidates = np.flatnonzero(flat_g) if param is net.w1 else np.arange(flat_p.size)
        for k in rng.choice(candidates, size=min(5, candidates.size), replace=False):
            keep = flat_p[k]
            flat_p[k] = keep + 1e-6
            up = loss()
            flat_p[k] = keep - 1e-6
            down = loss()
            flat_p[k] = keep
            assert flat_g[k] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-9)
            checked += 1
    assert checked >= 15


def _material_target(board):
    """A learnable stand-in label: the side to move's expected score from material alone."""
    values = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9}
    balance = sum(v * (len(board.pieces(k, board.turn)) - len(board.pieces(k, not board.turn)))
                  for k, v in values.items())
    return 1.0 / (1.0 + 10 ** (-balance * 100 / 400))


def test_training_fits_a_material_count():
    """The fitting positions' error falls to a few percent of the untrained network's; the
    held-out games' error falls too, though 900 positions are too few to learn each
    (piece, square) input's value well."""
    rng = np.random.default_rng(5)
    boards = []
    for _ in range(1200):
        board = chess.Board()
        for _ in range(int(rng.integers(10, 60))):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        if not board.is_game_over():
            boards.append(board)
    feats = np.stack([nnue.position_features(b) for b in boards])
    target = np.array([_material_target(b) for b in boards], dtype=np.float32)
    data = nnue.Dataset(feats, target, np.arange(len(boards)))
    fitting, held_out = nnue.split_by_game(data, 0.25, seed=1)
    net = nnue.new_network(16, seed=2)
    before = nnue.mean_error(net, fitting), nnue.mean_error(net, held_out)
    nnue.train(net, fitting, epochs=30, batch_size=32, rate=3e-3)
    after = nnue.mean_error(net, fitting), nnue.mean_error(net, held_out)
    assert after[0] < 0.05 * before[0], (before, after)
    assert after[1] < 0.9 * before[1], (before, after)


@pytest.mark.parametrize("king_buckets", [0, nnue.KING_BUCKETS])
def test_the_folded_first_layer_gives_the_same_outputs(king_buckets):
    feats = _dataset(FENS, [0.5] * len(FENS), king_buckets).features
    net = nnue.new_network(8, seed=4, king_buckets=king_buckets)
    net.w1[:] = np.random.default_rng(4).standard_normal(net.w1.shape) * 0.05
    plain = nnue.Network(nnue.folded(net), net.b1, net.w2, net.b2)   # the real rows alone
    assert len(plain.w1) == max(1, king_buckets) * nnue.N_FEATURES
    assert nnue.king_buckets_of(plain) == nnue.king_buckets_of(net) == king_buckets
    assert np.allclose(nnue.predict(*net, feats), nnue.predict(*plain, feats), atol=1e-6)
    # every row matters: without the factor or virtual rows the outputs change
    for dropped in range(len(plain.w1), len(net.w1), nnue.N_FEATURES):
        cut = net.w1.copy()
        cut[dropped:dropped + nnue.N_FEATURES] = 0.0
        assert not np.allclose(nnue.predict(*net, feats),
                               nnue.predict(cut, net.b1, net.w2, net.b2, feats), atol=1e-6)


# King buckets: where the viewer's own king stands picks a copy of the 768 inputs.

@pytest.mark.parametrize("square, bucket, mirrored", [
    (chess.A1, 0, False), (chess.B1, 0, False), (chess.G1, 0, True), (chess.H1, 0, True),
    (chess.C1, 1, False), (chess.D1, 1, False), (chess.E1, 1, True), (chess.F1, 1, True),
    (chess.A2, 2, False), (chess.H2, 2, True), (chess.D3, 3, False), (chess.E8, 3, True)])
def test_the_own_kings_square_picks_the_bucket_and_the_mirror(square, bucket, mirrored):
    assert nnue.king_bucket(square) == (bucket, mirrored)


def test_a_king_bucket_input_names_the_copy_and_the_mirrored_square():
    # Black to move, its king on g8: seen from black's side g1, so copy 0, mirrored; its
    # pawn on h7 is seen on h2, mirrored to a2. White's king on c1: copy 1, not mirrored;
    # white sees black's pawn on h7 as an opponent's pawn on h7.
    board = chess.Board("6k1/7p/8/8/8/8/8/2K5 b - - 0 1")
    us, them = [sorted(int(f) for f in row if f >= 0)
                for row in nnue.position_features(board, nnue.KING_BUCKETS)]
    assert us == sorted([0 * 768 + (0 * 6 + 5) * 64 + chess.B1,
                         0 * 768 + (0 * 6 + 0) * 64 + chess.A2,
                         0 * 768 + (1 * 6 + 5) * 64 + (chess.C1 ^ 56 ^ 7)])
    assert them == sorted([1 * 768 + (0 * 6 + 5) * 64 + chess.C1,
                           1 * 768 + (1 * 6 + 0) * 64 + chess.H7,
                           1 * 768 + (1 * 6 + 5) * 64 + chess.G8])


@pytest.mark.parametrize("fen", [chess.STARTING_FEN,
                                 "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
                                 "6k1/5ppp/8/1P6/8/8/2p2PPP/6K1 b - - 0 1",
                                 "8/8/3k4/8/2P5/8/5K2/8 w - - 0 1"])
def test_king_bucket_inputs_are_the_same_for_both_mirror_images(fen):
    """Colours swapped, or files reversed: the same inputs for each view (a position that
    differs only by the side of the board its pieces stand on is the same to the network)."""
    board = chess.Board(fen)

    def rows(b):
        return [sorted(row) for row in nnue.position_features(b, nnue.KING_BUCKETS).tolist()]

    assert rows(board) == rows(board.mirror())
    assert rows(board) == rows(board.transform(chess.flip_horizontal))


def test_king_bucket_inputs_read_from_a_fen_equal_those_of_the_board():
    import random

    from conftest import random_game

    rng = random.Random(6)
    for _ in range(40):
        board = random_game(rng, rng.randrange(0, 80))
        fast = nnue.fen_features(board.fen(), nnue.KING_BUCKETS)
        assert [sorted(row) for row in fast.tolist()] == [
            sorted(row) for row in nnue.position_features(board, nnue.KING_BUCKETS).tolist()]


def test_an_integer_king_bucket_network_keeps_its_layout_and_the_engine_refuses_it():
    from engine.tables import network_arrays

    net = nnue.new_network(8, seed=5, king_buckets=nnue.KING_BUCKETS)
    net.w1[:] = np.random.default_rng(5).standard_normal(net.w1.shape) * 0.05
    q = nnue.quantized(net)
    assert q["w1"].shape == (nnue.KING_BUCKETS * 768, 8)
    assert nnue.quantized_king_buckets(q) == nnue.KING_BUCKETS
    assert nnue.quantized_king_buckets(nnue.quantized(nnue.new_network(8))) == 0
    feats = _dataset(FENS, [0.5] * len(FENS), nnue.KING_BUCKETS).features
    assert np.allclose(nnue.predict(*nnue.from_quantized(q), feats), nnue.predict(*net, feats),
                       atol=2e-3)
    with pytest.raises(ValueError):
        network_arrays(q)


def test_labels_are_read_from_the_side_to_moves_view_and_split_by_game(tmp_path):
    path = tmp_path / "labels.txt"
    path.write_text("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;200;0\n"
                    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1;200;0\n"
                    "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0;1\n"
                    "4k3/8/8/8/8/8/8/4K3 b - - 0 1;0;2\n")
    data = nnue.load_labels(path)
    white_view = 1.0 / (1.0 + 10 ** (-200 / 400))
    assert data.target[0] == pytest.approx(white_view)
    assert data.target[1] == pytest.approx(1.0 - white_view)    # black to move, white better
    assert list(data.game) == [0, 0, 1, 2]
    fitting, held_out = nnue.split_by_game(data, 0.34, seed=0)
    assert len(fitting.target) + len(held_out.target) == 4
    assert not set(fitting.game) & set(held_out.game)


def test_a_result_weight_blends_the_games_result_into_the_target(tmp_path):
    """`FEN;score;game;result` lines (result from white's view): with weight w the white
    target is (1 - w) x the score's expected score + w x the result, then turned to the side
    to move; lines without a result keep the score's alone. lab/network/texel's reader,
    used for the comparison with the hand-written evaluation, gives the same white targets."""
    path = tmp_path / "labels.txt"
    path.write_text("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1;200;0;0\n"
                    "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1;200;0;0\n"
                    "4k3/8/8/8/8/8/8/4K3 w - - 0 1;0;1;1\n"
                    "4k3/8/8/8/8/8/8/4K3 b - - 0 1;0;2\n")
    white_view = 1.0 / (1.0 + 10 ** (-200 / 400))
    plain = nnue.load_labels(path)
    assert list(plain.target) == pytest.approx([white_view, 1.0 - white_view, 0.5, 0.5])
    blended = nnue.load_labels(path, result_weight=0.25)
    lost = 0.75 * white_view
    assert list(blended.target) == pytest.approx([lost, 1.0 - lost, 0.625, 0.5])
    white_targets = [target for _, _, target in texel.labelled_positions(path, 0.25)]
    assert white_targets == pytest.approx([lost, lost, 0.625, 0.5])


@pytest.mark.parametrize("buckets", [1, 8])
def test_the_integer_network_gives_the_float_networks_logit(buckets):
    """lab/network/nnue.quantized's arrays, evaluated as an engine would (integer sums, activations
    clipped at QA, the output layer of the bucket the number of pieces picks), give the float
    network's logit within the rounding (the output weights x 64 are the coarse part: 0.06 is
    about 10 centipawns)."""
    net = nnue.new_network(16, seed=6, buckets=buckets)
    q = nnue.quantized(net)
    assert q["w2"].shape == (buckets, 32) and q["b2"].shape == (buckets,)
    used = set()
    for fen in FENS:
        board = chess.Board(fen)
        feats = nnue.position_features(board)
        bucket = min((len(board.piece_map()) - 2) * buckets // 32, buckets - 1)
        used.add(bucket)
        total = int(q["b2"][bucket])
        for view in range(2):
            acc = q["b1"].copy()
            for f in feats[view]:
                if f >= 0:
                    acc += q["w1"][f]
            total += int(np.dot(np.clip(acc, 0, nnue.QA),
                                q["w2"][bucket, view * 16:(view + 1) * 16]))
        logit = total / (nnue.QA * nnue.QB)
        p = nnue.predict(*net, feats[None])[0]
        assert logit == pytest.approx(np.log(p / (1 - p)), abs=0.06)
    assert len(used) == min(buckets, 4)     # 32, 20, 10 and 7 pieces: buckets 7, 4, 2 and 1


def test_one_output_layer_draws_the_weights_it_drew_before_buckets():
    """new_network's draws for one bucket are those of the single output layer before
    output buckets existed, so that a rebuild with the same seed starts from the same weights."""
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((nnue.N_FEATURES + nnue.N_VIRTUAL, 8)) * 0.05
    w2 = rng.standard_normal(16) / np.sqrt(16)
    net = nnue.new_network(8, seed=11)
    assert np.array_equal(net.w1, w1.astype(np.float32))
    assert np.array_equal(net.w2, w2.astype(np.float32)[None])


def test_the_rate_schedule_steps_down_in_the_second_half_and_the_last_epoch():
    rates = [nnue.step_rate(3e-3, epoch, 6) for epoch in range(1, 7)]
    assert rates == pytest.approx([3e-3] * 3 + [7.5e-4] * 2 + [3e-3 / 16])
    assert [nnue.step_rate(1e-3, epoch, 2) for epoch in (1, 2)] == pytest.approx([1e-3, 2.5e-4])


def test_a_sample_keeps_whole_rows_and_its_size():
    data = _dataset(FENS, [0.7, 0.2, 0.5, 0.9])
    picked = nnue.sample(data, 2, seed=1)
    assert len(picked.target) == 2
    for features, target in zip(picked.features, picked.target):
        row = next(i for i in range(len(FENS)) if np.array_equal(data.features[i], features))
        assert data.target[row] == target
    assert nnue.sample(data, 10) is data


def _tiny_labels(path):
    lines = []
    for game in range(6):
        for fen, score in (("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 200),
                           ("4k3/8/8/8/8/8/8/4KQ2 b - - 0 1", -900),
                           ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0)):
            lines.append(f"{fen};{score};{game}")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("fits", [True, False])
def test_the_trainer_saves_only_a_network_the_accumulators_hold(tmp_path, monkeypatch, fits):
    from click.testing import CliRunner
    from lab.network import nnue_train

    labels, out = tmp_path / "labels.txt", tmp_path / "net.npz"
    _tiny_labels(labels)
    monkeypatch.setattr(nnue, "fits_int16", lambda q: fits)
    result = CliRunner().invoke(nnue_train.main, [
        "--labels", str(labels), "--no-compare", "--held-out", "0.34", "--hidden", "8",
        "--epochs", "1", "--batch", "4", "--quantized-out", str(out)])
    assert (result.exit_code == 0) == fits, result.output
    assert out.exists() == fits
    if not fits:
        assert "beyond int16" in result.output and "nothing saved" in result.output


def test_the_accumulator_range_is_the_bias_plus_the_extreme_pieces():
    """One unit, every weight 1 except a king weight of 7 and an own-pawn weight of -3:
    the top is the bias, two kings of 7 and 15 + 15 other men at 1 each; the bottom, the
    bias and 8 pawns of -3 (a side has no more pawns; the other side's men have no
    negative weight)."""
    w1 = np.ones((2, 6, 64, 1), dtype=np.int64)
    w1[:, 5, 10, 0] = 7
    w1[0, 0, 20:40, 0] = -3
    q = {"w1": w1.reshape(768, 1), "b1": np.array([100])}
    assert nnue.accumulator_range(q) == (100 - 24, 100 + 7 + 7 + 30)
    assert nnue.fits_int16(q)
    q["b1"] = np.array([2 ** 15 - 44])
    assert not nnue.fits_int16(q)


def test_the_accumulator_range_counts_only_men_a_side_can_have():
    """Queens at -5 on every square: nine at most (the first and eight promoted pawns), so
    -45 per side where any 15 men would give -75; pawn weights on ranks 1 and 8, where no
    pawn stands, count for nothing; knights and queens at +2: eleven of them at most (two
    knights, a queen and eight promoted pawns), the bishops and rooks besides them at 0."""
    w1 = np.zeros((2, 6, 64, 1), dtype=np.int64)
    w1[:, 4, :, 0] = -5
    w1[:, 0, :8, 0] = -100
    w1[:, 0, 56:, 0] = 100
    q = {"w1": w1.reshape(768, 1), "b1": np.array([0])}
    assert nnue.accumulator_range(q) == (-90, 0)
    w1[:, 4, :, 0] = 2
    w1[:, 1, :, 0] = 2
    assert nnue.accumulator_range({"w1": w1.reshape(768, 1), "b1": np.array([0])}) == (0, 2 * 11 * 2)


def test_every_piece_count_is_reachable_by_promotions():
    """The counts the range maximises over: a side's eight pawns are pawns or promoted, so
    each count has 15 men besides the king and the promotions match the missing pawns."""
    counts = nnue._piece_counts()
    start = np.array(nnue.START_COUNTS)
    assert (counts.sum(axis=1) == 15).all()
    assert ((counts[:, 1:] - start[1:]).sum(axis=1) == 8 - counts[:, 0]).all()
    assert (counts[:, 1:] >= start[1:]).all() and len({tuple(c) for c in counts}) == len(counts)


def test_the_accumulator_range_covers_every_king_buckets_copy():
    """Four copies of the inputs: the range is the widest of the copies' ranges, each
    copy's being the one-copy range of its rows."""
    rng = np.random.default_rng(3)
    w1 = rng.integers(-40, 40, size=(4 * 768, 2))
    w1[2 * 768 + 5 * 64 + 9] = [900, -900]       # copy 2: a king weight far out
    q = {"w1": w1, "b1": np.array([10, -10])}
    copies = [nnue.accumulator_range({"w1": w1[k * 768:(k + 1) * 768], "b1": q["b1"]})
              for k in range(4)]
    assert nnue.accumulator_range(q) == (min(c[0] for c in copies), max(c[1] for c in copies))
    assert nnue.accumulator_range(q) == copies[2]
