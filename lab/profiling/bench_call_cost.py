#!/usr/bin/env python3
"""What a numba call costs by the arrays it is given (README, "What a call costs").

numba passes an array by value as 5 + 2 x ndim machine words (meminfo, parent, size,
itemsize, data pointer, shape, strides), and a tuple of arrays (P, T, the table, the search
state) as all of its arrays' words: the search's recursive call copies 25 arrays, 191
words. This times a recursive jitted function that does almost nothing, given a tuple of
1 to 25 one-dimensional arrays, in ns per call (best of --rounds).

    python -m lab.profiling.bench_call_cost [--depth 12] [--rounds 3]
"""
import time

import click
import numba
import numpy as np

# Plain tuples, not namedtuples: numba's cache index pickles the argument types, and a
# namedtuple class pickles by its module's name, which differs between running this file
# and importing it (the tests).
SIZES = (1, 4, 8, 16, 25)


@numba.njit(cache=True, nogil=True, _nrt=False)
def _walk(arrays, depth, x):
    """Three children per call down to depth 0; counts calls in arrays[0][0]."""
    arrays[0][0] += 1
    if depth == 0:
        return x + arrays[-1][1]
    total = np.int64(0)
    for i in range(3):
        total += _walk(arrays, depth - 1, x + i)
    return total


def new_arrays(count: int):
    return tuple(np.zeros(8, dtype=np.int64) for _ in range(count))


def ns_per_call(count: int, depth: int, rounds: int) -> float:
    arrays = new_arrays(count)
    _walk(arrays, np.int64(1), np.int64(0))          # compile (or load) first
    best = float("inf")
    for _ in range(rounds):
        arrays[0][0] = 0
        start = time.process_time()
        _walk(arrays, np.int64(depth), np.int64(0))
        best = min(best, (time.process_time() - start) / arrays[0][0] * 1e9)
    return best


@click.command()
@click.option("--depth", default=12, show_default=True, help="3^depth leaves per round.")
@click.option("--rounds", default=3, show_default=True)
def main(depth, rounds):
    print("| arrays given | words copied | ns per call |")
    print("|---|---|---|")
    for count in SIZES:
        print(f"| {count} | {7 * count} | {ns_per_call(count, depth, rounds):.1f} |")


if __name__ == "__main__":
    main()
