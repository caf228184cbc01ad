#!/usr/bin/env python3
"""Play a match between two UCI (or xboard) engines with python-chess as the referee.

    python scripts/match.py --engine1 ".venv/bin/twobig" --engine2 "stockfish" \\
        --option2 UCI_LimitStrength=true --option2 UCI_Elo=1500 \\
        --games 100 --tc 10+0.1 --concurrency 1 --pgn out.pgn
    python scripts/match.py ... --sprt --elo0 0 --elo1 10     # stop when the SPRT decides
    python scripts/match.py ... --engine2 /usr/games/phalanx --protocol2 xboard

Openings come from data/books (8moves_v3.pgn or noob_3moves.epd), each played
with both colours. Games end by python-chess's rules (mate, stalemate, threefold
repetition, 50 moves, insufficient material), by a time forfeit, an illegal move, a crash
or a stall (no answer within the clock plus --stall-margin); these are counted per engine.
Optional adjudication by the engines' own scores saves time in decided or dead-drawn games,
with the meaning cutechess-cli gives its options (`-draw movenumber=40 movecount=8 score=10
-resign movecount=4 score=700` is `--draw-adjudication 40 8 10 --resign-adjudication 4 700`).
Results: W/D/L, score, Elo difference with a 95% interval, LOS, and the SPRT log-likelihood
ratio when --sprt is given.
"""
import logging
import math
import os
import random
import shlex
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import click

from engine.uci import freeze_heap

ROOT = Path(__file__).resolve().parent.parent
# The opening books: data/books, or the books of the data folder TWOBIG_DATA names.
BOOKS = Path(os.environ.get("TWOBIG_DATA") or ROOT / "data") / "books"


@dataclass
class Tally:
    wins: int = 0        # engine 1's point of view
    draws: int = 0
    losses: int = 0
    faults: dict = field(default_factory=dict)   # (engine, kind) -> count

    @property
    def games(self):
        return self.wins + self.draws + self.losses

    def fault(self, engine, kind):
        self.faults[(engine, kind)] = self.faults.get((engine, kind), 0) + 1


def elo_from_score(score: float) -> float:
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0" for an even score


def elo_summary(w: int, d: int, l: int):
    """(elo, lower, upper, los) with a 95% interval from the trinomial variance."""
    n = w + d + l
    if n == 0:
        return 0.0, 0.0, 0.0, 0.5
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * (0 - s) ** 2) / n
    se = math.sqrt(var / n) if n > 1 else 0.5
    los = 0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l)))) if w + l else 0.5
    return elo_from_score(s), elo_from_score(s - 1.96 * se), elo_from_score(s + 1.96 * se), los


