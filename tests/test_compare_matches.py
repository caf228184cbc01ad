"""lab/matches/compare_matches.py: two matches paired game for game by opening and colour."""
import chess
import chess.pgn
import pytest
from click.testing import CliRunner
from lab.matches import compare_matches

OPENING_1 = ("e2e4", "e7e5")
OPENING_2 = ("d2d4", "d7d5")


@pytest.fixture(scope="module")
def cm():
    return compare_matches


def _game(white, black, opening, result, clocks=True):
    """A game that plays `opening` as book moves, then two engine moves (with clock comments
    when `clocks`), and ends in `result`."""
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = white, black
    game.headers["Result"] = result
    node, board = game, chess.Board()
    for uci in opening + ("g1f3", "g8f6"):
        move = chess.Move.from_uci(uci)
        board.push(move)
        node = node.add_variation(move)
        if clocks and len(board.move_stack) > len(opening):
            node.set_clock(4.5)
    return game


def _write(path, games):
    path.write_text("".join(str(game) + "\n\n" for game in games))
    return str(path)


def _match(tmp_path, name, engine, results, clocks=True):
    """Four games of `engine` against X: opening 1 with white and black, then opening 2;
    `results` are the engine's points in that order."""
    games = []
    for (opening, engine_white), points in zip(
            [(OPENING_1, True), (OPENING_1, False), (OPENING_2, True), (OPENING_2, False)], results):
        won = {1.0: True, 0.0: False}.get(points)
        if won is None:
            result = "1/2-1/2"
        else:
            result = "1-0" if won == engine_white else "0-1"
        white, black = (engine, "X") if engine_white else ("X", engine)
        games.append(_game(white, black, opening, result, clocks))
    return _write(tmp_path / name, games)


def test_opening_is_the_moves_before_the_first_clock(cm):
    game = _game("A", "X", OPENING_1 + ("b1c3",), "1-0")
    assert cm.opening_of(game, 16)[1] == OPENING_1 + ("b1c3",)
    untimed = _game("A", "X", OPENING_1, "1-0", clocks=False)
    assert cm.opening_of(untimed, 3)[1] == OPENING_1 + ("g1f3",)


def test_points_are_the_named_engines(tmp_path, cm):
    games = cm.load_games(_match(tmp_path, "a.pgn", "A", [1.0, 0.0, 0.5, 1.0]), "A")
    assert [g.points for g in games] == [1.0, 0.0, 0.5, 1.0]
    assert [g.white for g in games] == [True, False, True, False]
    with pytest.raises(ValueError):
        cm.load_games(str(tmp_path / "a.pgn"), "nobody")


def test_pairs_by_opening_and_colour_in_any_order(tmp_path, cm):
    a = cm.load_games(_match(tmp_path, "a.pgn", "A", [1.0, 0.5, 0.5, 0.0]), "A")
    b = cm.load_games(_match(tmp_path, "b.pgn", "B", [0.5, 0.5, 1.0, 0.0]), "B")
    pairs = cm.pair_games(a, list(reversed(b)))
    assert len(pairs) == 4
    assert all(x.opening == y.opening and x.white == y.white for x, y in pairs)
    result = cm.compare(pairs)
    assert (result.points_a, result.points_b) == (2.0, 2.0)
    assert (result.better, result.worse, result.same) == (1, 1, 2)
    assert result.mean_diff == 0.0 and result.half_width > 0


def test_unmatched_games_are_left_out(tmp_path, cm):
    a = cm.load_games(_match(tmp_path, "a.pgn", "A", [1.0, 1.0, 1.0, 1.0]), "A")
    b = cm.load_games(_match(tmp_path, "b.pgn", "B", [0.0, 0.0, 0.0, 0.0]), "B")[:3]
    result = cm.compare(cm.pair_games(a, b))
    assert result.pairs == 3 and result.better == 3
    assert result.mean_diff == 1.0 and result.half_width == 0.0
    with pytest.raises(ValueError):
        cm.compare([])


def test_command_prints_the_comparison(tmp_path, cm):
    a = _match(tmp_path, "a.pgn", "A", [1.0, 1.0, 0.5, 0.5])
    b = _match(tmp_path, "b.pgn", "B", [0.5, 0.5, 0.5, 0.5])
    out = CliRunner().invoke(cm.main, [a, "A", b, "B"])
    assert out.exit_code == 0, out.output
    assert "paired games: 4 (of 4 and 4)" in out.output
    assert "A: 3 / 4 (75.0%, +191 Elo)" in out.output          # 75% is +190.85 Elo
    assert "B: 2 / 4 (50.0%, +0 Elo)" in out.output
    assert "A better in 2, worse in 0, the same in 2" in out.output
    assert "+25.0 points per 100 games" in out.output
