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
    # the same seed draws the same openings, and drawing more keeps the first ones in front
    # (what --skip-openings relies on to resume a match)
    more = match.load_openings("8moves_v3.pgn", 50, seed=3)
    assert more[:5] == openings
    assert len({tuple(moves) for _, moves in more}) == 50


def test_positions_are_drawn_from_the_epd_book(match):
    """noob_3moves.epd: full FENs, each drawn once; a longer draw starts with a shorter one."""
    first = match.load_openings("noob_3moves.epd", 50, seed=3)
    more = match.load_openings("noob_3moves.epd", 100, seed=3)
    assert more[:50] == first
    assert all(moves == [] for _, moves in more)
    assert len({fen for fen, _ in more}) == 100
    assert all(" 0 4" in fen for fen, _ in more)    # six plies played: white to move, move 4


def test_results_row_has_every_column(match):
    row = match.results_row(("TwoBig", "Stockfish"), ("UCI_Elo=2200",), "10+0.1", 2, 30, 40, 30,
                            "TwoBig: none")
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == 9
    assert cells[0] == "TwoBig vs Stockfish UCI_Elo=2200"
    assert cells[2:6] == ["100", "30/40/30", "50.0%", "+0 [-53, +53]"]
    assert cells[1] == "10+0.1 (concurrency 2)"
    label = match.adjudication_label((40, 8, 10), (4, 700))
    assert label == "adjudication: draw 40 8 10, resign 4 700"
    assert match.adjudication_label(None, None) == ""
    row = match.results_row(("TwoBig", "Stockfish"), (), "10+0.1", 2, 1, 1, 1, "none", label)
    assert "| 10+0.1 (concurrency 2; adjudication: draw 40 8 10, resign 4 700) |" in row


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


def test_the_sprt_starts_from_the_prior_results(match):
    """--prior continues a stopped test: a tally that already accepts H1 plays no game (the
    engine commands are never started) and reports the prior results as the test's."""
    result = CliRunner().invoke(match.main, [
        "--engine1", "no-such-engine-1", "--engine2", "no-such-engine-2", "--games", "4",
        "--sprt", "--prior", "300", "100", "100"])
    assert result.exit_code == 0, result.output
    assert "W/D/L: 300/100/100" in result.output
    assert "H1 accepted" in result.output


def _adjudicate(match, rules, scores, start_ply=80):
    """Feed `scores` (white's move first, centipawns from the mover's view, None for no
    score) to an Adjudicator on a board `start_ply` plies into a game; return the verdict
    and the number of moves it took."""
    import chess
    import chess.engine
    adjudicator = match.Adjudicator(*rules)
    board = chess.Board()
    board.fullmove_number = start_ply // 2 + 1
    for count, cp in enumerate(scores, 1):
        side = board.turn
        board.push(chess.Move.null())
        score = None if cp is None else chess.engine.PovScore(chess.engine.Cp(cp), side)
        verdict = adjudicator.add(board, side, score)
        if verdict is not None:
            return verdict, count
    return None, len(scores)


def test_draw_adjudication_needs_both_engines_near_zero_long_enough(match):
    rule = ((40, 8, 10), None)
    assert _adjudicate(match, rule, [5, -3] * 8) == ("1/2-1/2", 16)
    assert _adjudicate(match, rule, [5, -3] * 7 + [5, 11]) == (None, 16)       # one too far
    assert _adjudicate(match, rule, [5, -3] * 4 + [None] + [5] * 16) == ("1/2-1/2", 25)
    assert _adjudicate(match, rule, [0] * 30, start_ply=20)[0] is None         # before move 40


def test_resignation_needs_one_engine_losing_on_consecutive_own_moves(match):
    rule = (None, (4, 700))
    # White reports -750 four times in a row (black's moves in between do not count).
    assert _adjudicate(match, rule, [-750, 750] * 4) == ("0-1", 7)
    assert _adjudicate(match, rule, [750, -750] * 4) == ("1-0", 8)
    assert _adjudicate(match, rule, [-750, 750, -750, 750, -600, 750, -750, 750]) == (None, 8)
    assert _adjudicate(match, rule, [-750, 0, -750, 0, None, 0, -750, 0, -750]) == (None, 9)


def test_a_mate_score_counts_beyond_every_threshold(match):
    import chess.engine
    adjudicator = match.Adjudicator(None, (1, 700))
    board = chess.Board()
    mated = chess.engine.PovScore(chess.engine.Mate(-3), chess.WHITE)
    assert adjudicator.add(board, chess.WHITE, mated) == "0-1"


def test_adjudicated_two_game_match(match, tmp_path):
    """Depth-limited games (no clock) between two TwoBigs with both rules on, from the first
    move on: every game ends by the rules of chess, by adjudication or at the ply limit."""
    engine = f"{sys.executable} {ROOT / 'uci_main.py'}"
    pgn = tmp_path / "games.pgn"
    result = CliRunner().invoke(match.main, [
        "--engine1", engine, "--engine2", engine, "--name1", "A", "--name2", "B", "--games", "2",
        "--tc", "inf", "--depth", "3", "--move-timeout", "300", "--max-plies", "200",
        "--draw-adjudication", "0", "2", "1000", "--resign-adjudication", "1", "1000",
        "--pgn", str(pgn)])
    assert result.exit_code == 0, result.output
    text = pgn.read_text()
    assert text.count("[Result ") == 2
    # With every score within 1000 cp, the draw rule ends each game 4 plies after the book.
    assert text.count('[Termination "adjudication: draw by score"]') == 2, text


def test_the_book_leaves_no_garbage_for_a_collection_during_play():
    """Reading the book leaves its parsed games as cyclic garbage that only a full
    collection frees; the referee frees it before the first game and freezes the rest,
    so no full collection during play walks the book (its pause would be charged to the
    engine on move)."""
    import subprocess
    probe = (f"import gc, sys; sys.path.insert(0, {str(ROOT / 'scripts')!r}); import match; "
             "gc.disable(); match.load_openings('8moves_v3.pgn', 20, 1); "
             "waiting = len(gc.get_objects()); match.freeze_heap(); "
             "print(waiting, gc.get_freeze_count(), len(gc.get_objects()))")
    waiting, frozen, tracked = map(int, subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300,
        check=True).stdout.split())
    assert waiting > 100_000                    # the book's garbage, before
    assert frozen < waiting // 2                # collected, not frozen
    assert tracked < 5_000                      # what a collection during play walks
