"""The read-only tables every jitted kernel takes as its `T` argument, built once per process.

`Tables(u, i, nn)` holds three flat arrays (layout and the reason for it in engine.types):
the uint64 one has the attack tables (engine.attacks), the evaluation's file and pawn-span
masks (engine.eval) and the Zobrist keys (engine.zobrist, from
Polyglot's random array in engine/polyglot_random.npy); the int64 one has the PeSTO
piece-square tables (engine.pst), phase weights and the network's output bias; the int16
one the evaluation network's weights (engine.nnue), read from engine/nnue_net.npz.
The castling-rights masks depend on where the castling rooks stand (Chess960), so they
belong to each position (engine.position, its meta array).
"""
import collections
import functools
from pathlib import Path

import numpy as np

from engine.attacks import fill_attack_tables
from engine.eval import fill_eval_masks
from engine.nnue import NN_QA
from engine.pst import PHASE_INC, build_pst
from engine.types import (
    I_NN_B2, I_PHASE, N_SIZE, I_PST_EG, I_PST_MG, I_SIZE, U_SIZE,
)
from engine.zobrist import fill_zobrist_tables

# Polyglot's 781 random numbers (python-chess's chess.polyglot.POLYGLOT_RANDOM_ARRAY, saved
# with numpy; tests/test_board.py compares them): read here so that a start needs no
# python-chess, whose import took 30 ms before `readyok`.
POLYGLOT_RANDOM = Path(__file__).with_name("polyglot_random.npy")

Tables = collections.namedtuple("Tables", "u i nn")


@functools.lru_cache(maxsize=1)
def get_tables() -> Tables:
    """The process-wide Tables (built on first use)."""
    u = np.zeros(U_SIZE, dtype=np.uint64)
    fill_attack_tables(u)
    fill_eval_masks(u)
    fill_zobrist_tables(u, np.load(POLYGLOT_RANDOM))
    i = np.zeros(I_SIZE, dtype=np.int64)
    pst_mg, pst_eg = build_pst()
    i[I_PST_MG:I_PST_MG + 768] = pst_mg.ravel()
    i[I_PST_EG:I_PST_EG + 768] = pst_eg.ravel()
    i[I_PHASE:I_PHASE + 12] = PHASE_INC + PHASE_INC   # by piece; EMPTY (12) stays 0
    net = np.load(Path(__file__).with_name("nnue_net.npz"))
    nn = np.concatenate([net[name].ravel() for name in ("w1", "b1", "w2")]).astype(np.int16)
    assert nn.size == N_SIZE
    # engine.nnue._output's int32 sum: activations clip at NN_QA.
    assert NN_QA * np.abs(net["w2"].astype(np.int64)).sum() < 2 ** 31
    i[I_NN_B2] = int(net["b2"][0])
    u.flags.writeable = False
    i.flags.writeable = False
    nn.flags.writeable = False
    return Tables(u, i, nn)
