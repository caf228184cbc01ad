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


def test_cell_hours_count_each_cell_once_and_every_cell():
    """A cell searched at several depths writes one row per depth with the cell's seconds
    (counted once); the same configuration run again at another depth is another cell."""
    counts = [1000] * POSITIONS
    one_cell = [_row("schemes", "DEEP", 8, True, d, counts, seconds="1800.0") for d in (3, 4, 5)]
    rerun = [_row("schemes", "DEEP", 8, True, 8, counts, seconds="5400.0")]
    assert "0.5 hours of single-threaded cells" in P.build(one_cell)
    assert "2.0 hours of single-threaded cells" in P.build(one_cell + rerun)


# -- verdicts that follow their stated rules ---------------------------------------------------
def _endgame(factors, depth=8, seed=2):
    return [dict(r, test_set="endgame", depth=str(depth))
            for r in _grid(factors, depth=depth, seed=seed) if r["stamping"] == "True"]


NO_EDGE = dict(THESIS_LIKE, BIG1=1.0, BIGALL=1.0, DEEP=1.0, TwoBig1=0.9, TwoDEEP=0.9)


def test_an_edge_can_only_disappear_where_it_was_there():
    """Row 6 ('... but not in the endgame') needs row 5's middle-game edge: without one the
    endgame's lack of a difference proves nothing."""
    flat_endgame = _endgame(NO_EDGE)
    without = P.Grid(_grid(NO_EDGE) + flat_endgame)
    assert P.big_middle(without, "thesis_nodes").verdict == "no"
    found = P.big_endgame(without, "thesis_nodes")
    assert found.verdict == "not testable" and "no middle-game edge to lose" in found.text
    # With the thesis' middle-game edge the same flat endgame shows it gone.
    edge = P.Grid(_grid(THESIS_LIKE) + flat_endgame)
    assert P.big_middle(edge, "thesis_nodes").verdict == "yes"
    assert P.big_endgame(edge, "thesis_nodes").verdict == "yes"
    # ... and an endgame that keeps the edge does not.
    kept = P.Grid(_grid(THESIS_LIKE) + _endgame(dict(THESIS_LIKE, BIG1=0.9, BIGALL=0.9, TwoBig1=0.8)))
    assert P.big_endgame(kept, "thesis_nodes").verdict == "no"
    # Endgame rows alone: nothing to compare with.
    assert P.big_endgame(P.Grid(flat_endgame), "thesis_nodes").verdict == "not run"


DOUBLING_SIZES = (8, 16, 32, 64, 128, 256, 512, 1024)


def _doubling_rows(knees, test_set, stamping):
    """TwoBig1 rows whose doubling saves 5% up to the knee (a size index; None: never) and
    0.5% from it: doubling_size finds the knee's size."""
    rng = np.random.default_rng(4)
    base = rng.integers(100_000, 1_000_000, size=POSITIONS)
    rows = []
    for depth, knee in knees.items():
        factor = 1.0
        for i, size in enumerate(DOUBLING_SIZES):
            rows.append(_row("schemes", "TwoBig1", size, stamping, depth, base * factor,
                             test_set=test_set))
            factor *= 0.995 if knee is not None and i >= knee else 0.95
    return rows


def test_doubling_rule_judges_every_depth_the_same_way():
    """Rows 12 and 13: the knee at every depth measured against the thesis' at that depth;
    'yes' when all are within one doubling, 'partly' when at least half are."""
    # The endgame: 8 ply right on the thesis' 512K, 3-7 ply far from it.
    far = {3: None, 4: None, 5: None, 6: None, 7: None, 8: 6}
    found = P.doubling_endgame(P.Grid(_doubling_rows(far, "endgame", True)), "thesis_nodes")
    assert "8 ply: 512K (thesis 512K)" in found.text and "3 ply: >=1M (thesis <=8K)" in found.text
    assert found.verdict == "no"
    # Every endgame depth of the thesis, each one doubling off: 'yes'.
    near = {3: 1, 4: 1, 5: 1, 6: 3, 7: 4, 8: 5, 9: 6, 10: None}
    found = P.doubling_endgame(P.Grid(_doubling_rows(near, "endgame", True)), "thesis_nodes")
    assert found.verdict == "yes" and "within one doubling at 8 of 8 depths" in found.text
    # Half the depths near, half far: 'partly'.
    half = {3: 1, 4: 1, 5: None, 6: None}
    assert P.doubling_endgame(P.Grid(_doubling_rows(half, "endgame", True)),
                              "thesis_nodes").verdict == "partly"
    # The middle game by the same rule: one doubling off at every depth is 'yes' there too.
    middle = {3: 1, 4: 2, 5: 1, 6: 3, 7: 4}
    found = P.doubling_middle(P.Grid(_doubling_rows(middle, "middle", False)), "thesis_nodes")
    assert found.verdict == "yes" and "within one doubling at 5 of 5 depths" in found.text
    assert P.DOUBLING_RULE in next(c.why for c in P.CLAIMS if c.measure is P.doubling_middle)
    assert P.DOUBLING_RULE in next(c.why for c in P.CLAIMS if c.measure is P.doubling_endgame)


