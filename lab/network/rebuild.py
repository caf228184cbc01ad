#!/usr/bin/env python3
"""Retrain the engine's network from nothing, in one command.

    make network                                   # python -m lab.network.rebuild
    python -m lab.network.rebuild --files 2 --epochs 1 --out /tmp/net.npz   # a quick check

The steps (docs/evaluation.md, "Retraining from nothing"):

1. The games: TwoBig's own matches, the PGN files of docs/gauntlet at GAMES_COMMIT, taken
   from the repository's history with `git archive` (they left the tree on 2026-12-04), or
   the files of `--pgn-dir`.
2. The labels: lab/network/label_static.py, Stockfish 15.1's static evaluation of each quiet
   position past ply 12 and of one position a random quiet move away (`--perturb`).
3. The network: lab/network/nnue_train.py with the shipped network's settings, quantised
   into engine/nnue_net.npz (or `--out`); the epoch of the lowest held-out error is kept.
4. The new bench signature (`twobig bench`), which changes with the weights.

Labelling is seeded per file and training by `--seed`, so the same games, Stockfish build and
settings give the same labels and the same weights: a second labelling and training of the
shipped games gave the network trained from them before, bit for bit. Another width than the engine's
NN_HIDDEN (engine/types.py), or a number of output layers other than 1 or NN_BUCKETS, is
refused by engine/tables.py when it loads the weights.
"""
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

import click

from engine.types import NN_BUCKETS

ROOT = Path(__file__).resolve().parents[2]
GAMES_COMMIT = "9749666"     # the last commit whose docs/gauntlet held all 236 PGN files
GAMES_FOLDER = "docs/gauntlet"
SHIPPED_NETWORK = ROOT / "engine" / "nnue_net.npz"


def extract_games(commit: str, into: Path) -> List[Path]:
    """The PGN files of GAMES_FOLDER at `commit`, written under `into`; raises
    click.ClickException when the history does not hold that commit (a shallow clone)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, GAMES_FOLDER],
                             capture_output=True)
    if archive.returncode != 0:
        raise click.ClickException(
            f"git archive {commit} {GAMES_FOLDER} failed ({archive.stderr.decode().strip()}); "
            "a shallow clone lacks the games: `git fetch --unshallow`, or pass --pgn-dir")
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return sorted((into / GAMES_FOLDER).glob("*.pgn"))


def largest(paths: List[Path], count: int) -> List[Path]:
    """The `count` largest files (all when count is 0), in name order."""
    if count <= 0:
        return sorted(paths)
    return sorted(sorted(paths, key=lambda p: (-p.stat().st_size, p.name))[:count])


def _step(title: str, args: List[str]) -> None:
    click.echo(f"== {title}: {' '.join(args)}", err=True)
    subprocess.run(args, cwd=ROOT, check=True)


@click.command()
@click.option("--games-commit", default=GAMES_COMMIT, show_default=True,
              help="commit whose docs/gauntlet holds the games")
@click.option("--pgn-dir", type=click.Path(exists=True, file_okay=False),
              help="read the PGN files of this folder instead")
@click.option("--files", default=0, show_default=True,
              help="only the N largest PGN files (0: all)")
@click.option("--perturb", default=1.0, show_default=True,
              help="positions labelled one random quiet move away, per played position "
                   "(label_static's --perturb)")
@click.option("--jobs", default=2, show_default=True, help="Stockfish processes labelling")
@click.option("--epochs", default=6, show_default=True)
@click.option("--result-weight", default=0.0, show_default=True,
              help="share of each target taken from its game's result (nnue_train's option)")
@click.option("--hidden", default=256, show_default=True, help="hidden units per point of view")
@click.option("--buckets", default=NN_BUCKETS, show_default=True,
              help="output layers, chosen by the number of pieces (nnue_train's option)")
@click.option("--seed", default=0, show_default=True, help="labelling and split seed")
@click.option("--labels", "labels_out", type=click.Path(dir_okay=False),
              help="keep the labels in this file (default: a temporary one)")
@click.option("--out", default=str(SHIPPED_NETWORK), show_default=True,
              type=click.Path(dir_okay=False), help="the quantised network")
def main(games_commit, pgn_dir, files, perturb, jobs, epochs, result_weight, hidden, buckets,
         seed, labels_out, out):
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="twobig-network-") as work:
        work = Path(work)
        paths = (sorted(Path(pgn_dir).glob("*.pgn")) if pgn_dir
                 else extract_games(games_commit, work))
        paths = largest(paths, files)
        if not paths:
            raise click.ClickException("no PGN files to label")
        click.echo(f"{len(paths)} PGN files", err=True)
        labels = Path(labels_out) if labels_out else work / "labels.txt"
        _step("labels", [python, "-m", "lab.network.label_static", "--jobs", str(jobs),
                         "--perturb", str(perturb), "--seed", str(seed), "--out", str(labels)]
              + [arg for path in paths for arg in ("--pgn", str(path))])
        _step("network", [python, "-m", "lab.network.nnue_train", "--labels", str(labels),
                          "--no-compare", "--held-out", "0.1", "--seed", str(seed),
                          "--hidden", str(hidden), "--buckets", str(buckets),
                          "--epochs", str(epochs), "--batch", "1024",
                          "--rate", "3e-3", "--schedule", "--error-sample", "100000",
                          "--result-weight", str(result_weight),
                          "--quantized-out", str(out)])
    if Path(out).resolve() == SHIPPED_NETWORK.resolve():
        _step("the new bench signature", [python, "-m", "engine.cli", "bench"])
    click.echo(f"network written to {out}", err=True)


if __name__ == "__main__":
    main()
