"""The thesis' test sets, the experiment runner and the grid of cells (Dask or serial).

Test sets (Breuker, section 2.6):
  middle game  the positions of Kasparov's six games at VSB Amsterdam 1994 before each of
               his moves from move 15 on, where both sides have at least 18 points of
               material (P=1, N=B=3.25, R=5, Q=9): 94 positions, 18 of them Kasparov-Short.
               `middle44`: the 44 positions of games 1-3 (the thesis' 8-ply subset).
  endgame      the thesis' endgame games are not available; the same rule inverted on
               Kasparov's 1994 games: positions with White to move where a side has less
               than 18 points (see `endgame_positions` for the sampling), in game order.
Any set name may end in `:N` (the set's first N positions), e.g. `middle:5` for tests.

Every experiment searches a set's positions in game order with the `paper` profile to a
fixed depth and sums the nodes (interior + leaves + quiescence). With time stamping the
table is kept from one position to the next (each search starts a new generation);
without it the table is cleared before each position. Each row also keeps the thesis'
count, which has no quiescence: interior nodes (nodes - qnodes) + horizon leaves (the
full-width calls at depth 0), and both counts per position, in test-set order.

Zobrist keys: the Polyglot keys by default; `key_seed` = s searches with 781 random 64-bit
keys drawn from numpy's generator seeded with s (`key_tables`), so that a cell repeated
with a few key sets shows how much of a difference is the luck of the keys.

The grid (`run_grid`): a cell is one (experiment, configuration, depths) triple; its rows
depend on nothing else, so cells run in any order, on any worker: in this process, on a
dask.distributed LocalCluster, or on a remote Dask scheduler. Rows are appended to a CSV
as cells finish, and a rerun skips the cells whose rows are already there.
"""
import csv
import functools
import gzip
import hashlib
import io
import logging
import math
import os
import time
from pathlib import Path
from typing import Callable, Dict, List, NamedTuple, Optional

from lab.thesis.suites import DATA_DIR

MATERIAL = {1: 1.0, 2: 3.25, 3: 3.25, 4: 5.0, 5: 9.0}   # python-chess piece types
PHASE_LIMIT = 18.0
MIDDLE_GAME_PGN = DATA_DIR / "pgn" / "Kasparov_Amsterdam_VSB_1994.pgn"
ENDGAME_PGN = DATA_DIR / "pgn" / "Kasparov_1994.pgn"
ENDGAME_EPD = Path(__file__).resolve().parents[2] / "docs" / "experiments" / "endgame_set.epd"
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


# -- Zobrist key sets ---------------------------------------------------------------------
@functools.lru_cache(maxsize=8)
def key_tables(seed: int):
    """engine.tables.Tables with the Polyglot keys replaced by 781 random 64-bit keys drawn
    from numpy's default generator seeded with `seed` (the rest of the tables is shared).

    A board searched with these tables (see `board_for`) has other keys and so other
    table indices and collisions, but the same moves, evaluation and perft counts. The
    array is read-only like the default one, so the compiled kernels are reused as they
    are (numba types a read-only array apart from a writable one)."""
    import numpy as np

    from engine.tables import Tables, get_tables
    from engine.zobrist import fill_zobrist_tables

    base = get_tables()
    keys = np.random.default_rng(int(seed)).integers(0, 2 ** 64, size=781, dtype=np.uint64,
                                                     endpoint=False)
    if len(set(keys.tolist())) != 781 or not keys.all():
        raise ValueError(f"key seed {seed} drew a zero or repeated key; choose another")
    u = base.u.copy()
    fill_zobrist_tables(u, keys)
    u.flags.writeable = False
    return Tables(u, base.i, base.nn)


def board_for(fen: str, key_seed: Optional[int] = None):
    """An engine.board.Board of `fen` keyed by the Polyglot keys (key_seed None) or by the
    key set of `key_tables(key_seed)`."""
    from engine.board import Board

    board = Board(fen)
    if key_seed is not None:
        board.T = key_tables(key_seed)
        board.set_fen(fen)          # recompute the key with the new tables
    return board


