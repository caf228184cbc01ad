"""docs/thesis_reproduction.md's claims table (lab.thesis.reproduction) on synthetic CSV rows whose
answer is known: each claim's verdict follows the data, a difference inside the key-set
noise floor does not count, and a claim without rows reads "not run"."""
import numpy as np
import pytest

from lab.thesis import reproduction as P
from lab.thesis.experiments import FIELDS

POSITIONS = 30
SIZES = [8, 16, 512, 1024]


def _row(experiment, scheme, size, stamping, depth, counts, test_set="middle", use="full",
         seed="", **extra):
    counts = np.asarray(counts, dtype=np.int64)
    row = {name: "" for name in FIELDS}
    row.update(experiment=experiment, test_set=test_set, scheme=scheme, positions_k=str(size),
               stamping=str(stamping), use=use, key_bits="64", key_seed=str(seed),
               depth=str(depth), positions=str(len(counts)), nodes=str(int(counts.sum() * 3)),
               thesis_nodes=str(int(counts.sum())), seconds="1.0", commit="abc1234",
               per_position=" ".join(str(int(c) * 3) for c in counts),
               per_position_thesis=" ".join(str(int(c)) for c in counts))
    row.update({k: str(v) for k, v in extra.items()})
    return row


def _grid(factors, noise=0.002, depth=7, seed=1):
    """Scheme rows at every size and both stamping modes: per-position counts = a common
    base x the scheme's factor x a little independent noise."""
    rng = np.random.default_rng(seed)
    base = rng.integers(100_000, 1_000_000, size=POSITIONS)
    rows = []
    for stamping in (False, True):
        for size in SIZES:
            for scheme, factor in factors.items():
                wobble = 1 + rng.normal(0, noise, size=POSITIONS)
                rows.append(_row("schemes", scheme, size, stamping, depth,
                                 base * factor * wobble * (0.98 if stamping else 1.0)))
    return rows


THESIS_LIKE = {"DEEP": 1.00, "NEW": 1.20, "OLD": 1.15, "BIG1": 0.97, "BIGALL": 0.97,
               "TwoDEEP": 0.94, "TwoBig1": 0.90}


def _verdict(rows, measure, metric="thesis_nodes"):
    return measure(P.Grid(rows), metric).verdict


def test_claims_follow_the_data():
    rows = _grid(THESIS_LIKE)
    assert _verdict(rows, P.twobig_best) == "yes"
    assert _verdict(rows, P.two_beat_one) == "yes"
    assert _verdict(rows, P.old_new_worst) == "yes"
    assert _verdict(rows, P.big1_bigall) == "yes"
    assert _verdict(rows, P.big_middle) == "yes"
    assert _verdict(rows, P.order_invariant) == "yes"
    assert _verdict(rows, P.stamping_saves) == "yes"        # 2% by construction
    spread = P.spread_small(P.Grid(rows), "thesis_nodes")
    assert "NEW against TwoBig1" in spread.text and spread.verdict == "partly"   # worst is NEW
    # The same claims on data that says the opposite.
    upside_down = _grid({s: 2.0 - f for s, f in THESIS_LIKE.items()})
    assert _verdict(upside_down, P.twobig_best) == "no"
    assert _verdict(upside_down, P.two_beat_one) == "no"
    assert _verdict(upside_down, P.old_new_worst) == "no"
    # Both counts are read: the total (3x the thesis' count here) gives the same verdicts.
    assert _verdict(rows, P.twobig_best, "nodes") == "yes"


def test_equal_schemes_win_nothing():
    rows = _grid({s: 1.0 for s in THESIS_LIKE}, noise=0.0)
    assert _verdict(rows, P.twobig_best) == "no"
    assert _verdict(rows, P.two_beat_one) == "no"


def test_noise_floor_from_seeded_key_sets_hides_small_differences():
    # TwoBig1 1% below TwoDEEP with tiny per-position noise: clear by the bootstrap alone ...
    factors = dict(THESIS_LIKE, TwoBig1=0.93, TwoDEEP=0.94)
    rows = _grid(factors, noise=0.0005)
    grid = P.Grid(rows)
    assert grid.floor("thesis_nodes") == 0.0
    tb = grid.row("schemes", "middle", "TwoBig1", 8, True, 7)
    td = grid.row("schemes", "middle", "TwoDEEP", 8, True, 7)
    difference = grid.diff(td, tb, "thesis_nodes")
    assert difference.percent == pytest.approx(-1.06, abs=0.2) and grid.clear(difference, "thesis_nodes")
    # ... but not once a key set moves the same cell's total by 3%.
    counts = np.array(tb["per_position_thesis"].split(), dtype=np.int64)
    rows.append(_row("noise", "TwoBig1", 8, True, 7, counts * 1.03, seed=1))
    grid = P.Grid(rows)
    assert grid.floor("thesis_nodes") == pytest.approx(3.0, abs=0.1)
    assert not grid.clear(grid.diff(td, tb, "thesis_nodes"), "thesis_nodes")


