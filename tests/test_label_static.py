"""lab/network/label_static.py: which positions it labels and how it reads Stockfish's answer."""
import random

import chess
import chess.pgn

from lab.network import label_static as script

GAME = "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 5. O-O f6 6. d4 exd4 7. Nxd4 c5 1-0\n"


def _write_game(tmp_path):
    path = tmp_path / "one.pgn"
    path.write_text('[Event "t"]\n[Result "1-0"]\n\n' + GAME)
    return path


def test_positions_are_the_quiet_ones_past_the_opening(tmp_path):
    fens = [fen for _, fen, _ in script.positions_of(_write_game(tmp_path), 4, 0.0,
                                                  random.Random(0))]
    board, expected = chess.Board(), []
    for ply, move in enumerate(chess.pgn.read_game(open(_write_game(tmp_path))).mainline_moves()):
        if ply >= 4 and not board.is_capture(move) and not board.is_check():
            expected.append(board.fen())
        board.push(move)
    assert fens == expected and len(fens) == 6     # Bb5 a6 O-O f6 d4 c5; the captures skipped


def test_perturbed_positions_follow_their_source_by_one_quiet_move(tmp_path):
    pairs = list(script.positions_of(_write_game(tmp_path), 4, 1.0, random.Random(1)))
    sources, perturbed = [f for _, f, _ in pairs[0::2]], [f for _, f, _ in pairs[1::2]]
    assert len(sources) == len(perturbed) == 6
    for source, after in zip(sources, perturbed):
        board = chess.Board(source)
        successors = {}
        for move in board.legal_moves:
            board.push(move)
            successors[board.fen()] = move
            board.pop()
        move = successors[after]
        assert not board.is_capture(move) and not board.gives_check(move)


def test_the_network_line_is_read_in_centipawns():
    found = script.NNUE_LINE.match("NNUE evaluation        -1.37 (white side)")
    assert found and round(float(found.group(1)) * 100) == -137
    assert script.NNUE_LINE.match("Final evaluation       +0.29 (white side)") is None


def test_a_perturbed_only_pass_yields_the_same_perturbed_positions_without_their_sources(
        tmp_path):
    both = list(script.positions_of(_write_game(tmp_path), 4, 1.0, random.Random(3)))
    only = list(script.positions_of(_write_game(tmp_path), 4, 1.0, random.Random(3),
                                    played=False))
    assert only == both[1::2] and len(only) == 6


def _quiet_children(fen):
    board, out = chess.Board(fen), set()
    for move in board.legal_moves:
        if not board.is_capture(move) and move.promotion is None and not board.gives_check(move):
            board.push(move)
            out.add(board.fen())
            board.pop()
    return out


def test_two_perturbations_per_position_are_two_different_quiet_moves(tmp_path):
    played = [f for _, f, _ in script.positions_of(_write_game(tmp_path), 4, 0.0, random.Random(0))]
    children = [f for _, f, _ in script.positions_of(_write_game(tmp_path), 4, 2.0,
                                                  random.Random(5), played=False)]
    assert len(children) == 2 * len(played)
    for n, source in enumerate(played):
        pair = children[2 * n:2 * n + 2]
        assert pair[0] != pair[1] and set(pair) <= _quiet_children(source)


def test_a_fractional_count_gives_its_whole_part_always_and_one_more_sometimes(tmp_path):
    played = len(list(script.positions_of(_write_game(tmp_path), 4, 0.0, random.Random(0))))
    children = [len(list(script.positions_of(_write_game(tmp_path), 4, 1.5, random.Random(seed))))
                - played for seed in range(20)]
    assert all(played <= n <= 2 * played for n in children)     # one always, two at most
    assert played < sum(children) / len(children) < 2 * played  # and a second only sometimes
    assert script._perturbed_count(0.0, random.Random(0)) == 0
    assert script._perturbed_count(3.0, random.Random(0)) == 3


def test_every_position_carries_its_games_result_from_whites_view(tmp_path):
    path = tmp_path / "two.pgn"
    path.write_text('[Event "t"]\n[Result "1-0"]\n\n' + GAME + "\n"
                    '[Event "t"]\n[Result "1/2-1/2"]\n\n' + GAME.replace("1-0", "1/2-1/2")
                    + "\n" + '[Event "t"]\n[Result "*"]\n\n' + GAME.replace("1-0", "*"))
    found = {(place, result) for place, _, result in
             script.positions_of(path, 4, 1.0, random.Random(0))}
    assert found == {(0, "1"), (1, "0.5"), (2, "")}
    indices = script.game_results([path, path], first_number=3)
    n = script.GAMES_PER_FILE
    assert indices == {3 * n: "1", 3 * n + 1: "0.5", 4 * n: "1", 4 * n + 1: "0.5"}


def test_results_are_appended_to_an_existing_label_file(tmp_path):
    labels = tmp_path / "labels.txt"
    labels.write_text("8/8/8/8/8/8/4P3/4K2k w - - 0 1;120;0\n"
                      "8/8/8/8/8/8/4P3/4K2k b - - 0 1;-30;1\n"
                      "8/8/8/8/8/8/4P3/4K2k w - - 0 1;55;2\n"
                      "8/8/8/8/8/8/4P3/4K2k w - - 0 1;7\n")      # cut short: copied as it is
    out = tmp_path / "with_results.txt"
    assert script.add_results(labels, {0: "0", 1: "0.5"}, out) == 2
    assert out.read_text().splitlines() == [
        "8/8/8/8/8/8/4P3/4K2k w - - 0 1;120;0;0",
        "8/8/8/8/8/8/4P3/4K2k b - - 0 1;-30;1;0.5",
        "8/8/8/8/8/8/4P3/4K2k w - - 0 1;55;2",
        "8/8/8/8/8/8/4P3/4K2k w - - 0 1;7"]