# -- runs --------------------------------------------------------------------------------
class RunConfig(NamedTuple):
    test_set: str            # "middle", "middle44", "endgame", "short", "endgame21" [":N"]
    scheme: str              # DEEP ... TwoBig1
    positions_k: int         # table size in K positions (1K = 1024)
    stamping: bool           # time stamping: keep the table between positions
    depth: int
    use: str = "full"        # 2.7.2: none, move, score, exact, bounds, full
    key_bits: int = 64
    key_seed: Optional[int] = None   # None: Polyglot keys; else `key_tables(key_seed)`
    pv_plies: int = 1        # 2.7.3: an n-ply line per entry (1: the best move only)
    choices: str = ""        # open choices away from their defaults: "ties_new=0,leaf_cut=1"


def parse_choices(text: str) -> Dict[str, bool]:
    """RunConfig.choices as keyword arguments of engine.tt_research.set_open_choices."""
    out = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, value = item.partition("=")
        out[name] = value.strip() not in ("0", "false", "False", "")
    return out


def positions_for(test_set: str) -> List[TestPosition]:
    """The positions of a test set by name; `NAME:N` is the first N of them."""
    name, _, count = test_set.partition(":")
    if count:
        return positions_for(name)[:int(count)]
    if test_set == "middle":
        return middle_game_positions()
    if test_set == "middle44":
        # The thesis ran 8 ply on the positions of games 1-3 only (6 + 18 + 20 = 44).
        positions = middle_game_positions()
        games = list(dict.fromkeys(p.game for p in positions))[:3]
        return [p for p in positions if p.game in games]
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


def _joined(values) -> str:
    return " ".join(str(int(v)) for v in values)


def run_config(config: RunConfig, depths: List[int]) -> Dict[int, Dict[str, object]]:
    """Search the test set under one configuration; a row of values per depth in `depths`.

    Each row has the summed `nodes`, `qnodes`, `horizon_leaves` and `thesis_nodes`
    (= nodes - qnodes + horizon_leaves), and `per_position` / `per_position_thesis`: the
    two counts of each position, joined by spaces in test-set order.

    Without time stamping the table is cleared before each position, so one search to the
    deepest depth gives every shallower depth too (iterative deepening runs the same
    iterations): the counts at depth d are those read when iteration d completed. Table
    counters are then only kept for the deepest depth. With time stamping the table carries
    over from one position to the next, so each depth is a separate pass over the set."""
    from engine import tt_research
    from engine.driver import Limits
    from engine.session import Session
    from engine.tt_layout import table_entries
    from engine.tt_registry import scheme_index

    # Without time stamping each search has its own table, and the table counts the
    # distinct keys stored in it: the M of equation 2.2 (DISTINCT_KEYS_PER_SEARCH at most).
    session = Session(profile="paper", positions=config.positions_k * 1024,
                      scheme=scheme_index(config.scheme), aging=config.stamping,
                      key_bits=config.key_bits, use=config.use,
                      distinct_keys=0 if config.stamping else DISTINCT_KEYS_PER_SEARCH,
                      pv_plies=config.pv_plies, choices=parse_choices(config.choices))
    positions = positions_for(config.test_set)

    passes = [[d] for d in depths] if config.stamping else [sorted(depths)]
    rows: Dict[int, Dict[str, object]] = {}
    for pass_depths in passes:
        deepest = max(pass_depths)
        counts = {d: [] for d in pass_depths}     # [(nodes, qnodes, horizon)] per position
        counters = dict(filled=0)
        session.new_table()
        for position in positions:
            if not config.stamping:
                session.new_table()
            table = session.table
            at_depth = {}

            def note(iteration, at_depth=at_depth):
                if iteration.bound is None and iteration.multipv == 1:
                    at_depth[iteration.depth] = (iteration.nodes, session.qnodes,
                                                 session.horizon_leaves)

            result = session.search(board_for(position.fen, config.key_seed),
                                    Limits(depth=deepest), on_iteration=note)
            final = (result.nodes, session.qnodes, session.horizon_leaves)
            for d in pass_depths:
                counts[d].append(at_depth.get(d, final))
            stats = tt_research.stats_dict(table)
            for name, value in stats.items():
                counters[name] = counters.get(name, 0) + value
            if not config.stamping:
                filled = int(tt_research.tt_count_filled(table))
                counters["filled"] += filled
                # Equation 2.2 for this search: M = the distinct keys it stored.
                entries = table_entries(table)
                counters["expected_collisions"] = counters.get("expected_collisions", 0.0) + \
                    feldmann_expected(stats["distinct"], entries)
        if config.stamping:
            counters["filled"] = int(tt_research.tt_count_filled(session.table))
            counters.pop("distinct", None)      # not counted across a kept table
        counters["entries"] = table_entries(session.table)
        for d in pass_depths:
            nodes = [c[0] for c in counts[d]]
            thesis = [c[0] - c[1] + c[2] for c in counts[d]]
            rows[d] = dict(positions=len(counts[d]), nodes=sum(nodes),
                           qnodes=sum(c[1] for c in counts[d]),
                           horizon_leaves=sum(c[2] for c in counts[d]),
                           thesis_nodes=sum(thesis), per_position=_joined(nodes),
                           per_position_thesis=_joined(thesis))
        rows[deepest].update(counters)
    return rows


