"""lab/matches/loss_profile.py: per-move losses by phase and the verdict on each lost game."""
import json

import chess
import chess.engine
from click.testing import CliRunner

from lab.matches import loss_profile as lp

FOOLS_MATE = '[White "TwoBig"]\n[Black "Other"]\n[Result "0-1"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n'


class MaterialReferee:
    """Stands in for a UCI engine: scores a position by its material, white's view."""

    def __init__(self):
        self.calls = 0

    def analyse(self, board, limit):
        self.calls += 1
        values = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500,
                  chess.QUEEN: 900}
        white = sum(len(board.pieces(k, chess.WHITE)) * v for k, v in values.items())
        black = sum(len(board.pieces(k, chess.BLACK)) * v for k, v in values.items())
        return {"score": chess.engine.PovScore(chess.engine.Cp(white - black), chess.WHITE)}


def row(game, ply, mover, white, result, phase, before, after):
    return dict(game=game, ply=ply, mover=mover, white=white, result=result, phase=phase,
                before=before, after=after)


def test_phase_boundaries():
    assert lp.phase_of(lp.OPENING_PLIES - 1, 62) == "opening"
    assert lp.phase_of(lp.OPENING_PLIES, lp.MIDDLEGAME_MATERIAL) == "middlegame"
    assert lp.phase_of(lp.OPENING_PLIES, lp.MIDDLEGAME_MATERIAL - 1) == "late middlegame"
    assert lp.phase_of(40, lp.LATE_MIDDLEGAME_MATERIAL) == "late middlegame"
    assert lp.phase_of(40, lp.LATE_MIDDLEGAME_MATERIAL - 1) == "endgame"
    assert lp.non_pawn_material(chess.Board()) == 62


def test_score_games_rows_from_each_movers_view(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(FOOLS_MATE)
    referee = MaterialReferee()
    rows = lp.score_games([pgn], referee, nodes=1)
    assert [r["mover"] for r in rows] == ["TwoBig", "Other", "TwoBig", "Other"]
    assert [r["white"] for r in rows] == [True, False, True, False]
    for earlier, later in zip(rows, rows[1:]):   # one position, seen from both sides
        assert later["before"] == -earlier["after"]
    assert rows[-1]["after"] == lp.MATE_SCORE        # the mate, from the mating side
    assert referee.calls == 4                         # the mated position is not asked
    assert {r["phase"] for r in rows} == {"opening"}


def test_phase_table_and_lost_game_verdicts():
    rows = [
        # game 1: TwoBig (white) loses; its second middle-game move is the decisive drop
        row(1, 20, "TwoBig", True, "0-1", "middlegame", 0, -120),
        row(1, 21, "Other", False, "0-1", "middlegame", 120, 120),
        row(1, 22, "TwoBig", True, "0-1", "middlegame", -120, -450),
        row(1, 23, "Other", False, "0-1", "middlegame", 700, 2000),   # decided: left out
        # game 2: TwoBig (black) loses gradually
        row(2, 40, "Other", True, "1-0", "endgame", 0, 0),
        row(2, 41, "TwoBig", False, "1-0", "endgame", 0, -90),
        row(2, 43, "TwoBig", False, "1-0", "endgame", -200, -380),
        # game 3: TwoBig wins: no verdict
        row(3, 30, "TwoBig", True, "1-0", "endgame", 0, -500),
    ]
    table = lp.phase_table(rows)
    middle = table[("TwoBig", "middlegame")]
    assert (middle["moves"], middle["lost"], middle["mistakes"], middle["blunders"]) == (2, 450, 2, 1)
    assert middle["mean"] == 225
    other = table[("Other", "middlegame")]
    assert other["moves"] == 1 and other["lost"] == 0    # a gain counts as no loss
    end = table[("TwoBig", "endgame")]
    assert (end["moves"], end["mistakes"], end["blunders"]) == (3, 2, 1)
    verdicts = lp.lost_games(rows, "TwoBig")
    assert verdicts == {"middlegame": 1, "gradual": 1}
    lines = lp.report(rows, "TwoBig")
    assert lines[-1].endswith("middlegame 1, gradual 1")


def test_command_reports_saved_scores(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text(FOOLS_MATE)
    rows = lp.score_games([pgn], MaterialReferee(), nodes=1)
    saved = tmp_path / "scores.json"
    saved.write_text(json.dumps(rows))
    result = CliRunner().invoke(lp.main, ["--engine", "TwoBig", "--from-scores", str(saved)])
    assert result.exit_code == 0, result.output
    # the material referee never sees the mate coming: no single move drops, a gradual loss
    assert "TwoBig's lost games, 1: first decisive drop by phase: gradual 1" in result.output
    assert "TwoBig       opening" in result.output
    missing = CliRunner().invoke(lp.main, ["--engine", "TwoBig"])
    assert missing.exit_code != 0
