"""lab/network/texel.py: the position filter, the features against the engine's own evaluation, and
the fit recovering known multipliers."""
import io

import chess
import chess.pgn
import numpy as np
import pytest

from engine import eval as ev
from engine import pst
from engine.board import Board
from lab.network import texel

PGN = """[Event "t"]
[Result "1-0"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 Bg4 7. dxe5 Qxd1 8. Rxd1 fxe5 1-0

[Event "unfinished"]
[Result "*"]

1. d4 d5 2. c4 *

[Event "t2"]
[Result "1/2-1/2"]

1. e4 d5 2. Bb5+ c6 3. Be2 e5 1/2-1/2
"""


def write_pgn(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(PGN)
    return path


def expected_fens(game, skip_plies):
    """The filter written out: past the opening, not in check, a quiet move played."""
    fens = []
    board = game.board()
    for ply, move in enumerate(game.mainline_moves()):
        if (ply >= skip_plies and not board.is_check() and not board.is_capture(move)
                and move.promotion is None):
            fens.append(board.fen())
        board.push(move)
    return fens


def test_quiet_positions_skip_openings_checks_captures_and_unfinished_games(tmp_path):
    samples = list(texel.quiet_positions([write_pgn(tmp_path)], skip_plies=2))
    handle = io.StringIO(PGN)
    first, _, third = (chess.pgn.read_game(handle) for _ in range(3))
    got = [(game, board.fen(), result) for game, board, result in samples]
    assert [fen for _, fen, _ in got] == expected_fens(first, 2) + expected_fens(third, 2)
    assert {(game, result) for game, _, result in got} == {(0, 1.0), (1, 0.5)}
    fens = [fen for _, fen, _ in got]
    # 2. Bb5+ puts black in check: that position is left out; so is the one before 4. Bxc6
    every = [node.board().fen() for game in (first, third) for node in game.mainline()]
    for left_out in ("rnbqkbnr/ppp1pppp/8/1B1p4/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2",
                     "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4"):
        assert left_out in every and left_out not in fens
    assert len(expected_fens(third, 2)) == 3 and len(fens) == len(set(fens))


def test_features_rebuild_the_engines_evaluation(tmp_path):
    samples = list(texel.quiet_positions([write_pgn(tmp_path)], skip_plies=0))
    features = texel.extract(samples)
    ones = np.ones(len(ev.TERM_NAMES))
    model = texel.evaluate(features, ones, ones)
    board = Board()
    for (_, chess_board, _), value in zip(samples, model):
        board.load_chess_board(chess_board)
        assert abs(value - int(ev.reference_eval_white(board.P, board.T))) < 1.0
    assert np.any(features.dmg != 0)


def synthetic(rng, n=4000, terms=7):
    base_mg = rng.normal(0, 150, n)
    base_eg = rng.normal(0, 150, n)
    phase = rng.integers(0, 25, n).astype(float)
    dmg = rng.normal(0, 40, (n, terms))
    deg = rng.normal(0, 40, (n, terms))
    deg[:, 1] = 0.0                                     # like the king terms: no end-game part
    return texel.Features(base_mg, base_eg, phase, dmg, deg, np.zeros(n), np.arange(n) // 40)


def test_the_fit_recovers_known_multipliers_and_k():
    rng = np.random.default_rng(1)
    features = synthetic(rng)
    a_true = np.array([0.5, 1.5, 1.2, 0.8, 2.0, 0.3, 1.0])
    b_true = np.array([1.3, 1.0, 0.7, 0.9, 0.4, 1.6, 1.1])
    k_true = 1.3
    labelled = features._replace(
        result=texel.win_probability(texel.evaluate(features, a_true, b_true), k_true))
    assert texel.fit_k(labelled, a_true, b_true) == pytest.approx(k_true, abs=1e-3)
    fit = texel.fit_multipliers(labelled, k_true)
    assert fit.a == pytest.approx(a_true, abs=2e-3)
    assert fit.b == pytest.approx(b_true, abs=2e-3)          # b[1]: no feature, stays 1
    assert fit.error_after < fit.error_before


def test_split_keeps_whole_games_apart():
    features = synthetic(np.random.default_rng(2))
    fitting, kept_out = texel.split_by_game(features, 0.25)
    assert not set(fitting.game) & set(kept_out.game)
    assert len(set(kept_out.game)) == 25
    assert len(fitting.result) + len(kept_out.result) == len(features.result)


def test_unit_multipliers_give_back_the_current_constants():
    ones = np.ones(len(ev.TERM_NAMES))
    lines = texel.scaled_constants(ones, ones)
    assert f"BISHOP_PAIR = {ev.BISHOP_PAIR}" in lines
    assert f"PASSED_PAWN_EG = {ev.PASSED_PAWN_EG}" in lines
    assert f"KNIGHT_MOBILITY = {ev.KNIGHT_MOBILITY}" in lines
    assert f"SHELTER_MISSING = {ev.SHELTER_MISSING}" in lines
    assert any(line.startswith(f"PASSER_RACE_WEIGHT = {ev.PASSER_RACE_WEIGHT}") for line in lines)
    assert f"SUPPORTED_PAWN = {ev.SUPPORTED_PAWN}" in lines
    assert f"KING_PAWN_DISTANCE = {ev.KING_PAWN_DISTANCE}" in lines
    assert f"BACKWARD_PAWN = {ev.BACKWARD_PAWN}" in lines
    assert f"PHALANX_PAWN_MG = {ev.PHALANX_PAWN_MG}" in lines
    assert f"KNIGHT_OUTPOST = {ev.KNIGHT_OUTPOST}" in lines


def test_a_new_terms_weights_are_recovered():
    """Results generated with a hidden extra term (mg 25, eg -10 per unit): the screening
    fit finds those weights, and a feature of pure noise gets weights near 0."""
    rng = np.random.default_rng(3)
    # A fixed count of synthetic terms: the random draw (and so the noise term's fitted
    # weight) must not change when the engine gains a term.
    features = synthetic(rng, terms=9)
    hidden = rng.normal(0, 2, len(features.result))
    k = 1.0
    labelled = features._replace(
        result=texel.win_probability(texel.with_new_term(features, hidden, 25.0, -10.0), k))
    w_mg, w_eg = texel.fit_new_term(labelled, hidden, k)
    assert w_mg == pytest.approx(25.0, abs=0.1)
    assert w_eg == pytest.approx(-10.0, abs=0.1)
    noise = rng.normal(0, 2, len(features.result))
    w_mg, w_eg = texel.fit_new_term(labelled, noise, k)
    assert abs(w_mg) < 1.0 and abs(w_eg) < 1.0


def test_held_out_mask_matches_the_split():
    features = synthetic(np.random.default_rng(4))
    mask = texel.held_out_mask(features, 0.25, seed=5)
    fitting, kept_out = texel.split_by_game(features, 0.25, seed=5)
    assert np.array_equal(kept_out.game, features.game[mask])
    assert np.array_equal(fitting.game, features.game[~mask])


def test_screen_candidates_count_what_they_name():
    """lab/network/texel_screen.py's features, white minus black, on hand-checked positions."""
    import chess
    from lab.network import texel_screen as screen
    names = list(screen.CANDIDATES)
    # White: pawns b2, c3 (c3 defended by b2), knight e5 on an outpost (d4 defends it, no
    # black pawn on d or f ahead), rook a7 on the seventh; black: pawn h7, white to move.
    board = chess.Board("4k3/R6p/8/4N3/3P4/2P5/1P6/4K3 w - - 0 1")
    row = dict(zip(names, screen.candidate_features([board])[0]))
    assert row["tempo (side to move)"] == 1
    assert row["rook on the seventh rank"] == 1
    assert row["knight outpost"] == 1
    assert row["pawn defended by a pawn"] == 2      # c3 by b2, d4 by c3
    assert row["hanging piece"] == 1                # h7: the rook attacks it, nothing defends


def test_screen_king_and_passer_candidates_count_what_they_name():
    """The king-safety, passer and bishop candidates of lab/network/texel_screen.py, white minus
    black, on positions counted by hand."""
    import chess
    from lab.network import texel_screen as screen

    def row(fen):
        return dict(zip(screen.CANDIDATES, screen.candidate_features([chess.Board(fen)])[0]))

    # The queen d1 reaches four squares that check g8: b3 and d5 (diagonal), d8 (rank), g4
    # (file); the black king guards none of them. No white piece touches g8's zone.
    queen = row("6k1/8/8/8/8/8/8/3QK3 w - - 0 1")
    assert queen["safe check (square not attacked by the enemy)"] == 4
    assert queen["check from a square no enemy pawn attacks"] == 4
    assert queen["attacks on the enemy king's zone"] == 0
    # The bishop b2 and the pawn d4 stand on dark squares; d4 and d5 block each other.
    bishop = row("4k3/8/8/3p4/3P4/8/1B6/4K3 w - - 0 1")
    assert bishop["own pawns on an own bishop's colour"] == 1
    assert bishop["open file at the enemy king"] == 0      # two open files each side
    # The passer c4 has the rook c1 behind it and the black knight c5 in front; the knight
    # alone checks (from d3), the rook c1 reaches no square that checks e8.
    passer = row("4k3/8/8/2n5/2P5/8/8/2R1K3 w - - 0 1")
    assert passer["rook behind an own passed pawn"] == 1
    assert passer["enemy passed pawn blockaded"] == -1
    assert passer["safe check (square not attacked by the enemy)"] == -1
    # e5 is on its 5th rank, on the black king's file.
    assert row("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1")[
        "pawn storm (own pawns near the enemy king, 4th-6th rank)"] == 1


def test_piece_square_counts_rebuild_the_incremental_material_and_tables(tmp_path):
    samples = list(texel.quiet_positions([write_pgn(tmp_path)], skip_plies=0))
    features = texel.extract(samples)
    X = texel.pst_counts(samples)
    w_mg, w_eg = texel.pst_weights()
    assert X.shape == (len(samples), texel.PST_FEATURES)
    assert np.array_equal(X @ w_mg, features.base_mg)
    assert np.array_equal(X @ w_eg, features.base_eg)
    assert samples[0][1].fen() == chess.STARTING_FEN
    assert X[0].nnz == 0               # symmetric: each white piece cancels its black mirror
    assert X[1:].nnz > 0


def test_the_table_fit_recovers_shifted_entries():
    """Results drawn from tables with a few entries moved: the fit moves those entries
    toward their true values and leaves entries no position uses alone."""
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(3)
    n = 6000
    w_mg, w_eg = texel.pst_weights()
    true_mg, true_eg = w_mg.copy(), w_eg.copy()
    moved = [64 + 27, 64 + 36, 3 * 64 + 8]          # knight d5, knight e4, rook a7
    true_mg[moved] += 60.0
    true_eg[moved] -= 40.0
    used = np.array(moved + [64 + 18, 64 + 45, 2 * 64 + 20, 3 * 64 + 56, 4 * 64 + 3])
    counts = np.zeros((n, texel.PST_FEATURES))
    counts[:, used] = rng.integers(-1, 2, (n, len(used)))
    full = csr_matrix(counts)
    phase = rng.integers(0, 25, n).astype(float)
    zero_terms = np.zeros((n, 2))
    features = texel.Features(full @ w_mg, full @ w_eg, phase, zero_terms, zero_terms,
                              np.zeros(n), np.arange(n) // 30)
    labelled = features._replace(
        result=texel.win_probability(texel.evaluate_pst(features, full, true_mg, true_eg), 1.0))
    fit = texel.fit_pst(labelled, full, 1.0, prior=1e-6)
    assert fit.error_after < fit.error_before
    assert fit.w_mg[moved] == pytest.approx(true_mg[moved], abs=3.0)
    assert fit.w_eg[moved] == pytest.approx(true_eg[moved], abs=3.0)
    unused = np.setdiff1d(np.arange(texel.PST_FEATURES), used)
    assert np.array_equal(fit.w_mg[unused], w_mg[unused])
    # The printed source defines the tables and their tuples: the entries come back, rounded.
    source = "\n".join(texel.pst_tables_source(fit.w_mg, fit.w_eg))
    module = {}
    exec(source, module)
    for values, tables, weights in ((pst.MG_VALUE, module["MG_TABLES"], fit.w_mg),
                                    (pst.EG_VALUE, module["EG_TABLES"], fit.w_eg)):
        rebuilt = [values[t] + tables[t][i] for t in range(6) for i in range(64)]
        assert rebuilt == list(np.rint(weights).astype(int))


def test_labelled_positions_read_back_as_expected_scores(tmp_path):
    path = tmp_path / "labels.txt"
    lines = [("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 0, 3),
             ("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", 900, 4),
             ("3qk3/8/8/8/8/8/8/4K3 w - - 0 1", -900, 4)]
    path.write_text("".join(f"{fen};{score};{game}\n" for fen, score, game in lines))
    samples = list(texel.labelled_positions(path))
    assert [(game, board.fen()) for game, board, _ in samples] == [(g, f) for f, _, g in lines]
    targets = [target for _, _, target in samples]
    assert targets[0] == 0.5
    assert targets[1] == pytest.approx(1.0 / (1.0 + 10 ** (-900 / 400)))
    assert targets[1] + targets[2] == pytest.approx(1.0)     # white's view both ways


LOPSIDED_PGN = """[Event "white a queen up, black to move"]
[SetUp "1"]
[FEN "4k3/pppp4/8/8/8/8/PPPP4/3QK3 b - - 0 1"]
[Result "1-0"]

1... a6 2. b3 b6 3. c3 c6 1-0
"""


def test_label_positions_scores_from_whites_point_of_view(tmp_path):
    """lab/network/label_positions.py with TwoBig as the labelling engine: one line per quiet
    position, the score from white's side whichever side is to move."""
    import sys
    from pathlib import Path

    from click.testing import CliRunner

    from lab.network import label_positions

    engine = Path(sys.executable).parent / "twobig"
    if not engine.exists():
        pytest.skip("the twobig command is not installed beside this Python")

    pgn = tmp_path / "lopsided.pgn"
    pgn.write_text(LOPSIDED_PGN)
    out = tmp_path / "labels.txt"
    result = CliRunner().invoke(label_positions.main, [
        "--pgn", str(pgn), "--skip-plies", "0", "--count", "10", "--engine", str(engine),
        "--nodes", "300", "--jobs", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = [line.split(";") for line in out.read_text().splitlines()]
    game = chess.pgn.read_game(io.StringIO(LOPSIDED_PGN))
    assert [fen for fen, _, _ in rows] == expected_fens(game, 0)
    assert {fen.split()[1] for fen, _, _ in rows} == {"w", "b"}
    assert all(int(score) > 500 and game_index == "0" for _, score, game_index in rows)
