"""Compile (or load from the cache) every jitted kernel by calling it once on real data."""


def warm_all():
    from engine.bench import run_bench
    from engine.board import Board
    from engine.facade import Engine
    from engine import position, tt

    board = Board("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    board.perft(2)
    board.perft(2, bulk=False)
    board.noisy_moves()
    board.in_check()
    board.checkers()
    board.repetitions()
    board.push(board.legal_moves()[0])
    board.pop()
    position.make_null(board.P, board.T)
    position.unmake_null(board.P)
    for profile in ("play", "paper"):
        run_bench(depth=3, profile=profile, echo=None)
    table = tt.new_table(positions=64)
    tt.tt_hashfull(table)
    tt.tt_count_filled(table)
    engine = Engine()
    engine.warm_up()
    engine.evaluation()
    engine.display()
