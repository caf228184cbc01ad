"""TwoBig: a UCI chess engine whose board, move generation, hashing, transposition table and
search are numba-jitted kernels over flat numpy arrays.

Where things live: the kernels (types, bitboard, attacks, tables, zobrist, pst, position,
movegen, tt, eval, movepick, search), the Python glue (board, driver, timeman, options,
bench, warmup), the facade between protocol and search (facade), the protocol loop (uci) and
the command line (cli). The research harness is the sibling package `lab`.
"""
