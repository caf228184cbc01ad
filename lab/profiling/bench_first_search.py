#!/usr/bin/env python3
"""Nodes per second of the first searches after `readyok`, as a GUI meets them: a fresh
engine process, `isready`, then the same `go movetime` search several times from the start
position (a new game each time, so no search reuses the last one's table). The first should
run as fast as the later ones: everything it needs is loaded and in memory before `readyok`.

    python -m lab.profiling.bench_first_search [--movetime 1000] [--searches 3] [--engine CMD]
"""
import argparse
import shlex
import sys
import time
from pathlib import Path

import chess
import chess.engine

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--movetime", type=int, default=1000, help="milliseconds per search")
    parser.add_argument("--searches", type=int, default=3)
    parser.add_argument("--engine", default=f"{sys.executable} {ROOT / 'uci_main.py'}")
    args = parser.parse_args()
    started = time.perf_counter()
    engine = chess.engine.SimpleEngine.popen_uci(shlex.split(args.engine), timeout=600)
    engine.ping()                                   # isready -> readyok
    print(f"readyok after {time.perf_counter() - started:.2f} s")
    print("| search | depth | nodes | nodes/s |")
    print("|---|---|---|---|")
    try:
        for number in range(1, args.searches + 1):
            info = engine.analyse(chess.Board(), chess.engine.Limit(time=args.movetime / 1000),
                                  game=object())
            nps = info.get("nodes", 0) / max(info.get("time", 1e-3), 1e-3)
            print(f"| {number} | {info.get('depth')} | {info.get('nodes')} | {nps:,.0f} |")
    finally:
        engine.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
