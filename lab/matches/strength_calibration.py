"""Calibrate `UCI_Elo`: matches of TwoBig at fixed settings against Stockfish's `UCI_Elo`
ladder (and against each other, below the ladder's lowest rung), then one rating per
setting by maximum likelihood with Stockfish's settings as fixed anchors.

    python -m lab.matches.strength_calibration run --out calib --seconds 480   # the pairings below
    python -m lab.matches.strength_calibration fit calib/*.pgn

`run` starts every pairing of PAIRINGS (or --pairings) at once, each as a scripts/match.py
process with --concurrency games at a time, and stops them after --seconds;
their PGNs are written game by game. `fit` reads the players' names: "TwoBig-E<elo>" is
TwoBig at `UCI_Elo` <elo> (its level under engine.strength's table of that commit),
"SF<elo>" is Stockfish 15.1 at that `UCI_Elo`, an anchor. Draws count half.
"""
import argparse
import math
import re
import shlex
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[2]
TC = "10+0.1"
# (TwoBig's UCI_Elo, opponent): an int opponent is Stockfish at that UCI_Elo, a string
# "E<elo>" another TwoBig setting (for the settings below Stockfish's lowest, 1350).
PAIRINGS = (
    (600, "E1400"), (1000, "E1400"),
    (1400, 1350), (1400, 1600),
    (1900, 1800), (1900, 2100),
    (2150, 2100), (2150, 2400),
)
STOCKFISH_ELO_MIN = 1350
MAX_STEP = 100.0          # Elo per step of the rating fit


def twobig_command(python: str) -> str:
    return f"{python} {ROOT / 'uci_main.py'}"


def parse_pairings(text: str):
    """"1400:SF1350,600:E1400" -> ((1400, 1350), (600, "E1400"))."""
    out = []
    for item in text.split(","):
        mine, other = item.split(":")
        out.append((int(mine), int(other[2:]) if other.startswith("SF") else other))
    return tuple(out)


def match_command(python: str, stockfish: str, mine: int, other, pgn: Path, seed: int,
                  concurrency: int = 2) -> List[str]:
    args = [python, str(ROOT / "scripts" / "match.py"),
            "--engine1", twobig_command(python), "--name1", f"TwoBig-E{mine}",
            "--option1", "Hash=16", "--option1", "UCI_LimitStrength=true", "--option1", f"UCI_Elo={mine}",
            "--games", "1000", "--tc", TC, "--concurrency", str(concurrency), "--seed", str(seed),
            "--draw-adjudication", "40", "8", "10", "--resign-adjudication", "4", "700",
            "--pgn", str(pgn)]
    if isinstance(other, int):
        args += ["--engine2", stockfish, "--name2", f"SF{other}", "--option2", "Threads=1",
                 "--option2", "Hash=16", "--option2", "UCI_LimitStrength=true",
                 "--option2", f"UCI_Elo={other}"]
    else:
        elo = int(other[1:])
        args += ["--engine2", twobig_command(python), "--name2", f"TwoBig-E{elo}",
                 "--option2", "Hash=16", "--option2", "UCI_LimitStrength=true",
                 "--option2", f"UCI_Elo={elo}"]
    return args


def run(out: Path, seconds: float, python: str, stockfish: str, pairings=PAIRINGS,
        concurrency: int = 2) -> None:
    out.mkdir(parents=True, exist_ok=True)
    processes = []
    for seed, (mine, other) in enumerate(pairings, 1):
        pgn = out / f"E{mine}_vs_{other if isinstance(other, str) else f'SF{other}'}.pgn"
        log = open(out / (pgn.stem + ".log"), "w")
        command = match_command(python, stockfish, mine, other, pgn, seed, concurrency)
        print(" ".join(shlex.quote(a) for a in command), flush=True)
        processes.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(p.poll() is None for p in processes):
        time.sleep(2)
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def read_results(paths: List[Path], keep_forfeits: bool = False) -> List[Tuple[str, str, float]]:
    """(white, black, white's points) of every finished game; games lost on time are left
    out unless asked for (on a loaded machine they measure the machine, not the play)."""
    games = []
    for path in paths:
        for text in path.read_text().split("[Event ")[1:]:
            tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', text))
            points = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(tags.get("Result"))
            if points is None or "White" not in tags or "Black" not in tags:
                continue
            if tags.get("Termination") == "time forfeit" and not keep_forfeits:
                continue
            games.append((tags["White"], tags["Black"], points))
    return games


