"""The handles of engine.search: the recursive kernels rebuild P, T, the table and the
search state from the data addresses and shapes written into ctrl."""
import numba
import numpy as np

from engine.board import Board
from engine.search import K_HANDLES, K_LEN, fill_handles, new_search_state, unpack_handles
from engine.tt import new_table


@numba.njit
def _note(out, i, array):
    out[i, 0] = array.ctypes.data
    out[i, 1] = array.size
    out[i, 2] = array.ndim


@numba.njit
def _unpacked(ctrl):
    """(address, size, ndim) of every array unpack_handles rebuilds, in tuple order."""
    P, T, tt, S = unpack_handles(ctrl)
    out = np.zeros((25, 3), np.int64)
    _note(out, 0, P.bb)
    _note(out, 1, P.board)
    _note(out, 2, P.st)
    _note(out, 3, P.keys)
    _note(out, 4, P.meta)
    _note(out, 5, T.u)
    _note(out, 6, T.i)
    _note(out, 7, T.nn)
    _note(out, 8, tt.slots)
    _note(out, 9, tt.conf)
    _note(out, 10, tt.stats)
    _note(out, 11, tt.locks)
    _note(out, 12, tt.seen)
    _note(out, 13, tt.lines)
    _note(out, 14, S.ctrl)
    _note(out, 15, S.history)
    _note(out, 16, S.pv)
    _note(out, 17, S.stack)
    _note(out, 18, S.moves)
    _note(out, 19, S.scores)
    _note(out, 20, S.root_moves)
    _note(out, 21, S.root_nodes)
    _note(out, 22, S.lines)
    _note(out, 23, S.cont_history)
    _note(out, 24, S.nn_acc)
    return out


def _expected(*groups):
    return [[array.ctypes.data, array.size, array.ndim] for group in groups for array in group]


def test_every_array_comes_back_from_its_handle():
    board = Board("8/1p3pk1/p1r3p1/8/P2R4/6P1/1P3PK1/8 w - - 0 40")
    S = new_search_state()
    for table in (new_table(mb=1), new_table(mb=2, pv_plies=4)):
        fill_handles(board.P, board.T, table, S)
        assert _unpacked(S.ctrl).tolist() == _expected(board.P, board.T, table, S)


def test_the_handles_fill_ctrl_to_its_end():
    S = new_search_state()
    board = Board()
    S.ctrl[K_HANDLES:] = -1
    fill_handles(board.P, board.T, new_table(mb=1), S)
    assert K_LEN == len(S.ctrl)
    assert (S.ctrl[K_HANDLES:] != -1).all()   # no word of the layout left unwritten


def test_a_view_writes_through_to_the_array():
    board = Board()
    S = new_search_state()
    fill_handles(board.P, board.T, new_table(mb=1), S)
    _bump_history(S.ctrl)
    assert S.history[1, 12, 28] == 5 and S.history.sum() == 5


@numba.njit
def _bump_history(ctrl):
    S = unpack_handles(ctrl)[3]
    S.history[1, 12, 28] += 5
