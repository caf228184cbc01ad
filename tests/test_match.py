"""scripts/match.py: the statistics, the README row, and a real two-game match."""
import sys
from pathlib import Path

import pytest
from tests.conftest import load_script
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def match():
    return load_script("match")


def test_elo_of_known_scores(match):
    assert match.elo_summary(10, 0, 10)[0] == pytest.approx(0.0)
    elo, lo, hi, los = match.elo_summary(75, 0, 25)          # 75% is +190.8 Elo
    assert elo == pytest.approx(190.85, abs=0.01)
    assert lo < elo < hi and los > 0.99
    assert match.elo_summary(25, 0, 75)[0] == pytest.approx(-190.85, abs=0.01)


def test_sprt_leans_the_right_way(match):
    assert match.sprt_llr(60, 30, 30, 0, 10) > 0
    assert match.sprt_llr(30, 30, 60, 0, 10) < 0
    assert match.sprt_llr(0, 10, 0, 0, 10) == 0.0


def test_openings_are_played_from_the_book(match):
    openings = match.load_openings("8moves_v3.pgn", 5, seed=3)
    assert len(openings) == 5
    assert all(len(moves) == 16 for _, moves in openings)    # eight moves each side
    assert match.load_openings("8moves_v3.pgn", 5, seed=3) == openings


def test_results_row_has_every_column(match):
    row = match.results_row(("TwoBig", "Stockfish"), ("UCI_Elo=2200",), "10+0.1", 2, 30, 40, 30,
                            "TwoBig: none")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == 9
    assert cells[0] == "TwoBig vs Stockfish UCI_Elo=2200"
    assert cells[2:6] == ["100", "30/40/30", "50.0%", "+0 [-53, +53]"]


def test_two_game_match_between_two_twobigs(match, tmp_path):
    """Untimed games at a node limit per move: no clock to lose on a loaded machine (a
    2 s + 0.02 s game was lost on time while another test worker ran)."""
    engine = f"{sys.executable} {ROOT / 'uci_main.py'}"
    pgn = tmp_path / "games.pgn"
    rows = tmp_path / "rows.md"
    result = CliRunner().invoke(match.main, [
        "--engine1", engine, "--engine2", engine, "--name1", "A", "--name2", "B", "--games", "2", "--tc", "inf",
        "--nodes", "3000", "--move-timeout", "300",
        "--max-plies", "60", "--pgn", str(pgn), "--results", str(rows)])
    assert result.exit_code == 0, result.output
    assert "2 games" in result.output
    lines = result.output.splitlines()
    for name in ("A", "B"):
        assert f"{name}: no illegal moves, crashes, stalls or time forfeits" in lines
    assert pgn.read_text().count("[Result ") == 2
    assert rows.read_text().count("\n") == 1


def test_untimed_control_needs_a_move_limit(match):
    assert match.parse_tc("inf") == (None, 0.0)
    assert match.parse_tc("10+0.1") == (10.0, 0.1)
    result = CliRunner().invoke(match.main, ["--engine1", "x", "--engine2", "y", "--tc", "inf"])
    assert result.exit_code != 0 and "--nodes or --depth" in result.output
