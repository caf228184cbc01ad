#!/usr/bin/env python3
"""Where a first start's compile goes: every kernel compiled into an empty numba cache, step
by step as `twobig warm` does, with

  - each jitted function's own compile time (its callees' compiles taken out), largest first;
  - the time numba held its LLVM lock (optimising and emitting machine code), in all;
  - the type-inference passes of the recursive kernels: numba types a call of a function to
    itself by inferring the whole function again (TypeInferer.return_types_from_partial),
    at every recursive call site and on every propagation round, unless engine._jit keeps
    the first answer (it does for TwoBig's kernels: one pass each);
  - the lookups of numba's @overload implementations (getitem, bool, setitem, ...), each of
    which hashes the compiler's flags.

The numbers come from numba's compile events and from wrapping those two methods, which
changes nothing they compute. The cache directory is a fresh temporary one, removed after.

    python -m lab.profiling.compile_times [--top 20]
"""
import collections
import os
import shutil
import sys
import tempfile
import time

import click


@click.command()
@click.option("--top", default=20, show_default=True, help="Functions listed.")
def main(top):
    scratch = tempfile.mkdtemp(prefix="twobig-compile-")
    os.environ["TWOBIG_CACHE_DIR"] = scratch
    sys.modules.setdefault("scipy", None)    # as the UCI process does (engine.uci.main)
    try:
        report(top)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def report(top):
    from numba.core import event, typeinfer
    from numba.core.typing import templates

    own = collections.Counter()        # function -> compile seconds, callees excluded
    stack = []                         # [name, started, seconds spent in callees]

    class Compiles(event.Listener):
        def on_start(self, ev):
            fn = ev.data["dispatcher"].py_func
            stack.append([f"{fn.__module__}.{fn.__qualname__}", time.perf_counter(), 0.0])

        def on_end(self, ev):
            name, started, inner = stack.pop()
            spent = time.perf_counter() - started
            own[name] += spent - inner
            if stack:
                stack[-1][2] += spent

    llvm = [0.0, 0.0]                  # seconds under the LLVM lock, start of the current hold

    class Llvm(event.Listener):
        def on_start(self, ev):
            llvm[1] = time.perf_counter()

        def on_end(self, ev):
            llvm[0] += time.perf_counter() - llvm[1]

    event.register("numba:compile", Compiles())
    event.register("numba:llvm_lock", Llvm())

    partial = collections.defaultdict(list)
    infer_again = typeinfer.TypeInferer.return_types_from_partial

    def timed_partial(self):
        started = time.perf_counter()
        try:
            return infer_again(self)
        finally:
            partial[self.func_id.func_qualname].append(time.perf_counter() - started)

    lookups = collections.Counter()
    lookup_seconds = [0.0]
    get_impl = templates._OverloadFunctionTemplate._get_impl

    def timed_lookup(self, args, kws):
        started = time.perf_counter()
        try:
            return get_impl(self, args, kws)
        finally:
            lookup_seconds[0] += time.perf_counter() - started
            lookups[getattr(self.key, "__name__", str(self.key))] += 1

    typeinfer.TypeInferer.return_types_from_partial = timed_partial
    templates._OverloadFunctionTemplate._get_impl = timed_lookup

    from engine.warmup import STEPS
    began = time.perf_counter()
    for what, step in STEPS:
        started = time.perf_counter()
        step()
        click.echo(f"{what}: {time.perf_counter() - started:.1f} s")
    total = time.perf_counter() - began
    click.echo(f"all steps: {total:.1f} s; under numba's LLVM lock: {llvm[0]:.1f} s")
    click.echo("\n| function | own compile (s) |\n|---|---|")
    for name, seconds in own.most_common(top):
        click.echo(f"| {name} | {seconds:.2f} |")
    click.echo("\n| recursive kernel | inferences again | seconds (the first includes "
               "callees it compiled) |\n|---|---|---|")
    for name, times in partial.items():
        click.echo(f"| {name} | {len(times)} | {sum(times):.1f} |")
    common = ", ".join(f"{name} {count:,}" for name, count in lookups.most_common(4))
    click.echo(f"\n@overload lookups: {sum(lookups.values()):,} in {lookup_seconds[0]:.1f} s "
               f"({common})")


if __name__ == "__main__":
    sys.exit(main())
