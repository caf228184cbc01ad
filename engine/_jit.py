"""The one place that configures numba.

Every jitted kernel in TwoBig is compiled with the same fixed flags so that the on-disk
cache written by `make install` stays valid: `cache=True` (compiled code is reused by
later processes), `nogil=True` (the search runs on a worker thread while the UCI thread
keeps reading), and no fastmath (all hot arithmetic is integer).

Hot kernels (`jit`) are compiled without numba's reference-counting runtime (`_nrt=False`):
they never allocate, and with the runtime on, every call increments and decrements the
count of every array in its tuple arguments with atomic instructions, which cost more than
make/unmake itself (measured: 217 ns -> 67 ns per make+unmake pair). Kernels that allocate
arrays (table builders run once) use `jit_alloc`.
"""
import numba

JIT_FLAGS = dict(cache=True, nogil=True, boundscheck=False)


def jit(fn):
    """Compile a hot, non-allocating kernel with TwoBig's fixed numba flags."""
    return numba.njit(_nrt=False, **JIT_FLAGS)(fn)


def jit_alloc(fn):
    """Compile a kernel that allocates numpy arrays (builders, run once)."""
    return numba.njit(**JIT_FLAGS)(fn)
