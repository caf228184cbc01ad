"""[jit] The memory instructions numba lacks, emitted by intrinsics: an atomic
compare-and-swap on an int32 array element (with a try-lock built on it) and a cache
prefetch of an array element.

The shared transposition table takes one lock word per bucket with LLVM's `cmpxchg`
(sequentially consistent), by stores only (engine.tt explains why). The search prefetches
a child's table bucket right after making the move (engine.tt.tt_prefetch).
"""
from llvmlite import ir
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
        pointer = _element_pointer(context, builder, sig.args[0], array_value, sig.args[1],
                                   index_value)
        pair = builder.cmpxchg(pointer, expected_value, desired_value, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return signature, codegen


def _element_pointer(context, builder, array_type, array_value, index_type, index_value):
    """LLVM pointer to array[index] of a 1-d array (no bounds check, no wraparound)."""
    arrayobj = context.make_array(array_type)(context, builder, array_value)
    index_value = context.cast(builder, index_value, index_type, types.intp)
    return cgutils.get_item_pointer2(context, builder, arrayobj.data,
                                     cgutils.unpack_tuple(builder, arrayobj.shape),
                                     cgutils.unpack_tuple(builder, arrayobj.strides),
                                     array_type.layout, [index_value])


@intrinsic
def prefetch(typingctx, array, index):
    """Start loading the cache line of array[index] (1-d array, any dtype) for reading, to
    be kept in every cache level; returns at once. A hint only: it never faults, even for
    an index out of range, and changes no value."""
    if not (isinstance(array, types.Array) and array.ndim == 1):
        return None
    signature = types.void(array, index)

    def codegen(context, builder, sig, args):
        pointer = _element_pointer(context, builder, sig.args[0], args[0], sig.args[1], args[1])
        i32 = ir.IntType(32)
        # llvm.prefetch(address, rw = 0 read, locality = 3 keep in all levels, 1 data cache)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(function, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

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