DISTINCT_KEYS_PER_SEARCH = 1 << 21   # the set takes 2x this many 8-byte places


def thesis_worked_example() -> Dict[str, float]:
    """The thesis' example after equation 2.2, recomputed: 216 million positions stored
    (2 hours at 100,000 nodes/s, 30% stored). Exact decimal arithmetic: with N = 2^64 the
    numbers are far below double precision's reach of M."""
    from decimal import Decimal, getcontext
    getcontext().prec = 60
    m = Decimal(216_000_000)

    def expected_errors(bits):                 # Feldmann's exact E = M - N(1 - ((N-1)/N)^M)
        n = Decimal(2) ** bits
        return m - n * (1 - ((n - 1) / n) ** m)

    def p_error(bits):                         # 1 - e^(-M^2 / 2N), equation 2.1
        return 1 - (-(m * m) / (2 * Decimal(2) ** bits)).exp()

    bits_for_one_percent = next(b for b in range(1, 129) if p_error(b) < Decimal("0.01"))
    return {"p_error_32": float(p_error(32)), "bits_for_one_percent": bits_for_one_percent,
            "p_error_64": float(p_error(64)), "expected_errors_64": float(expected_errors(64))}


def feldmann_expected(m: float, n: float) -> float:
    """Equation 2.2: expected errors storing M positions into N distinguishable places."""
    return m - n * (1.0 - math.exp(-m / n))


