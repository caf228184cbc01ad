"""Forced mates: found, with the right distance, in both profiles; never reported falsely.

Positions were verified independently with a brute-force python-chess solver (every
mating first move listed): mates in 1 including a knight underpromotion and en-passant
mates, mates in 2 including rook/knight underpromotions and an en-passant main line,
mates in 3, mates in 4 (no mate in 3; every mating first move listed), and won positions
with no mate in 3.
"""
import pytest

from engine.board import Board, move_to_uci
from engine.driver import Limits, Searcher
from engine.search import PROFILE_PAPER, PROFILE_PLAY
from engine.tt import new_table
from engine.types import MATE

POSITIONS = [
    ('8/3QP3/5k1K/4p3/8/8/8/8 w - - 0 1', 'mate1', ('e7e8n',)),  # underpromotion
    ('k1K5/8/8/Pp5p/R7/8/8/8 w - b6 0 1', 'mate1', ('a5b6',)),  # en passant
    ('8/8/5k1K/8/6Pp/8/8/7q b - g3 0 1', 'mate1', ('h4g3',)),  # en passant, Black to move
    ('8/7q/8/4n3/8/K1k5/8/8 b - - 0 1', 'mate1', ('h7a7',)),  # Black to move
    ('6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1', 'mate1', ('a1a8',)),  # back-rank mate
    ('r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4', 'mate1', ('h5f7',)),  # Scholar's mate (well-known opening trap)
    ('8/5P1k/5K2/8/8/8/8/8 w - - 0 1', 'mate2', ('f7f8r',)),  # underpromotion
    ('K7/4P2k/8/8/8/6Q1/3B4/8 w - - 0 1', 'mate2', ('e7e8n',)),  # underpromotion
    ('8/1p3B2/8/P3K3/k7/2Q4p/8/8 w - - 0 1', 'mate2', ('f7e8',)),  # en passant in main line
    ('2K4k/3Q4/8/6Pp/8/8/8/8 w - h6 0 1', 'mate2', ('g5h6',)),  # en passant as first move
    ('8/4n1k1/4q3/8/K7/8/6r1/8 b - - 0 1', 'mate2', ('g2b2',)),  # Black to move
    ('6k1/8/3B1P2/8/8/8/8/2QK4 w - - 0 1', 'mate2', ('c1c7',)),  # quiet/unique key
    ('5Q2/6p1/8/8/1K6/8/8/3k4 w - - 0 1', 'mate3', ('f8f2',)),  # unique key, quiet queen move
    ('4k1K1/8/8/6Q1/5R2/8/6b1/1r6 w - - 0 1', 'mate3', ('f4d4',)),  # unique key
    ('8/P7/8/2Q5/8/1K1k4/8/8 w - - 0 1', 'mate3', ('a7a8q',)),  # promotion a8=Q is the only key
    ('4Q3/2k5/6K1/8/8/8/8/3R4 w - - 0 1', 'mate3', ('d1c1', 'e8e6')),  # two keys
    ('3K4/8/8/1k6/8/8/6P1/5q2 b - - 0 1', 'mate3', ('f1f7',)),  # Black to move (colour-mirror of the Qf2 position)
    ('2Q5/8/8/8/3k4/5R2/8/4K3 w - - 0 1', 'mate4', ('c8f5', 'f3f5')),
    ('4k3/8/5r2/3K4/8/8/8/2q5 b - - 0 1', 'mate4', ('c1f4', 'f6f4')),  # its colour-mirror
    ('8/4R3/1k6/8/8/8/5K2/5Q2 w - - 0 1', 'mate4', ('e7e6', 'f1c4', 'f1c1')),
    ('k7/8/1Q6/8/8/8/8/7K w - - 0 1', 'nomate3', ()),  # K+Q vs bare K, Black king boxed in
    ('8/5R2/6Q1/4k3/8/8/6K1/8 w - - 0 1', 'nomate3', ()),  # K+Q+R vs bare K
    ('6r1/8/4K3/1k6/q7/8/8/8 b - - 0 1', 'nomate3', ()),  # Black to move, K+Q+R vs bare K
]
MATES = [p for p in POSITIONS if p[1].startswith("mate")]
NO_MATES = [p for p in POSITIONS if p[1] == "nomate3"]
MATE_IDS = [f"{p[1]}-{i}" for i, p in enumerate(MATES)]


def _search(fen, profile, **limits):
    searcher = Searcher()
    searcher.profile = profile
    return searcher.run(Board(fen), new_table(mb=8), Limits(**limits))


# The paper profile searches full width: a mate in N is found at depth 2N + 1. The play
# profile reduces late quiet moves by their history, so a quiet key move may take up to
# PLAY_EXTRA_PLIES more (since the history-guided reductions, the mate in 3 of
# 3K4/8/8/1k6/8/8/6P1/5q2 b is found at depth 9); the mate and its distance must still be
# exact.
PLAY_EXTRA_PLIES = 2


@pytest.mark.parametrize("profile", [PROFILE_PLAY, PROFILE_PAPER])
@pytest.mark.parametrize("fen,kind,keys", MATES, ids=MATE_IDS)
def test_finds_forced_mate(fen, kind, keys, profile):
    moves = int(kind[-1])
    extra = PLAY_EXTRA_PLIES if profile == PROFILE_PLAY else 0
    result = _search(fen, profile, depth=2 * moves + 1 + extra)
    assert result.score == MATE - (2 * moves - 1), (result.score, MATE - result.score)
    assert move_to_uci(result.best_move) in keys
    assert result.iterations[-1].mate_in == moves


@pytest.mark.parametrize("fen,kind,keys", MATES, ids=MATE_IDS)
def test_go_mate_limit_stops_at_the_mate(fen, kind, keys):
    moves = int(kind[-1])
    result = _search(fen, PROFILE_PLAY, mate=moves)
    assert result.iterations[-1].mate_in == moves
    assert move_to_uci(result.best_move) in keys


@pytest.mark.parametrize("profile", [PROFILE_PLAY, PROFILE_PAPER])
@pytest.mark.parametrize("fen,kind,keys", NO_MATES)
def test_never_reports_a_mate_that_is_not_there(fen, kind, keys, profile):
    result = _search(fen, profile, depth=6)
    for iteration in result.iterations:
        if iteration.mate_in is not None and iteration.bound is None:
            assert iteration.mate_in >= 4, iteration


def test_mate_on_the_hundredth_half_move_is_a_mate_not_a_draw():
    """Ra8 mates as the 50-move count reaches 100: FIDE and python-chess score the mate."""
    import chess
    fen = "7k/8/6K1/8/8/8/8/R7 w - - 99 80"
    oracle = chess.Board(fen)
    oracle.push_uci("a1a8")
    assert oracle.is_checkmate() and oracle.halfmove_clock == 100
    for profile in (PROFILE_PLAY, PROFILE_PAPER):
        result = _search(fen, profile, depth=3)
        assert move_to_uci(result.best_move) == "a1a8"
        assert result.score == MATE - 1


def test_go_mate_does_not_stop_when_the_engine_is_the_one_mated():
    """Black's only move Kg8 allows Ra8#: `go mate 1` must not take that for its own mate."""
    fen = "7k/R7/6K1/8/8/8/8/8 b - - 0 1"
    result = _search(fen, PROFILE_PLAY, mate=1, depth=5)
    assert result.score == -(MATE - 2)
    assert result.depth == 5
