#!/usr/bin/env python3
"""The speed table of `make bench`: each figure beside the other engine's, measured in the
same run on this machine, with the ratio and the target.

    python scripts/bench.py [--seconds 5] [--no-cold] [--toga /usr/games/toga2]
                            [--stockfish /usr/games/stockfish]

Rows:
  nodes/s in an opening, a middle game and an endgame position: TwoBig against Toga II 3.0
      (`go movetime`, one thread, 16 MB each, the order alternating per position);
  perft 6 from the start position through `go perft`: TwoBig against Stockfish, the
      faster of two runs each (order A B B A);
  nodes/s with Threads 2 against Threads 1 (TwoBig alone, the middle-game position);
  the first search after `readyok` against the third (nodes/s; the pages and kernels a
      search touches must be loaded before `readyok`);
  `go movetime 1000`: the milliseconds until `bestmove`;
  the warm start (process start to `readyok`, the best of three) and the first start
      (an empty numba cache to `readyok`; left out with --no-cold).
A figure holds for the machine it was measured on only; the CPU model heads the table.
An engine that is not installed leaves its rows out (with a line saying so).
"""
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

ROOT = Path(__file__).resolve().parent.parent
TWOBIG = [sys.executable, str(ROOT / "uci_main.py")]

PHASES = [
    ("opening", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
    ("middle game", "r1bq1rk1/2p1bppp/p1np1n2/1p2p3/4P3/1BPP1N2/PP3PPP/RNBQR1K1 w - - 0 9"),
    ("endgame", "8/1p3pk1/p1r3p1/8/P2R4/6P1/1P3PK1/8 w - - 0 40"),
]
PERFT_DEPTH = 6
MOVETIME_MS = 1000

# Targets: (comparison, value); a ratio row compares TwoBig / the other figure.
NODES_TARGET = (">=", 1.0)
PERFT_TARGET = (">=", 1.0)
THREADS_TARGET = (">=", 1.8)
FIRST_SEARCH_TARGET = (">=", 0.9)
WARM_TARGET = ("<", 0.5)
COLD_TARGET = ("<", 40.0)


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux) and the core count."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{name}, {os.cpu_count()} logical cores"


class Uci:
    """A UCI engine on pipes, driven line by line (python-chess has no `go perft`)."""

    def __init__(self, command, options=(), env=None):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env)
        self.send("uci")
        self.until(lambda line: line == "uciok")
        for name, value in options:
            self.send(f"setoption name {name} value {value}")
        self.ready()

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, done):
        """Lines up to and including the first for which done(line) holds."""
        lines = []
        for raw in self.proc.stdout:
            line = raw.strip()
            lines.append(line)
            if done(line):
                return lines
        raise RuntimeError(f"engine ended before answering: {lines[-5:]}")

    def ready(self):
        self.send("isready")
        self.until(lambda line: line == "readyok")
        return time.perf_counter() - self.started

    def search(self, fen, movetime_ms):
        """(nodes, nodes/s, milliseconds to bestmove) of one fixed-time search; nodes/s from
        the engine's last info line with nodes and time."""
        self.send("ucinewgame")
        self.ready()
        self.send(f"position fen {fen}")
        start = time.perf_counter()
        self.send(f"go movetime {movetime_ms}")
        lines = self.until(lambda line: line.startswith("bestmove"))
        elapsed = (time.perf_counter() - start) * 1000
        nodes, ms = 0, 1
        for line in lines:
            words = line.split()
            if "nodes" in words and "time" in words:
                nodes = int(words[words.index("nodes") + 1])
                ms = max(1, int(words[words.index("time") + 1]))
        return nodes, nodes * 1000 // ms, elapsed

    def perft(self, depth):
        """(leaves, leaves/s) of `go perft depth` from the start position, timed here."""
        self.send("position startpos")
        self.ready()
        start = time.perf_counter()
        self.send(f"go perft {depth}")
        lines = self.until(lambda line: line.startswith("Nodes searched"))
        seconds = time.perf_counter() - start
        leaves = int(lines[-1].split(":")[1])
        return leaves, leaves / seconds

    def quit(self):
        self.send("quit")
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def one_thread(command):
    return [("Threads", 1), ("Hash", 16)] if "toga2" not in command[0] else \
        [("Number of Threads", 1), ("Hash", 16)]


def nodes_per_second(command, fen, seconds, extra=()):
    engine = Uci(command, list(one_thread(command)) + list(extra))
    try:
        return engine.search(fen, int(seconds * 1000))[1]
    finally:
        engine.quit()


def start_seconds(cache_dir=None) -> float:
    env = dict(os.environ)
    if cache_dir:
        env["TWOBIG_CACHE_DIR"] = cache_dir
    engine = Uci(TWOBIG, env=env)
    seconds = engine.ready()
    engine.quit()
    return seconds


def first_and_third_search(fen, movetime_ms):
    """nodes/s of the first and the third search of a fresh TwoBig after `readyok`."""
    engine = Uci(TWOBIG, one_thread(TWOBIG))
    try:
        speeds = [engine.search(fen, movetime_ms)[1] for _ in range(3)]
    finally:
        engine.quit()
    return speeds[0], speeds[2]


