#!/usr/bin/env python3
"""How each engine of a match spends its clock: the mean seconds a move, per block of moves
counted from the end of the opening, read from the PGN's `[%clk]` comments (scripts/match.py
writes the mover's clock after each move of a timed game).

A move's time is the clock before it plus the increment minus the clock after it, so the
pipe and the referee's own delays are included, as the game's clock counts them.

    python -m lab.matches.time_usage --pgn games.pgn --inc 0.1 [--block 10] [--blocks 8]

`--lowest SECONDS` reports instead how near each engine came to losing on time: per engine,
the lowest clock it had in each game, summarised (games, those below SECONDS, the median
game's lowest, the lowest of all). `--stalls SECONDS --inc INC [--below CLOCK]` counts
the moves each engine made with under CLOCK seconds on its clock (default 1) and lists
those that took more than SECONDS: the stalls a low clock has to survive.

`--depths` reads cutechess-cli's move comments instead (`{+0.32/18 2.1s}`: the mover's
score, depth and seconds; `{book}` for book moves, left out) and reports, per engine and
phase (lab.matches.loss_profile's phases: the opening plies, then the non-pawn material
on the board before the move), the moves, their mean depth and their mean seconds.
"""
import re
import statistics
from collections import defaultdict
from typing import Dict, Iterator, List, Optional, Tuple

import chess.pgn
import click

from lab.matches.loss_profile import PHASES, non_pawn_material, phase_of

# cutechess-cli's comment of a searched move: score (pawns, or M<n> for a mate), depth, seconds.
CUTECHESS_COMMENT = re.compile(r"^([+-]?)(M?)(\d+(?:\.\d+)?)/(\d+) (\d+(?:\.\d+)?)s")
MATE_PAWNS = 100.0   # a mate's score, in pawns, when scores are compared


def cutechess_comment(comment: str) -> Optional[Tuple[float, int, float]]:
    """(the mover's score in pawns, depth, seconds) of a cutechess-cli move comment such as
    `+0.32/18 2.1s` or `-M5/20 0.6s` (a mate: +-MATE_PAWNS); None for `book` or any other."""
    found = CUTECHESS_COMMENT.match(comment.strip())
    if not found:
        return None
    sign, mate, value, depth, seconds = found.groups()
    score = MATE_PAWNS if mate else float(value)
    return (-score if sign == "-" else score), int(depth), float(seconds)


def move_times(game: chess.pgn.Game, inc: float) -> Dict[str, List[float]]:
    """Seconds each player spent on each of its moves (in order), from the clocks. A move
    without a clock comment, and the first move of a player (no clock before it unless the
    time control says), are skipped."""
    spent: Dict[str, List[float]] = defaultdict(list)
    for name, _, seconds in timed_moves(game, inc):
        spent[name].append(seconds)
    return spent


def timed_moves(game: chess.pgn.Game, inc: float) -> Iterator[Tuple[str, float, float]]:
    """(player, clock before the move, seconds spent on it) for each move that has a clock
    comment and a clock before it, in order."""
    base = _base_seconds(game.headers.get("TimeControl", ""))
    for name, before, after in _clocked_moves(game, base):
        if before is not None:
            yield name, before, before + inc - after


def _clocked_moves(game: chess.pgn.Game,
                   base: Optional[float]) -> Iterator[Tuple[str, Optional[float], float]]:
    """(player, its clock before the move or None, its clock after) for each move with a
    clock comment, in order; a player's first move starts from `base`."""
    names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
    before: Dict[bool, Optional[float]] = {chess.WHITE: base, chess.BLACK: base}
    for node in game.mainline():
        mover = not node.turn()
        clock = node.clock()
        if clock is None:
            continue
        yield names[mover], before[mover], clock
        before[mover] = clock


def slow_low_clock_moves(pgn_path: str, inc: float, below: float,
                         slower_than: float) -> Dict[str, Tuple[int, List[Tuple[float, float]]]]:
    """Per engine: how many moves it made with under `below` seconds on its clock, and
    (clock before, seconds spent) for each of those that took more than `slower_than`,
    slowest first: the stalls a low clock has to survive."""
    counts: Dict[str, int] = defaultdict(int)
    slow: Dict[str, List[Tuple[float, float]]] = defaultdict(list)
    for game in read_games(pgn_path):
        for name, clock, seconds in timed_moves(game, inc):
            if clock < below:
                counts[name] += 1
                if seconds > slower_than:
                    slow[name].append((clock, seconds))
    return {name: (counts[name], sorted(slow[name], key=lambda m: -m[1])) for name in counts}


def _base_seconds(time_control: str) -> Optional[float]:
    """The base time of a "base+inc" TimeControl tag, None if there is none."""
    try:
        return float(time_control.split("+")[0])
    except ValueError:
        return None