def sprt_llr(w: int, d: int, l: int, elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of H1 (elo1) against H0 (elo0), normal approximation of the
    trinomial (as used by fishtest's GSPRT)."""
    n = w + d + l
    if n == 0 or w + l == 0:
        return 0.0
    s = (w + 0.5 * d) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * (0 - s) ** 2) / n
    if var <= 0:
        return 0.0
    s0 = 1 / (1 + 10 ** (-elo0 / 400))
    s1 = 1 / (1 + 10 ** (-elo1 / 400))
    return n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def load_openings(book: str, count: int, seed: int):
    import chess
    import chess.pgn
    path = Path(book)
    if not path.exists():
        path = BOOKS / book
    rng = random.Random(seed)
    openings = []
    if path.suffix == ".epd":
        lines = [l for l in path.read_text().splitlines() if l.strip()]
        for line in rng.sample(lines, min(count, len(lines))):
            # noob_3moves.epd holds full FENs (move counters, no opcodes), which from_epd
            # rejects; a true EPD line (four fields, opcodes) still goes through from_epd
            fields = line.split()
            if len(fields) == 6 and fields[4].isdigit() and fields[5].isdigit():
                board = chess.Board(line)
            else:
                board, _ = chess.Board.from_epd(line)
            openings.append((board.fen(), []))
    else:
        games = []
        with open(path) as handle:
            while len(games) < 5000:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                games.append(game)
        for game in rng.sample(games, min(count, len(games))):
            openings.append((game.board().fen(), list(game.mainline_moves())))
    return openings


def parse_tc(tc: str):
    """(base, increment) in seconds; "inf" (cutechess-cli's word) gives (None, 0): no clock,
    each move limited only by --nodes / --depth and guarded by --move-timeout."""
    if tc.strip().lower() == "inf":
        return None, 0.0
    base, _, inc = tc.partition("+")
    return float(base), float(inc or 0)


class Adjudicator:
    """Ends a game early by the scores the engines report with their moves.

    Draw (move_number, move_count, score): once `move_number` full moves are on the board,
    the game is drawn when the last 2 x `move_count` moves (both engines' moves, one after
    another) were each reported within `score` centipawns of 0.
    Resignation (move_count, score): an engine whose last `move_count` moves each reported
    `score` centipawns or more against itself loses.
    A move without a score (no search reported one) breaks every run, as in cutechess-cli.
    Mate scores count as far beyond any threshold.
    """

    MATE_CP = 100_000

    def __init__(self, draw=None, resign=None):
        self.draw = draw
        self.resign = resign
        self.draw_run = 0
        self.resign_runs = {True: 0, False: 0}   # chess.WHITE / chess.BLACK

    def add(self, board, side, score):
        """Record the move `side` just played (now on `board`) with its reported score
        (a chess.engine.PovScore or None); return "1-0", "0-1", "1/2-1/2" or None."""
        if score is None:
            self.draw_run = 0
            self.resign_runs[side] = 0
            return None
        cp = score.pov(side).score(mate_score=self.MATE_CP)
        if self.draw is not None:
            move_number, move_count, threshold = self.draw
            self.draw_run = self.draw_run + 1 if abs(cp) <= threshold else 0
            if board.ply() // 2 >= move_number and self.draw_run >= 2 * move_count:
                return "1/2-1/2"
        if self.resign is not None:
            move_count, threshold = self.resign
            self.resign_runs[side] = self.resign_runs[side] + 1 if cp <= -threshold else 0
            if self.resign_runs[side] >= move_count:
                return "0-1" if side else "1-0"   # side True is white: white resigns
        return None


class Player:
    def __init__(self, name, command, options, protocol="uci"):
        import chess.engine
        self.name = name
        self.protocol = protocol
        popen = (chess.engine.SimpleEngine.popen_xboard if protocol == "xboard"
                 else chess.engine.SimpleEngine.popen_uci)
        self.engine = popen(shlex.split(command), timeout=120)
        if options:
            self.engine.configure(options)
        # isready / readyok before any clock runs (what cutechess-cli does): an engine that
        # loads in the background must not pay for it on its first move.
        self.engine.ping()

    def close(self):
        try:
            self.engine.quit()
        except Exception:
            try:
                self.engine.close()
            except Exception:
                pass


def play_game(players, white_index, opening, tc, stall_margin, max_plies, nodes=None, depth=None,
              move_timeout=60.0, draw_rule=None, resign_rule=None):
    """One game; returns (result for engine 1 in {1, 0.5, 0}, pgn game, fault or None).
    `draw_rule` and `resign_rule` set the Adjudicator's rules (None: that rule is off).
    With an untimed control (base None) no clock is kept, so no move can lose on time: a
    node or depth limit per move makes the game independent of the machine's load."""
    import chess
    import chess.engine
    import chess.pgn
    fen, moves = opening
    board = chess.Board(fen)
    for move in moves:
        board.push(move)
    base, inc = tc
    clock = {chess.WHITE: base, chess.BLACK: base}
    order = {chess.WHITE: players[white_index], chess.BLACK: players[1 - white_index]}
    game = chess.pgn.Game.from_board(board)
    game.headers["White"] = order[chess.WHITE].name
    game.headers["Black"] = order[chess.BLACK].name
    game.headers["TimeControl"] = "-" if base is None else f"{base:g}+{inc:g}"
    for player in players:   # xboard engines get "new" from python-chess (game= below)
        if player.protocol == "uci":
            try:
                player.engine.protocol.send_line("ucinewgame")
            except Exception:
                pass
    node = game.end()
    fault = None
    result = None
    adjudicator = Adjudicator(draw_rule, resign_rule)
    while result is None:
        outcome = board.outcome(claim_draw=True)
        if outcome is not None:
            result = outcome.result()
            game.headers["Termination"] = outcome.termination.name.lower()
            break
        if board.ply() >= max_plies:
            result = "1/2-1/2"
            game.headers["Termination"] = "adjudication: move limit"
            break
        side = board.turn
        player = order[side]
        if base is None:
            limit = chess.engine.Limit(nodes=nodes, depth=depth)
            deadline = move_timeout
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=inc, black_inc=inc, nodes=nodes, depth=depth)
            deadline = clock[side] + stall_margin
        start = time.perf_counter()
        loser = "0-1" if side == chess.WHITE else "1-0"
        try:
            played = _play_with_deadline(player, board, limit, deadline, game,
                                         draw_rule is not None or resign_rule is not None)
            move = played.move
        except chess.engine.EngineTerminatedError:
            fault, result = (player.name, "crash"), loser
            break
        except chess.engine.EngineError:
            fault, result = (player.name, "illegal move or protocol error"), loser
            break
        except (TimeoutError, Exception):
            fault, result = (player.name, "stall"), loser
            break
        if base is not None:
            clock[side] -= time.perf_counter() - start
            if clock[side] < 0:
                fault, result = (player.name, "time forfeit"), loser
                break
            clock[side] += inc
        if move is None or move not in board.legal_moves:
            fault, result = (player.name, "illegal move"), loser
            break
        board.push(move)
        node = node.add_variation(move)
        if base is not None:   # the mover's clock after the move, as PGN's %clk command
            node.set_clock(clock[side])
        verdict = adjudicator.add(board, side, (played.info or {}).get("score"))
        if verdict is not None and board.outcome(claim_draw=True) is None:   # rules first
            result = verdict
            game.headers["Termination"] = ("adjudication: draw by score" if verdict == "1/2-1/2"
                                           else f"adjudication: {player.name} resigns by score")
    if fault:
        game.headers["Termination"] = fault[1]
    game.headers["Result"] = result
    score_white = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
    score_engine1 = score_white if white_index == 0 else 1.0 - score_white
    return score_engine1, game, fault


