#!/usr/bin/env python3
"""Train lab/network/nnue.py's network on engine-labelled positions and report its error
beside the hand-written evaluation's, on the same held-out games.

    python -m lab.network.label_positions --count 150000 --out labels.txt   # Stockfish's scores
    python -m lab.network.nnue_train --labels labels.txt --hidden 64 --epochs 20 --out net.npz

The engine's network (engine/nnue_net.npz) comes from lab/network/label_static.py's labels,
trained with the settings lab/network/rebuild.py passes (`make network` runs both steps):

    python -m lab.network.label_static --perturb 1.0 --pgn GAMES.pgn ... --out static.txt
    python -m lab.network.nnue_train --labels static.txt --no-compare --held-out 0.1 \
        --hidden 256 --epochs 6 --batch 1024 --rate 3e-3 --schedule --error-sample 100000 \
        --quantized-out engine/nnue_net.npz

The error is Texel's (the mean squared difference of predicted and labelled expected
score), the one `python -m lab.network.texel_tune --labels` prints, on the same split by
game (`--held-out`, `--seed`): a network that cannot beat the hand-written evaluation's
error is not worth putting into the engine.
"""
import time

import click
import numpy as np

from lab.network import nnue, texel


@click.command()
@click.option("--labels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="a lab/network/label_positions.py file")
@click.option("--held-out", default=0.2, show_default=True, help="share of games kept out")
@click.option("--seed", default=0, show_default=True, help="seed of the game split")
@click.option("--hidden", default=64, show_default=True, help="hidden units per point of view")
@click.option("--buckets", default=1, show_default=True,
              help="output layers, chosen by the number of pieces (1, or engine.types.NN_BUCKETS "
                   "for the engine)")
@click.option("--king-buckets", type=click.Choice(["0", str(nnue.KING_BUCKETS)]), default="0",
              show_default=True,
              help="copies of the inputs by the own king's place (lab.network.nnue); 0: the "
                   "engine's inputs")
@click.option("--epochs", default=20, show_default=True)
@click.option("--batch", default=256, show_default=True)
@click.option("--rate", default=1e-3, show_default=True, help="Adam's learning rate")
@click.option("--schedule/--no-schedule", default=False, show_default=True,
              help="step the rate down (lab.network.nnue.step_rate): half the epochs at --rate, then "
                   "a quarter, the last a sixteenth")
@click.option("--error-sample", default=0, show_default=True,
              help="report errors on this many positions of each side (0: all of them)")
@click.option("--result-weight", default=0.0, show_default=True,
              help="share of the target taken from the game's result, on lines that carry "
                   "it (lab/network/label_static.py's fourth field); the rest from the score")
@click.option("--compare/--no-compare", default=True, show_default=True,
              help="also fit K and report the hand-written evaluation's error")
@click.option("--out", type=click.Path(dir_okay=False), help="save the network (.npz)")
@click.option("--quantized-out", type=click.Path(dir_okay=False),
              help="save the integer network an engine reads (lab/network/nnue.quantized, .npz)")
def main(labels, held_out, seed, hidden, buckets, king_buckets, epochs, batch, rate, schedule, error_sample,
         result_weight, compare, out, quantized_out):
    start = time.perf_counter()
    king_buckets = int(king_buckets)
    if compare:
        samples = list(texel.labelled_positions(labels, result_weight))  # parsed once for both
        data = nnue.dataset(samples, king_buckets)
    else:
        data = nnue.load_labels(labels, result_weight, king_buckets)
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
    net = nnue.new_network(hidden, seed, buckets, king_buckets)
    fit_sample, held_sample = fitting, kept_out
    if error_sample:
        # The error of millions of positions takes as long as an epoch: a fixed sample of
        # each side measures it to the fourth significant digit.
        fit_sample, held_sample = (nnue.sample(fitting, error_sample, seed),
                                   nnue.sample(kept_out, error_sample, seed))
    best = [float("inf")]

    def report(epoch, fit_error, held_error):
        print(f"epoch {epoch:3d}: fitting {fit_error:.6f}, held out {held_error:.6f} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
        if held_error >= best[0]:     # keep the network of the best held-out error ...
            return
        integer = nnue.quantized(net)
        if not nnue.fits_int16(integer):   # ... among those the engine's accumulators hold
            print(f"epoch {epoch:3d}: not kept, an accumulator could reach "
                  f"{nnue.accumulator_range(integer)}, beyond int16", flush=True)
            return
        best[0] = held_error
        if out:
            np.savez(out, **net._asdict())
        if quantized_out:
            np.savez_compressed(quantized_out, **integer)

    nnue.train(net, fitting, epochs, batch, rate, seed, held_sample, report, schedule, fit_sample)
    if best[0] == float("inf"):
        raise click.ClickException("no epoch's network fits the engine's int16 accumulators; "
                                   "nothing saved")
    for path in (out, quantized_out):
        if path:
            print(f"saved {path} (the epoch of held-out error {best[0]:.6f})")


if __name__ == "__main__":
    main()