def read_games(pgn_path: str):
    with open(pgn_path, encoding="utf-8", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            yield game


def lowest_clocks(pgn_path: str) -> Dict[str, List[float]]:
    """Per engine, the lowest clock (seconds) it had after any of its moves, one per game
    that has clock comments for it."""
    lowest: Dict[str, List[float]] = defaultdict(list)
    for game in read_games(pgn_path):
        least: Dict[str, float] = {}
        for name, _, clock in _clocked_moves(game, None):
            least[name] = min(clock, least.get(name, clock))
        for name, clock in least.items():
            lowest[name].append(clock)
    return lowest


def reported_moves(game: chess.pgn.Game) -> Iterator[Tuple[str, str, int, float]]:
    """(player, phase, depth, seconds) of each move whose comment is cutechess-cli's
    `score/depth seconds`s`, in order; the phase is that of the position before the move."""
    names = {chess.WHITE: game.headers.get("White", "?"), chess.BLACK: game.headers.get("Black", "?")}
    board = game.board()
    for ply, node in enumerate(game.mainline()):
        found = cutechess_comment(node.comment)
        if found:
            _, depth, seconds = found
            yield names[board.turn], phase_of(ply, non_pawn_material(board)), depth, seconds
        board.push(node.move)


def depth_table(pgn_path: str) -> Dict[Tuple[str, str], Tuple[int, float, float]]:
    """(player, phase) -> (moves, mean depth, mean seconds) over the file's reported moves."""
    sums: Dict[Tuple[str, str], List[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for game in read_games(pgn_path):
        for name, phase, depth, seconds in reported_moves(game):
            entry = sums[(name, phase)]
            entry[0] += 1
            entry[1] += depth
            entry[2] += seconds
    return {key: (int(n), depth / n, seconds / n) for key, (n, depth, seconds) in sums.items()}


def usage_table(pgn_path: str, inc: float, block: int, blocks: int) -> Dict[str, List[float]]:
    """Per engine, the mean seconds a move in each block of `block` moves (NaN-free: a block
    no game reached is left out at the end)."""
    sums: Dict[str, List[float]] = defaultdict(lambda: [0.0] * blocks)
    counts: Dict[str, List[int]] = defaultdict(lambda: [0] * blocks)
    for game in read_games(pgn_path):
        for name, times in move_times(game, inc).items():
            for number, seconds in enumerate(times):
                k = number // block
                if k < blocks:
                    sums[name][k] += seconds
                    counts[name][k] += 1
    table = {}
    for name in sums:
        reached = [k for k in range(blocks) if counts[name][k]]
        table[name] = [sums[name][k] / counts[name][k] for k in range(max(reached) + 1)] if reached else []
    return table


@click.command()
@click.option("--pgn", "pgn_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--inc", default=0.0, show_default=True, help="Increment in seconds.")
@click.option("--block", default=10, show_default=True, help="Moves per block.")
@click.option("--blocks", default=8, show_default=True)
@click.option("--lowest", type=float, default=None,
              help="Report each engine's lowest clock per game, counting games below this.")
@click.option("--stalls", type=float, default=None,
              help="Report the moves made with under --below seconds on the clock that took "
                   "more than this many seconds (needs --inc).")
@click.option("--below", type=float, default=1.0, show_default=True)
@click.option("--depths", is_flag=True,
              help="Report moves, mean depth and mean seconds per engine and phase from "
                   "cutechess-cli's move comments.")
def main(pgn_path, inc, block, blocks, lowest, stalls, below, depths):
    if depths:
        table = depth_table(pgn_path)
        click.echo("| engine | " + " | ".join(PHASES) + " |")
        click.echo("|---" * (len(PHASES) + 1) + "|")
        for name in sorted({name for name, _ in table}):
            cells = [(f"{table[(name, phase)][1]:.1f} plies, {table[(name, phase)][2]:.2f} s "
                      f"({table[(name, phase)][0]:,})") if (name, phase) in table else "-"
                     for phase in PHASES]
            click.echo(f"| {name} | " + " | ".join(cells) + " |")
        return
    if stalls is not None:
        click.echo(f"| engine | moves under {below:g} s on the clock | those over {stalls:g} s "
                   "| slowest (clock before, seconds) |")
        click.echo("|---|---|---|---|")
        for name, (count, slow) in slow_low_clock_moves(pgn_path, inc, below, stalls).items():
            shown = ", ".join(f"({clock:.3f}, {seconds:.3f})" for clock, seconds in slow[:5])
            click.echo(f"| {name} | {count} | {len(slow)} | {shown or '-'} |")
        return
    if lowest is not None:
        click.echo(f"| engine | games | lowest clock under {lowest:g} s | median game's lowest | lowest |")
        click.echo("|---|---|---|---|---|")
        for name, clocks in lowest_clocks(pgn_path).items():
            click.echo(f"| {name} | {len(clocks)} | {sum(c < lowest for c in clocks)} | "
                       f"{statistics.median(clocks):.3f} | {min(clocks):.3f} |")
        return
    table = usage_table(pgn_path, inc, block, blocks)
    width = max((len(b) for b in table.values()), default=0)
    click.echo("| engine | " + " | ".join(f"moves {k * block + 1}-{(k + 1) * block}"
                                         for k in range(width)) + " |")
    click.echo("|---" * (width + 1) + "|")
    for name, means in table.items():
        click.echo(f"| {name} | " + " | ".join(f"{m:.3f}" for m in means)
                   + " |" * (1 + width - len(means)))


if __name__ == "__main__":
    main()