def _play_with_deadline(player, board, limit, seconds, game, want_score=False):
    """engine.play, but a stalled engine (no bestmove within `seconds`) raises TimeoutError
    and is killed (python-chess itself waits forever on a clock-only limit). With
    `want_score` the result's info carries the engine's last reported score."""
    import chess.engine
    box = {}
    info = chess.engine.INFO_SCORE if want_score else chess.engine.INFO_NONE

    def call():
        try:
            box["result"] = player.engine.play(board, limit, game=game, info=info)
        except Exception as exc:   # re-raised in the caller
            box["error"] = exc

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        player.close()
        raise TimeoutError(f"{player.name} stalled")
    if "error" in box:
        raise box["error"]
    return box["result"]


def _options(pairs):
    out = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        out[name] = value
    return out


@click.command()
@click.option("--engine1", required=True, help="Command line of engine 1 (TwoBig, say).")
@click.option("--engine2", required=True, help="Command line of engine 2.")
@click.option("--name1", default=None)
@click.option("--name2", default=None)
@click.option("--option1", multiple=True, help="NAME=VALUE UCI option for engine 1.")
@click.option("--option2", multiple=True, help="NAME=VALUE UCI option for engine 2.")
@click.option("--protocol1", type=click.Choice(["uci", "xboard"]), default="uci", show_default=True)
@click.option("--protocol2", type=click.Choice(["uci", "xboard"]), default="uci", show_default=True,
              help="xboard for CECP engines such as Phalanx.")
@click.option("--games", default=20, show_default=True, help="Games (rounded up to pairs).")
@click.option("--tc", default="10+0.1", show_default=True,
              help="Base seconds + increment, or inf (no clock; use --nodes or --depth).")
@click.option("--nodes", type=int, default=None, help="Node limit per move (go nodes).")
@click.option("--depth", type=int, default=None, help="Depth limit per move (go depth).")
@click.option("--move-timeout", default=60.0, show_default=True,
              help="Seconds a move may take under --tc inf before the engine counts as stalled.")
