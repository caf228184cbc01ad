"""lab/thesis/robustness.py: the contrasts under each open choice, their hierarchical
bootstrap over key sets, games and positions, and the verdicts of the section."""
import numpy as np

from lab.thesis import robustness as R

GAMES = ["g1", "g1", "g2", "g2", "g3", "g3"]


def _row(scheme, counts, choice="", seed="1", stamping="False"):
    text = " ".join(str(c) for c in counts)
    return {"experiment": "robustness", "scheme": scheme, "positions_k": "8",
            "stamping": stamping, "depth": "5", "choices": choice, "key_seed": seed,
            "per_position": text, "per_position_thesis": text}


def test_the_interval_holds_the_estimate_and_resamples_whole_games_when_stamped():
    rng = np.random.default_rng(3)
    b = rng.integers(900, 1100, size=(4, 6)).astype(float)
    a = b * 0.9
    estimate, low, high = R.hierarchical_interval(a, b, GAMES, blocks=False, resamples=500)
    assert abs(estimate + 10.0) < 1e-9 and low <= estimate <= high
    # a uniform 10% saving is -10% in every resample, with or without blocks
    assert abs(low + 10.0) < 1e-6 and abs(high + 10.0) < 1e-6
    # one game much better than the others: resampling games widens the interval
    a2 = b.copy()
    a2[:, :2] *= 0.5
    _, low2, high2 = R.hierarchical_interval(a2, b, GAMES, blocks=True, resamples=500)
    assert high2 - low2 > 1.0


def test_a_contrast_that_flips_with_a_choice_is_reported_as_depending_on_it():
    rows = []
    for seed in ("1", "2"):
        for choice, big in (("", 0.9), ("ties_new=0", 1.1)):
            rows += [_row("DEEP", [1000] * 6, choice, seed), _row("TwoDEEP", [1000] * 6, choice, seed),
                     _row("BIG1", [int(1000 * big)] * 6, choice, seed),
                     _row("TwoBig1", [int(1000 * big)] * 6, choice, seed)]
    results = R.analyse(rows, GAMES)
    assert abs(results[("BIG1 vs DEEP", 8, False, 5, "")][0] + 10.0) < 1e-9
    assert abs(results[("BIG1 vs DEEP", 8, False, 5, "ties_new=0")][0] - 10.0) < 1e-9
    text = "\n".join(R.section(rows, GAMES))
    assert "changes with: ties keep the stored entry" in text
    assert "BIG1 vs DEEP: depends on the engine's choices at 1 of 1 points" in text
    assert R.section([], GAMES) == []


def test_a_tight_but_tiny_difference_is_within_noise():
    assert R._verdict(0.04, 0.01, 0.08) == "within noise"
    assert R._verdict(-1.0, -1.5, -0.6) == "fewer" and R._verdict(1.0, 0.6, 1.5) == "more"
    assert R._verdict(-1.0, -2.0, 0.1) == "within noise"


