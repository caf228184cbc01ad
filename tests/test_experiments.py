"""The thesis' test sets and the experiment runner."""
import math

from lab.thesis import experiments as X


def test_middle_game_set_is_the_thesis_set():
    positions = X.middle_game_positions()
    assert len(positions) == 94
    assert sum(p.game.startswith("Kasparov-Short") for p in positions) == 18
    assert all(p.move_number >= 15 for p in positions)
    import chess
    for p in positions:
        board = chess.Board(p.fen)
        assert X.material(board, True) >= 18 and X.material(board, False) >= 18


def test_endgame_set_file_matches_its_derivation():
    derived = X.endgame_positions()
    listed = X.read_endgame_epd()
    assert len(listed) == len(derived) >= 100
    assert [" ".join(p.fen.split()[:4]) for p in listed] == [" ".join(p.fen.split()[:4]) for p in derived]
    import chess
    for p in listed:
        board = chess.Board(p.fen)
        assert board.turn == chess.WHITE
        assert min(X.material(board, True), X.material(board, False)) < 18


def test_feldmann_formula():
    assert X.feldmann_expected(0, 1000) == 0
    # Few positions in a big table: about M^2 / 2N collisions.
    assert math.isclose(X.feldmann_expected(100, 10 ** 6), 100 ** 2 / 2e6, rel_tol=0.01)
    # Many more positions than places: nearly all but N collide.
    assert math.isclose(X.feldmann_expected(10 ** 6, 1000), 10 ** 6 - 1000, rel_tol=1e-3)


def test_run_config_counts_depths_consistently(monkeypatch):
    few = X.middle_game_positions()[:3]
    monkeypatch.setattr(X, "positions_for", lambda name: few)
    cleared = X.run_config(X.RunConfig("middle", "TwoBig1", 8, False, 4), [2, 3, 4])
    single = X.run_config(X.RunConfig("middle", "TwoBig1", 8, False, 3), [3])
    assert cleared[3]["nodes"] == single[3]["nodes"]     # one pass gives every depth
    assert cleared[2]["nodes"] < cleared[3]["nodes"] < cleared[4]["nodes"]
    stamped = X.run_config(X.RunConfig("middle", "TwoBig1", 8, True, 4), [4])
    assert stamped[4]["positions"] == 3 and stamped[4]["hits"] > 0
    none = X.run_config(X.RunConfig("middle", "TwoBig1", 8, True, 4, use="none"), [4])
    assert none[4]["probes"] == 0 and none[4]["nodes"] > stamped[4]["nodes"]


def test_the_thesis_worked_example_recomputed():
    """Section 2.4.2's example: 62 bits for a 1% chance of a type-1 error, about 1e-3 with
    64 bits, as the thesis says; but an expected 1.26e-3 errors, not the thesis' 0.05."""
    from lab.thesis.experiments import thesis_worked_example
    example = thesis_worked_example()
    assert example["p_error_32"] > 0.999999
    assert example["bits_for_one_percent"] == 62
    assert 1.0e-3 < example["p_error_64"] < 1.5e-3
    assert abs(example["expected_errors_64"] - 216e6 ** 2 / 2 ** 65) < 1e-6
