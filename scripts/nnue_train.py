#!/usr/bin/env python3
"""Train lab/nnue.py's network on engine-labelled positions and report its error beside
the hand-written evaluation's, on the same held-out games.

    python scripts/label_positions.py --count 150000 --out labels.txt   # Stockfish's scores
    python scripts/nnue_train.py --labels labels.txt --hidden 64 --epochs 20 --out net.npz

The error is Texel's (the mean squared difference of predicted and labelled expected
score), the one `scripts/texel_tune.py --labels` prints, on the same split by game
(`--held-out`, `--seed`): a network that cannot beat the hand-written evaluation's error
is not worth putting into the engine.
"""
import sys
import time
from pathlib import Path

import click
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lab import nnue, texel  # noqa: E402


@click.command()
@click.option("--labels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="a scripts/label_positions.py file")
@click.option("--held-out", default=0.2, show_default=True, help="share of games kept out")
@click.option("--seed", default=0, show_default=True, help="seed of the game split")
@click.option("--hidden", default=64, show_default=True, help="hidden units per point of view")
@click.option("--epochs", default=20, show_default=True)
@click.option("--batch", default=256, show_default=True)
@click.option("--rate", default=1e-3, show_default=True, help="Adam's learning rate")
@click.option("--compare/--no-compare", default=True, show_default=True,
              help="also fit K and report the hand-written evaluation's error")
@click.option("--out", type=click.Path(dir_okay=False), help="save the network (.npz)")
@click.option("--quantized-out", type=click.Path(dir_okay=False),
              help="save the integer network an engine reads (lab/nnue.quantized, .npz)")
def main(labels, held_out, seed, hidden, epochs, batch, rate, compare, out, quantized_out):
    start = time.perf_counter()
    samples = list(texel.labelled_positions(labels))   # parsed once for both evaluations
    data = nnue.dataset(samples)
    fitting, kept_out = nnue.split_by_game(data, held_out, seed)
    print(f"{len(data.target):,} positions of {len(np.unique(data.game)):,} games "
          f"({len(fitting.target):,} fitting, {len(kept_out.target):,} held out; "
          f"{time.perf_counter() - start:.0f} s)")
    if compare:
        from engine import eval as ev

        features = texel.extract(samples)
        mask = texel.held_out_mask(features, held_out, seed)
        ones = np.ones(len(ev.TERM_NAMES))
        k = texel.fit_k(texel.subset(features, ~mask), ones, ones)
        print(f"hand-written evaluation (K = {k:.4f}): held-out error "
              f"{texel.mean_error(texel.subset(features, mask), ones, ones, k):.6f}")
    net = nnue.new_network(hidden, seed)

    def report(epoch, fit_error, held_error):
        print(f"epoch {epoch:3d}: fitting {fit_error:.6f}, held out {held_error:.6f} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)

    nnue.train(net, fitting, epochs, batch, rate, seed, kept_out, report)
    if out:
        np.savez(out, **net._asdict())
        print(f"saved {out}")
    if quantized_out:
        np.savez(quantized_out, **nnue.quantized(net))
        print(f"saved {quantized_out}")


if __name__ == "__main__":
    main()
