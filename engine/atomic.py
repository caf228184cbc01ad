"""[jit] The memory instructions numba lacks, emitted by intrinsics: an atomic
compare-and-swap on an int32 array element (with a try-lock built on it), a cache
prefetch of an array element, and an array made from a data address.

The shared transposition table takes one lock word per bucket with LLVM's `cmpxchg`
(sequentially consistent), by stores only (engine.tt explains why). The search prefetches
a child's table bucket just before making the move (engine.tt.tt_prefetch).
"""
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

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


def _array_at_intrinsic(readonly):
    @intrinsic
    def array_at(typingctx, address, shape, dtype):
        if not (isinstance(address, types.Integer) and isinstance(shape, types.UniTuple)
                and isinstance(shape.dtype, types.Integer)
                and isinstance(dtype, types.NumberClass)):
            return None
        array_type = types.Array(dtype.instance_type, shape.count, "C", readonly=readonly)
        signature = array_type(address, shape, dtype)

        def codegen(context, builder, sig, args):
            address_value, shape_value, _ = args
            data_type = context.get_data_type(array_type.dtype)
            itemsize = context.get_constant(types.intp, context.get_abi_sizeof(data_type))
            sizes = cgutils.unpack_tuple(builder, shape_value, count=array_type.ndim)
            strides = []
            stride = itemsize
            for size in reversed(sizes):
                strides.insert(0, stride)
                stride = builder.mul(stride, size)
            array = context.make_array(array_type)(context, builder)
            populate_array(array, data=builder.inttoptr(address_value, data_type.as_pointer()),
                           shape=sizes, strides=strides, itemsize=itemsize, meminfo=None)
            return array._getvalue()

        return signature, codegen

    return array_at


@intrinsic
def data_address(typingctx, array):
    """The address of an array's first element, as an int64 (what array_at takes)."""
    if not isinstance(array, types.Array):
        return None
    signature = types.int64(array)

    def codegen(context, builder, sig, args):
        arrayobj = context.make_array(sig.args[0])(context, builder, args[0])
        return builder.ptrtoint(arrayobj.data, ir.IntType(64))

    return signature, codegen


# array_at(address, shape, dtype): the C-contiguous array of `dtype` (a numpy scalar type)
# and `shape` (a tuple of integers) whose data starts at the integer `address`, a view that
# owns nothing, built in place; readonly_array_at the same, typed read-only like the
# tables' arrays. engine.search's handles keep arrays as such addresses (numba.carray does
# the same, but its implementation returns a new array, which kernels compiled without
# numba's runtime may not).
array_at = _array_at_intrinsic(False)
readonly_array_at = _array_at_intrinsic(True)


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
