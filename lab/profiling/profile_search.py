#!/usr/bin/env python3
"""Where a real search spends its time, by jitted function: a `perf` sampling profile of
the bench positions, with the functions numba compiled named.

perf sees numba's code as anonymous memory. This script compiles the kernels in this
process (into a fresh numba cache, so that each compiled library still holds its LLVM
module and can list its functions), writes /tmp/perf-<pid>.map (perf's map of JIT code:
address, size, name) from those libraries, then searches the bench positions while
`perf record` samples the process, and prints each function's share of the samples.
Functions LLVM inlined count toward their caller (the search's own share includes the
make/unmake, ordering and table helpers it inlined).

    python -m lab.profiling.profile_search [--depth 9] [--rounds 4] [--top 25]

Needs `perf` (Debian: linux-perf) and permission to sample a process (root, or
kernel.perf_event_paranoid <= 1). The compile takes about 30 s.
"""
import gc
import importlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import click



def demangle(symbol):
    """engine.search.search from numba's Itanium-style name (_ZN6engine6search6search...);
    other symbols unchanged."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:]).group()
        at += len(digits)
        parts.append(symbol[at:at + int(digits)])
        at += int(digits)
    return ".".join(parts) or symbol


def compiled_functions():
    """{address: symbol} of every function in the libraries numba compiled in this process
    for the kernel modules."""
    from numba.core.registry import CPUDispatcher
    from engine._jit import KERNEL_MODULES
    found = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(f"engine.{name}")
        for value in vars(module).values():
            if not isinstance(value, CPUDispatcher):
                continue
            for result in value.overloads.values():
                library = result.library
                llvm_module = getattr(library, "_final_module", None)
                if llvm_module is None:     # loaded from a cache: no module to list
                    continue
                for function in llvm_module.functions:
                    if function.is_declaration:
                        continue
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        found[address] = function.name
    return found


def write_perf_map(functions):
    """perf's JIT map for this process; each function ends where the next begins."""
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    addresses = sorted(functions)
    with path.open("w") as out:
        for number, address in enumerate(addresses):
            end = addresses[number + 1] if number + 1 < len(addresses) else address + 4096
            out.write(f"{address:x} {min(end - address, 1 << 20):x} {functions[address]}\n")
    return path


def shares(report):
    """[(percent, function)] from `perf report --stdio --sort sym` text, merging the
    specialisations of one function."""
    total = defaultdict(float)
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
        if match:
            total[demangle(match.group(2))] += float(match.group(1))
    return sorted(((p, f) for f, p in total.items()), reverse=True)


@click.command()
@click.option("--depth", default=9, show_default=True, help="Bench depth searched.")
@click.option("--rounds", default=4, show_default=True, help="Bench passes sampled.")
@click.option("--top", default=25, show_default=True, help="Functions listed.")
def main(depth, rounds, top):
    if shutil.which("perf") is None:
        raise click.ClickException("perf is not installed (Debian: apt-get install linux-perf)")
    scratch = Path(tempfile.mkdtemp(prefix="twobig-profile-"))   # cache and perf data
    try:
        profile(scratch, depth, rounds, top)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def profile(scratch, depth, rounds, top):
    os.environ["TWOBIG_CACHE_DIR"] = str(scratch / "numba")
    from engine.bench import run_bench
    click.echo("compiling the kernels (a fresh cache, so that their functions can be listed) ...")
    run_bench(5, echo=None)
    functions = compiled_functions()
    if not functions:
        raise click.ClickException(
            "numba kept no LLVM modules: this numba version is not supported")
    map_path = write_perf_map(functions)
    gc.collect()
    gc.freeze()     # the compiler's garbage would otherwise make collections slow and loud
    data = scratch / "perf.data"
    recorder = subprocess.Popen(
        ["perf", "record", "-q", "-p", str(os.getpid()), "-o", str(data)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)     # perf attaches
    nodes = seconds = 0
    for _ in range(rounds):
        n, s = run_bench(depth, echo=None)
        nodes, seconds = nodes + n, seconds + s
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                             "--sort", "sym"], capture_output=True, text=True).stdout
    map_path.unlink(missing_ok=True)
    click.echo(f"bench depth {depth}, {rounds} passes: {nodes:,} nodes, "
               f"{nodes / max(seconds, 1e-9):,.0f} nodes/s under the profiler")
    click.echo("| function | share of the samples |")
    click.echo("|---|---|")
    for percent, function in shares(report)[:top]:
        click.echo(f"| {function} | {percent:.1f}% |")


if __name__ == "__main__":
    sys.exit(main())
