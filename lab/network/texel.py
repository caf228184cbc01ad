"""Texel tuning of the play evaluation's positional terms, on positions from played games
labelled by the game's result.

The evaluation (engine.eval) is material + piece-square values plus nine positional terms,
each an (mg, eg) pair per side, tapered by the game phase. Scaling one term's middle-game
or end-game part by a multiplier keeps the evaluation linear in the multipliers:

    mg = base_mg + sum_t a_t * dmg_t        eg = base_eg + sum_t b_t * deg_t
    eval = (mg * phase + eg * (24 - phase)) / 24          (white's point of view)

where base is material + PST and d*_t is white's term minus black's. The piece-square
values stay as they are: they anchor the scale. Texel's method: find the K for which
sigmoid(K * eval) = 1 / (1 + 10^(-K eval / 400)) best predicts the results with every
multiplier at 1, then, with K fixed, the multipliers that minimise the mean squared error
(scipy's L-BFGS-B, with the exact gradient). A multiplier whose feature is zero in every
position (the king terms have no end-game part) stays at 1.

Positions: every position of a game's main line past the opening plies, with the side to
move not in check and a quiet move played from it (no capture or promotion), so that the
static evaluation is a fair guess of it. Games are split into a fitting and a held-out
part, so the held-out error shows whether the fit generalises.
"""
from typing import Iterable, List, NamedTuple, Sequence

import numpy as np

RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
TOTAL_PHASE = 24


class Features(NamedTuple):
    """One row per position: base_mg, base_eg and phase (clamped to 24), the per-term
    differences dmg and deg (n x terms), and the result from white's point of view."""
    base_mg: np.ndarray
    base_eg: np.ndarray
    phase: np.ndarray
    dmg: np.ndarray
    deg: np.ndarray
    result: np.ndarray
    game: np.ndarray          # index of the game each position comes from


def default_pgns(root) -> list:
    """The self-play matches of the repository at `root` (docs/gauntlet/sprt_*.pgn)."""
    from pathlib import Path
    return sorted((Path(root) / "docs" / "gauntlet").glob("sprt_*.pgn"))