def met(value, target) -> str:
    comparison, bound = target
    ok = value >= bound if comparison == ">=" else value < bound
    return "yes" if ok else "**no**"


def row(figure, mine, other_name, other, value, target, ratio=True):
    """One line of the table; `value` (the ratio, or TwoBig's own figure where there is no
    other engine) is what the target applies to."""
    comparison, bound = target
    ratio_cell = f"{value:.2f}" if ratio else ""
    click.echo(f"| {figure} | {mine} | {other_name} | {other} | {ratio_cell} | "
               f"{comparison} {bound:g} | {met(value, target)} |")


@click.command()
@click.option("--seconds", default=5.0, show_default=True, help="Seconds per nodes/s search.")
@click.option("--cold/--no-cold", default=True, show_default=True,
              help="Measure the first start into an empty numba cache (compiles everything).")
@click.option("--toga", default=shutil.which("toga2") or "/usr/games/toga2", show_default=True)
@click.option("--stockfish", default=shutil.which("stockfish") or "/usr/games/stockfish",
              show_default=True)
def main(seconds, cold, toga, stockfish):
    click.echo(f"CPU: {cpu_model()}; Python {platform.python_version()}; "
               f"{time.strftime('%Y-%m-%d %H:%M')}\n")
    click.echo("| figure | TwoBig | other | other's figure | ratio | target | met |")
    click.echo("|---|---|---|---|---|---|---|")
    missing = []
    toga_cmd = shlex.split(toga)
    if Path(toga_cmd[0]).exists():
        for number, (phase, fen) in enumerate(PHASES):
            order = [TWOBIG, toga_cmd] if number % 2 == 0 else [toga_cmd, TWOBIG]
            speeds = {tuple(cmd): nodes_per_second(cmd, fen, seconds) for cmd in order}
            mine, theirs = speeds[tuple(TWOBIG)], speeds[tuple(toga_cmd)]
            row(f"nodes/s, {phase}", f"{mine:,}", "Toga II 3.0", f"{theirs:,}",
                mine / max(1, theirs), NODES_TARGET)
    else:
        missing.append(f"Toga II ({toga})")
    stockfish_cmd = shlex.split(stockfish)
    if Path(stockfish_cmd[0]).exists():
        # A perft takes half a second, so one run of each can swing by a fifth: the faster
        # of two for each engine, in the order A B B A.
        results = {tuple(TWOBIG): [], tuple(stockfish_cmd): []}
        for cmd in (TWOBIG, stockfish_cmd, stockfish_cmd, TWOBIG):
            engine = Uci(cmd, one_thread(cmd))
            try:
                results[tuple(cmd)].append(engine.perft(PERFT_DEPTH))
            finally:
                engine.quit()
        (leaves, mine), (their_leaves, theirs) = (max(results[tuple(TWOBIG)], key=lambda r: r[1]),
                                                  max(results[tuple(stockfish_cmd)],
                                                      key=lambda r: r[1]))
        assert leaves == their_leaves, (leaves, their_leaves)
        row(f"perft {PERFT_DEPTH} leaves/s", f"{mine / 1e6:.0f} M", "Stockfish",
            f"{theirs / 1e6:.0f} M", mine / theirs, PERFT_TARGET)
    else:
        missing.append(f"Stockfish ({stockfish})")
    middle = PHASES[1][1]
    single = nodes_per_second(TWOBIG, middle, seconds)
    double = nodes_per_second(TWOBIG, middle, seconds, extra=[("Threads", 2)])
    row("nodes/s, Threads 2", f"{double:,}", "TwoBig, Threads 1", f"{single:,}",
        double / max(1, single), THREADS_TARGET)
    first, third = first_and_third_search(middle, MOVETIME_MS)
    row("nodes/s, first search after readyok", f"{first:,}", "TwoBig, third search",
        f"{third:,}", first / max(1, third), FIRST_SEARCH_TARGET)
    engine = Uci(TWOBIG, one_thread(TWOBIG))
    try:
        spent = engine.search(middle, MOVETIME_MS)[2]
    finally:
        engine.quit()
    row(f"go movetime {MOVETIME_MS}: ms to bestmove", f"{spent:.0f}", "", "", spent,
        (">=", MOVETIME_MS * 0.9), ratio=False)
    warm = min(start_seconds() for _ in range(3))
    row("warm start to readyok, s", f"{warm:.2f}", "", "", warm, WARM_TARGET, ratio=False)
    if cold:
        with tempfile.TemporaryDirectory() as empty:
            first_start = start_seconds(empty)
        row("first start (empty cache) to readyok, s", f"{first_start:.1f}", "", "",
            first_start, COLD_TARGET, ratio=False)
    for name in missing:
        click.echo(f"\n{name} is not installed: its rows are left out (`make opponents`).")


if __name__ == "__main__":
    sys.exit(main())
