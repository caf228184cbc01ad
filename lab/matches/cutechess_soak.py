#!/usr/bin/env python3
"""A soak refereed by cutechess-cli, the tournament manager most users run, instead of
scripts/match.py: TwoBig against Stockfish (UCI_LimitStrength), the 8moves_v3 openings
with both colours, and afterwards a tally of every engine's faults read from the PGN
cutechess-cli wrote (its Termination tag: time forfeit, illegal move, abandoned,
stalled connection) with W/D/L from TwoBig's side.

cutechess-cli is not packaged for Debian and is not part of this repository: build it
(README, "Using TwoBig in a GUI") and pass its path with --cutechess or the CUTECHESS variable.

    python -m lab.matches.cutechess_soak --cutechess ~/cutechess/build/cutechess-cli \
        --games 200 --tc 1+0.01 --concurrency 4 --pgn docs/soak/cutechess_overload.pgn
"""
import collections
import os
import shutil
import subprocess
from pathlib import Path

import chess.pgn
import click

from scripts.match import elo_summary

ROOT = Path(__file__).resolve().parents[2]

FAULTS = ("time forfeit", "illegal move", "abandoned", "stalled connection")


def tally(pgn_path, name):
    """(W, D, L for `name`, {engine: Counter of faults}) from a cutechess-cli PGN."""
    w = d = l = 0
    faults = collections.defaultdict(collections.Counter)
    with open(pgn_path) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            headers = game.headers
            result = headers.get("Result", "*")
            white = headers.get("White") == name
            if result == "1/2-1/2":
                d += 1
            elif result in ("1-0", "0-1"):
                if (result == "1-0") == white:
                    w += 1
                else:
                    l += 1
            termination = headers.get("Termination", "").lower()
            if termination in FAULTS:
                # The side that lost the game is the one at fault.
                loser = headers.get("Black") if result == "1-0" else headers.get("White")
                faults[loser][termination] += 1
    return w, d, l, faults


@click.command()
@click.option("--cutechess", default=lambda: os.environ.get("CUTECHESS") or shutil.which("cutechess-cli"),
              help="Path of cutechess-cli.")
@click.option("--twobig", default=str(ROOT / ".venv" / "bin" / "twobig"), show_default=True)
@click.option("--stockfish", default="/usr/games/stockfish", show_default=True)
@click.option("--elo", default=1800, show_default=True, help="Stockfish's UCI_Elo.")
@click.option("--games", default=200, show_default=True)
@click.option("--tc", default="1+0.01", show_default=True)
@click.option("--concurrency", default=os.cpu_count() or 1, show_default=True)
@click.option("--pgn", required=True, help="Where cutechess-cli writes the games.")
@click.option("--results", default=None, help="Append the tally as a Markdown row here.")
def main(cutechess, twobig, stockfish, elo, games, tc, concurrency, pgn, results):
    if not cutechess or not Path(cutechess).exists():
        raise click.ClickException("cutechess-cli not found: build it and pass --cutechess")
    Path(pgn).parent.mkdir(parents=True, exist_ok=True)
    if Path(pgn).exists():
        Path(pgn).unlink()   # cutechess-cli appends; the tally must read this run only
    command = [
        cutechess,
        "-engine", "name=TwoBig", f"cmd={twobig}", "option.Hash=16", "option.Threads=1",
        "-engine", "name=Stockfish", f"cmd={stockfish}", "option.UCI_LimitStrength=true",
        f"option.UCI_Elo={elo}", "option.Hash=16", "option.Threads=1",
        "-each", "proto=uci", f"tc={tc}",
        "-games", "2", "-rounds", str((games + 1) // 2), "-repeat", "-recover",
        "-concurrency", str(concurrency),
        "-openings", f"file={ROOT / 'data' / 'books' / '8moves_v3.pgn'}", "format=pgn",
        "order=random", "-srand", "1",
        "-pgnout", pgn,
    ]
    click.echo(" ".join(command))
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    w, d, l, faults = tally(pgn, "TwoBig")
    elo_diff, lo, hi, _ = elo_summary(w, d, l)
    total = w + d + l

    def describe(engine):
        counts = faults.get(engine)
        return "**none**" if not counts else ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "?"
    row = (f"| cutechess-cli | {commit} | {tc} ({concurrency}) | {total} | {w}/{d}/{l} "
           f"| {(w + d / 2) / max(total, 1):.1%} | {elo_diff:+.0f} [{lo:+.0f}, {hi:+.0f}] "
           f"| {describe('TwoBig')} | {describe('Stockfish')} |")
    click.echo(row)
    if results:
        with open(results, "a") as handle:
            handle.write(row + "\n")


if __name__ == "__main__":
    main()
