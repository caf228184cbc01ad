"""The read-only tables every jitted kernel takes as its `T` argument, built once per process.

`Tables(u, i, nn)` holds three flat arrays (layout and the reason for it in engine.types):
the uint64 one has the attack tables (engine.attacks), the evaluation's file and pawn-span
masks (engine.eval) and the Zobrist keys (engine.zobrist, from
Polyglot's random array in engine/polyglot_random.npy); the int64 one has the PeSTO
piece-square tables (engine.pst), phase weights and the network's output biases; the int16
one the evaluation network's weights (engine.nnue), read from engine/nnue_net.npz.
The castling-rights masks depend on where the castling rooks stand (Chess960), so they
belong to each position (engine.position, its meta array).
"""
import collections
import functools
import hashlib
import os
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from engine.attacks import fill_attack_tables
from engine.eval import fill_eval_masks
from engine.nnue import NN_QA
from engine.pst import PHASE_INC, build_pst
from engine.types import (
    I_NN_B2, I_PHASE, N_SIZE, I_PST_EG, I_PST_MG, I_SIZE, NN_BUCKETS, NN_HIDDEN, U_SIZE,
)
from engine.zobrist import fill_zobrist_tables

# Polyglot's 781 random numbers (python-chess's chess.polyglot.POLYGLOT_RANDOM_ARRAY, saved
# with numpy; tests/test_board.py compares them): read here so that a start needs no
# python-chess, whose import took 30 ms before `readyok`.
POLYGLOT_RANDOM = Path(__file__).with_name("polyglot_random.npy")

Tables = collections.namedtuple("Tables", "u i nn")


def network_arrays(net) -> tuple:
    """(T.nn, the NN_BUCKETS output biases) of an integer network (lab.network.nnue.quantized's
    arrays: w1, b1, w2 of shape (buckets, 2 x NN_HIDDEN) or (2 x NN_HIDDEN,), b2). A network
    with one output layer fills every bucket with it; any other number of buckets must be
    NN_BUCKETS. Raises ValueError for weights of another shape or an output sum that could
    overflow engine.nnue._output's int32."""
    w2 = np.asarray(net["w2"], dtype=np.int64).reshape(-1, 2 * NN_HIDDEN)
    b2 = np.asarray(net["b2"], dtype=np.int64).ravel()
    if len(w2) == 1:
        w2, b2 = np.repeat(w2, NN_BUCKETS, axis=0), np.repeat(b2, NN_BUCKETS)
    if len(w2) != NN_BUCKETS or len(b2) != NN_BUCKETS:
        raise ValueError(f"{len(w2)} output layers and {len(b2)} biases, not 1 or {NN_BUCKETS}")
    # engine.nnue._output's int32 sum: activations clip at NN_QA.
    if NN_QA * np.abs(w2).sum(axis=1).max() >= 2 ** 31:
        raise ValueError("an output sum could overflow int32")
    nn = np.concatenate([np.asarray(net["w1"]).ravel(), np.asarray(net["b1"]).ravel(),
                         w2.ravel()]).astype(np.int16)
    if nn.size != N_SIZE:
        raise ValueError(f"{nn.size} weights, not {N_SIZE}")
    return nn, b2


NETWORK_FILE = Path(__file__).with_name("nnue_net.npz")
# (name, dtype, size) of each array of Tables, as build_tables makes them
_ARRAYS = (("u", np.uint64, U_SIZE), ("i", np.int64, I_SIZE), ("nn", np.int16, N_SIZE))


def saved_tables_path() -> Path:
    """Where the built tables are kept between processes: beside the compiled kernels, whose
    folder is keyed by the kernel sources (these builders among them), under a name keyed
    by the two data files they read."""
    from engine._jit import CACHE_DIR

    data = hashlib.sha1(NETWORK_FILE.read_bytes() + POLYGLOT_RANDOM.read_bytes())
    return CACHE_DIR / f"tables-{data.hexdigest()[:16]}.npz"


def _load_saved(path: Path):
    """(u, i, nn) from `path`, or None where it is missing or not what build_tables makes."""
    try:
        with np.load(path) as saved:
            arrays = tuple(saved[name] for name, _, _ in _ARRAYS)
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    for array, (_, dtype, size) in zip(arrays, _ARRAYS):
        if array.dtype != dtype or array.shape != (size,):
            return None
    return arrays


def _save(path: Path, arrays) -> None:
    """Write the tables for later processes (renamed into place: engines started together
    never read a half-written file); a folder that cannot be written only costs time."""
    written = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as out:
            written = out.name
            np.savez(out, **{name: array for (name, _, _), array in zip(_ARRAYS, arrays)})
        os.replace(written, path)
    except OSError:
        if written is not None and os.path.exists(written):
            os.unlink(written)


@functools.lru_cache(maxsize=1)
def get_tables() -> Tables:
    """The process-wide Tables: read from the file an earlier process saved (2 ms), else built
    (35 ms of a warm start: ten table builders to load and run) and saved."""
    path = saved_tables_path()
    arrays = _load_saved(path)
    if arrays is None:
        arrays = build_tables()
        _save(path, arrays)
    for array in arrays:
        array.flags.writeable = False
    return Tables(*arrays)


def build_tables():
    """(u, i, nn): the attack tables, evaluation masks, Zobrist keys, piece-square values and
    network weights, computed."""
    u = np.zeros(U_SIZE, dtype=np.uint64)
    fill_attack_tables(u)
    fill_eval_masks(u)
    fill_zobrist_tables(u, np.load(POLYGLOT_RANDOM))
    i = np.zeros(I_SIZE, dtype=np.int64)
    pst_mg, pst_eg = build_pst()
    i[I_PST_MG:I_PST_MG + 768] = pst_mg.ravel()
    i[I_PST_EG:I_PST_EG + 768] = pst_eg.ravel()
    i[I_PHASE:I_PHASE + 12] = PHASE_INC + PHASE_INC   # by piece; EMPTY (12) stays 0
    nn, i[I_NN_B2:I_NN_B2 + NN_BUCKETS] = network_arrays(np.load(NETWORK_FILE))
    return u, i, nn
