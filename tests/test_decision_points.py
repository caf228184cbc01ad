"""lab/matches/decision_points.py: where a lost game was decided, from the engines' own scores
in cutechess-cli's move comments."""
import chess
import chess.pgn
from click.testing import CliRunner

from lab.matches import decision_points as tool

SHUFFLE = ["g1f3", "g8f6", "f3g1", "f6g8"] * 3
# White's and black's comments, alternately; black's scores are from black's side.
COMMENTS = ["+0.10/10 0.1s", "-0.20/10 0.1s", "+0.00/10 0.1s", "+1.50/10 0.1s",
            "-0.20/10 0.1s", "+0.80/10 0.1s", "-0.10/10 0.1s", "+1.20/10 0.1s",
            "-0.60/10 0.1s", "+M5/10 0.1s", "-1.50/10 0.1s", "+5.00/10 0.1s"]


def _game(white="TwoBig", black="Other", result="0-1", comments=COMMENTS):
    game = chess.pgn.Game()
    game.headers.update(White=white, Black=black, Result=result)
    node = game
    for uci, comment in zip(SHUFFLE, comments):
        node = node.add_variation(chess.Move.from_uci(uci))
        node.comment = comment
    return game


def test_the_decision_is_the_start_of_the_opponents_last_run_of_winning_scores():
    # Black's +1.50 on move 2 is followed by +0.80: the run that holds starts at +1.20
    # (move 4); white's own score before it was -0.10 (not seen), and its third move from
    # there (-1.50) is the first below -1.00: a lag of 2.
    point = tool.decision(_game(), "TwoBig")
    assert point == dict(move=4, phase="opening", own=-0.10, lag=2)


def test_games_not_lost_by_the_engine_have_no_decision():
    assert tool.decision(_game(result="1-0"), "TwoBig") is None
    assert tool.decision(_game(result="1/2-1/2"), "TwoBig") is None
    assert tool.decision(_game(white="A", black="B"), "TwoBig") is None
    # The opponent's last score not winning: no decision point.
    assert tool.decision(_game(comments=COMMENTS[:-1] + ["+0.50/10 0.1s"]), "TwoBig") is None


def test_the_engine_as_black_reads_whites_scores_as_the_opponents():
    # TwoBig has black. White's scores +0.10, +1.10, +1.30, +2.00: the run above +1.00
    # starts on white's second move; black's own score before it was 0.00, and its fourth
    # score from there (-1.20) is the first below -1.00: a lag of 3.
    comments = ["+0.10/10 0.1s", "+0.00/10 0.1s", "+1.10/10 0.1s", "-0.40/10 0.1s",
                "+1.30/10 0.1s", "-0.70/10 0.1s", "+2.00/10 0.1s", "-1.20/10 0.1s"]
    point = tool.decision(_game(white="Other", black="TwoBig", result="1-0",
                                comments=comments), "TwoBig")
    assert point == dict(move=2, phase="opening", own=0.00, lag=3)


def test_the_report_counts_phases_seen_and_blind(tmp_path):
    path = tmp_path / "games.pgn"
    path.write_text(f"{_game()}\n\n{_game(result='1-0')}\n")
    result = CliRunner().invoke(tool.main, ["--pgn", str(path), "--engine", "TwoBig"])
    assert result.exit_code == 0
    assert "lost games with a decision point: 1" in result.output
    assert "decided in: opening 1, middlegame 0, late middlegame 0, endgame 0" in result.output
    assert "below -0.50 0, between 0, -0.30 or above (not seen) 1" in result.output
