"""[jit] Atomic compare-and-swap on an int32 array element, and a try-lock built on it.

numba has no atomics for CPU code, so the one instruction the shared transposition table
needs (LLVM's `cmpxchg`, sequentially consistent) is emitted by an intrinsic. The table
uses it for one lock word per bucket, taken by stores only (engine.tt explains why).
"""
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

import numpy as np

from engine._jit import jit

FREE = np.int32(0)
HELD = np.int32(1)
LOCK_SPINS = 4096      # attempts before a store gives up on a busy bucket (a holder that
                       # the OS preempted would otherwise keep every other thread spinning)


@intrinsic
def compare_and_swap(typingctx, array, index, expected, desired):
    """array[index] = desired if it equals expected; returns the value found there.
    array: a C-contiguous 1-d int32 array; the others int32 (index: any integer)."""
    if not (isinstance(array, types.Array) and array.dtype == types.int32 and array.ndim == 1):
        return None
    signature = types.int32(array, index, types.int32, types.int32)

    def codegen(context, builder, sig, args):
        array_value, index_value, expected_value, desired_value = args
        arrayobj = context.make_array(sig.args[0])(context, builder, array_value)
        index_value = context.cast(builder, index_value, sig.args[1], types.intp)
        pointer = cgutils.get_item_pointer2(context, builder, arrayobj.data,
                                            cgutils.unpack_tuple(builder, arrayobj.shape),
                                            cgutils.unpack_tuple(builder, arrayobj.strides),
                                            sig.args[0].layout, [index_value])
        pair = builder.cmpxchg(pointer, expected_value, desired_value, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return signature, codegen


@jit
def try_lock(locks, index, tries):
    """Take locks[index] (0 free, 1 held); False if it stayed busy for `tries` attempts."""
    for _ in range(tries):
        if compare_and_swap(locks, index, FREE, HELD) == FREE:
            return True
    return False


@jit
def unlock(locks, index):
    """Release a lock taken by try_lock (an atomic store: the slot writes before it are
    visible to the next holder)."""
    compare_and_swap(locks, index, HELD, FREE)
