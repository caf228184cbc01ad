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
import hashlib
import os
from pathlib import Path

import numba
import numpy as np
from numba.core import types

ENGINE_DIR = Path(__file__).resolve().parent
_OWN_PACKAGES = ("engine.", "lab.")


def _infer_recursion_once() -> None:
    """numba types a kernel's call of itself by typing the whole kernel again without that
    call (TypeInferer.return_types_from_partial), at every recursive call site on every
    propagation round: nine times for `search`, 12 s of a first start. A kernel compiled
    with `jit_recursive` declares the type it returns, and is not typed again at all;
    for any other recursive kernel of TwoBig's the first answer is kept for the rest of its
    inference (the type does not change between rounds). Where numba lacks the method,
    nothing changes."""
    from numba.core import errors, typeinfer

    infer_again = getattr(typeinfer.TypeInferer, "return_types_from_partial", None)
    if infer_again is None:
        return

    def return_type_once(inferer):
        declared = getattr(inferer.func_id.func, RETURNS_ATTRIBUTE, None)
        if declared is not None:
            return declared
        known = inferer.__dict__.get("_twobig_return_type")
        if known is not None:
            return known
        found = infer_again(inferer)
        if found is not None and inferer.func_id.modname.startswith(_OWN_PACKAGES):
            inferer._twobig_return_type = found
        return found

    def unify_checked(inferer, *args, **kwargs):
        # a declared type that is not the one the kernel returns fails the compile, instead
        # of leaving the recursive calls to read a value of another type
        typemap, return_type, call_types = unify(inferer, *args, **kwargs)
        declared = getattr(inferer.func_id.func, RETURNS_ATTRIBUTE, None)
        if declared is not None and return_type is not None and return_type != declared:
            raise errors.TypingError(f"{inferer.func_id.func_qualname} is declared to return "
                                     f"{declared} but returns {return_type}")
        return typemap, return_type, call_types

    unify = typeinfer.TypeInferer.unify
    typeinfer.TypeInferer.return_types_from_partial = return_type_once
    typeinfer.TypeInferer.unify = unify_checked


# The attribute of a Python function compiled with `jit_recursive` that holds its return type.
RETURNS_ATTRIBUTE = "_twobig_returns"

_infer_recursion_once()


# The modules whose code ends up inside compiled kernels: every module with jitted functions
# and every module whose constants or helpers they read (tests/test_package.py checks the
# list against the imports). Only these key the cache: editing the glue, the protocol, the
# research harness or the docs leaves the compiled kernels valid.
KERNEL_MODULES = ("_jit", "types", "atomic", "codec", "bitboard", "attacks", "tables", "zobrist", "pst",
                  "position", "movegen", "tt_registry", "tt_layout", "tt_research",
                  "tt_schemes", "tt", "eval", "nnue", "movepick", "search")


def _source_digest() -> str:
    """Hash of the kernel modules' sources. numba invalidates a cached kernel only when its
    own file changes, not when a kernel it inlined from another file does; a stale kernel
    then reads the wrong table layout and crashes. Keying the cache directory by all the
    kernel sources makes any edit of them (or a numba upgrade) start from a clean cache."""
    digest = hashlib.sha1(numba.__version__.encode())
    for name in sorted(KERNEL_MODULES):
        path = ENGINE_DIR / f"{name}.py"
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """Where compiled kernels live: $TWOBIG_CACHE_DIR, else .numba_cache beside the package
    (an editable install: the project folder), else ~/.cache/twobig."""
    if os.environ.get("TWOBIG_CACHE_DIR"):
        return Path(os.environ["TWOBIG_CACHE_DIR"])
    local = ENGINE_DIR.parent / ".numba_cache"
    if os.access(ENGINE_DIR.parent, os.W_OK):
        return local
    return Path.home() / ".cache" / "twobig"


CACHE_DIR = cache_root() / _source_digest()
numba.config.CACHE_DIR = str(CACHE_DIR)


def cache_is_cold() -> bool:
    """No search compiled into the cache of these sources yet (a first start)."""
    return not any(CACHE_DIR.glob("*/search.search_root-*.nbi"))


JIT_FLAGS = dict(cache=True, nogil=True, boundscheck=False)


def _plain(arg_type):
    """The type a kernel is compiled for when another kernel passes `arg_type`: constants
    as their plain type, narrower signed integers (a move read from the int32 move list)
    as int64, which holds their every value."""
    arg_type = types.unliteral(arg_type)
    if isinstance(arg_type, types.Integer) and arg_type.signed and arg_type.bitwidth < 64:
        return types.int64
    return arg_type


def _one_specialisation(dispatcher):
    """Compile a kernel once for the calls of other kernels. numba otherwise compiles it
    again for each constant and integer width a caller passes (a ply of 0 from the root
    and the int64 ply of the rest of the tree, a move read from the int32 move list and
    one computed as int64): 12.9 s of a first start went to such second and third copies.
    A kernel that should be compiled for a constant says so in its body (movegen's
    generate_all and generate_noisy)."""
    typed_call = dispatcher.get_call_template

    def get_call_template(args, kws):
        return typed_call(tuple(_plain(a) for a in args),
                          {name: _plain(a) for name, a in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def jit(fn):
    """Compile a hot, non-allocating kernel with TwoBig's fixed numba flags."""
    return _one_specialisation(numba.njit(_nrt=False, **JIT_FLAGS)(fn))


def jit_inline(fn):
    """A helper inlined into its callers at numba's IR level: the codecs, and the calls every
    search node makes (the table probe, the check, draw and SEE tests). A numba call copies
    every array of its tuple arguments (5 + 2 x ndim words each; P, T, the table and the
    search state together are 191 words) and LLVM does not always inline across modules:
    inlining these made the search 1.2-1.3x faster (docs/performance.md, "What a call
    costs"). The price is compile time: each caller compiles its own copy. Where a kernel
    can take the search state's handles instead (one array and a few integers), one compiled
    copy serves every caller: engine.search's `_make`, `_evaluate`, `_unmake` and the move
    generators."""
    return numba.njit(_nrt=False, inline="always", **JIT_FLAGS)(fn)


def jit_alloc(fn):
    """Compile a kernel that allocates numpy arrays (builders, run once)."""
    return _one_specialisation(numba.njit(**JIT_FLAGS)(fn))


def jit_recursive(return_type):
    """`jit` for a kernel that calls itself and returns `return_type` (a numpy scalar type)
    on every path: its recursive calls are typed with it instead of by typing the kernel's
    body a second time. A declaration that is not the type the kernel returns fails its
    compile (`unify_checked` above)."""
    def compile_kernel(fn):
        setattr(fn, RETURNS_ATTRIBUTE, numba.from_dtype(np.dtype(return_type)))
        return jit(fn)
    return compile_kernel
