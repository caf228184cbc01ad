"""Compile (or load from the cache) every jitted kernel by calling it once on real data."""


def warm_all():
    from engine.board import Board

    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    board.perft(2)
    board.perft(2, bulk=False)
    board.noisy_moves()
    board.in_check()
    board.checkers()
    board.repetitions()
    board.push(board.legal_moves()[0])
    board.pop()
