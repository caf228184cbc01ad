"""Adjustable strength (UCI_LimitStrength, UCI_Elo, Skill Level) and the win/draw/loss
estimate (UCI_ShowWDL): the plans, the choice among candidate lines, the model's shape, its
fit, and both through the real executable."""
import random
import sys

import chess
import chess.engine
import numpy as np
import pytest

from engine import strength
from engine.driver import Iteration
from engine.options import OPTIONS_BY_KEY
from engine.types import MATE
from engine.wdl import MATERIAL_START, material_points, wdl_permille
from tests.uci_pipe import ROOT

ENGINE_CMD = [sys.executable, str(ROOT / "uci_main.py")]


def _line(score, move, multipv=1, depth=5, bound=None):
    return Iteration(depth=depth, seldepth=depth, score=score, bound=bound, nodes=100,
                     seconds=0.01, pv=[move, move + 1], hashfull=0, multipv=multipv)


# -- plans ---------------------------------------------------------------------------------

def test_options_are_declared_as_stockfish_declares_them():
    assert OPTIONS_BY_KEY["uci_limitstrength"].declaration() == \
        "option name UCI_LimitStrength type check default false"
    elo = OPTIONS_BY_KEY["uci_elo"]
    assert (elo.kind, elo.min, elo.max, elo.default) == ("spin", strength.ELO_MIN, strength.ELO_MAX,
                                                        strength.ELO_MAX)
    assert OPTIONS_BY_KEY["skill level"].declaration() == \
        "option name Skill Level type spin default 20 min 0 max 20"
    assert OPTIONS_BY_KEY["uci_showwdl"].declaration() == \
        "option name UCI_ShowWDL type check default false"
    assert strength.ELO_MIN <= 800      # reaches down to a beginner


def test_a_higher_setting_looks_further_and_errs_less():
    plans = [strength.plan_for(elo) for elo in range(strength.ELO_MIN, strength.ELO_MAX + 1, 100)]
    for weaker, stronger in zip(plans, plans[1:]):
        assert stronger.nodes >= weaker.nodes
        assert stronger.temperature <= weaker.temperature
        assert stronger.max_loss <= weaker.max_loss
        assert stronger.level >= weaker.level
    assert plans[0].nodes < 100 and plans[-1].nodes >= 100_000


def test_full_strength_unless_asked():
    defaults = {o.name: o.default for o in OPTIONS_BY_KEY.values()}
    assert strength.plan_from_options(defaults) is None
    assert strength.plan_from_options({**defaults, "Skill Level": 0}).elo == strength.ELO_MIN
    limited = {**defaults, "UCI_LimitStrength": True, "UCI_Elo": 1500, "Skill Level": 3}
    assert strength.plan_from_options(limited).elo == 1500    # UCI_Elo wins over Skill Level
    assert strength.plan_from_options({**limited, "UCI_Elo": strength.ELO_MAX}) is None


# -- the choice ----------------------------------------------------------------------------

def test_the_choice_never_plays_a_move_past_the_loss_limit():
    plan = strength.plan_for(strength.ELO_MIN)
    lines = [_line(50, 10, 1), _line(40, 20, 2), _line(50 - plan.max_loss - 1, 30, 3)]
    picks = {strength.choose(lines, plan, random.Random(seed)).pv[0] for seed in range(400)}
    assert 30 not in picks
    assert picks == {10, 20}


def test_a_strong_setting_plays_the_best_move_far_more_often_than_a_weak_one():
    lines = [_line(30, 10, 1), _line(0, 20, 2), _line(-40, 30, 3), _line(-120, 40, 4)]

    def best_share(elo):
        plan = strength.plan_for(elo)
        rng = random.Random(7)
        return sum(strength.choose(lines, plan, rng).pv[0] == 10 for _ in range(2000)) / 2000

    weak, strong = best_share(strength.ELO_MIN), best_share(strength.ELO_MAX)
    assert strong > 0.9
    assert weak < 0.6
    assert weak > 0.25          # still the likeliest single move: a beginner is not random


def test_a_mate_the_search_found_is_kept_by_all_but_the_lowest_settings():
    lines = [_line(MATE - 3, 10, 1), _line(200, 20, 2), _line(190, 30, 3)]
    plan = strength.plan_for(1500)
    assert all(strength.choose(lines, plan, random.Random(s)).pv[0] == 10 for s in range(50))


def test_final_lines_are_the_deepest_exact_ones():
    its = [_line(10, 1, 1, depth=3), _line(5, 2, 2, depth=3), _line(20, 3, 1, depth=4),
           _line(30, 4, 1, depth=5, bound="lowerbound"), _line(8, 5, 2, depth=4)]
    assert [it.pv[0] for it in strength.final_lines(its)] == [3, 5]


# -- the win/draw/loss model ---------------------------------------------------------------

