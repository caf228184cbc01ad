#!/usr/bin/env python3
"""Run every position of the four perft files in data/perft to every depth listed
(or up to --max-nodes leaves per count), and report mismatches and totals. The files'
reader (load_perft_file, load_perft_suites) is the one the tests use too.

    python scripts/perft_suites.py                     # all depths listed (long: D6-D8 counts)
    python scripts/perft_suites.py --max-nodes 1e8     # skip counts above 10^8 leaves
"""
import os
import re
import sys
import time
from pathlib import Path
from typing import Dict, List, NamedTuple

import click

from engine.board import Board

# The repository's data/ folder (see its README), unless TWOBIG_DATA names another one.
DATA_DIR = Path(os.environ.get("TWOBIG_DATA")
                or Path(__file__).resolve().parent.parent / "data")
PERFT_FILES = ("perft_cpw_standard6.epd", "perftsuite.epd", "perft_stress_whittington.epd",
               "perft_double_checks_ferdy.epd")

_DEPTH_FIELD = re.compile(r"^D(\d+)\s+(\d+)$")


class PerftCase(NamedTuple):
    fen: str
    counts: Dict[int, int]   # depth -> leaf count
    source: str              # "file:line"


def load_perft_file(path) -> List[PerftCase]:
    """Parse lines `FEN ;D1 n ;D2 n ...` (also `; D1 n`, CRLF, `id "..."` fields)."""
    path = Path(path)
    cases = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.replace("\x00", "").strip()  # some files end lines with NUL bytes
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";")]
        counts = {}
        for field in fields[1:]:
            match = _DEPTH_FIELD.match(field)
            if match:
                counts[int(match.group(1))] = int(match.group(2))
        cases.append(PerftCase(" ".join(fields[0].split()), counts, f"{path.name}:{lineno}"))
    return cases


def load_perft_suites(data_dir=DATA_DIR) -> List[PerftCase]:
    cases = []
    for name in PERFT_FILES:
        cases.extend(load_perft_file(Path(data_dir) / "perft" / name))
    return cases


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
