"""[jit] Bit tricks on uint64 bitboards.

popcount and lsb are LLVM intrinsics (ctpop, cttz): one machine instruction each on
x86-64, where a software popcount would cost a dozen operations in every move generation.
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, bb):
    """Number of set bits of a uint64, as int64."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def lsb(typingctx, bb):
    """Index of the lowest set bit of a non-zero uint64 (64 for zero), as int64."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen
