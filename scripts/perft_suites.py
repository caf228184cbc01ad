#!/usr/bin/env python3
"""Run every position of the four perft files in data/perft to every depth listed
(or up to --max-nodes leaves per count), and report mismatches and totals.

    python scripts/perft_suites.py                     # all depths listed (long: D6-D8 counts)
    python scripts/perft_suites.py --max-nodes 1e8     # skip counts above 10^8 leaves
"""
import sys
import time
from pathlib import Path

import click

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.board import Board  # noqa: E402
from lab.thesis.suites import PERFT_FILES, DATA_DIR, load_perft_file  # noqa: E402


@click.command()
@click.option("--max-nodes", type=float, default=2e9, show_default=True,
              help="Skip listed counts larger than this.")
@click.option("--file", "files", multiple=True, help="Only these files (names in data/perft).")
def main(max_nodes, files):
    grand_total, grand_time, failures, runs, skipped = 0, 0.0, 0, 0, 0
    for name in files or PERFT_FILES:
        cases = load_perft_file(DATA_DIR / "perft" / name)
        total, start, file_runs = 0, time.perf_counter(), 0
        for case in cases:
            board = Board(case.fen)
            for depth, expected in sorted(case.counts.items()):
                if expected > max_nodes:
                    skipped += 1
                    continue
                got = board.perft(depth)
                file_runs += 1
                total += got
                if got != expected:
                    failures += 1
                    click.echo(f"MISMATCH {case.source} depth {depth}: expected {expected}, "
                               f"got {got}  ({case.fen})")
        elapsed = time.perf_counter() - start
        click.echo(f"{name}: {len(cases)} positions, {file_runs} counts, {total:,} leaves, "
                   f"{elapsed:.1f} s ({total / elapsed / 1e6:.1f} M leaves/s)")
        grand_total += total
        grand_time += elapsed
        runs += file_runs
    click.echo(f"TOTAL: {runs} counts checked, {failures} mismatches, {skipped} skipped "
               f"(> {max_nodes:.0e}), {grand_total:,} leaves in {grand_time:.1f} s")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
