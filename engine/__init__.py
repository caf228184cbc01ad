"""TwoBig: a UCI chess engine whose board, move generation, hashing, transposition table and
search are numba-jitted kernels over flat numpy arrays.

Where things live: the kernels (types, bitboard, attacks, tables, zobrist, pst, position,
movegen, tt, eval, movepick, search), the Python glue (board, driver, timeman, options,
bench, warmup), the facade between protocol and search (facade), the protocol loop (uci) and
the command line (cli). The research harness, lab/, stays in the source checkout: the
package ships the engine and its `twobig` command only.
"""

__version__ = "0.2.0"   # the one place the version is written (pyproject, uci, cli read it)
