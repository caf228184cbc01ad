"""The board commands of the UCI loop through a raw pipe: d, go perft, bad positions."""
import chess
import chess.polyglot


def test_d_reports_fen_key_checkers(pipe):
    pipe.send("position startpos moves e2e4 d7d5 e4e5 f7f5 e1e2")
    info = pipe.display()
    oracle = chess.Board()
    for uci in "e2e4 d7d5 e4e5 f7f5 e1e2".split():
        oracle.push_uci(uci)
    assert info["Fen"] == oracle.fen(en_passant="xfen")
    assert int(info["Key"], 16) == chess.polyglot.zobrist_hash(oracle)
    pipe.send("position fen 4k3/8/8/8/8/3n4/8/R3K2R w KQ - 0 1")
    assert pipe.display()["Checkers"] == "d3"


def test_go_perft_divide(pipe):
    pipe.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
    lines = pipe.ask("go perft 3", "Nodes searched")
    assert lines[-1] == "Nodes searched: 97862"
    assert lines[-2] == ""
    divided = dict(l.split(": ") for l in lines[:-2])
    assert len(divided) == 48 and sum(map(int, divided.values())) == 97862
    assert divided["e1g1"] == "2059" and divided["e5f7"] == "2080"


def test_bad_input_keeps_position(pipe):
    pipe.send("position startpos moves e2e4")
    before = pipe.display()["Fen"]
    pipe.assert_each_rejected(
        ["position fen 8/8/8/8/8/8/8/8 w - - 0 1",
         "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
         "position startpos moves e7e5 e2e4",
         "position startpos moves e2e4 zz99",
         "position banana",
         "go perft x",
         "flibbertigibbet"], before)
    assert pipe.ask("go perft 1", "Nodes searched")[-1] == "Nodes searched: 20"


def test_a_position_that_extends_the_last_one_equals_a_fresh_replay():
    """The facade plays only the moves a GUI added since the last `position`; the board
    must be exactly the one a full replay builds (FEN, key, repetition count), also after a
    rejected line, a different game, and a position that is not an extension."""
    import random
    from engine.board import Board
    from engine.facade import Engine, PositionError
    rng = random.Random(5)
    engine = Engine()
    for game in range(3):
        oracle = chess.Board()
        moves = []
        while len(moves) < 120 and not oracle.is_game_over():
            move = rng.choice(list(oracle.legal_moves))
            if rng.random() < 0.3:   # knight shuffles make repetitions
                knights = [m for m in oracle.legal_moves
                           if oracle.piece_type_at(m.from_square) == chess.KNIGHT]
                move = rng.choice(knights) if knights else move
            oracle.push(move)
            moves.append(move.uci())
            if rng.random() < 0.1:
                try:
                    engine.set_position(None, moves + ["a1a1"])
                except PositionError:
                    pass
                else:
                    raise AssertionError("an illegal move was accepted")
            engine.set_position(None, moves)
            fresh = Board()
            for text in moves:
                fresh.push_uci(text)
            assert engine.board.fen() == fresh.fen() == oracle.fen(en_passant="xfen")
            assert engine.board.key == fresh.key
            assert engine.board.repetitions() == fresh.repetitions()
        engine.set_position(None, moves[:len(moves) // 2])     # back in the same game
        assert engine.board.fen() == _replayed(moves[:len(moves) // 2])


def _replayed(moves):
    from engine.board import Board
    board = Board()
    for text in moves:
        board.push_uci(text)
    return board.fen()


def test_a_promotion_piece_in_upper_case_is_read_as_arena_sends_it(pipe):
    pipe.send("position fen 8/4P3/8/8/8/8/k7/7K w - - 0 1 moves e7e8Q")
    assert pipe.display()["Fen"] == "4Q3/8/8/8/8/8/k7/7K b - - 0 1"
    pipe.send("position fen 8/4P3/8/8/8/8/k7/7K w - - 0 1 moves e7e8N")
    assert pipe.display()["Fen"] == "4N3/8/8/8/8/8/k7/7K b - - 0 1"
