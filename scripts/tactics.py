#!/usr/bin/env python3
"""Run a tactical EPD suite (bm/am) at a fixed time per position and report the score.

    python scripts/tactics.py data/tactical/wacnew.epd --movetime 1000
    python scripts/tactics.py data/tactical/bk.epd --movetime 5000
"""
import sys
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lab.tactics import run_suite  # noqa: E402


@click.command()
@click.argument("epd", type=click.Path(exists=True, dir_okay=False))
@click.option("--movetime", default=1000, show_default=True, help="Milliseconds per position.")
@click.option("--hash", "hash_mb", default=64, show_default=True, help="Table size in MB.")
@click.option("--profile", type=click.Choice(["play", "paper"]), default="play", show_default=True)
@click.option("--limit", type=int, default=None, help="Only the first N positions.")
@click.option("--show-failed", is_flag=True, help="List the positions not solved.")
def main(epd, movetime, hash_mb, profile, limit, show_failed):
    def show(entry):
        mark = "ok  " if entry.solved else "FAIL"
        click.echo(f"{mark} {entry.id:>10} {entry.expected:<22} got {entry.found:<8} "
                   f"depth {entry.depth:>2} nodes {entry.nodes:>9}")

    results = run_suite(epd, movetime, hash_mb, profile, limit, show)
    solved = sum(r.solved for r in results)
    nodes = sum(r.nodes for r in results)
    seconds = sum(r.seconds for r in results)
    click.echo(f"\n{Path(epd).name}: solved {solved}/{len(results)} at {movetime} ms "
               f"({profile} profile, {nodes / max(seconds, 1e-9):,.0f} nodes/s)")
    if show_failed:
        for r in results:
            if not r.solved:
                click.echo(f"  {r.id}: {r.expected}, got {r.found}  {r.fen}")


if __name__ == "__main__":
    main()
