"""lab/matches/time_usage.py: seconds a move from the PGN's clock comments, and scripts/match.py
writing those comments in a timed game."""
import sys
from pathlib import Path

import chess
import chess.pgn
import pytest
from click.testing import CliRunner
from tests.conftest import load_script
from lab.matches import time_usage

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def usage():
    return time_usage


def _game(white, black, clocks, time_control="10+0.1"):
    """A game of len(clocks) plies from the start position, each mover's clock after its move."""
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = white, black
    game.headers["TimeControl"] = time_control
    node, board = game, chess.Board()
    for clock in clocks:
        move = next(iter(sorted(board.legal_moves, key=lambda m: m.uci())))
        board.push(move)
        node = node.add_variation(move)
        node.set_clock(clock)
    return game


def test_move_times_follow_the_clocks(usage):
    # White: 10 -> 9.5 -> 9.2 (with 0.1 added each move: 0.6 and 0.4 s); Black: 10 -> 9.9 -> 9.0
    game = _game("W", "B", [9.5, 9.9, 9.2, 9.0])
    times = usage.move_times(game, 0.1)
    assert times["W"] == pytest.approx([0.6, 0.4])
    assert times["B"] == pytest.approx([0.2, 1.0])


def test_without_a_base_time_the_first_move_is_skipped(usage):
    game = _game("W", "B", [9.5, 9.9, 9.2, 9.0], time_control="-")
    times = usage.move_times(game, 0.1)
    assert times["W"] == pytest.approx([0.4])
    assert times["B"] == pytest.approx([1.0])


def test_usage_table_averages_per_block(usage, tmp_path):
    pgn = tmp_path / "games.pgn"
    # White spends 1.0 s on each of its first two moves, then 0.1 s; Black 0.5 s throughout.
    pgn.write_text(str(_game("W", "B", [9.1, 9.6, 8.2, 9.2, 8.2, 8.8, 8.2, 8.4], "10+0.1")) + "\n\n"
                   + str(_game("B", "W", [9.6, 9.1, 9.2, 8.2, 8.8, 8.2, 8.4, 8.2], "10+0.1")) + "\n")
    table = usage.usage_table(str(pgn), 0.1, 2, 3)
    assert table["W"] == pytest.approx([1.0, 0.1])
    assert table["B"] == pytest.approx([0.5, 0.5])
    result = CliRunner().invoke(usage.main, ["--pgn", str(pgn), "--inc", "0.1", "--block", "2"])
    assert result.exit_code == 0, result.output
    assert "| W | 1.000 | 0.100 |" in result.output


def test_lowest_clocks_per_game(usage, tmp_path):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(str(_game("W", "B", [9.5, 9.9, 0.4, 9.0])) + "\n\n"
                   + str(_game("B", "W", [2.0, 9.9, 3.0, 1.5])) + "\n")
    lowest = usage.lowest_clocks(str(pgn))
    assert lowest["W"] == pytest.approx([0.4, 1.5])
    assert lowest["B"] == pytest.approx([9.0, 2.0])
    result = CliRunner().invoke(usage.main, ["--pgn", str(pgn), "--lowest", "1.0"])
    assert result.exit_code == 0, result.output
    assert "| W | 2 | 1 | 0.950 | 0.400 |" in result.output
    assert "| B | 2 | 0 | 5.500 | 2.000 |" in result.output


def test_slow_moves_on_a_low_clock(usage, tmp_path):
    """Only moves made with under --below seconds on the clock count; of those, the ones
    that took more than --stalls seconds are listed, slowest first."""
    pgn = tmp_path / "games.pgn"
    # 5 s + 0.05 s. W: 0.9 (from 5: not counted), 0.85 (0.10 s from 0.9), 0.6 (0.30 s from
    # 0.85), 0.2 (0.45 s from 0.6). B: 0.8 (not counted), 0.5 (0.35 s from 0.8), 0.52
    # (0.03 s from 0.5), 0.5 (0.07 s from 0.52).
    pgn.write_text(str(_game("W", "B", [0.9, 0.8, 0.85, 0.5, 0.6, 0.52, 0.2, 0.5],
                             time_control="5+0.05")) + "\n")
    moves = usage.slow_low_clock_moves(str(pgn), 0.05, below=1.0, slower_than=0.2)
    assert moves["W"][0] == 3
    assert [c for move in moves["W"][1] for c in move] == pytest.approx([0.6, 0.45, 0.85, 0.30])
    assert moves["B"][0] == 3
    assert [c for move in moves["B"][1] for c in move] == pytest.approx([0.8, 0.35])
    result = CliRunner().invoke(usage.main, ["--pgn", str(pgn), "--inc", "0.05", "--stalls", "0.2"])
    assert result.exit_code == 0, result.output
    assert "| W | 3 | 2 | (0.600, 0.450), (0.850, 0.300) |" in result.output
    assert "| B | 3 | 1 | (0.800, 0.350) |" in result.output


