#!/usr/bin/env python3
"""Texel-tune the play evaluation's positional terms (lab/network/texel.py) on the positions
of played games, labelled by each game's result, and print the multipliers found and the
constants of engine/eval.py they give. It changes no file: a tuned set is a candidate to
paste into engine/eval.py and match (scripts/match.py --sprt) like any strength change.

    python -m lab.network.texel_tune                  # the self-play matches, docs/gauntlet/sprt_*.pgn
    python -m lab.network.texel_tune --pgn games.pgn --held-out 0.2
    python -m lab.network.texel_tune --pst --prior 0.1    # the piece-square tables instead
    python -m lab.network.texel_tune --labels labels.txt  # fit to an engine's scores instead of
                                                          # results (lab.network.label_positions
                                                          # writes the file)

The default games are TwoBig against versions of itself. Games against much stronger or
weaker engines label a position by the opponent more than by the position (against
Stockfish at 2400 TwoBig loses from an equal position): fitted on every game of
docs/gauntlet and docs/soak, the middle-game multipliers all came out near 2 and the
passed pawns' end-game one near 0.1.
"""
import time
from pathlib import Path

import click
import numpy as np

from lab.network import texel

ROOT = Path(__file__).resolve().parents[2]


@click.command()
@texel.game_set_options
@click.option("--pst", is_flag=True,
              help="fit the piece-square tables (piece values folded in) instead of the multipliers")
@click.option("--prior", default=0.1, show_default=True,
              help="--pst: weight of the entries' mean squared distance (in pawns) from today's")
def main(pgns, skip_plies, held_out, seed, labels, pst, prior):
    from engine import eval as ev

    start = time.perf_counter()
    samples, source = texel.load_samples(ROOT, pgns, skip_plies, labels)
    features = texel.extract(samples)
    games = len(np.unique(features.game))
    print(f"{len(features.result):,} quiet positions from {games:,} games {source} "
          f"({time.perf_counter() - start:.0f} s)")
    mask = texel.held_out_mask(features, held_out, seed)
    fitting, kept_out = texel.subset(features, ~mask), texel.subset(features, mask)
    ones = np.ones(len(ev.TERM_NAMES))
    k = texel.fit_k(fitting, ones, ones)
    if pst:
        fit_tables(fitting, kept_out, texel.pst_counts(samples), mask, k, prior)
        return
    fit = texel.fit_multipliers(fitting, k)
    print(f"K = {k:.4f}")
    print(f"mean squared error, fitting positions ({len(fitting.result):,}): "
          f"{fit.error_before:.6f} -> {fit.error_after:.6f}")
    if len(kept_out.result):
        print(f"mean squared error, held-out positions ({len(kept_out.result):,}): "
              f"{texel.mean_error(kept_out, ones, ones, k):.6f} -> "
              f"{texel.mean_error(kept_out, fit.a, fit.b, k):.6f}")
    print("\n| term | middle-game multiplier | end-game multiplier |\n|---|---|---|")
    for name, a, b in zip(ev.TERM_NAMES, fit.a, fit.b):
        print(f"| {name} | {a:.2f} | {b:.2f} |")
    print("\nengine/eval.py constants with these multipliers:")
    for line in texel.scaled_constants(fit.a, fit.b):
        print("    " + line)


def fit_tables(fitting, kept_out, X, mask, k, prior):
    """--pst: fit the tables on the fitting games (X: every position's piece-on-square
    counts, mask: the held-out ones), report both errors, print the tables."""
    fit = texel.fit_pst(fitting, X[~mask], k, prior)
    w_mg, w_eg = texel.pst_weights()
    print(f"K = {k:.4f}, prior {prior}")
    print(f"mean squared error, fitting positions ({len(fitting.result):,}): "
          f"{fit.error_before:.6f} -> {fit.error_after:.6f}")
    if len(kept_out.result):
        print(f"mean squared error, held-out positions ({len(kept_out.result):,}): "
              f"{texel.pst_error(kept_out, X[mask], w_mg, w_eg, k):.6f} -> "
              f"{texel.pst_error(kept_out, X[mask], fit.w_mg, fit.w_eg, k):.6f}")
    shift = np.concatenate([fit.w_mg - w_mg, fit.w_eg - w_eg])
    print(f"entries moved by {np.mean(np.abs(shift)):.1f} cp on average, at most "
          f"{np.max(np.abs(shift)):.0f}\n\nengine/pst.py tables with these entries:\n")
    print("\n".join(texel.pst_tables_source(fit.w_mg, fit.w_eg)))


if __name__ == "__main__":
    main()