def test_doubling_rule_and_figure_2_10():
    rng = np.random.default_rng(3)
    base = rng.integers(100_000, 1_000_000, size=POSITIONS)
    # Doubling saves 10%, 5%, then 0.5%: the first size saving under 1% is 32K here.
    factors = (1.0, 0.9, 0.855, 0.851)
    rows = [_row("schemes", "TwoBig1", size, False, 7, base * f)
            for size, f in zip((8, 16, 32, 64), factors)]
    assert P.doubling_size(P.Grid(rows), "thesis_nodes", "middle", 7, False) == "32K"
    # Sizes 4x apart (the quick grid) are no doubling series: no answer rather than a wrong one.
    quick = [_row("schemes", "TwoBig1", size, True, 5, base * f)
             for size, f in zip((8, 32, 128, 512), factors)]
    assert P.doubling_size(P.Grid(quick), "thesis_nodes", "middle", 5, True) is None
    # No table: 3 ply the table costs nodes, from 6 ply it halves them and more.
    for depth, ratio in ((3, 1.1), (4, 0.8), (5, 0.6), (6, 0.45), (7, 0.3)):
        rows.append(_row("no_table", "TwoBig1", 8, False, depth, base, use="none"))
        rows.append(_row("schemes", "TwoBig1", 1024, True, depth, base * ratio))
    found = P.figure_2_10(P.Grid(rows), "thesis_nodes")
    assert found.verdict == "yes" and "3 ply (1M): 1.10" in found.text
    rows.append(_row("no_table", "TwoBig1", 8, False, 8, base, use="none"))
    rows.append(_row("schemes", "TwoBig1", 1024, True, 8, base * 0.7))   # only 1.4x at 8 ply
    assert P.figure_2_10(P.Grid(rows), "thesis_nodes").verdict == "partly"


def test_document_lists_every_claim_and_says_not_run():
    text = P.build(_grid(THESIS_LIKE))
    table = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(table) == len(P.CLAIMS)
    assert "| 1 | 2.7.1, Fig. 2.8-2.9 | TwoBig1 is the best scheme" in text
    assert "**not run**" in table[P.CLAIMS.index(next(c for c in P.CLAIMS if c.measure is P.extrapolation))]
    assert "commit(s) abc1234" in text


def test_rows_without_per_position_counts_read_not_run():
    rows = _grid(THESIS_LIKE)
    for row in rows:      # an older CSV layout: totals only
        row["per_position"] = row["per_position_thesis"] = ""
    grid = P.Grid(rows)
    for measure in (P.twobig_best, P.two_beat_one, P.old_new_worst, P.big_middle,
                    P.spread_small, P.spread_big, P.order_invariant, P.stamping_saves):
        assert measure(grid, "thesis_nodes").verdict == "not run", measure.__name__


def test_equation_2_2_compares_positions_that_found_their_entry_taken():
    row = {name: "" for name in FIELDS}
    row.update(experiment="collisions", test_set="middle", scheme="DEEP", positions_k="8",
               stamping="False", use="full", key_bits="64", depth="5", nodes="1",
               distinct="100000", filled="90000", expected_collisions="10200", collisions="15000")
    found = P.equation_2_2(P.Grid([row]), "nodes")
    assert "0.980" in found.text and found.verdict == "yes"
    row["filled"] = "60000"       # 40,000 against 10,200 expected
    assert P.equation_2_2(P.Grid([row]), "nodes").verdict == "no"


def test_npv_is_judged_against_the_thesis_gain():
    rng = np.random.default_rng(5)
    base = rng.integers(100_000, 1_000_000, size=18)
    one = _row("move_score", "TwoBig1", 256, True, 8, base, test_set="short")
    def five(factor):
        return _row("npv", "TwoBig1", 256, True, 8, base * factor, test_set="short",
                    pv_plies=5, line_moves=100)
    close = P.npv("short", -5)(P.Grid([one, five(0.95)]), "thesis_nodes")
    assert close.verdict == "yes" and "5-ply -5.0%" in close.text
    small = P.npv("short", -5)(P.Grid([one, five(0.995)]), "thesis_nodes")
    assert small.verdict == "partly"          # a gain, far from the thesis' 5%
    assert P.npv("short", -5)(P.Grid([one, five(1.02)]), "thesis_nodes").verdict == "no"
    assert P.npv("endgame21", -12)(P.Grid([one]), "thesis_nodes").verdict == "not run"


def test_document_builds_from_any_part_of_the_grid():
    """A CSV of one experiment (here endgame rows only) still gives every row of the table."""
    endgame = [dict(r, test_set="endgame") for r in _grid(THESIS_LIKE) if r["stamping"] == "True"]
    text = P.build(endgame)
    assert text.count("**not run**") >= 10
    assert "| 14 | 2.7.1, Fig. 2.11 | two-level beats one-level in the endgame" in text


def test_cpu_hours_count_each_cell_once_and_every_cell():
    """A cell searched at several depths writes one row per depth with the cell's seconds
    (counted once); the same configuration run again at another depth is another cell."""
    counts = [1000] * POSITIONS
    one_cell = [_row("schemes", "DEEP", 8, True, d, counts, seconds="1800.0") for d in (3, 4, 5)]
    rerun = [_row("schemes", "DEEP", 8, True, 8, counts, seconds="5400.0")]
    assert "0.5 CPU hours" in P.build(one_cell)
    assert "2.0 CPU hours" in P.build(one_cell + rerun)