def game_set_options(command):
    """The command-line options that choose the positions and the split (click), shared by
    lab/network/texel_tune.py and lab/network/texel_screen.py."""
    import click

    options = [
        click.option("--pgn", "pgns", multiple=True, type=click.Path(exists=True, dir_okay=False),
                     help="PGN file of games (repeatable); default: docs/gauntlet/sprt_*.pgn"),
        click.option("--skip-plies", default=16, show_default=True, help="opening plies left out"),
        click.option("--held-out", default=0.2, show_default=True,
                     help="share of games kept out of the fit"),
        click.option("--seed", default=0, show_default=True, help="seed of the game split"),
        click.option("--labels", type=click.Path(exists=True, dir_okay=False),
                     help="fit to an engine's scores (a lab/network/label_positions.py file) "
                          "instead of game results; --pgn and --skip-plies are then not used"),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def is_quiet_sample(board, move, ply: int, skip_plies: int) -> bool:
    """The position filter of the module docstring: past the opening plies, the side to
    move not in check, and a quiet move (no capture or promotion) played from it."""
    return (ply >= skip_plies and not board.is_check() and not board.is_capture(move)
            and move.promotion is None)


def decided_games(pgn_paths: Iterable):
    """Yield (python-chess game, result for white) for every decided or drawn game of the
    PGN files (plain or xz-compressed), in file order."""
    import lzma

    import chess.pgn

    for path in pgn_paths:
        opener = lzma.open if str(path).endswith(".xz") else open
        with opener(path, "rt") as handle:
            while True:
                game = chess.pgn.read_game(handle)
                if game is None:
                    break
                result = RESULTS.get(game.headers.get("Result", "*"))
                if result is not None:
                    yield game, result


def quiet_positions(pgn_paths: Iterable, skip_plies: int = 16):
    """Yield (game index, python-chess board, result for white) for the positions described
    in the module docstring, from every decided or drawn game of the PGN files."""
    for game_index, (game, result) in enumerate(decided_games(pgn_paths)):
        board = game.board()
        for ply, move in enumerate(game.mainline_moves()):
            if is_quiet_sample(board, move, ply, skip_plies):
                yield game_index, board.copy(stack=False), result
            board.push(move)


GAME_RESULTS = {"1": 1.0, "0.5": 0.5, "0": 0.0}   # a label line's 4th field -> white's score


def labelled_positions(path, result_weight: float = 0.0):
    """Yield (game index, python-chess board, target) from a lab/network/label_positions.py
    file (`FEN;score;game` lines): the target is the expected score (white's view) the
    engine's score stands for, win_probability at K = 1. Only the curve's shape matters:
    K is then fitted to the targets as to game results. A line with its game's result
    (label_static's `;result`) is blended as lab.network.nnue.load_labels does."""
    import chess

    with open(path) as handle:
        for line in handle:
            fen, score, game, *rest = line.rstrip("\n").split(";")
            target = float(win_probability(float(score), 1.0))
            if rest and rest[0] in GAME_RESULTS:
                target = (1.0 - result_weight) * target + result_weight * GAME_RESULTS[rest[0]]
            yield int(game), chess.Board(fen), target


def load_samples(root, pgns, skip_plies: int, labels=None):
    """(samples, where they came from) for the options of game_set_options: the labelled
    positions of `labels`, else the quiet positions of the PGN files (default_pgns)."""
    from pathlib import Path

    if labels:
        return list(labelled_positions(labels)), f"labelled in {labels}"
    paths = [Path(p) for p in pgns] or default_pgns(root)
    return list(quiet_positions(paths, skip_plies)), f"in {len(paths)} files"


def extract(samples: Iterable) -> Features:
    """Features of (game index, board, result) samples, read from TwoBig's own evaluation
    kernels (the incremental material + PST sums and engine.eval.side_terms)."""
    from engine import eval as ev
    from engine.board import Board
    from engine.types import ST_EG, ST_MG, ST_PHASE

    board = Board()
    rows, games, results = [], [], []
    for game_index, chess_board, result in samples:
        board.load_chess_board(chess_board)
        row = board.P.st[board.P.meta[0]]
        white = ev.side_terms(board.P, board.T, 0)
        black = ev.side_terms(board.P, board.T, 1)
        rows.append((row[ST_MG], row[ST_EG], min(row[ST_PHASE], TOTAL_PHASE))
                    + tuple(w - b for w, b in zip(white, black)))
        games.append(game_index)
        results.append(result)
    data = np.array(rows, dtype=np.float64).reshape(-1, 3 + ev.N_TERM_VALUES)
    return Features(base_mg=data[:, 0], base_eg=data[:, 1], phase=data[:, 2],
                    dmg=data[:, 3::2], deg=data[:, 4::2],
                    result=np.array(results, dtype=np.float64),
                    game=np.array(games, dtype=np.int64))


def subset(features: Features, mask: np.ndarray) -> Features:
    return Features(*(array[mask] for array in features))


def evaluate(features: Features, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The model's evaluation (white's view, centipawns) with multipliers a (mg), b (eg)."""
    mg = features.base_mg + features.dmg @ a
    eg = features.base_eg + features.deg @ b
    return (mg * features.phase + eg * (TOTAL_PHASE - features.phase)) / TOTAL_PHASE


def win_probability(evaluation: np.ndarray, k: float) -> np.ndarray:
    return 1.0 / (1.0 + np.power(10.0, -k * evaluation / 400.0))


def mean_error(features: Features, a: np.ndarray, b: np.ndarray, k: float) -> float:
    """Texel's E: the mean squared difference of result and predicted score."""
    return float(np.mean((features.result - win_probability(evaluate(features, a, b), k)) ** 2))


def fit_k(features: Features, a: np.ndarray, b: np.ndarray) -> float:
    """The scaling constant K that minimises the error with the multipliers held."""
    from scipy.optimize import minimize_scalar

    solution = minimize_scalar(lambda k: mean_error(features, a, b, k), bounds=(0.05, 5.0),
                               method="bounded", options={"xatol": 1e-5})
    return float(solution.x)


class Fit(NamedTuple):
    a: np.ndarray              # middle-game multiplier per term
    b: np.ndarray              # end-game multiplier per term
    k: float
    error_before: float        # on the fitting positions, all multipliers 1
    error_after: float


def fit_multipliers(features: Features, k: float, bounds=(0.0, 3.0)) -> Fit:
    """Multipliers minimising the error at fixed K (L-BFGS-B, exact gradient). Columns
    whose feature never differs from zero keep multiplier 1."""
    from scipy.optimize import minimize

    terms = features.dmg.shape[1]
    ones = np.ones(terms)
    free_a = np.flatnonzero(np.any(features.dmg != 0, axis=0))
    free_b = np.flatnonzero(np.any(features.deg != 0, axis=0))
    mg_weight = features.phase / TOTAL_PHASE
    eg_weight = 1.0 - mg_weight
    slope = k * np.log(10.0) / 400.0

    def unpack(theta):
        a, b = ones.copy(), ones.copy()
        a[free_a] = theta[:len(free_a)]
        b[free_b] = theta[len(free_a):]
        return a, b

    def error_and_gradient(theta):
        a, b = unpack(theta)
        p = win_probability(evaluate(features, a, b), k)
        residual = features.result - p
        # dE/de = mean(-2 (R - p) p (1 - p) slope), per position
        d_eval = -2.0 * residual * p * (1.0 - p) * slope / len(p)
        grad_a = (features.dmg[:, free_a] * (d_eval * mg_weight)[:, None]).sum(axis=0)
        grad_b = (features.deg[:, free_b] * (d_eval * eg_weight)[:, None]).sum(axis=0)
        return float(np.mean(residual ** 2)), np.concatenate([grad_a, grad_b])

    start = np.ones(len(free_a) + len(free_b))
    solution = minimize(error_and_gradient, start, jac=True, method="L-BFGS-B",
                        bounds=[bounds] * len(start))
    a, b = unpack(solution.x)
    return Fit(a=a, b=b, k=k, error_before=mean_error(features, ones, ones, k),
               error_after=mean_error(features, a, b, k))


def held_out_mask(features: Features, held_out: float, seed: int = 0) -> np.ndarray:
    """True for the positions of a random share `held_out` of the games."""
    games = np.unique(features.game)
    rng = np.random.default_rng(seed)
    chosen = rng.choice(games, size=int(round(len(games) * held_out)), replace=False)
    return np.isin(features.game, chosen)


def split_by_game(features: Features, held_out: float, seed: int = 0):
    """(fitting, held-out) features, whole games on one side."""
    mask = held_out_mask(features, held_out, seed)
    return subset(features, ~mask), subset(features, mask)


def with_new_term(features: Features, x: np.ndarray, w_mg: float, w_eg: float) -> np.ndarray:
    """The evaluation (multipliers 1) plus a candidate term: feature x (white minus black,
    one value per position) weighted w_mg in the middle game and w_eg in the end game."""
    ones = np.ones(features.dmg.shape[1])
    mg_weight = features.phase / TOTAL_PHASE
    return evaluate(features, ones, ones) + x * (w_mg * mg_weight + w_eg * (1.0 - mg_weight))


def fit_new_term(features: Features, x: np.ndarray, k: float) -> tuple:
    """The (mg, eg) weights of a candidate term that minimise the error with everything
    else as it is (K held); L-BFGS-B with the exact gradient."""
    from scipy.optimize import minimize

    mg_weight = features.phase / TOTAL_PHASE
    slope = k * np.log(10.0) / 400.0

    def error_and_gradient(w):
        p = win_probability(with_new_term(features, x, w[0], w[1]), k)
        residual = features.result - p
        d_eval = -2.0 * residual * p * (1.0 - p) * slope * x / len(p)
        return (float(np.mean(residual ** 2)),
                np.array([np.sum(d_eval * mg_weight), np.sum(d_eval * (1.0 - mg_weight))]))

    solution = minimize(error_and_gradient, np.zeros(2), jac=True, method="L-BFGS-B",
                        options={"ftol": 1e-15, "gtol": 1e-12})
    return float(solution.x[0]), float(solution.x[1])


def scaled_constants(a: Sequence[float], b: Sequence[float]) -> List[str]:
    """engine/eval.py's constants with the multipliers applied, as Python lines to paste
    in: the (mg, eg) pairs scaled by (a_t, b_t); the king attack (mg only) by scaling its
    divisor and cap."""
    from engine import eval as ev

    names = list(ev.TERM_NAMES)
    ma = dict(zip(names, a))
    mb = dict(zip(names, b))

    def pair(values, term):
        return f"({round(values[0] * ma[term])}, {round(values[1] * mb[term])})"

    def table(values, multiplier):
        return "(" + ", ".join(str(round(v * multiplier)) for v in values) + ")"

    lines = []
    for name, term in (("KNIGHT_MOBILITY", "mobility"), ("BISHOP_MOBILITY", "mobility"),
                       ("ROOK_MOBILITY", "mobility"), ("QUEEN_MOBILITY", "mobility")):
        weights = getattr(ev, name)
        lines.append(f"{name} = ({round(weights[0] * ma[term])}, {round(weights[1] * mb[term])}, "
                     f"{weights[2]})")
    king = ma["king attack"]
    lines.append(f"KING_ATTACK_DIVISOR = {ev.KING_ATTACK_DIVISOR / max(king, 1e-9):.2f}  "
                 f"# integer division in the kernel: round, or scale the weights instead")
    lines.append(f"KING_ATTACK_MAX = {round(ev.KING_ATTACK_MAX * king)}")
    lines.append(f"SHELTER_MISSING = {round(ev.SHELTER_MISSING * ma['king shelter'])}")
    lines.append(f"ISOLATED_PAWN = {pair(ev.ISOLATED_PAWN, 'pawn structure')}")
    lines.append(f"DOUBLED_PAWN = {pair(ev.DOUBLED_PAWN, 'pawn structure')}")
    lines.append(f"SUPPORTED_PAWN = {pair(ev.SUPPORTED_PAWN, 'pawn structure')}")
    lines.append(f"BACKWARD_PAWN = {pair(ev.BACKWARD_PAWN, 'pawn structure')}")
    lines.append(f"PHALANX_PAWN_MG = {table(ev.PHALANX_PAWN_MG, ma['pawn structure'])}")
    lines.append(f"PHALANX_PAWN_EG = {table(ev.PHALANX_PAWN_EG, mb['pawn structure'])}")
    lines.append(f"PASSED_PAWN_MG = {table(ev.PASSED_PAWN_MG, ma['passed pawns'])}")
    lines.append(f"PASSED_PAWN_EG = {table(ev.PASSED_PAWN_EG, mb['passed pawns'])}")
    lines.append(f"BISHOP_PAIR = {pair(ev.BISHOP_PAIR, 'bishop pair')}")
    lines.append(f"ROOK_OPEN_FILE = {pair(ev.ROOK_OPEN_FILE, 'rook files')}")
    lines.append(f"ROOK_HALF_OPEN_FILE = {pair(ev.ROOK_HALF_OPEN_FILE, 'rook files')}")
    lines.append(f"PASSER_RACE_WEIGHT = {table(ev.PASSER_RACE_WEIGHT, mb['passer race'])}  "
                 f"# end game only; or scale PASSER_KING_THEM, PASSER_KING_US and PASSER_FREE")
    lines.append(f"KING_PAWN_DISTANCE = {round(ev.KING_PAWN_DISTANCE * mb['king activity'])}")
    lines.append(f"KNIGHT_OUTPOST = {pair(ev.KNIGHT_OUTPOST, 'knight outposts')}")
    return lines


# --- Piece-square tables ---------------------------------------------------------------
# The material + PST part of the evaluation is linear in the 2 x 384 table entries (the
# piece values folded in): base_mg = X @ w_mg, base_eg = X @ w_eg, where X counts, per
# position, white's pieces of each type on each published square (engine/pst.py's
# orientation: index 8 * (7 - rank) + file) minus black's on the mirrored square.

PST_FEATURES = 6 * 64


def pst_counts(samples: Iterable):
    """A scipy CSR matrix, one row per sample, PST_FEATURES columns (type * 64 + published
    index), white's pieces +1, black's -1."""
    import chess
    from scipy.sparse import csr_matrix

    samples = list(samples)
    rows, cols, values = [], [], []
    for row, (_, board, _) in enumerate(samples):
        for square, piece in board.piece_map().items():
            kind = piece.piece_type - 1
            if piece.color == chess.WHITE:
                cols.append(kind * 64 + (square ^ 56))
                values.append(1.0)
            else:
                cols.append(kind * 64 + square)
                values.append(-1.0)
            rows.append(row)
    X = csr_matrix((values, (rows, cols)), shape=(len(samples), PST_FEATURES))
    X.sum_duplicates()
    X.eliminate_zeros()   # a piece and its mirror cancel
    return X


def pst_weights():
    """engine/pst.py's tables as two vectors (mg, eg) of PST_FEATURES entries, the piece
    values folded in: the w_mg, w_eg that give back base_mg, base_eg."""
    from engine import pst

    w_mg = np.array([pst.MG_VALUE[t] + pst.MG_TABLES[t][i] for t in range(6) for i in range(64)],
                    dtype=np.float64)
    w_eg = np.array([pst.EG_VALUE[t] + pst.EG_TABLES[t][i] for t in range(6) for i in range(64)],
                    dtype=np.float64)
    return w_mg, w_eg


class PstFit(NamedTuple):
    w_mg: np.ndarray
    w_eg: np.ndarray
    error_before: float       # on the fitting positions, the tables as they are
    error_after: float


def evaluate_pst(features: Features, X, w_mg: np.ndarray, w_eg: np.ndarray) -> np.ndarray:
    """The evaluation (positional terms as they are) with the tables w_mg, w_eg."""
    mg = X @ w_mg + features.dmg.sum(axis=1)
    eg = X @ w_eg + features.deg.sum(axis=1)
    return (mg * features.phase + eg * (TOTAL_PHASE - features.phase)) / TOTAL_PHASE


def fit_pst(features: Features, X, k: float, prior: float) -> PstFit:
    """Table entries minimising Texel's error at fixed K plus prior * the mean squared
    distance (in pawns) of the entries from engine/pst.py's: the prior keeps entries that
    few positions see near their published values. Entries no position uses stay as they
    are. L-BFGS-B with the exact gradient."""
    from scipy.optimize import minimize

    w0_mg, w0_eg = pst_weights()
    used = np.flatnonzero(np.asarray(abs(X).sum(axis=0)).ravel() > 0)
    Xu = X[:, used].tocsr()
    XuT = Xu.T.tocsr()
    mg_weight = features.phase / TOTAL_PHASE
    eg_weight = 1.0 - mg_weight
    slope = k * np.log(10.0) / 400.0
    terms_mg = features.dmg.sum(axis=1)
    terms_eg = features.deg.sum(axis=1)
    n, m = len(features.result), len(used)
    start = np.concatenate([w0_mg[used], w0_eg[used]])

    def error_and_gradient(theta):
        mg = Xu @ theta[:m] + terms_mg      # unused entries multiply only zero counts
        eg = Xu @ theta[m:] + terms_eg
        p = win_probability((mg * features.phase + eg * (TOTAL_PHASE - features.phase))
                            / TOTAL_PHASE, k)
        residual = features.result - p
        d_eval = -2.0 * residual * p * (1.0 - p) * slope / n
        shift = (theta - start) / 100.0
        error = float(np.mean(residual ** 2)) + prior * float(np.mean(shift ** 2))
        gradient = np.concatenate([XuT @ (d_eval * mg_weight), XuT @ (d_eval * eg_weight)])
        gradient += prior * 2.0 * shift / (100.0 * len(theta))
        return error, gradient

    solution = minimize(error_and_gradient, start, jac=True, method="L-BFGS-B",
                        options={"maxiter": 5000, "ftol": 1e-15, "gtol": 1e-12})
    w_mg, w_eg = w0_mg.copy(), w0_eg.copy()
    w_mg[used] = solution.x[:m]
    w_eg[used] = solution.x[m:]
    return PstFit(w_mg=w_mg, w_eg=w_eg,
                  error_before=pst_error(features, X, w0_mg, w0_eg, k),
                  error_after=pst_error(features, X, w_mg, w_eg, k))


def pst_error(features: Features, X, w_mg, w_eg, k: float) -> float:
    p = win_probability(evaluate_pst(features, X, w_mg, w_eg), k)
    return float(np.mean((features.result - p) ** 2))


def pst_tables_source(w_mg: np.ndarray, w_eg: np.ndarray) -> List[str]:
    """engine/pst.py's table definitions for the entries w_mg, w_eg (piece values kept,
    the tables absorbing the rest), rounded, in the published layout, with the MG_TABLES
    and EG_TABLES tuples."""
    from engine import pst

    lines = []
    names = ("PAWN", "KNIGHT", "BISHOP", "ROOK", "QUEEN", "KING")
    for phase, weights, values in (("MG", w_mg, pst.MG_VALUE), ("EG", w_eg, pst.EG_VALUE)):
        for kind, name in enumerate(names):
            entries = np.rint(weights[kind * 64:(kind + 1) * 64] - values[kind]).astype(int)
            lines.append(f"{phase}_{name} = (")
            for rank in range(8):
                lines.append("    " + ", ".join(f"{v:4d}" for v in entries[rank * 8:rank * 8 + 8]) + ",")
            lines.append(")")
            lines.append("")
    for phase in ("MG", "EG"):
        lines.append(f"{phase}_TABLES = (" + ", ".join(f"{phase}_{name}" for name in names) + ")")
    return lines
