#!/usr/bin/env python3
"""Texel-tune the play evaluation's positional terms (lab/texel.py) on the positions of
played games, labelled by each game's result, and print the multipliers found and the
constants of engine/eval.py they give. It changes no file: a tuned set is a candidate to
paste into engine/eval.py and match (scripts/match.py --sprt) like any strength change.

    python scripts/texel_tune.py                  # the self-play matches, docs/gauntlet/sprt_*.pgn
    python scripts/texel_tune.py --pgn games.pgn --held-out 0.2

The default games are TwoBig against versions of itself. Games against much stronger or
weaker engines label a position by the opponent more than by the position (against
Stockfish at 2400 TwoBig loses from an equal position): fitted on every game of
docs/gauntlet and docs/soak, the middle-game multipliers all came out near 2 and the
passed pawns' end-game one near 0.1.
"""
import sys
import time
from pathlib import Path

import click
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import texel  # noqa: E402


@click.command()
@texel.game_set_options
def main(pgns, skip_plies, held_out, seed):
    from engine import eval as ev

    paths = [Path(p) for p in pgns] or texel.default_pgns(ROOT)
    start = time.perf_counter()
    features = texel.extract(texel.quiet_positions(paths, skip_plies))
    games = len(np.unique(features.game))
    print(f"{len(features.result):,} quiet positions from {games:,} games in {len(paths)} files "
          f"({time.perf_counter() - start:.0f} s)")
    fitting, kept_out = texel.split_by_game(features, held_out, seed)
    ones = np.ones(len(ev.TERM_NAMES))
    k = texel.fit_k(fitting, ones, ones)
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


if __name__ == "__main__":
    main()