# -- cells, the CSV and the grid ---------------------------------------------------------
# A cell (a "job"): (experiment name, configuration without depth as a dict, depths).
# Its rows: one per depth, with the COLUMNS below, in this order. This table is also the CSV's
# data dictionary (docs/experiments/README.md prints it). Old CSVs lack the later columns:
# they read as empty (an empty pv_plies is 1 and an empty `choices` the defaults, what every
# row before those columns ran; empty versions are unknown).
COLUMNS = [
    ("experiment", "the part of the grid: schemes, no_table, move_score, npv, collisions, "
                   "type1, noise, extrapolation, robustness"),
    ("test_set", "middle (the thesis' 94 positions), middle44 (games 1-3), short (the 18 "
                 "Kasparov-Short positions), endgame (104 positions), endgame21 (21 consecutive "
                 "positions of one game); NAME:N is the first N"),
    ("scheme", "replacement scheme (engine/tt_registry.py)"),
    ("positions_k", "table size in K positions (1K = 1024 entries)"),
    ("stamping", "True: time stamping, the table kept from one position to the next; False: "
                 "a cleared table per position"),
    ("use", "what the search may use of an entry (thesis 2.7.2): none, move, score, exact, "
            "bounds, full; the exact-only and bounds-only tables store only that kind"),
    ("key_bits", "key bits a probe compares (type-1 error runs; 64 otherwise)"),
    ("key_seed", "Zobrist key set: empty = Polyglot's keys, N = seeded random keys"),
    ("depth", "search depth in plies"),
    ("positions", "positions searched"),
    ("nodes", "all nodes, summed over the positions: interior + leaves + quiescence nodes"),
    ("qnodes", "of which quiescence nodes (the horizon leaf that starts a quiescence search "
               "included)"),
    ("horizon_leaves", "full-width calls at depth 0 (each the root of a quiescence search)"),
    ("thesis_nodes", "the thesis' count: nodes - qnodes + horizon_leaves (interior nodes and "
                     "horizon leaves)"),
    ("probes", "table lookups, quiescence lookups included (deepest depth of the cell only)"),
    ("hits", "lookups that found the position, quiescence lookups included"),
    ("cut_exact", "searches ended by a stored exact score"),
    ("cut_lower", "cut-offs by a stored lower bound"),
    ("cut_upper", "cut-offs by a stored upper bound"),
    ("window", "stored bounds that narrowed the window without a cut-off"),
    ("stores", "store attempts"),
    ("updates", "stores that found their own position in the bucket"),
    ("collisions", "stores of a new position into a full bucket (type-2 collisions)"),
    ("replaced", "positions overwritten by another"),
    ("refused", "stores the policy declined"),
    ("empty_fills", "stores into an empty slot"),
    ("type1", "probes matching the compared key bits but not the full key"),
    ("type1_caught", "stored moves refused by the legality check"),
    ("filled", "slots holding an entry after the searches (summed per search without stamping)"),
    ("entries", "positions the table holds"),
    ("expected_collisions", "equation 2.2's E summed over the searches (no stamping)"),
    ("seconds", "wall time of the whole cell (all its depths), not per row"),
    ("commit", "the commit measured; -dirty: the engine had uncommitted edits"),
    ("per_position", "nodes of each position, space-separated in test-set order"),
    ("per_position_thesis", "the thesis' count of each position, same order"),
    ("distinct", "distinct keys stored, summed over the searches (no stamping): eq. 2.2's M"),
    ("line_moves", "nodes that ordered an ancestor's stored line move first (2.7.3)"),
    ("pv_plies", "n of the n-ply line stored per entry (2.7.3); 1: the best move only"),
    ("unused_kind", "stores skipped because the search may not use their kind of score "
                    "(exact-only and bounds-only runs)"),
    ("choices", "the open choices (engine/tt_research.py OPEN_CHOICES) set away from their "
                "defaults, e.g. ties_new=0; empty: the defaults"),
    ("python", "Python version of the process that ran the cell"),
    ("numba", "numba version"),
    ("twobig", "TwoBig version (engine.__version__)"),
]
FIELDS = [name for name, _ in COLUMNS]


def _seed_text(seed) -> str:
    return "" if seed is None or seed == "" else str(int(seed))


def _plies(value) -> int:
    """A cell's or row's pv_plies: absent or empty (rows before the column) is 1."""
    return 1 if value is None or value == "" else int(value)


def row_key(experiment, cfg, depth) -> tuple:
    """The identity of a row of cell (experiment, cfg) at `depth` (see `key_of`)."""
    return (experiment, cfg["test_set"], cfg["scheme"], int(cfg["positions_k"]),
            str(bool(cfg["stamping"])), cfg.get("use", "full"), int(cfg.get("key_bits", 64)),
            _seed_text(cfg.get("key_seed")), int(depth), _plies(cfg.get("pv_plies")),
            cfg.get("choices", ""))


def key_of(row) -> tuple:
    """The identity of a CSV row: what its cell ran, not what it measured."""
    return (row["experiment"], row["test_set"], row["scheme"], int(row["positions_k"]),
            row["stamping"], row["use"], int(row["key_bits"]), _seed_text(row.get("key_seed")),
            int(row["depth"]), _plies(row.get("pv_plies")), row.get("choices") or "")


def versions() -> Dict[str, str]:
    """The software a row was measured with (the commit is added by run_grid)."""
    import platform

    import numba

    import engine
    return dict(python=platform.python_version(), numba=numba.__version__,
                twobig=engine.__version__)


def run_cell(job) -> List[dict]:
    """Run one cell; its rows (all FIELDS but `commit`). Deterministic but for `seconds`.
    Module-level, so that Dask workers import it by name rather than receive its code."""
    experiment, cfg, depths = job
    start = time.perf_counter()
    config = RunConfig(depth=max(depths), **cfg)
    results = run_config(config, list(depths))
    seconds = time.perf_counter() - start
    rows = []
    for depth, values in sorted(results.items()):
        row = {"experiment": experiment, "use": "full", "key_bits": 64, "pv_plies": 1, **cfg,
               "depth": depth, "seconds": round(seconds, 1), **versions()}
        row["stamping"] = str(bool(cfg["stamping"]))
        row["key_seed"] = _seed_text(cfg.get("key_seed"))
        row.update(values)
        rows.append(row)
    return rows