@click.option("--book", default="8moves_v3.pgn", show_default=True, help="Openings: PGN or EPD.")
@click.option("--seed", default=1, show_default=True)
@click.option("--skip-openings", default=0, show_default=True,
              help="Leave out the first N openings the seed picks: resumes a match that played "
                   "them (random.sample's first picks do not depend on how many are drawn).")
@click.option("--concurrency", default=1, show_default=True, help="Games played at once.")
@click.option("--pgn", "pgn_path", default=None, help="Write the games to this PGN file.")
@click.option("--stall-margin", default=5.0, show_default=True, help="Seconds past the clock.")
@click.option("--max-plies", default=400, show_default=True, help="Adjudicate a draw after.")
@click.option("--results", "results_path", default=None,
              help="Append the result as a Markdown table row (the README's gauntlet table) here.")
@click.option("--draw-adjudication", type=int, nargs=3, default=None,
              metavar="MOVENUMBER MOVECOUNT SCORE",
              help="Draw once MOVENUMBER full moves are played and both engines' last MOVECOUNT "
                   "moves each scored within SCORE cp of 0 (cutechess-cli's -draw); e.g. 40 8 10.")
@click.option("--resign-adjudication", type=int, nargs=2, default=None, metavar="MOVECOUNT SCORE",
              help="An engine whose last MOVECOUNT moves each scored SCORE cp or more against "
                   "itself loses (cutechess-cli's -resign); e.g. 4 700.")
@click.option("--sprt", is_flag=True, help="Stop as soon as the SPRT accepts a hypothesis.")
@click.option("--prior", type=int, nargs=3, default=None, metavar="WINS DRAWS LOSSES",
              help="Start the tally (and the SPRT) from these results of engine 1: with "
                   "--skip-openings, continues a stopped match as one test.")
