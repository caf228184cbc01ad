"""What keeps a first start's compile short: each kernel compiled once, whatever constants
and integer widths its callers pass, recursive kernels typed without repeating the inference
(engine/_jit.py), and a second process compiling the kernels the search reaches late
(engine/warmup.py)."""
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from engine import search
from engine._jit import RETURNS_ATTRIBUTE, _one_specialisation, cache_is_cold, jit
from engine.warmup import AHEAD_AFTER, AHEAD_CALLEES, ahead_signatures, start_ahead, warm_all


_REPEATED_SPECIALISATIONS = """
import importlib, sys
sys.modules.setdefault("scipy", None)
from numba.core.registry import CPUDispatcher
from engine._jit import KERNEL_MODULES
from engine.warmup import warm_all
warm_all()
for name in KERNEL_MODULES:
    module = importlib.import_module("engine." + name)
    for attr, value in vars(module).items():
        if (isinstance(value, CPUDispatcher) and value.__module__ == module.__name__
                and len(value.signatures) > 1):
            print(name, attr, [str(s) for s in value.signatures])
"""


def test_every_kernel_a_search_and_the_protocol_use_has_one_specialisation():
    # in a process of its own: other tests call kernels from Python with other types
    out = subprocess.run([sys.executable, "-c", _REPEATED_SPECIALISATIONS], capture_output=True,
                         text=True, timeout=900, cwd=Path(__file__).resolve().parent.parent)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""


# Not cached (numba.njit without cache=True, with the typing rule engine._jit.jit adds), so
# that every run compiles them and the signatures below are this run's: a kernel loaded
# from the cache compiles none of its callees.
def _scaled_source(x, factor):
    return x * factor


_scaled = _one_specialisation(numba.njit(_scaled_source))
MODE_DOUBLE = 2


@numba.njit
def _calls_with_constants(values):
    # a module constant, a literal and an int32 element: one compile of _scaled serves all
    return _scaled(values[0], MODE_DOUBLE) + _scaled(values[1], 3) + _scaled(np.int64(5), values[2])


def test_constants_and_narrow_integers_reach_one_int64_specialisation():
    values = np.array([7, 11, 13], dtype=np.int32)
    assert _calls_with_constants(values) == 7 * 2 + 11 * 3 + 5 * 13
    assert [str(s) for s in _scaled.signatures] == ["(int64, int64)"]


@jit
def _tree_nodes(depth, branching):
    """Nodes of a uniform tree, counted through three recursive call sites."""
    if depth <= 0:
        return np.int64(1)
    total = np.int64(1)
    total += _tree_nodes(depth - 1, branching)
    if branching > 1:
        total += _tree_nodes(depth - 1, branching) * (branching - 1)
    if depth > 100:
        total += _tree_nodes(np.int64(0), branching)
    return total


def test_a_recursive_kernel_with_several_call_sites_computes_what_python_does():
    def nodes(depth, branching):
        return 1 if depth <= 0 else 1 + branching * nodes(depth - 1, branching)

    for depth in range(6):
        for branching in range(1, 5):
            assert _tree_nodes(np.int64(depth), np.int64(branching)) == nodes(depth, branching)


def _nodes_source(depth, branching):
    if depth <= 0:
        return np.int64(1)
    return 1 + branching * _nodes_declared(depth - 1, branching)


def _nodes_wrong_source(depth, branching):
    if depth <= 0:
        return np.int64(1)
    return 1 + branching * _nodes_wrong(depth - 1, branching)


# Not cached, so that each run compiles them: the declared return type as jit_recursive sets it
setattr(_nodes_source, RETURNS_ATTRIBUTE, numba.int64)
setattr(_nodes_wrong_source, RETURNS_ATTRIBUTE, numba.int32)
_nodes_declared = numba.njit(_nodes_source)
_nodes_wrong = numba.njit(_nodes_wrong_source)


def test_a_recursive_kernel_with_its_return_type_declared_is_typed_once(monkeypatch):
    from numba.core import typeinfer
    partial_copies = []
    copy = typeinfer.TypeInferer.copy

    def counted_copy(inferer, skip_recursion=False):
        partial_copies.append(skip_recursion)
        return copy(inferer, skip_recursion=skip_recursion)

    monkeypatch.setattr(typeinfer.TypeInferer, "copy", counted_copy)
    assert _nodes_declared(np.int64(4), np.int64(3)) == 1 + 3 + 9 + 27 + 81
    assert [str(s.return_type) for s in _nodes_declared.nopython_signatures] == ["int64"]
    assert True not in partial_copies   # the body was not typed a second time


def test_a_wrong_declared_return_type_fails_the_compile():
    with pytest.raises(numba.core.errors.TypingError, match="declared to return int32"):
        _nodes_wrong(np.int64(2), np.int64(2))


def test_the_search_and_perft_declare_their_return_type():
    from engine import movegen
    for kernel in (search._search, search._quiesce, movegen.perft, movegen.perft_no_bulk):
        assert getattr(kernel.py_func, RETURNS_ATTRIBUTE) == numba.int64, kernel


def _without_version(symbol):
    """A numba symbol without its version tag (B4v292): two compiles of one function for the
    same argument types then compare equal, as the argument types are in the rest."""
    return re.sub(rb"B\d+v\d+", b"", symbol)


def test_every_ahead_spec_is_the_type_the_search_compiles_its_kernel_for():
    """The second process of a first start compiles each AHEAD kernel for its spec. The
    search's compiled code (in the cache) names each callee it was linked with, argument
    types included: each callee spec must be one of them. The kernels called from Python
    must have been called with their spec's types."""
    warm_all()
    code = _without_version(b"".join(
        path.read_bytes()
        for path in Path(search.search_root.stats.cache_path).glob("search.search_root-*.nbc")))
    for kernel, arg_types in ahead_signatures(AHEAD_CALLEES):
        kernel.compile(arg_types)
        name = _without_version(kernel.overloads[arg_types].fndesc.mangled_name.encode())
        # the whole name: not followed by more of a symbol (the next one may follow at once)
        assert re.search(re.escape(name) + rb"(?![0-9A-Za-z]|_(?!ZN))", code), kernel
    for kernel, arg_types in ahead_signatures(AHEAD_AFTER):
        assert arg_types in kernel.signatures, kernel   # warm_all called it from Python


def test_a_cached_start_starts_no_second_process():
    warm_all()
    assert not cache_is_cold()
    assert start_ahead() is None
