"""The block bootstrap of rows with time stamping (lab.statistics): blocks are runs of
consecutive positions of one game, whole games where a set has enough of them; a series
whose positions are correlated within a game gets a wider interval than the per-position
bootstrap gives it; the claims table (lab.thesis.reproduction.Grid) resamples blocks for
stamped rows only."""
import numpy as np
import pytest

from lab import statistics as S
from lab.thesis import reproduction as P
from lab.thesis.experiments import FIELDS


def _sizes(blocks):
    return [int(n) for n in np.bincount(blocks)]


def test_game_blocks_are_whole_games_where_there_are_enough():
    games = ["a"] * 3 + ["b"] * 5 + ["c"] + ["d"] * 2 + ["e"] * 4 + ["f"] * 6
    blocks = S.game_blocks(games)
    assert _sizes(blocks) == [3, 5, 1, 2, 4, 6]
    assert all(len({g for g, b in zip(games, blocks) if b == k}) == 1 for k in set(blocks))
    # A game met again later is a new run, hence a new block.
    assert _sizes(S.game_blocks(["a", "a", "b", "a", "c", "d", "e"])) == [2, 1, 1, 1, 1, 1]


def test_sets_of_few_games_are_cut_into_runs_within_games():
    assert _sizes(S.game_blocks(["g"] * 18)) == [3] * 6                 # short: one game
    assert _sizes(S.game_blocks(["g"] * 21)) == [4, 4, 4, 3, 3, 3]      # endgame21
    games = ["a"] * 6 + ["b"] * 18 + ["c"] * 20                         # middle44's games
    blocks = S.game_blocks(games)
    assert _sizes(blocks) == [6, 6, 6, 6, 7, 7, 6]
    assert all(len({g for g, b in zip(games, blocks) if b == k}) == 1 for k in set(blocks))
    assert list(blocks) == sorted(blocks)                               # consecutive runs


def test_the_test_sets_games():
    middle = S.position_games("middle")
    assert len(middle) == 94 and len(set(middle)) == 6
    assert len(set(S.game_blocks(middle).tolist())) == 6                # whole games
    endgame = S.position_games("endgame")                              # EPD ids name the move
    assert len(endgame) == 104 and len(set(endgame)) == 10
    assert not any(" move " in g for g in endgame)
    assert set(S.position_games("endgame21")) == {"Kasparov-Benjamin 3"}
    assert S.position_games("middle:5") == middle[:5]
    assert S.position_games("no such set") is None


def _correlated(games=10, per_game=10, seed=11):
    """Per-position counts whose ratio other/base moves by game (sd 5%) with little noise
    within a game: the positions of a game are anything but independent. Whole numbers,
    as the CSV stores them."""
    rng = np.random.default_rng(seed)
    base = rng.integers(100_000, 1_000_000, size=games * per_game).astype(float)
    effect = np.repeat(rng.normal(0, 0.05, size=games), per_game)
    other = np.round(base * (1 + effect + rng.normal(0, 0.005, size=base.size)))
    labels = np.repeat(np.arange(games), per_game)
    return base, other, labels


def test_correlation_within_games_widens_the_interval():
    base, other, labels = _correlated()
    by_position = S.paired_bootstrap(base, other)
    by_game = S.paired_bootstrap(base, other, blocks=labels)
    assert by_game.percent == by_position.percent                      # the same totals
    assert by_game.high - by_game.low > 2 * (by_position.high - by_position.low)
    assert S.paired_bootstrap(base, other, blocks=labels) == by_game   # seeded
    # Without the correlation (the game effects shuffled over the positions) the two agree.
    rng = np.random.default_rng(12)
    shuffled = base * rng.permutation(other / base)
    a = S.paired_bootstrap(base, shuffled)
    b = S.paired_bootstrap(base, shuffled, blocks=labels)
    assert (b.high - b.low) < 1.6 * (a.high - a.low)


def test_whole_games_are_resampled():
    """Two games, one where other = base and one where other = 2 x base: a resample of
    whole games is game 1 twice with probability 1/4, so the interval runs exactly from
    +0% to +100%; resampling positions almost never draws one game only."""
    rng = np.random.default_rng(13)
    base = rng.integers(100_000, 1_000_000, size=20).astype(float)
    other = base * np.repeat([1.0, 2.0], 10)
    labels = np.repeat(["game one", "game two"], 10)
    by_game = S.paired_bootstrap(base, other, blocks=labels)
    assert by_game.low == pytest.approx(0.0, abs=1e-9) and by_game.high == pytest.approx(100.0)
    by_position = S.paired_bootstrap(base, other)
    assert by_position.low > 10 and by_position.high < 90
    with pytest.raises(ValueError):
        S.paired_bootstrap(base, other, blocks=labels[:-1])


def _row(counts, stamping, test_set="toy", scheme="DEEP"):
    counts = np.asarray(counts, dtype=np.int64)
    row = {name: "" for name in FIELDS}
    row.update(experiment="schemes", test_set=test_set, scheme=scheme, positions_k="8",
               stamping=str(stamping), use="full", key_bits="64", depth="7",
               positions=str(len(counts)), nodes=str(int(counts.sum())),
               thesis_nodes=str(int(counts.sum())), seconds="1.0", commit="abc1234",
               per_position=" ".join(str(int(c)) for c in counts),
               per_position_thesis=" ".join(str(int(c)) for c in counts))
    return row


def test_grid_resamples_games_for_stamped_rows_only():
    base, other, labels = _correlated()
    games = lambda test_set: [f"game {g}" for g in labels] if test_set == "toy" else None
    grid = P.Grid([], games)
    blocked = S.paired_bootstrap(base, other, blocks=labels)
    single = S.paired_bootstrap(base, other)
    assert grid.diff(_row(base, True), _row(other, True), "nodes") == blocked
    assert grid.diff(_row(base, False), _row(other, False), "nodes") == single
    # Stamping on against off (row 10): the stamped row's games decide.
    assert grid.diff(_row(base, False), _row(other, True), "nodes") == blocked
    assert not grid.unplaced
    # compare() resamples by game (the default) where the games are known, else positions.
    assert S.compare(_row(base, True), _row(other, True)) == single
    a, b = _row(base[:94], True, "middle"), _row(other[:94], True, "middle")
    assert S.compare(a, b) == S.paired_bootstrap(
        base[:94], other[:94], blocks=S.game_blocks(S.position_games("middle")))
    assert S.compare(a, b) != S.compare(a, b, by_game=False)


def test_stamped_rows_the_games_cannot_place_are_named_in_the_document():
    base, other, _ = _correlated()
    grid = P.Grid([])                   # the default: the real test sets' games
    found = grid.diff(_row(base, True, "middle"), _row(other, True, "middle"), "nodes")
    assert found == S.paired_bootstrap(base, other) and grid.unplaced == {"middle"}
    text = P.build([_row(base, True, "middle", s) for s in S.SCHEMES])
    assert "The stamped rows of middle could not be placed in games" in text
    text = P.build([_row(base[:94], True, "middle", s) for s in S.SCHEMES])
    assert "could not be placed" not in text and "middle 6 games" in text