def test_a_choice_s_own_effect_is_the_four_schemes_nodes_against_the_defaults():
    """Under the choice every scheme searches 1,000 nodes a position, under the defaults
    DEEP and TwoDEEP 1,000 and BIG1 and TwoBig1 1,500: 4,000 against 5,000, -20%."""
    rows = []
    for seed in ("1", "2"):
        rows += [_row("DEEP", [1000] * 6, "", seed), _row("TwoDEEP", [1000] * 6, "", seed),
                 _row("BIG1", [1500] * 6, "", seed), _row("TwoBig1", [1500] * 6, "", seed)]
        rows += [_row(scheme, [1000] * 6, "root_lines=1", seed)
                 for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1")]
    effects = R.choice_effects(rows, GAMES)
    estimate, low, high = effects[(8, False, 5, "root_lines=1")]
    assert abs(estimate + 20.0) < 1e-9 and abs(low + 20.0) < 1e-6 and abs(high + 20.0) < 1e-6
    assert set(effects) == {(8, False, 5, "root_lines=1")}
    text = "\n".join(R.section(rows, GAMES))
    assert "| 8K | off | 5 | -20.0% [-20.0, -20.0] |" in text


def test_the_section_states_what_it_measured_and_counts_the_verdicts_that_held():
    """Two depths, both short of the thesis' 7 ply: the scope sentence names them and says
    that 7 ply is not in the table; a contrast that holds is counted per verdict."""
    rows = []
    for depth, big in (("5", 0.9), ("6", 1.0)):
        for seed in ("1", "2"):
            for choice in ("", "ties_new=0"):
                for scheme, factor in (("DEEP", 1.0), ("TwoDEEP", 1.0), ("BIG1", big), ("TwoBig1", big)):
                    row = _row(scheme, [int(1000 * factor)] * 6, choice, seed)
                    row["depth"] = depth
                    rows.append(row)
    text = "\n".join(R.section(rows, GAMES))
    assert "Measured: tables of 8K positions, without time stamping at 5-6 ply. " in text
    other_sizes = ", ".join(f"{s}K" for s in R.THESIS_SIZES if s != 8)
    assert (f"not in the table: the thesis' own depth, {R.THESIS_DEPTH} ply; 3-4 ply without "
            f"time stamping; tables of {other_sizes} positions") in text
    assert ("BIG1 vs DEEP: a property of the schemes at every point measured "
            "(fewer under every choice at 1, within noise under every choice at 1)") in text
    rows7 = [dict(r, depth=str(R.THESIS_DEPTH)) for r in rows]
    text7 = "\n".join(R.section(rows7, GAMES))
    assert "the thesis' own depth" not in text7
    assert (f"not in the table: {R.THESIS_DEPTH} ply with time stamping; 3-6 ply without time "
            f"stamping; tables of {other_sizes} positions") in text7
    every_size = [dict(r, positions_k=str(size), stamping=stamping)
                  for r in rows7 for size in R.THESIS_SIZES for stamping in ("False", "True")]
    text_sizes = "\n".join(R.section(every_size, GAMES))
    assert "not in the table: 3-6 ply without time stamping, so the answer" in text_sizes
    shallow = [dict(r, depth=str(depth), stamping="False")
               for r in rows7 if r["positions_k"] == "8" for depth in range(3, R.THESIS_DEPTH)]
    every_point = every_size + [dict(r, positions_k=str(size))
                                for r in shallow for size in R.THESIS_SIZES]
    assert "not in the table:" not in "\n".join(R.section(every_point, GAMES))


def test_the_scope_is_stated_per_table_size_when_sizes_differ_in_depths():
    """8K at 5-6 ply without time stamping, 16K at 7 ply with and without it: each size gets
    its own clause, and the missing 7-ply cells are named by size."""
    rows = []
    for size, stamping, depth in (("8", "False", "5"), ("8", "False", "6"),
                                  ("16", "False", "7"), ("16", "True", "7")):
        for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1"):
            rows.append(dict(_row(scheme, [1000] * 6, "", "1", stamping),
                             positions_k=size, depth=depth))
    text = "\n".join(R.section(rows, GAMES))
    assert ("Measured: tables of 8K positions, without time stamping at 5-6 ply; tables of "
            "16K positions, without time stamping at 7 ply and with it at 7 ply. ") in text
    assert (f"not in the table: {R.THESIS_DEPTH} ply without time stamping at 8K; "
            f"{R.THESIS_DEPTH} ply with time stamping at 8K; 3-4 ply without time stamping at "
            "8K; 3-6 ply without time stamping at 16K; tables of ") in text


def test_the_section_names_each_choice_varied_and_says_when_root_lines_were_not():
    rows = [_row(scheme, [1000] * 6, choice, "1")
            for choice in ("", "ties_new=0") for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1")]
    text = "\n".join(R.section(rows, GAMES))
    assert "The choices: ties between a candidate and a stored entry" in text
    assert "the refutation line per root move that ALIBABA kept is not varied" in text
    rows += [_row(scheme, [1000] * 6, "root_lines=1", "1")
             for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1")]
    text = "\n".join(R.section(rows, GAMES))
    assert "a refutation line per root move, as ALIBABA kept them" in text
    assert "is not varied" not in text


def test_a_point_with_cells_missing_is_left_out_and_named_as_partly_measured():
    """A grid stopped part-way: at 16K the defaults ran with both key sets but the tie rule
    only with the first. 16K is left out of every figure (its contrasts would rest on other
    key sets than the defaults') and named with its cell count until the rest is in."""
    rows = []
    for size, seeds_of_ties in (("8", ("1", "2")), ("16", ("1",))):
        for choice, seeds in (("", ("1", "2")), ("ties_new=0", seeds_of_ties)):
            for seed in seeds:
                for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1"):
                    rows.append(dict(_row(scheme, [1000] * 6, choice, seed), positions_k=size))
    assert {key[1] for key in R.analyse(rows, GAMES)} == {8}
    assert {key[0] for key in R.choice_effects(rows, GAMES)} == {8}
    text = "\n".join(R.section(rows, GAMES))
    assert "| 16K |" not in text
    assert ("Partly measured, and left out until every scheme, choice and key set is in: "
            "16K without time stamping at 5 ply (12 cells).") in text
    completed = rows + [dict(_row(scheme, [1000] * 6, "ties_new=0", "2"), positions_k="16")
                        for scheme in ("DEEP", "TwoDEEP", "BIG1", "TwoBig1")]
    assert {key[1] for key in R.analyse(completed, GAMES)} == {8, 16}
    assert "Partly measured" not in "\n".join(R.section(completed, GAMES))
