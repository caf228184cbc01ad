"""A small neural evaluation, trained on engine-labelled positions: the research harness
that measures whether one would beat the hand-written evaluation (engine.eval) before any
of it goes into the engine.

The network is the efficiently updatable kind (NNUE): 768 inputs per point of view, one
for each (piece colour relative to the viewer, piece kind, square seen from the viewer's
side), a hidden layer of H units shared by both points of view, clipped to [0, 1], and one
output read from both halves, the side to move's first:

    a_v   = b1 + sum of W1[f] over the features f of view v         (H values, v = us, them)
    out   = W2[k, :H] . clip(a_us, 0, 1) + W2[k, H:] . clip(a_them, 0, 1) + b2[k]
    p     = 1 / (1 + exp(-out))            the side to move's expected score

k is the output bucket: with B output layers, (pieces on the board - 2) x B // 32, capped at
B - 1 (engine.nnue.output_bucket), so that an endgame's output is weighed apart from a full
board's; with B = 1 every position uses the one layer.

A move changes two to four features, so an engine keeps a_v up to date with a few row
additions per move instead of summing 30 rows per evaluation. The loss is Texel's: the
mean squared difference of p and the target, the expected score the label's centipawns
stand for (lab/network/texel.win_probability at K = 1), so it is directly comparable with
lab/network/texel_tune.py's error of the hand-written evaluation on the same labels. In
centipawns the network's evaluation is out x 400 / ln 10.

King buckets (`king_buckets` 4; 0, the engine's inputs, is the default): each view's
768 inputs are taken again for each of four places of its own king, the squares mirrored
left to right when that king stands on files e-h, so that a pawn shield or an attacker is
weighed by where the king it guards or attacks stands. The king's square seen from its own
side, mirrored into files a-d, picks the copy:

    rank 1, files a-b   0        rank 2        2
    rank 1, files c-d   1        ranks 3-8     3

Training is mini-batch Adam in one jitted loop (numba). With a few hundred thousand
positions, 768 independent inputs per view overfit; each piece therefore also feeds a
virtual input of its (relative colour, kind) during training, which `folded` adds back into
the 768 rows afterwards. With king buckets each piece feeds, besides, its input without the
king's bucket (the same piece on the same mirrored square, whatever the copy), learnt from
every position and folded into each copy the same way. The first layer's rows, in order:

    real       768 x max(1, king buckets)   the inputs an engine reads
    factor     768 (king buckets only)      a piece on a mirrored square, any bucket
    virtual    12                           a piece of a kind, any square

An engine's network (`quantized`) keeps the real rows alone. Positions:
lab/network/label_positions.py files (`FEN;score;game`), split by game as texel_tune.py
splits them.
"""
import itertools
import math
from typing import NamedTuple

import numpy as np

from engine._jit import jit_alloc
from engine.nnue import NN_QA, NN_QB
from engine.types import KING

N_FEATURES = 768
N_VIRTUAL = 12      # training only: one input per (relative colour, kind), see _accumulate
MAX_PIECES = 32
KING_BUCKETS = 4    # the one king-bucket layout (the module docstring's table)


def king_bucket(king_seen: int) -> tuple:
    """(bucket, mirrored) of a view whose own king stands on `king_seen` (seen from its own
    side, a1 = 0): mirrored when the king is on files e-h."""
    mirrored = king_seen % 8 >= 4
    file, rank = (king_seen % 8) ^ (7 if mirrored else 0), king_seen // 8
    if rank == 0:
        return (0 if file < 2 else 1), mirrored
    return (2 if rank == 1 else 3), mirrored


def feature_index(view_white: bool, piece_white: bool, kind: int, square: int,
                  king_buckets: int = 0, own_king: int = 0) -> int:
    """The input of a piece (kind 0-5: pawn..king; square 0-63, a1 = 0) seen by a viewer:
    its own pieces first, squares flipped vertically for black. With king buckets, the
    copy of the viewer's king square `own_king` (a1 = 0, not flipped), the square mirrored
    as that copy is."""
    relative = 0 if piece_white == view_white else 1
    flip = 0 if view_white else 56
    seen = square ^ flip
    if not king_buckets:
        return (relative * 6 + kind) * 64 + seen
    bucket, mirrored = king_bucket(own_king ^ flip)
    return bucket * N_FEATURES + (relative * 6 + kind) * 64 + (seen ^ 7 if mirrored else seen)


