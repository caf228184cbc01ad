"""The thesis' test sets and experiment runners (Python glue over the jitted search).

Test sets (Breuker, section 2.6):
  middle game  the positions of Kasparov's six games at VSB Amsterdam 1994 before each of
               his moves from move 15 on, where both sides have at least 18 points of
               material (P=1, N=B=3.25, R=5, Q=9): 94 positions, 18 of them Kasparov-Short.
  endgame      the thesis' endgame games are not available; the same rule inverted on
               Kasparov's 1994 games: positions with White to move where a side has less
               than 18 points (see `endgame_positions` for the sampling), in game order.

Every experiment searches a set's positions in game order with the `paper` profile to a
fixed depth and sums the nodes (interior + leaves + quiescence). With time stamping the
table is kept from one position to the next (each search starts a new generation);
without it the table is cleared before each position.
"""
import math
from pathlib import Path
from typing import Dict, List, NamedTuple

from lab.suites import DATA_DIR

MATERIAL = {1: 1.0, 2: 3.25, 3: 3.25, 4: 5.0, 5: 9.0}   # python-chess piece types
PHASE_LIMIT = 18.0
MIDDLE_GAME_PGN = DATA_DIR / "pgn" / "Kasparov_Amsterdam_VSB_1994.pgn"
ENDGAME_PGN = DATA_DIR / "pgn" / "Kasparov_1994.pgn"
ENDGAME_EPD = Path(__file__).resolve().parent.parent / "docs" / "experiments" / "endgame_set.epd"
ENDGAME_TARGET = 100


class TestPosition(NamedTuple):
    fen: str
    game: str        # "White-Black, round"
    move_number: int


def material(board, colour) -> float:
    return sum(len(board.pieces(ptype, colour)) * value for ptype, value in MATERIAL.items())


def _games(path):
    import chess.pgn
    with open(path) as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return
            yield game


def _label(game) -> str:
    h = game.headers
    return f"{h.get('White', '?').split(',')[0]}-{h.get('Black', '?').split(',')[0]} {h.get('Round', '')}".strip()


def middle_game_positions(path=MIDDLE_GAME_PGN) -> List[TestPosition]:
    """The thesis' 94 middle-game positions, in game order."""
    out = []
    for game in _games(path):
        kasparov_white = "Kasparov" in game.headers.get("White", "")
        board = game.board()
        for move in game.mainline_moves():
            kasparov_to_move = board.turn == kasparov_white
            if (board.fullmove_number >= 15 and kasparov_to_move
                    and material(board, True) >= PHASE_LIMIT and material(board, False) >= PHASE_LIMIT):
                out.append(TestPosition(board.fen(), _label(game), board.fullmove_number))
            board.push(move)
    return out


def endgame_candidates(path=ENDGAME_PGN) -> List[TestPosition]:
    """Every position with White to move where a side has less than 18 points."""
    out = []
    for game in _games(path):
        board = game.board()
        for move in game.mainline_moves():
            if board.turn and (material(board, True) < PHASE_LIMIT or material(board, False) < PHASE_LIMIT):
                out.append(TestPosition(board.fen(), _label(game), board.fullmove_number))
            board.push(move)
    return out


def endgame_positions(path=ENDGAME_PGN, target=ENDGAME_TARGET) -> List[TestPosition]:
    """At least `target` endgame positions: all the candidates of whole games, games taken
    in file order until the target is reached. Like the thesis' set (112 positions from 5
    games), it consists of consecutive positions of a few games, which is what time
    stamping works on."""
    out = []
    for position in endgame_candidates(path):
        if len(out) >= target and position.game != out[-1].game:
            break
        out.append(position)
    return out


def read_endgame_epd(path=ENDGAME_EPD) -> List[TestPosition]:
    import chess
    out = []
    for line in Path(path).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            board, ops = chess.Board.from_epd(line)
            out.append(TestPosition(board.fen(), ops.get("id", ""), board.fullmove_number))
    return out


# -- runs --------------------------------------------------------------------------------
class RunConfig(NamedTuple):
    test_set: str            # "middle", "endgame", "short" (Kasparov-Short), "endgame21"
    scheme: str              # DEEP ... TwoBig1
    positions_k: int         # table size in K positions (1K = 1024)
    stamping: bool           # time stamping: keep the table between positions
    depth: int
    use: str = "full"        # 2.7.2: none, move, score, exact, bounds, full
    key_bits: int = 64


def positions_for(test_set: str) -> List[TestPosition]:
    if test_set == "middle":
        return middle_game_positions()
    if test_set == "short":
        return [p for p in middle_game_positions() if p.game.startswith("Kasparov-Short")]
    if test_set == "endgame":
        return read_endgame_epd()
    if test_set == "endgame21":
        # The thesis' 2.7.2 endgame set: 21 consecutive positions of one game; here the
        # first 21 of the game with the most positions in the endgame set.
        positions = read_endgame_epd()
        games = [p.game.rsplit(" move ", 1)[0] for p in positions]
        longest = max(set(games), key=games.count)
        return [p for p, g in zip(positions, games) if g == longest][:21]
    raise ValueError(f"unknown test set {test_set!r}")


def run_config(config: RunConfig, depths: List[int]) -> Dict[int, Dict[str, float]]:
    """Search the test set under one configuration; summed counters per depth in `depths`.

    Without time stamping the table is cleared before each position, so one search to the
    deepest depth gives every shallower depth too (iterative deepening runs the same
    iterations): nodes at depth d = nodes when iteration d completed. Table counters are
    then only kept for the deepest depth. With time stamping the table carries over from
    one position to the next, so each depth is a separate pass over the set."""
    from engine import tt as ttmod
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session

    session = Session(profile="paper", positions=config.positions_k * 1024,
                      scheme=ttmod.scheme_index(config.scheme), aging=config.stamping,
                      key_bits=config.key_bits, use=config.use)
    positions = positions_for(config.test_set)

    passes = [[d] for d in depths] if config.stamping else [sorted(depths)]
    rows: Dict[int, Dict[str, float]] = {}
    for pass_depths in passes:
        deepest = max(pass_depths)
        totals = {d: dict(nodes=0, positions=0) for d in pass_depths}
        counters = dict(qnodes=0, filled=0)
        session.new_table()
        for position in positions:
            if not config.stamping:
                session.new_table()
            table = session.table
            result = session.search(Board(position.fen), Limits(depth=deepest))
            completed = {it.depth: it.nodes for it in result.iterations
                         if it.bound is None and it.multipv == 1}
            for d in pass_depths:
                totals[d]["nodes"] += completed.get(d, result.nodes)
                totals[d]["positions"] += 1
            counters["qnodes"] += session.qnodes
            stats = ttmod.stats_dict(table)
            for name, value in stats.items():
                counters[name] = counters.get(name, 0) + value
            if not config.stamping:
                filled = int(ttmod.tt_count_filled(table))
                counters["filled"] += filled
                # Equation 2.2 for this search: M = non-empty entries + collisions.
                entries = ttmod.table_entries(table)
                counters["expected_collisions"] = counters.get("expected_collisions", 0.0) + \
                    feldmann_expected(filled + stats["collisions"], entries)
        if config.stamping:
            counters["filled"] = int(ttmod.tt_count_filled(session.table))
        counters["entries"] = ttmod.table_entries(session.table)
        totals[deepest].update(counters)
        rows.update(totals)
    return rows


def feldmann_expected(m: float, n: float) -> float:
    """Equation 2.2: expected errors storing M positions into N distinguishable places."""
    return m - n * (1.0 - math.exp(-m / n))
