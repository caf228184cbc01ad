#!/usr/bin/env python3
"""Where a search node's time goes: the cost of each piece of a node, beside the time of a
real node.

A real search cannot be timed piece by piece without changing it, so the pieces are timed
on the trees of the middle-game bench positions: a jitted walk visits every node to a fixed
depth (legal move generation at interior nodes, a make and unmake per node, as perft does)
and, in each run, also calls one piece of a search node at every node. The piece's cost is
the run's time per node minus the bare walk's. The real search's time per node comes from
the same positions searched to a fixed depth in the same process; its quiescence share is
printed because quiescence nodes generate only captures and are often evaluated lazily.

    python -m lab.profiling.bench_node_costs [--walk-depth 3] [--search-depth 10] [--rounds 3]
"""
import time

import click
import numpy as np

from engine._jit import jit
from engine.eval import material_pst_eval, reference_eval
from engine.movegen import generate_all, generate_noisy
from engine.nnue import network_eval
from engine.movepick import is_capture, score_moves, see_at_least
from engine.position import current_key, in_check, make_move, side_to_move, unmake_move
from engine.tt import tt_probe

# The pieces of a node, one per timed run (PIECE_NONE: the bare walk).
PIECES = (
    ("bare walk (interior move generation, make + unmake)", 0),
    ("legal move generation, all moves", 1),
    ("legal move generation, captures and promotions", 2),
    ("evaluation, material + PST", 3),
    ("evaluation, hand-written reference", 4),
    ("table probe (16 MB, after a search)", 5),
    ("in-check test", 6),
    ("move ordering scores of the move list", 7),
    ("SEE of every capture in the move list", 8),
    ("evaluation network (accumulators kept per ply, as the search does)", 9),
)
PIECE_NONE = 0
PER_INTERIOR_NODE = (7, 8)      # called where a move list is generated: timed per interior node


@jit
def walk(P, T, tt, S, depth, ply, moves, start, piece, sink):
    """Visit the tree below the position to `depth`, calling `piece` at every node; returns
    the number of nodes. Results go into sink[0] so that nothing is compiled away."""
    if piece == 1:
        sink[0] += generate_all(P, T, moves, start)
    elif piece == 2:
        sink[0] += generate_noisy(P, T, moves, start)
    elif piece == 3:
        sink[0] += material_pst_eval(P)
    elif piece == 4:
        sink[0] += reference_eval(P, T)
    elif piece == 5:
        found, move, score, stored_depth, bound, size = tt_probe(tt, current_key(P), np.int64(0))
        sink[0] += move + stored_depth
    elif piece == 6:
        sink[0] += 1 if in_check(P, T) else 0
    elif piece == 9:
        sink[0] += network_eval(P, T, S.nn_acc, S.stack, ply)
    if depth == 0:
        return np.int64(1)
    end = generate_all(P, T, moves, start)
    if piece == 7:
        score_moves(P, T, S, moves, S.scores, start, end, np.int64(0), np.int64(0), np.int64(0),
                    side_to_move(P), True)
        sink[0] += S.scores[start]
    elif piece == 8:
        for i in range(start, end):
            if is_capture(P, moves[i]):
                sink[0] += 1 if see_at_least(P, T, moves[i], np.int64(0)) else 0
    nodes = np.int64(1)
    for i in range(start, end):
        make_move(P, T, moves[i])
        nodes += walk(P, T, tt, S, depth - 1, ply + 1, moves, end, piece, sink)
        unmake_move(P)
    return nodes


def middle_game_fens():
    """The bench positions with both queens and at least 8 rooks, bishops and knights, not in
    check: middle games."""
    import chess
    from engine.bench import BENCH_FENS
    chosen = []
    for fen in BENCH_FENS:
        board = chess.Board(fen)
        queens = len(board.pieces(chess.QUEEN, chess.WHITE)) + len(board.pieces(chess.QUEEN, chess.BLACK))
        others = chess.popcount(board.occupied & ~board.pawns & ~board.kings & ~board.queens)
        if queens == 2 and others >= 8 and not board.is_check():
            chosen.append(fen)
    return chosen


def time_walk(boards, session, piece, depth):
    """(nodes, seconds) of one walk over every board."""
    from engine.types import MAX_MOVES, MAX_PLY
    moves = np.zeros((MAX_PLY + 2) * MAX_MOVES, dtype=np.int32)
    sink = np.zeros(1, dtype=np.int64)
    S = session.searcher.S
    nodes, seconds = 0, 0.0
    for board in boards:
        start = time.perf_counter()
        nodes += walk(board.P, board.T, session.table, S, np.int64(depth), np.int64(0),
                      moves, np.int64(0), np.int64(piece), sink)
        seconds += time.perf_counter() - start
    return nodes, seconds


@click.command()
@click.option("--walk-depth", default=3, show_default=True, help="depth of the timed walks")
@click.option("--search-depth", default=10, show_default=True, help="depth of the real search")
@click.option("--rounds", default=3, show_default=True, help="rounds over every piece (min taken)")
def main(walk_depth, search_depth, rounds):
    from engine.board import Board
    from engine.driver import Limits
    from engine.session import Session

    fens = middle_game_fens()
    boards = [Board(fen) for fen in fens]
    session = Session(profile="play", hash_mb=16)
    session.search(Board(), Limits(depth=2))            # compile or load, untimed
    for piece in range(len(PIECES)):
        time_walk(boards[:1], session, piece, 1)

    search_nodes = search_qnodes = 0
    search_seconds = 0.0
    for fen in fens:                                     # leaves the table full for the probes
        session.new_table()
        start = time.perf_counter()
        result = session.search(Board(fen), Limits(depth=search_depth))
        search_seconds += time.perf_counter() - start
        search_nodes += result.nodes
        search_qnodes += session.qnodes
    node_ns = search_seconds / search_nodes * 1e9

    best = {}
    for round_number in range(rounds):
        order = range(len(PIECES)) if round_number % 2 == 0 else reversed(range(len(PIECES)))
        for piece in order:
            nodes, seconds = time_walk(boards, session, piece, walk_depth)
            per_node = seconds / nodes * 1e9
            best[piece] = min(best.get(piece, per_node), per_node)
            walk_nodes = nodes
    bare = best[PIECE_NONE]
    interior = time_walk(boards, session, PIECE_NONE, walk_depth - 1)[0]

    print(f"{len(fens)} middle-game bench positions; walks to depth {walk_depth} "
          f"({walk_nodes:,} nodes per walk, best of {rounds} rounds)")
    print(f"real search to depth {search_depth}: {search_nodes:,} nodes in {search_seconds:.2f} s, "
          f"{search_nodes / search_seconds:,.0f} nodes/s = {node_ns:.0f} ns per node; "
          f"{search_qnodes / search_nodes:.0%} of the nodes in quiescence\n")
    print("| piece of a node | ns per call | share of a search node's time |")
    print("|---|---|---|")
    print(f"| {PIECES[0][0]} | {bare:.0f} per node | {bare / node_ns:.0%} |")
    for label, piece in PIECES[1:]:
        cost = best[piece] - bare
        if piece in PER_INTERIOR_NODE:
            cost *= walk_nodes / interior
            label += " (per interior node)"
        print(f"| {label} | {cost:.0f} | {cost / node_ns:.0%} if called at every node |")


if __name__ == "__main__":
    main()