def test_npv_gain_inside_the_noise_is_no_gain():
    """Row 26: a 5-ply 'gain' of 0.3% whose interval includes 0 reads 'no', whatever the
    share of nodes an ancestor's line orders."""
    rng = np.random.default_rng(6)
    base = rng.integers(100_000, 1_000_000, size=18).astype(float)
    noisy = base * (1 + rng.normal(0, 0.03, size=18))
    noisy *= 0.997 * base.sum() / noisy.sum()
    one = _row("move_score", "TwoBig1", 256, True, 8, base, test_set="short")
    five = _row("npv", "TwoBig1", 256, True, 8, noisy, test_set="short", pv_plies=5,
                line_moves=10)
    found = P.npv("short", -5)(P.Grid([one, five]), "thesis_nodes")
    assert "5-ply -0.3%" in found.text and ", within noise" not in found.text
    assert found.verdict == "no"


def _collision_row(size, collisions, expected, distinct=10_000_000):
    row = {name: "" for name in FIELDS}
    row.update(experiment="collisions", test_set="middle", scheme="DEEP", positions_k=str(size),
               stamping="False", use="full", key_bits="64", depth="5", nodes="1",
               distinct=str(distinct), filled=str(distinct - collisions),
               expected_collisions=str(expected))
    return row


def test_equation_2_2_verdict_rests_on_an_interval_not_a_rounding():
    """Row 28: 0.8999 and 0.9001 of E read the same; the counting noise of the collisions
    decides whether the data show the formula within 10%."""
    below = P.equation_2_2(P.Grid([_collision_row(8, 899_900, 1_000_000)]), "nodes")
    above = P.equation_2_2(P.Grid([_collision_row(8, 900_100, 1_000_000)]), "nodes")
    assert below.verdict == above.verdict == "partly"
    # Close to E with many collisions: shown within 10%; with few: too noisy to show it.
    assert P.equation_2_2(P.Grid([_collision_row(8, 10_050, 10_000)]), "nodes").verdict == "yes"
    few = P.equation_2_2(P.Grid([_collision_row(8, 100, 100)]), "nodes")
    assert few.verdict == "partly" and "1.000 [0.814, 1.206]" in few.text
    # Every size counts: one size off by a factor of three is 'no'.
    rows = [_collision_row(8, 10_050, 10_000), _collision_row(16, 3_000, 1_000)]
    assert P.equation_2_2(P.Grid(rows), "nodes").verdict == "no"


def test_every_claim_states_its_rule():
    for claim in P.CLAIMS:
        assert "'yes'" in claim.why, claim.claim


def test_an_incomplete_deepest_depth_is_left_out_of_the_claims():
    """A deepest depth with only some of its cells in the CSV: the claims keep to the
    deepest complete depth until the rest are there."""
    complete = _grid(THESIS_LIKE, depth=7)
    partial = [r for r in _grid(THESIS_LIKE, depth=8) if r["scheme"] in ("NEW", "OLD")]
    grid = P.Grid(complete + partial)
    assert grid.depths("schemes", "middle") == [7]
    assert P.Grid(complete + _grid(THESIS_LIKE, depth=8)).depths("schemes", "middle") == [7, 8]


def _uses_rows(test_set, factors, seed):
    """Section 2.7.2's six runs of one test set: per-position counts = a common base x each
    use's factor x a little noise."""
    rng = np.random.default_rng(seed)
    base = rng.integers(100_000, 1_000_000, size=21)
    return [_row("move_score", "TwoBig1", 256, True, 8,
                 base * factor * (1 + rng.normal(0, 0.002, size=21)), test_set=test_set, use=use)
            for use, factor in factors.items()]


def test_endgame_score_over_move_must_be_more_pronounced_than_the_middle_games():
    middle = _uses_rows("short", dict(none=1.0, move=0.8, score=0.5, exact=1.0, bounds=0.5,
                                      full=0.45), seed=1)
    weaker = _uses_rows("endgame21", dict(none=1.0, move=0.5, score=0.4, exact=1.0,
                                          bounds=0.4, full=0.35), seed=2)
    stronger = _uses_rows("endgame21", dict(none=1.0, move=0.8, score=0.3, exact=1.0,
                                            bounds=0.3, full=0.25), seed=3)
    measure = P.move_vs_score("endgame21", stronger_than="short")
    found = measure(P.Grid(middle + weaker), "thesis_nodes")
    assert found.verdict == "partly" and "less pronounced than in the middle game" in found.text
    found = measure(P.Grid(middle + stronger), "thesis_nodes")
    assert found.verdict == "yes" and "more pronounced than in the middle game" in found.text
    assert measure(P.Grid(weaker), "thesis_nodes").verdict == "yes"   # no middle game to compare


def test_npv_share_of_line_ordered_nodes_is_of_the_count_judged():
    rng = np.random.default_rng(6)
    base = rng.integers(100_000, 1_000_000, size=18)
    one = _row("move_score", "TwoBig1", 256, True, 8, base, test_set="short")
    five = _row("npv", "TwoBig1", 256, True, 8, base, test_set="short", pv_plies=5)
    five["line_moves"] = str(int(five["thesis_nodes"]) // 10)   # a tenth of the full-width nodes
    thesis = P.npv("short", -5)(P.Grid([one, five]), "thesis_nodes").text
    every = P.npv("short", -5)(P.Grid([one, five]), "nodes").text
    assert "(5-ply): 10.000%" in thesis and "(5-ply): 3.333%" in every