def _features(pieces, white_to_move: bool, king_buckets: int) -> np.ndarray:
    """int16[2, MAX_PIECES] inputs of (square, white, kind) triples: row 0 the side to move's
    view, row 1 the other's; unused places -1."""
    kings = {white: square for square, white, kind in pieces if kind == KING}
    out = np.full((2, MAX_PIECES), -1, dtype=np.int16)
    for row, view_white in enumerate((white_to_move, not white_to_move)):
        own_king = kings.get(view_white, 0)
        for place, (square, white, kind) in enumerate(pieces):
            out[row, place] = feature_index(view_white, white, kind, square, king_buckets,
                                            own_king)
    return out


def position_features(board, king_buckets: int = 0) -> np.ndarray:
    """int16[2, MAX_PIECES] inputs of a python-chess board: row 0 the side to move's view,
    row 1 the other's; unused places -1."""
    pieces = [(square, piece.color, piece.piece_type - 1)
              for square, piece in board.piece_map().items()]
    return _features(pieces, board.turn, king_buckets)


class Dataset(NamedTuple):
    features: np.ndarray   # int16[n, 2, MAX_PIECES]
    target: np.ndarray     # float32[n]: the side to move's expected score
    game: np.ndarray       # int64[n]: the game each position came from


def dataset(samples, king_buckets: int = 0) -> Dataset:
    """A Dataset of (game index, python-chess board, white's expected score) samples, as
    lab/network/texel.labelled_positions yields them (targets turned to the side to move)."""
    feats, targets, games = [], [], []
    for game, board, white_target in samples:
        feats.append(position_features(board, king_buckets))
        targets.append(white_target if board.turn else 1.0 - white_target)
        games.append(game)
    return Dataset(np.array(feats, dtype=np.int16), np.array(targets, dtype=np.float32),
                   np.array(games, dtype=np.int64))


FEN_PIECES = {letter: (letter.isupper(), kind) for kind, letters in
              enumerate(("pP", "nN", "bB", "rR", "qQ", "kK")) for letter in letters}


def _fen_pieces(placement: str):
    """(square, white, kind) of each piece of a FEN's placement field, in the field's order."""
    for rank_index, rank_text in enumerate(placement.split("/")):
        file = 0
        for letter in rank_text:
            if letter.isdigit():
                file += int(letter)
                continue
            yield ((7 - rank_index) * 8 + file,) + FEN_PIECES[letter]
            file += 1


def fen_features(fen: str, king_buckets: int = 0) -> np.ndarray:
    """position_features of a FEN, read straight from its placement field (several times
    faster than building a python-chess board: millions of positions load in minutes)."""
    placement, turn = fen.split(" ", 2)[:2]
    white_to_move = turn == "w"
    if king_buckets:
        return _features(list(_fen_pieces(placement)), white_to_move, king_buckets)
    # The engine's inputs, in one pass (the loader of the shipped network's labels).
    out = np.full((2, MAX_PIECES), -1, dtype=np.int16)
    for place, (square, piece_white, kind) in enumerate(_fen_pieces(placement)):
        out[0, place] = feature_index(white_to_move, piece_white, kind, square)
        out[1, place] = feature_index(not white_to_move, piece_white, kind, square)
    return out


def _read_labels(path, king_buckets: int = 0):
    """(features, score targets, result targets (NaN where a line has none), games) of a
    label file, both targets float64 from the side to move's view."""
    from lab.network.texel import GAME_RESULTS, win_probability

    feats, scores, white_moves, games, results = [], [], [], [], []
    with open(path) as handle:
        for line in handle:
            parts = line.rstrip("\n").split(";")
            if (len(parts) not in (3, 4) or not parts[1].lstrip("-").isdigit()
                    or not parts[2].isdigit()):
                continue
            result = GAME_RESULTS.get(parts[3], np.nan) if len(parts) == 4 else np.nan
            feats.append(fen_features(parts[0], king_buckets))
            scores.append(float(parts[1]))
            white_moves.append(parts[0].split(" ", 2)[1] == "w")
            games.append(int(parts[2]))
            results.append(result)
    white = win_probability(np.array(scores), 1.0)
    white_results = np.array(results, dtype=np.float64)
    white_moves = np.array(white_moves, dtype=bool)
    return (np.array(feats, dtype=np.int16), np.where(white_moves, white, 1.0 - white),
            np.where(white_moves, white_results, 1.0 - white_results),
            np.array(games, dtype=np.int64))