RESULTS_CSV = "results.csv.gz"   # the grid's rows, gzip-compressed (a few MB as plain text)


def open_text(path, mode: str, compressed: Optional[bool] = None):
    """A CSV file opened as text; gzip-compressed when the name ends in .gz (or when
    `compressed` says so). Appending to a gzip file adds a member, which readers join."""
    path = Path(path)
    if compressed if compressed is not None else path.suffix == ".gz":
        # mtime 0: the same rows give the same bytes, so a rebuild leaves git nothing to see
        return io.TextIOWrapper(gzip.GzipFile(path, mode + "b", mtime=0), encoding="utf-8",
                                newline="")
    return open(path, mode, newline="")


def _read(path: Path) -> tuple:
    """(rows, complete): the CSV's raw rows, and False when a compressed file ends in a
    member cut short by an interrupted write (the rows before the cut are kept)."""
    rows = []
    with open_text(path, "r") as handle:
        try:
            for row in csv.DictReader(handle):
                rows.append(row)
        except (EOFError, gzip.BadGzipFile):
            return rows, False
    return rows, True


def read_rows(path) -> List[dict]:
    """The CSV's rows as dicts of strings, every FIELD present ('' where a row of an older
    layout has no such column); rows cut short by an interrupted write are dropped."""
    path = Path(path)
    if not path.exists():
        return []
    out = []
    for row in _read(path)[0]:
        full = {name: (row.get(name) or "") for name in FIELDS}
        full.update({k: v for k, v in row.items() if k not in full and k is not None})
        try:
            key_of(full)
            int(full["nodes"])
        except (KeyError, TypeError, ValueError):
            continue
        out.append(full)
    return out


def _header(path: Path) -> List[str]:
    with open_text(path, "r") as handle:
        return next(csv.reader(handle), [])


def open_results(path):
    """Open the CSV for appending rows of FIELDS: (file, csv.DictWriter). A file with an
    older header is rewritten first with the current one (its rows kept, new columns
    empty), so that appended rows line up with the header."""
    path = Path(path)
    # A member cut short would hide every member appended after it: rewrite the file whole.
    if path.exists() and path.stat().st_size and (_header(path) != FIELDS
                                                  or not _read(path)[1]):
        rewrite_rows(path, read_rows(path))
    new_file = not path.exists() or path.stat().st_size == 0
    handle = open_text(path, "a")
    writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
    if new_file:
        writer.writeheader()
        handle.flush()
    return handle, writer


def cells_to_do(jobs, rows) -> list:
    """The cells of `jobs` with a row missing from `rows`, each cut to its missing depths
    (a grid that gains depths runs only those)."""
    done = {key_of(r) for r in rows}
    todo = []
    for experiment, cfg, depths in jobs:
        missing = [d for d in depths if row_key(experiment, cfg, d) not in done]
        if missing:
            todo.append((experiment, cfg, missing))
    return todo


def without_cells(rows, jobs) -> list:
    """`rows` less those of the cells of `jobs` (at the jobs' depths): what a forced rerun
    of these cells replaces."""
    dropped = {row_key(experiment, cfg, d) for experiment, cfg, depths in jobs for d in depths}
    return [row for row in rows if key_of(row) not in dropped]


# What may differ between two runs of the same cell: the time, where and with what it ran.
UNMEASURED = ("seconds", "commit", "python", "numba", "twobig")


def merge_rows(ours, theirs):
    """`ours` followed by the rows of `theirs` whose cells `ours` lacks, in their order:
    (merged, added). Both must hold the same results for the rows they share (the counts
    are deterministic); a row that differs in anything but UNMEASURED raises ValueError,
    as it comes from another engine or grid definition."""
    known = {key_of(row): row for row in ours}
    merged, added = list(ours), 0
    for row in theirs:
        key = key_of(row)
        if key in known:
            differs = [name for name in FIELDS if name not in UNMEASURED
                       and known[key].get(name, "") != row.get(name, "")]
            if differs:
                raise ValueError(f"cell {key} differs in {', '.join(differs)}")
            continue
        known[key] = row
        merged.append(row)
        added += 1
    return merged, added


