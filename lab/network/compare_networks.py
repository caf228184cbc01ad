#!/usr/bin/env python3
"""Errors of engine networks (.npz files as engine/nnue_net.npz) on the held-out games of a
label file, against three targets at once: the labels' scores, the games' results, and a
blend of the two, so that networks trained on different targets can be compared.

    python -m lab.network.compare_networks --labels labels.txt \
        --net engine/nnue_net.npz --net /tmp/candidate.npz --result-weight 0.2

The split and the sample are nnue_train.py's (`--held-out`, `--seed`, `--error-sample`), so
that with the same labels the networks are scored on the positions their training held out.
Each network is evaluated as the engine has it: its integers scaled back
(lab.network.nnue.from_quantized), not the float weights it was trained as. Every line
needs its game's result.
"""
import click
import numpy as np

from lab.network import nnue


def held_out_targets(labels, held_out: float, seed: int, count: int, king_buckets: int = 0):
    """(features, score targets, result targets) of a sample of `count` held-out positions
    (all of them when count is 0), each target from the side to move's view, the inputs
    those of `king_buckets` (lab.network.nnue.feature_index). Raises click.ClickException
    when a line lacks its game's result."""
    by_score, results = nnue.load_labels_and_results(labels, king_buckets)
    if np.isnan(results).any():
        raise click.ClickException(f"{labels}: lines without a result (label_static.py "
                                   "--add-results gives them theirs)")
    picked = []
    for data in (by_score, by_score._replace(target=results)):
        sample = nnue.split_by_game(data, held_out, seed)[1]
        picked.append(nnue.sample(sample, count, seed) if count else sample)
    return picked[0].features, picked[0].target, picked[1].target


@click.command()
@click.option("--labels", required=True, type=click.Path(exists=True, dir_okay=False),
              help="lab/network/label_static.py lines (FEN;score;game;result)")
@click.option("--net", "nets", multiple=True, required=True,
              type=click.Path(exists=True, dir_okay=False), help="an engine network (.npz)")
@click.option("--result-weight", default=0.2, show_default=True,
              help="the result's share in the blended column")
@click.option("--held-out", default=0.1, show_default=True, help="share of games held out")
@click.option("--seed", default=0, show_default=True, help="seed of the split and the sample")
@click.option("--error-sample", default=100000, show_default=True,
              help="held-out positions scored (0: all)")
def main(labels, nets, result_weight, held_out, seed, error_sample):
    loaded = {path: np.load(path) for path in nets}
    inputs = {}     # the held-out positions, read once for each layout of inputs
    for path in nets:
        king_buckets = nnue.quantized_king_buckets(loaded[path])
        if king_buckets not in inputs:
            inputs[king_buckets] = held_out_targets(labels, held_out, seed, error_sample,
                                                    king_buckets)
    click.echo(f"{len(next(iter(inputs.values()))[1]):,} held-out positions")
    click.echo(f"| network | scores | results | blend ({result_weight:g} of the result) |")
    click.echo("|---|---|---|---|")
    for path in nets:
        features, scores, results = inputs[nnue.quantized_king_buckets(loaded[path])]
        blended = ((1.0 - result_weight) * scores + result_weight * results).astype(np.float32)
        net = nnue.from_quantized(loaded[path])
        errors = [nnue.mean_error(net, nnue.Dataset(features, target, np.zeros(len(target))))
                  for target in (scores, results, blended)]
        click.echo(f"| {path} | " + " | ".join(f"{e:.6f}" for e in errors) + " |")


if __name__ == "__main__":
    main()
