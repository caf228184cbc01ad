"""The move and piece codecs round-trip, agree with python-chess on every generated move,
and are the only code in the engine that shifts or masks moves or strides pieces by hand."""
import re
import tokenize
from pathlib import Path

import chess
import pytest

from engine import codec
from engine.board import Board, move_to_uci
from engine.types import (
    BISHOP, BLACK, FLAG_CASTLE, FLAG_EN_PASSANT, FLAG_PROMO_KNIGHT, FLAG_PROMO_QUEEN, KING,
    KNIGHT, PAWN, QUEEN, ROOK, WHITE,
)

ENGINE = Path(__file__).resolve().parent.parent / "engine"


@pytest.mark.parametrize("flag", range(8))
def test_move_round_trip(flag):
    """Pack and unpack agree with each other and with the layout docs/architecture.md
    documents (from in bits 0-5, to in 6-11, flag in 12-15): a round trip alone would pass
    with both sides wrong the same way."""
    for frm in range(64):
        for to in range(64):
            move = codec.move_pack(frm, to, flag)
            assert move == frm | to << 6 | flag << 12      # the documented layout
            assert codec.unpack_move(move) == (frm, to, flag)
            assert (codec.move_from(move), codec.move_to(move), codec.move_flag(move)) == (frm, to, flag)
            assert codec.move_is_promotion(move) == (flag >= FLAG_PROMO_KNIGHT)
            assert codec.move_is_en_passant(move) == (flag == FLAG_EN_PASSANT)


def test_promotion_types():
    assert [codec.promotion_type(f) for f in range(FLAG_PROMO_KNIGHT, FLAG_PROMO_QUEEN + 1)] == \
        [KNIGHT, BISHOP, ROOK, QUEEN]


def test_piece_round_trip():
    for colour in (WHITE, BLACK):
        for piece_type in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
            piece = codec.piece_of(colour, piece_type)
            assert piece == colour * 6 + piece_type         # the documented numbering
            assert (codec.piece_colour_of(piece), codec.piece_type_of(piece)) == (colour, piece_type)
    assert sorted(codec.piece_of(c, t) for c in (0, 1) for t in range(6)) == list(range(12))


@pytest.mark.parametrize("fen", [
    "r3k2r/1P6/8/3pP3/8/8/6pP/R3K2R w KQkq d6 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"])
def test_generated_moves_decode_like_python_chess(fen):
    board, oracle = Board(fen), chess.Board(fen)
    for move in board.legal_moves():
        frm, to, flag = codec.unpack_move(move)
        theirs = chess.Move.from_uci(move_to_uci(move))
        assert (theirs.from_square, theirs.to_square) == (frm, to)
        assert theirs in oracle.legal_moves
        assert (flag == FLAG_CASTLE) == oracle.is_castling(theirs)
        assert (flag == FLAG_EN_PASSANT) == oracle.is_en_passant(theirs)
        assert (theirs.promotion or 1) - 1 == (codec.promotion_type(flag) if flag >= FLAG_PROMO_KNIGHT else 0)


@pytest.mark.parametrize("fen", [
    "1r4kr/8/8/8/8/8/8/1R4KR w BHbh - 0 1",      # king on g1: the h-side castle is g1 -> g1
    "4k3/8/8/8/8/8/8/5KR1 w G - 0 1",            # the king lands on its rook's square
    "rk5r/8/8/8/8/8/8/RK5R b AHah - 0 1"])
def test_chess960_castling_decodes_to_the_kings_destination(fen):
    """In Chess960 too a castle move holds the king's squares: from its square to the g- or
    c-file; written king-takes-rook it is python-chess's castling move."""
    board, oracle = Board(fen), chess.Board(fen, chess960=True)
    castles = [m for m in board.legal_moves() if codec.unpack_move(m)[2] == FLAG_CASTLE]
    assert len(castles) == sum(1 for m in oracle.legal_moves if oracle.is_castling(m)) > 0
    for move in castles:
        frm, to, _ = codec.unpack_move(move)
        theirs = oracle.parse_uci(board.uci(move, chess960=True))
        assert oracle.is_castling(theirs) and theirs.from_square == frm
        assert chess.square_rank(to) == chess.square_rank(frm)
        assert chess.square_file(to) == (6 if oracle.is_kingside_castling(theirs) else 2)


RAW_PATTERNS = [
    r">>\s*12\b", r">>\s*6\)\s*&\s*63", r"<<\s*12\b", r"<<\s*6\)", r"\bmove\s*&\s*63\b",   # moves
    r"\*\s*6\s*\+", r"\b6\s*\+\s*(PAWN|KNIGHT|BISHOP|ROOK|QUEEN|KING)\b", r"%\s*6\b",         # pieces
]


def _code_lines(path):
    """(line number, text) of the code in `path`, strings and comments blanked out."""
    lines = path.read_text().splitlines()
    keep = {}
    with open(path, "rb") as handle:
        for token in tokenize.tokenize(handle.readline):
            if token.type in (tokenize.STRING, tokenize.COMMENT, tokenize.ENCODING):
                continue
            row = token.start[0]
            keep.setdefault(row, []).append(token.string)
    return [(row, " ".join(parts)) for row, parts in sorted(keep.items()) if row <= len(lines)]


def test_no_raw_move_or_piece_arithmetic_outside_the_codec():
    offenders = []
    for path in sorted(ENGINE.glob("*.py")):
        if path.name == "codec.py":
            continue
        for number, code in _code_lines(path):
            if any(re.search(p, code) for p in RAW_PATTERNS):
                offenders.append(f"{path.name}:{number}: {code}")
    assert not offenders, "\n".join(offenders)