@pytest.mark.parametrize("material", [0, 10, 30, 50, MATERIAL_START])
def test_wdl_is_a_distribution_monotone_in_the_score_and_symmetric(material):
    previous = None
    for score in range(-1500, 1501, 25):
        w, d, l = wdl_permille(score, material)
        assert min(w, d, l) >= 0 and w + d + l == 1000
        mirrored = wdl_permille(-score, material)
        assert abs(mirrored[0] - l) <= 1 and abs(mirrored[2] - w) <= 1
        if previous is not None:
            assert w >= previous[0] and l <= previous[2]
        previous = (w, d, l)
    assert wdl_permille(0, material)[0] < 500            # an equal position is no win
    assert wdl_permille(1500, material)[0] > 900


def test_wdl_of_mate_scores_is_certain():
    assert wdl_permille(MATE - 5, 40) == (1000, 0, 0)
    assert wdl_permille(-(MATE - 8), 40) == (0, 0, 1000)


def test_material_counts_as_the_model_expects():
    board = chess.Board()
    counts = [len(board.pieces(t, chess.WHITE)) + len(board.pieces(t, chess.BLACK))
              for t in chess.PIECE_TYPES]
    assert material_points(counts) == MATERIAL_START == 78


def test_the_fit_recovers_a_known_model():
    """lab.network.wdl_fit on results drawn from a model with known constants gets them back."""
    from lab.network.wdl_fit import fit, probabilities

    rng = np.random.default_rng(3)
    truth = (180.0, 90.0, 70.0, 45.0)
    score = rng.uniform(-600, 600, 20_000)
    material = rng.integers(4, 79, 20_000)
    win, loss = probabilities(truth, score, material / MATERIAL_START)
    draw_roll = rng.uniform(size=score.size)
    result = np.where(draw_roll < win, 1.0, np.where(draw_roll < win + loss, 0.0, 0.5))
    rows = list(zip(score.round().astype(int), material, result))
    fitted, _ = fit(rows)
    for got, want, tolerance in zip(fitted, truth, (15, 30, 8, 15)):
        assert abs(got - want) < tolerance, (fitted, truth)


# -- through the executable ----------------------------------------------------------------

@pytest.fixture(scope="module")
def engine():
    process = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD, timeout=120)
    yield process
    process.quit()


def test_wdl_is_reported_when_asked_and_only_then(engine):
    board = chess.Board()
    engine.configure({"UCI_ShowWDL": True})
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert "wdl" in info and sum(info["wdl"].relative) == 1000
    engine.configure({"UCI_ShowWDL": False})
    info = engine.analyse(board, chess.engine.Limit(depth=6))
    assert "wdl" not in info


@pytest.mark.parametrize("options", [{"UCI_LimitStrength": True, "UCI_Elo": 700},
                                     {"UCI_LimitStrength": True, "UCI_Elo": 1800},
                                     {"Skill Level": 0}])
def test_a_weaker_setting_plays_legal_moves_and_reports_the_move_it_plays(engine, options):
    engine.configure({"UCI_LimitStrength": False, "Skill Level": 20, **options})
    board = chess.Board()
    for _ in range(12):
        with engine.analysis(board, chess.engine.Limit(time=0.3)) as analysis:
            infos = [info for info in analysis if "pv" in info]
            best = analysis.wait().move
        assert best in board.legal_moves
        assert infos and infos[-1]["pv"][0] == best
        board.push(best)
        if board.is_game_over():
            break
    engine.configure({"UCI_LimitStrength": False, "Skill Level": 20})


def test_the_rating_fit_recovers_a_known_ladder():
    """lab.matches.strength_calibration: a setting measured against an anchor, and one measured only
    against that setting, come back at their true ratings; the second's interval is wider
    (it carries the first's uncertainty)."""
    from lab.matches.strength_calibration import fit_ratings, intervals, parse_pairings

    rng = random.Random(5)
    truth = {"SF1500": 1500, "TwoBig-E1": 1700, "TwoBig-E2": 1400}
    games = []
    for a, b in (("TwoBig-E1", "SF1500"), ("TwoBig-E2", "TwoBig-E1")):
        expected = 1 / (1 + 10 ** ((truth[b] - truth[a]) / 400))
        for k in range(1500):
            points = 1.0 if rng.random() < expected else 0.0
            games.append((a, b, points) if k % 2 else (b, a, 1.0 - points))
    rating = fit_ratings(games)
    spread = intervals(games, rating)
    assert rating["SF1500"] == 1500
    assert abs(rating["TwoBig-E1"] - 1700) < 40 and abs(rating["TwoBig-E2"] - 1400) < 60
    assert spread["TwoBig-E2"] > spread["TwoBig-E1"] > 0
    assert parse_pairings("1400:SF1350,600:E1400") == ((1400, 1350), (600, "E1400"))