def rewrite_rows(path, rows) -> None:
    """Write `rows` as the whole CSV at `path` (header FIELDS), atomically."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with open_text(tmp, "w", compressed=path.suffix == ".gz") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


_SET_SIZES = {"middle": 94, "middle44": 44, "short": 18, "endgame": 104, "endgame21": 21}
BRANCHING = 5     # a rough effective branching factor of the paper search, for ordering


def cell_cost(job) -> float:
    """A rough relative cost of a cell (positions x nodes per search), to start the costly
    cells first so that the cluster is not left waiting on one long cell at the end."""
    _, cfg, depths = job
    name, _, count = cfg["test_set"].partition(":")
    positions = int(count) if count else _SET_SIZES.get(name, 100)
    per_position = (sum(BRANCHING ** d for d in depths) if cfg["stamping"]
                    else BRANCHING ** max(depths))
    return positions * per_position


def code_digest() -> str:
    """A digest of the engine's and the lab's sources as this process imports them: two
    processes with the same digest compute the same rows for the same cell."""
    import engine

    digest = hashlib.sha1()
    for folder in (Path(engine.__file__).parent, Path(__file__).resolve().parents[1]):
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def check_workers(client) -> None:
    """Refuse a cluster whose workers run other TwoBig sources than this process (their rows
    would be filed under this commit); then fill (or load) the compile cache on one worker
    per host first, so that the other workers of a host load the kernels rather than all
    compile them at once. Raises RuntimeError naming the mismatched workers."""
    from engine.warmup import warm_all

    mine = code_digest()
    theirs = client.run(code_digest)
    wrong = sorted(address for address, digest in theirs.items() if digest != mine)
    if wrong:
        raise RuntimeError(f"workers {', '.join(wrong)} run other TwoBig sources than this "
                           f"checkout (digest {mine}); install this version there")
    first = {}
    for address, info in client.scheduler_info(n_workers=-1)["workers"].items():
        first.setdefault(info.get("host", address), address)
    if first:
        client.run(warm_all, workers=list(first.values()))


def _dask_results(todo, scheduler: Optional[str], workers: int):
    """Yield each cell's rows as its Dask task finishes (any order)."""
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler)
        try:
            check_workers(client)
        except BaseException:
            client.close()
            raise
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.WARNING)
        client = Client(cluster)
    try:
        futures = client.map(run_cell, todo, pure=False)
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def run_grid(jobs, csv_path, *, scheduler: Optional[str] = None, workers: int = 1,
             serial: bool = False, commit: str = "", progress: bool = True,
             echo: Callable[[str], None] = None) -> int:
    """Run the cells of `jobs` that have rows missing from the CSV at `csv_path`, appending
    each cell's rows (with `commit`) as it finishes. Cells run in this process (`serial`),
    on a LocalCluster of `workers` processes with one thread each (the default), or on the
    Dask scheduler at `scheduler` (e.g. "tcp://host:8786"; its workers need TwoBig
    installed). A progress bar counts the cells and estimates the time left. Returns the
    number of cells run."""
    echo = echo or (lambda text: None)
    todo = cells_to_do(jobs, read_rows(csv_path))
    echo(f"{len(todo)} cells to do ({len(jobs) - len(todo)} already in {csv_path})")
    if not todo:
        return 0
    if serial:
        results = map(run_cell, todo)
    else:
        if not scheduler:
            from engine.warmup import warm_all
            warm_all()   # fill the compile cache once, before the local workers start
        todo = sorted(todo, key=cell_cost, reverse=True)
        results = _dask_results(todo, scheduler, workers)
    from tqdm import tqdm

    handle, writer = open_results(csv_path)
    try:
        with tqdm(total=len(todo), unit="cell", disable=not progress) as bar:
            for rows in results:
                for row in rows:
                    writer.writerow(dict(row, commit=commit))
                handle.flush()
                bar.update(1)
    finally:
        handle.close()
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return len(todo)