def load_labels(path, result_weight: float = 0.0, king_buckets: int = 0) -> Dataset:
    """A lab/network/label_positions.py file (`FEN;score;game` lines, optionally `;result`
    as lab/network/label_static.py writes it) as a Dataset; a line cut short (a labelling
    run stopped mid-write) is skipped. The target is the expected score the score stands
    for; with `result_weight` w, a line that has its game's result targets
    (1 - w) x that + w x the result (a line without one keeps the score's alone).
    `king_buckets`: the inputs' layout (feature_index)."""
    feats, target, results, games = _read_labels(path, king_buckets)
    known = ~np.isnan(results)
    target[known] = (1.0 - result_weight) * target[known] + result_weight * results[known]
    return Dataset(feats, target.astype(np.float32), games)


def load_labels_and_results(path, king_buckets: int = 0) -> tuple:
    """(the Dataset of load_labels(path), float32 results from the side to move's view, NaN
    where a line has none), from one reading of the file."""
    feats, target, results, games = _read_labels(path, king_buckets)
    return Dataset(feats, target.astype(np.float32), games), results.astype(np.float32)


def split_by_game(data: Dataset, held_out: float, seed: int = 0):
    """(fitting, held-out) datasets, whole games on one side: texel_tune.py's split."""
    from lab.network.texel import held_out_mask

    mask = held_out_mask(data, held_out, seed)
    return (Dataset(data.features[~mask], data.target[~mask], data.game[~mask]),
            Dataset(data.features[mask], data.target[mask], data.game[mask]))


class Network(NamedTuple):
    w1: np.ndarray   # float32[N_FEATURES + N_VIRTUAL, H]
    b1: np.ndarray   # float32[H]
    w2: np.ndarray   # float32[B, 2H]: one output layer per bucket
    b2: np.ndarray   # float32[B]


def new_network(hidden: int, seed: int = 0, buckets: int = 1, king_buckets: int = 0) -> Network:
    """A network of `hidden` units and `buckets` output layers (1 or engine.types.NN_BUCKETS
    for an engine), its weights drawn from `seed`. With king buckets the copies start at
    zero and the factor rows take the draws, so that training starts from a network that
    ignores where the kings stand."""
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((N_FEATURES + N_VIRTUAL, hidden)) * 0.05).astype(np.float32)
    if king_buckets:
        w1 = np.vstack([np.zeros((king_buckets * N_FEATURES, hidden), np.float32), w1])
    return Network(
        w1,
        np.full(hidden, 0.3, dtype=np.float32),    # units start inside the clip's linear part
        (rng.standard_normal((buckets, 2 * hidden)) / math.sqrt(2 * hidden)).astype(np.float32),
        np.zeros(buckets, dtype=np.float32))


@jit_alloc
def _row_layout(rows):
    """(first factor row or -1, first virtual row or -1) of a first layer of `rows` rows
    (the module docstring's order): a training network has N_VIRTUAL rows past a multiple of
    N_FEATURES, and factor rows when it has more than one block besides; an engine's has the
    real rows alone."""
    if rows % N_FEATURES != N_VIRTUAL:
        return -1, -1
    virtual = rows - N_VIRTUAL
    return (virtual - N_FEATURES if virtual > N_FEATURES else -1), virtual


