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
    python -m lab.profiling.profile_search --fen FEN --depth 20 --hot 8

With `--fen` that position is searched (`--rounds` times) instead of the bench. With
`--hot N` the N hottest stretches of machine code of the two busiest functions follow,
disassembled (objdump), each instruction with its samples: inlining leaves the search one
function, and this is where inside it the time goes. (A sample often lands on the
instruction after the one that stalls: after a division, a load that misses the cache.)

Needs `perf` (Debian: linux-perf; objdump from binutils for `--hot`) and permission to sample
a process (root, or kernel.perf_event_paranoid <= 1). The compile takes about 30 s.
"""
import bisect
import ctypes
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
from collections import Counter, defaultdict
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


def hot_windows(samples, width, count):
    """Start indices of the `count` heaviest runs of `width` consecutive instructions, given
    each instruction's samples; the runs do not overlap."""
    totals = [sum(samples[i:i + width]) for i in range(len(samples))]
    chosen = []
    for start in sorted(range(len(totals)), key=lambda i: (-totals[i], i)):
        if len(chosen) == count or totals[start] == 0:
            break
        if all(abs(start - other) >= width for other in chosen):
            chosen.append(start)
    return chosen


def disassemble(address, size, scratch):
    """[(address, text)] of the machine code at `address` in this process."""
    raw = scratch / f"code-{address:x}.bin"
    raw.write_bytes(ctypes.string_at(address, size))
    listing = subprocess.run(["objdump", "-D", "-b", "binary", "-mi386:x86-64",
                              f"--adjust-vma={address:#x}", str(raw)],
                             capture_output=True, text=True, check=True).stdout
    found = []
    for line in listing.splitlines():
        match = re.match(r"\s+([0-9a-f]+):\t(.*)", line)
        if match:
            found.append((int(match.group(1), 16), match.group(2)))
    return found


def print_hot_code(data, functions, scratch, hot, width=20):
    """The hottest stretches of the two functions with the most samples."""
    script = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip"],
                            capture_output=True, text=True).stdout
    at = Counter(int(word, 16) for word in script.split())
    starts = sorted(functions)
    per_function = Counter()
    for ip, n in at.items():
        index = bisect.bisect_right(starts, ip) - 1
        if index >= 0:
            per_function[starts[index]] += n
    total = sum(at.values())
    for start, n in per_function.most_common(2):
        index = starts.index(start)
        end = starts[index + 1] if index + 1 < len(starts) else start + 4096
        code = disassemble(start, min(end - start, 1 << 20), scratch)
        samples = [at.get(address, 0) for address, _ in code]
        click.echo(f"\n{demangle(functions[start])}: {100 * n / total:.1f}% of the samples")
        for first in hot_windows(samples, width, hot):
            part = sum(samples[first:first + width])
            click.echo(f"-- {100 * part / total:.1f}% of the samples at +{code[first][0] - start:#x}")
            for (address, text), k in zip(code[first:first + width], samples[first:first + width]):
                click.echo(f"{k:6d}  +{address - start:#07x}  {text}")


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
@click.option("--depth", default=9, show_default=True, help="Depth searched.")
@click.option("--rounds", default=4, show_default=True, help="Bench passes sampled.")
@click.option("--top", default=25, show_default=True, help="Functions listed.")
@click.option("--fen", default=None, help="Search this position instead of the bench.")
@click.option("--hot", default=0, show_default=True,
              help="Hottest code stretches shown per busiest function (0: none).")
def main(depth, rounds, top, fen, hot):
    if shutil.which("perf") is None:
        raise click.ClickException("perf is not installed (Debian: apt-get install linux-perf)")
    if hot and shutil.which("objdump") is None:
        raise click.ClickException("--hot needs objdump (Debian: apt-get install binutils)")
    scratch = Path(tempfile.mkdtemp(prefix="twobig-profile-"))   # cache and perf data
    try:
        profile(scratch, depth, rounds, top, fen, hot)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def profile(scratch, depth, rounds, top, fen=None, hot=0):
    os.environ["TWOBIG_CACHE_DIR"] = str(scratch / "numba")
    from engine.bench import BENCH_FENS, run_bench
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
    searched = seconds = 0
    for _ in range(rounds):
        n, s = run_bench(depth, echo=None, fens=[fen] if fen else BENCH_FENS)
        searched, seconds = searched + n, seconds + s
    what = f"{fen or 'bench'} at depth {depth}, {rounds} passes"
    recorder.send_signal(signal.SIGINT)
    recorder.wait()
    report = subprocess.run(["perf", "report", "-i", str(data), "--stdio", "--no-children",
                             "--sort", "sym"], capture_output=True, text=True).stdout
    click.echo(f"{what}: {searched:,} nodes, "
               f"{searched / max(seconds, 1e-9):,.0f} nodes/s under the profiler")
    click.echo("| function | share of the samples |")
    click.echo("|---|---|")
    for percent, function in shares(report)[:top]:
        click.echo(f"| {function} | {percent:.1f}% |")
    if hot:
        print_hot_code(data, functions, scratch, hot)   # the code is still mapped here
    map_path.unlink(missing_ok=True)


if __name__ == "__main__":
    sys.exit(main())
