#!/usr/bin/env python3
"""Search speed: TwoBig's `bench` nodes/s against a pure-Python alpha-beta (python-chess
move generation, material + PeSTO tables, quiescence) run on the same positions in the same
process. `make bench` runs this after the perft benchmark.

    python scripts/bench_search.py [--depth 9] [--paper-depth 6] [--python-seconds 20]
"""
import time

import click

from engine.bench import BENCH_DEPTH, BENCH_FENS, run_bench


class PurePython:
    """The baseline: negamax alpha-beta with quiescence written on python-chess."""

    def __init__(self):
        from engine.pst import build_pst
        import chess
        self.chess = chess
        mg, eg = build_pst()
        self.mg = mg.tolist()
        self.nodes = 0

    def evaluate(self, board):
        chess = self.chess
        score = 0
        for square, piece in board.piece_map().items():
            index = (piece.piece_type - 1) + (0 if piece.color else 6)
            score += self.mg[index][square]
        return score if board.turn == chess.WHITE else -score

    def quiesce(self, board, alpha, beta):
        self.nodes += 1
        stand = self.evaluate(board)
        if stand >= beta:
            return stand
        alpha = max(alpha, stand)
        for move in board.generate_legal_captures():
            board.push(move)
            score = -self.quiesce(board, -beta, -alpha)
            board.pop()
            if score >= beta:
                return score
            alpha = max(alpha, score)
        return alpha

    def search(self, board, depth, alpha, beta, deadline):
        if depth == 0:
            return self.quiesce(board, alpha, beta)
        self.nodes += 1
        if time.perf_counter() > deadline:
            return 0
        best = -32000
        for move in board.legal_moves:
            board.push(move)
            score = -self.search(board, depth - 1, -beta, -alpha, deadline)
            board.pop()
            best = max(best, score)
            alpha = max(alpha, score)
            if alpha >= beta:
                break
        if best == -32000:
            return -31000 if board.is_check() else 0
        return best


@click.command()
@click.option("--depth", default=BENCH_DEPTH, show_default=True)
@click.option("--paper-depth", default=6, show_default=True,
              help="Bench depth for the paper profile (no pruning: depth 9 takes minutes).")
@click.option("--python-seconds", default=20.0, show_default=True, help="Time for the baseline.")
def main(depth, paper_depth, python_seconds):
    import chess
    nodes, seconds = run_bench(depth, echo=None)
    ours = nodes / seconds
    # The paper profile evaluates like the baseline (material + PST): the like-for-like ratio.
    paper_nodes, paper_seconds = run_bench(paper_depth, echo=None, profile="paper")
    paper = paper_nodes / paper_seconds
    baseline = PurePython()
    per_position = python_seconds / len(BENCH_FENS)
    start = time.perf_counter()
    for fen in BENCH_FENS:
        deadline = time.perf_counter() + per_position
        board = chess.Board(fen)
        d = 1
        while time.perf_counter() < deadline and d <= 6:
            baseline.search(board, d, -32000, 32000, deadline)
            d += 1
    theirs = baseline.nodes / (time.perf_counter() - start)
    click.echo(f"TwoBig bench depth {depth}, play profile (full evaluation): {nodes:,} nodes "
               f"in {seconds:.2f} s = {ours:,.0f} nodes/s")
    click.echo(f"TwoBig bench depth {paper_depth}, paper profile (material + PST): {paper_nodes:,} nodes "
               f"in {paper_seconds:.2f} s = {paper:,.0f} nodes/s")
    click.echo(f"pure-Python alpha-beta (python-chess, material + PST): {baseline.nodes:,} nodes "
               f"= {theirs:,.0f} nodes/s")
    click.echo(f"ratio: play {ours / theirs:.0f}x, paper {paper / theirs:.0f}x")


if __name__ == "__main__":
    main()