@jit_alloc
def _accumulate(w1, b1, feats, acc):
    # Each piece also feeds a virtual input of its (relative colour, kind), whatever its
    # square: what a piece is worth anywhere is learnt from every position holding one,
    # not square by square; and with king buckets the input of its mirrored square, whatever
    # the king's bucket. folded() adds those rows into the real ones for an engine.
    factor, virtual = _row_layout(w1.shape[0])
    acc[:] = b1
    for f in feats:
        if f < 0:
            break
        acc += w1[f]
        plain = f % N_FEATURES
        if factor >= 0:
            acc += w1[factor + plain]
        if virtual >= 0:
            acc += w1[virtual + plain // 64]


@jit_alloc
def _bucket(feats, buckets):
    """The output bucket of a position's features (engine.nnue.output_bucket's rule)."""
    pieces = 0
    for f in feats[0]:
        if f < 0:
            break
        pieces += 1
    return min((pieces - 2) * buckets // 32, buckets - 1)


@jit_alloc
def _forward(w1, b1, w2, b2, feats, acc_us, acc_them):
    """(the output (a logit), the output bucket) of one position; leaves both views'
    accumulators filled."""
    _accumulate(w1, b1, feats[0], acc_us)
    _accumulate(w1, b1, feats[1], acc_them)
    hidden = acc_us.shape[0]
    bucket = _bucket(feats, b2.shape[0])
    out = b2[bucket]
    for j in range(hidden):
        out += w2[bucket, j] * min(max(acc_us[j], 0.0), 1.0)
        out += w2[bucket, hidden + j] * min(max(acc_them[j], 0.0), 1.0)
    return out, bucket


@jit_alloc
def predict(w1, b1, w2, b2, features):
    """float64[n]: the side to move's expected score of each position."""
    n = features.shape[0]
    hidden = b1.shape[0]
    acc_us = np.empty_like(b1)
    acc_them = np.empty_like(b1)
    out = np.empty(n)
    for i in range(n):
        logit = _forward(w1, b1, w2, b2, features[i], acc_us, acc_them)[0]
        out[i] = 1.0 / (1.0 + math.exp(-logit))
    return out


def king_buckets_of(net: Network) -> int:
    """The number of king buckets of a network (0: the engine's inputs)."""
    rows = net.w1.shape[0]
    factor, virtual = _row_layout(rows)
    real = factor if factor >= 0 else (virtual if virtual >= 0 else rows)
    return real // N_FEATURES if real > N_FEATURES else 0


def folded(net: Network) -> np.ndarray:
    """float32[real rows, H]: the first layer with the factor and virtual inputs added into
    the rows of the real ones (the same outputs, with the engine's inputs alone)."""
    factor, virtual = _row_layout(net.w1.shape[0])
    if virtual < 0:
        return net.w1
    real = factor if factor >= 0 else virtual
    plain = np.arange(real) % N_FEATURES
    out = net.w1[:real] + net.w1[virtual + plain // 64]
    if factor >= 0:
        out = out + net.w1[factor + plain]
    return out


# The engine's integer network: first-layer weights and activations x QA (clip at QA),
# output weights x QB; the output sum is then the logit x QA x QB (engine.nnue).
QA, QB = NN_QA, NN_QB


def quantized(net: Network) -> dict:
    """int64 arrays of the network for an engine's integer arithmetic (w1 folded, 768 x H, or
    768 per king bucket, with `king_buckets` then saved too; w2 buckets x 2H, b2 one per
    bucket)."""
    q = {"w1": np.round(folded(net) * QA).astype(np.int64),
         "b1": np.round(net.b1 * QA).astype(np.int64),
         "w2": np.round(net.w2 * QB).astype(np.int64),
         "b2": np.round(net.b2 * QA * QB).astype(np.int64)}
    king_buckets = king_buckets_of(net)
    if king_buckets:
        q["king_buckets"] = np.int64(king_buckets)
    return q


def quantized_king_buckets(q) -> int:
    """The king buckets of quantized arrays or an engine's .npz (0 where none are saved)."""
    return int(q["king_buckets"]) if "king_buckets" in q else 0


def from_quantized(q) -> Network:
    """The float network whose arithmetic is `q`'s integer one (quantized's arrays, or an
    engine's .npz): weights scaled back, the real rows alone, w2 as (buckets, 2H). Its
    inputs are those of quantized_king_buckets(q)."""
    hidden = np.asarray(q["b1"]).size
    return Network(np.asarray(q["w1"]) / QA, np.asarray(q["b1"]) / QA,
                   np.asarray(q["w2"]).reshape(-1, 2 * hidden) / QB,
                   np.asarray(q["b2"]).ravel() / (QA * QB))


# A side's men besides its king: at most 8 pawns, and the starting count of each other kind
# plus its promotions, which take pawns away (engine.types kinds, KING excluded).
START_COUNTS = (8, 2, 2, 2, 1)          # pawn, knight, bishop, rook, queen
PAWN_SQUARES = slice(8, 56)             # ranks 2-7, from either side's point of view


def _piece_counts() -> np.ndarray:
    """Every count of (pawns, knights, bishops, rooks, queens) a side can reach with all of
    its pawns either still pawns or promoted: fewer men only drop rows, so the extremes of
    a side's sum are among these."""
    pawns, *others = START_COUNTS
    return np.array([(pawns - sum(promoted), *np.add(others, promoted))
                     for promoted in itertools.product(range(pawns + 1), repeat=len(others))
                     if sum(promoted) <= pawns])


def accumulator_range(q: dict) -> tuple:
    """(lowest, highest) value any hidden unit's accumulator can take in a legal position,
    for the integer network `q` (quantized's arrays). For each side: its king's most extreme
    weight, plus, for each reachable count of each other kind (_piece_counts), that many of
    the kind's most extreme weights on distinct squares (pawns on ranks 2-7 only). The bound
    is never short; it is loose where it takes the sides' squares apart and lets two kinds
    stand on one square. The engine keeps accumulators in int16: both ends must fit."""
    counts = _piece_counts()
    most = counts.max()
    lows, highs = [], []
    # one copy of the 768 inputs per king bucket: a view reads one copy at a time
    for w1 in q["w1"].astype(np.int64).reshape(-1, 2, 6, 64, q["b1"].size):  # side, kind, square, unit
        high = q["b1"].astype(np.int64).copy()
        low = high.copy()
        for side in range(2):
            for extreme, bound, sign in ((np.maximum, high, 1), (np.minimum, low, -1)):
                bound += sign * (sign * extreme(w1[side, KING], 0)).max(axis=0)
                # best[kind, c]: the sum of the kind's c largest weights times sign, c from 0
                best = np.zeros((KING, most + 1, w1.shape[-1]), dtype=np.int64)
                for kind in range(KING):
                    rows = w1[side, kind, PAWN_SQUARES] if kind == 0 else w1[side, kind]
                    ordered = -np.sort(-sign * extreme(rows, 0), axis=0)
                    best[kind, 1:] = np.cumsum(ordered, axis=0)[:most]
                totals = sum(best[kind, counts[:, kind]] for kind in range(KING))
                bound += sign * totals.max(axis=0)
        lows.append(low.min())
        highs.append(high.max())
    return int(min(lows)), int(max(highs))


def fits_int16(q: dict) -> bool:
    """Whether the engine's int16 accumulators can hold every value of `q`'s hidden units."""
    low, high = accumulator_range(q)
    return -2 ** 15 <= low and high < 2 ** 15


def sample(data: Dataset, count: int, seed: int = 0) -> Dataset:
    """At most `count` positions of `data`, drawn at random without replacement."""
    if len(data.target) <= count:
        return data
    chosen = np.sort(np.random.default_rng(seed).choice(len(data.target), count, replace=False))
    return Dataset(data.features[chosen], data.target[chosen], data.game[chosen])


def mean_error(net: Network, data: Dataset) -> float:
    """Texel's error: the mean squared difference of prediction and target."""
    return float(np.mean((predict(*net, data.features) - data.target) ** 2))


@jit_alloc
def _gradients(w1, b1, w2, b2, features, target, batch, g_w1, g_b1, g_w2, g_b2):
    """Gradients of the mean loss over the positions `batch`, written into the g_* arrays
    (zeroed here first)."""
    hidden = b1.shape[0]
    factor, virtual = _row_layout(w1.shape[0])
    g_w1[:] = 0.0
    g_b1[:] = 0.0
    g_w2[:] = 0.0
    g_b2[:] = 0.0
    acc_us = np.empty_like(b1)
    acc_them = np.empty_like(b1)
    d_acc = np.empty_like(b1)
    scale = 1.0 / batch.shape[0]
    for i in batch:
        feats = features[i]
        out, bucket = _forward(w1, b1, w2, b2, feats, acc_us, acc_them)
        p = 1.0 / (1.0 + math.exp(-out))
        d_out = 2.0 * (p - target[i]) * p * (1.0 - p) * scale
        g_b2[bucket] += d_out
        for view in range(2):
            acc = acc_us if view == 0 else acc_them
            for j in range(hidden):
                a = acc[j]
                g_w2[bucket, view * hidden + j] += d_out * min(max(a, 0.0), 1.0)
                d_acc[j] = d_out * w2[bucket, view * hidden + j] if 0.0 < a < 1.0 else 0.0
            g_b1 += d_acc
            for f in feats[view]:
                if f < 0:
                    break
                g_w1[f] += d_acc
                plain = f % N_FEATURES
                if factor >= 0:
                    g_w1[factor + plain] += d_acc
                if virtual >= 0:
                    g_w1[virtual + plain // 64] += d_acc


@jit_alloc
def _adam_step(param, grad, m, v, rate, step):
    beta1 = 0.9
    beta2 = 0.999
    c1 = 1.0 - beta1 ** step
    c2 = 1.0 - beta2 ** step
    flat_p = param.reshape(-1)
    flat_g = grad.reshape(-1)
    flat_m = m.reshape(-1)
    flat_v = v.reshape(-1)
    for k in range(flat_p.shape[0]):
        g = flat_g[k]
        flat_m[k] = beta1 * flat_m[k] + (1.0 - beta1) * g
        flat_v[k] = beta2 * flat_v[k] + (1.0 - beta2) * g * g
        flat_p[k] -= rate * (flat_m[k] / c1) / (math.sqrt(flat_v[k] / c2) + 1e-8)


@jit_alloc
def _epoch(w1, b1, w2, b2, features, target, order, batch_size, rate, moments, step):
    """One pass over the positions in `order`, Adam steps per batch; returns the step count."""
    g_w1 = np.zeros_like(w1)
    g_b1 = np.zeros_like(b1)
    g_w2 = np.zeros_like(w2)
    g_b2 = np.zeros_like(b2)
    m_w1, v_w1, m_b1, v_b1, m_w2, v_w2, m_b2, v_b2 = moments
    for start in range(0, order.shape[0], batch_size):
        batch = order[start:start + batch_size]
        _gradients(w1, b1, w2, b2, features, target, batch, g_w1, g_b1, g_w2, g_b2)
        step += 1
        _adam_step(w1, g_w1, m_w1, v_w1, rate, step)
        _adam_step(b1, g_b1, m_b1, v_b1, rate, step)
        _adam_step(w2, g_w2, m_w2, v_w2, rate, step)
        _adam_step(b2, g_b2, m_b2, v_b2, rate, step)
    return step


def step_rate(rate: float, epoch: int, epochs: int) -> float:
    """The learning rate of an epoch (1-based): `rate` for the first half of the epochs,
    a quarter of it after, a sixteenth in the last (the schedule of the shipped network)."""
    if epoch == epochs and epochs > 2:
        return rate / 16
    return rate if epoch <= epochs // 2 else rate / 4


def train(net: Network, fitting: Dataset, epochs: int, batch_size: int = 256,
          rate: float = 1e-3, seed: int = 0, held_out: Dataset = None, report=None,
          schedule: bool = False, fit_sample: Dataset = None) -> Network:
    """Adam on the fitting positions for `epochs` passes (in place); `report(epoch, fitting
    error, held-out error or None)` after each pass, the fitting error on `fit_sample` when
    given. With `schedule`, the rate steps down as step_rate says."""
    moments = tuple(np.zeros_like(a) for a in (net.w1, net.w1, net.b1, net.b1,
                                               net.w2, net.w2, net.b2, net.b2))
    rng = np.random.default_rng(seed)
    step = 0
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(fitting.target)).astype(np.int64)
        epoch_rate = step_rate(rate, epoch, epochs) if schedule else rate
        step = _epoch(*net, fitting.features, fitting.target, order, batch_size, epoch_rate,
                      moments, step)
        if report is not None:
            report(epoch, mean_error(net, fitting if fit_sample is None else fit_sample),
                   mean_error(net, held_out) if held_out is not None else None)
    return net