def anchor_elo(name: str):
    found = re.fullmatch(r"SF(\d+)", name)
    return int(found.group(1)) if found else None


def fit_ratings(games, iterations: int = 300) -> Dict[str, float]:
    """Ratings maximising the logistic (Elo) likelihood of the games, draws as half points,
    with the anchors held at their names' values: per player a Newton step on the
    log-likelihood, limited to MAX_STEP Elo, repeated until it settles."""
    scale = math.log(10) / 400.0
    players = sorted({p for g in games for p in g[:2]})
    rating = {p: float(anchor_elo(p) or 1500) for p in players}
    for _ in range(iterations):
        surplus, information = defaultdict(float), defaultdict(float)
        for white, black, points in games:
            expected = 1.0 / (1.0 + 10 ** ((rating[black] - rating[white]) / 400.0))
            surplus[white] += points - expected
            surplus[black] -= points - expected
            information[white] += expected * (1 - expected)
            information[black] += expected * (1 - expected)
        for player in players:
            if anchor_elo(player) is None and information[player] > 0:
                step = surplus[player] / (scale * information[player])
                rating[player] += max(-MAX_STEP, min(MAX_STEP, step))
    return rating


def intervals(games, rating) -> Dict[str, float]:
    """Half the 95% interval of every non-anchor rating, from the inverse of the Fisher
    information of all games together: a setting measured only against another setting
    carries that setting's uncertainty too."""
    import numpy as np

    scale = math.log(10) / 400.0
    free = [p for p in sorted(rating) if anchor_elo(p) is None]
    index = {p: i for i, p in enumerate(free)}
    information = np.zeros((len(free), len(free)))
    for white, black, _ in games:
        expected = 1.0 / (1.0 + 10 ** ((rating[black] - rating[white]) / 400.0))
        weight = scale * scale * expected * (1 - expected)
        for a, b in ((white, black), (black, white)):
            if a in index:
                information[index[a], index[a]] += weight
                if b in index:
                    information[index[a], index[b]] -= weight
    try:
        covariance = np.linalg.inv(information)
    except np.linalg.LinAlgError:
        return {p: float("inf") for p in free}
    return {p: 1.96 * math.sqrt(max(covariance[i, i], 0.0)) for p, i in index.items()}


def fit(paths: List[Path], keep_forfeits: bool = False) -> None:
    games = read_results(paths, keep_forfeits)
    rating = fit_ratings(games)
    spread_of = intervals(games, rating)
    print(f"{len(games)} games")
    print("| player | games | score | rating | 95% interval |")
    print("|---|---|---|---|---|")
    for player in sorted(rating, key=lambda p: rating[p]):
        mine = [g for g in games if player in g[:2]]
        points = sum(g[2] if g[0] == player else 1 - g[2] for g in mine)
        anchor = anchor_elo(player) is not None
        spread = "anchor" if anchor else f"+/- {spread_of[player]:.0f}"
        print(f"| {player} | {len(mine)} | {points:.1f} | {rating[player]:.0f} | {spread} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run")
    run_parser.add_argument("--out", type=Path, required=True)
    run_parser.add_argument("--seconds", type=float, default=480)
    run_parser.add_argument("--python", default=sys.executable)
    run_parser.add_argument("--stockfish", default="/usr/games/stockfish")
    run_parser.add_argument("--pairings", default=None,
                            help='a subset, e.g. "1400:SF1350,600:E1400" (default: PAIRINGS)')
    run_parser.add_argument("--concurrency", type=int, default=2, help="games at once per pairing")
    fit_parser = commands.add_parser("fit")
    fit_parser.add_argument("pgn", nargs="+", type=Path)
    fit_parser.add_argument("--keep-forfeits", action="store_true",
                            help="count games lost on time (left out by default)")
    args = parser.parse_args(argv)
    if args.command == "run":
        pairings = parse_pairings(args.pairings) if args.pairings else PAIRINGS
        run(args.out, args.seconds, args.python, args.stockfish, pairings, args.concurrency)
    else:
        fit(args.pgn, args.keep_forfeits)
    return 0


if __name__ == "__main__":
    sys.exit(main())