def test_a_timed_match_writes_each_movers_clock(tmp_path):
    """A clock so generous that no move can lose on it, moves limited by nodes; the game
    stops at ply 24, eight plies after the 16 of the opening."""
    match = load_script("match")
    engine = f"{sys.executable} {ROOT / 'uci_main.py'}"
    pgn = tmp_path / "games.pgn"
    result = CliRunner().invoke(match.main, [
        "--engine1", engine, "--engine2", engine, "--name1", "A", "--name2", "B", "--games", "2",
        "--tc", "600+1", "--nodes", "2000", "--max-plies", "24", "--pgn", str(pgn)])
    assert result.exit_code == 0, result.output
    with open(pgn) as handle:
        game = chess.pgn.read_game(handle)
    # The opening's moves come first, without clocks; then every move played has one.
    clocks = [node.clock() for node in game.mainline()][16:]
    assert len(clocks) == 8 and all(c is not None and 0 < c <= 600 + 1 * 8 for c in clocks)
    times = time_usage.move_times(game, 1.0)
    assert set(times) == {"A", "B"} and all(t >= 0 for ts in times.values() for t in ts)


def test_depths_are_read_from_cutechess_comments_by_phase(usage, tmp_path):
    """cutechess-cli's `{score/depth seconds}` comments: book moves and other comments are
    left out; a move's phase is that of the position before it (the opening plies first)."""
    game = chess.pgn.Game()
    game.headers["White"], game.headers["Black"] = "A", "B"
    node = game
    comments = ["book", "+0.10/12 0.50s", "-0.20/14 1.5s", "+M3/30 0.25s", "no score here"]
    for uci, comment in zip(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"], comments):
        node = node.add_variation(chess.Move.from_uci(uci))
        node.comment = comment
    path = tmp_path / "games.pgn"
    path.write_text(str(game) + "\n\n" + str(game) + "\n")
    moves = list(usage.reported_moves(game))
    assert moves == [("B", "opening", 12, 0.5), ("A", "opening", 14, 1.5),
                     ("B", "opening", 30, 0.25)]
    table = usage.depth_table(str(path))
    assert table[("B", "opening")] == (4, pytest.approx(21.0), pytest.approx(0.375))
    assert table[("A", "opening")] == (2, pytest.approx(14.0), pytest.approx(1.5))
    result = CliRunner().invoke(usage.main, ["--pgn", str(path), "--depths"])
    assert result.exit_code == 0 and "| B | 21.0 plies, 0.38 s (4) | - | - | - |" in result.output


def test_a_depths_phase_past_the_opening_plies_follows_the_material(usage):
    """After lab.matches.loss_profile.OPENING_PLIES plies, a rook and a pawn (5 of non-pawn
    material) is the endgame; the full set of pieces is the middle game."""
    from lab.matches import loss_profile

    shuffle = ["e1d1", "e8d8", "d1e1", "d8e8"] * (loss_profile.OPENING_PLIES // 4)
    for fen, last, phase in (("4k3/8/8/8/8/8/4P3/R3K3 w - - 0 40", "a1a7", "endgame"),
                             (chess.STARTING_FEN, None, "middlegame")):
        board = chess.Board(fen)
        game = chess.pgn.Game.from_board(board)
        game.headers["White"] = "A"
        node = game
        moves = shuffle + [last] if last else ["g1f3", "g8f6", "f3g1", "f6g8"] * 5 + ["e2e4"]
        for uci in moves:
            node = node.add_variation(chess.Move.from_uci(uci))
        node.comment = "+0.50/20 0.1s"
        assert [(name, found) for name, found, _, _ in usage.reported_moves(game)] == [("A", phase)]