@click.option("--elo0", default=0.0, show_default=True)
@click.option("--elo1", default=10.0, show_default=True)
@click.option("--alpha", default=0.05, show_default=True)
@click.option("--beta", default=0.05, show_default=True)
def main(engine1, engine2, name1, name2, option1, option2, protocol1, protocol2, games, tc, nodes, depth,
         move_timeout, book, seed, skip_openings, concurrency, pgn_path, stall_margin, max_plies,
         results_path, draw_adjudication, resign_adjudication, sprt, prior, elo0, elo1, alpha, beta):
    from tqdm import tqdm
    # xboard engines chat (Phalanx: "you play both", ...); python-chess logs each such line.
    logging.getLogger("chess.engine").setLevel(logging.ERROR)
    if parse_tc(tc)[0] is None and nodes is None and depth is None:
        raise click.UsageError("--tc inf needs --nodes or --depth")
    pairs = (games + 1) // 2
    openings = load_openings(book, skip_openings + pairs, seed)[skip_openings:]
    # The referee times a move around its own threads, so its own pauses are charged to the
    # engine on move. The parsed book is cyclic garbage (python-chess's game nodes point back
    # at their parents) that only a full collection frees, and Python ran one some 100 games
    # in, taking 0.4 s (README, "The referee's own pauses"): free it now, freeze the rest.
    freeze_heap()
    names = (name1 or Path(shlex.split(engine1)[0]).name, name2 or Path(shlex.split(engine2)[0]).name)
    if names[0] == names[1]:
        names = (names[0] + "-1", names[1] + "-2")
    tally = Tally(*prior) if prior else Tally()
    lock = threading.Lock()
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    stop = threading.Event()
    pgn_handle = open(pgn_path, "w") if pgn_path else None

    def decided():
        """The SPRT (when asked for) has accepted a hypothesis on the tally so far."""
        return sprt and not lower < sprt_llr(tally.wins, tally.draws, tally.losses,
                                             elo0, elo1) < upper
    local = threading.local()
    players_made = []

    def players():
        if not hasattr(local, "players"):
            local.players = [Player(names[0], engine1, _options(option1), protocol1),
                             Player(names[1], engine2, _options(option2), protocol2)]
            with lock:
                players_made.append(local.players)
        return local.players

    def one(job):
        opening, white_index = job
        if stop.is_set():
            return
        score, game, fault = play_game(players(), white_index, opening, parse_tc(tc),
                                       stall_margin, max_plies, nodes, depth, move_timeout,
                                       draw_adjudication, resign_adjudication)
        if fault and fault[1] not in ("time forfeit", "illegal move"):
            # A crashed, stalled or confused engine is restarted for the next game (after a
            # time forfeit or an illegal move both engines are fine and keep playing: a
            # restart would make the next first move pay for loading the engine again).
            for player in local.players:
                player.close()
            del local.players
        with lock:
            if score == 1:
                tally.wins += 1
            elif score == 0:
                tally.losses += 1
            else:
                tally.draws += 1
            if fault:
                tally.fault(*fault)
            if pgn_handle:
                print(game, file=pgn_handle, end="\n\n", flush=True)
            bar.update(1)
            elo, lo, hi, los = elo_summary(tally.wins, tally.draws, tally.losses)
            bar.set_postfix_str(f"+{tally.wins} ={tally.draws} -{tally.losses} elo {elo:+.0f}")
            if decided():
                stop.set()

    if decided():
        stop.set()   # the prior results already decide the test: play nothing more
    jobs = [(opening, colour) for opening in openings for colour in (0, 1)]
    started = time.perf_counter()
    with tqdm(total=len(jobs), unit="game") as bar:
        with ThreadPoolExecutor(max_workers=concurrency) as pool:
            list(pool.map(one, jobs))
    for made in players_made:
        for player in made:
            player.close()
    if pgn_handle:
        pgn_handle.close()
    w, d, l = tally.wins, tally.draws, tally.losses
    elo, lo, hi, los = elo_summary(w, d, l)
    click.echo(f"\n{names[0]} vs {names[1]}, tc {tc}, {tally.games} games "
               f"in {time.perf_counter() - started:.0f} s (concurrency {concurrency})")
    click.echo(f"W/D/L: {w}/{d}/{l}  score {(w + d / 2) / max(tally.games, 1):.3f}  "
               f"Elo {elo:+.1f} [{lo:+.1f}, {hi:+.1f}] (95%)  LOS {los:.1%}")
    if sprt:
        llr = sprt_llr(w, d, l, elo0, elo1)
        verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "undecided"
        click.echo(f"SPRT elo0={elo0} elo1={elo1} alpha={alpha} beta={beta}: "
                   f"LLR {llr:.2f} [{lower:.2f}, {upper:.2f}] {verdict}")
    fault_lines = []
    for engine in names:
        kinds = {kind: n for (who, kind), n in tally.faults.items() if who == engine}
        fault_lines.append(f"{engine}: " + (", ".join(f"{k} {n}" for k, n in kinds.items()) if kinds
                                            else "no illegal moves, crashes, stalls or time forfeits"))
        click.echo(fault_lines[-1])
    if results_path:
        row = results_row(names, option2, tc, concurrency, w, d, l, "; ".join(fault_lines),
                          adjudication_label(draw_adjudication, resign_adjudication))
        with open(results_path, "a") as handle:
            handle.write(row + "\n")
        click.echo(f"appended to {results_path}: {row}")


def adjudication_label(draw_rule, resign_rule) -> str:
    """How the rows name the adjudication rules in force ("" when none)."""
    parts = []
    if draw_rule is not None:
        parts.append("draw {} {} {}".format(*draw_rule))
    if resign_rule is not None:
        parts.append("resign {} {}".format(*resign_rule))
    return f"adjudication: {', '.join(parts)}" if parts else ""


def results_row(names, option2, tc, concurrency, w, d, l, faults, adjudication=""):
    """| opponent | tc | games | W/D/L | score | Elo [95%] | faults | date | commit |; the
    adjudication in force, if any, goes into the time-control cell."""
    import datetime
    import subprocess
    elo, lo, hi, _ = elo_summary(w, d, l)
    games = w + d + l
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "?"
    opponent = names[1] + "".join(f" {opt}" for opt in option2)
    conditions = f"concurrency {concurrency}" + (f"; {adjudication}" if adjudication else "")
    return (f"| {names[0]} vs {opponent} | {tc} ({conditions}) | {games} | {w}/{d}/{l} "
            f"| {(w + d / 2) / max(games, 1):.1%} | {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] | {faults} "
            f"| {datetime.date.today().isoformat()} | {commit} |")


if __name__ == "__main__":
    main()
