"""The PLAY profile's positional evaluation, checked term by term against a reference
written independently with python-chess's square sets and attack functions."""
import random

import chess
import numpy as np
import pytest

from engine import eval as ev
from engine.board import Board
from tests.conftest import load_script

load_perft_suites = load_script("perft_suites").load_perft_suites


def _pawn_attacked(board: chess.Board, by: chess.Color) -> chess.SquareSet:
    squares = chess.SquareSet()
    for sq in board.pieces(chess.PAWN, by):
        squares |= board.attacks(sq)
    return squares


def _relative_rank(sq: int, colour: chess.Color) -> int:
    """sq's rank (0-7) counted from colour's side of the board."""
    rank = chess.square_rank(sq)
    return rank if colour == chess.WHITE else 7 - rank


def _ahead(sq: int, colour: chess.Color, files) -> list:
    """Squares on `files` strictly ahead of sq from colour's side."""
    rank = chess.square_rank(sq)
    ranks = range(rank + 1, 8) if colour == chess.WHITE else range(rank - 1, -1, -1)
    return [chess.square(f, r) for r in ranks for f in files if 0 <= f < 8]


def reference_terms(board: chess.Board, us: chess.Color) -> list:
    """The flat (mg, eg) list of engine.eval.side_terms, computed the slow, obvious way."""
    them = not us
    occupied = board.occupied
    own_pawns = board.pieces(chess.PAWN, us)
    their_pawns = board.pieces(chess.PAWN, them)
    area = ~chess.SquareSet(board.occupied_co[us]) & ~_pawn_attacked(board, them)
    their_king = board.king(them)
    zone = chess.SquareSet(chess.BB_KING_ATTACKS[their_king]) | chess.SquareSet.from_square(their_king)
    mobility_weights = {chess.KNIGHT: ev.KNIGHT_MOBILITY, chess.BISHOP: ev.BISHOP_MOBILITY,
                        chess.ROOK: ev.ROOK_MOBILITY, chess.QUEEN: ev.QUEEN_MOBILITY}
    mob = [0, 0]
    rook = [0, 0]
    attackers = units = 0
    for kind, weights in mobility_weights.items():
        for sq in board.pieces(kind, us):
            if kind == chess.KNIGHT:
                att = chess.BB_KNIGHT_ATTACKS[sq]
            else:
                att = 0
                if kind in (chess.ROOK, chess.QUEEN):
                    att |= chess.BB_RANK_ATTACKS[sq][chess.BB_RANK_MASKS[sq] & occupied]
                    att |= chess.BB_FILE_ATTACKS[sq][chess.BB_FILE_MASKS[sq] & occupied]
                if kind in (chess.BISHOP, chess.QUEEN):
                    att |= chess.BB_DIAG_ATTACKS[sq][chess.BB_DIAG_MASKS[sq] & occupied]
            att = chess.SquareSet(att)
            count = len(att & area) - weights[2]
            mob[0] += weights[0] * count
            mob[1] += weights[1] * count
            hits = len(att & zone)
            if hits:
                attackers += 1
                units += ev.KING_ATTACK_WEIGHT[kind - 1] * hits
            if kind == chess.ROOK:
                file_squares = chess.SquareSet(chess.BB_FILES[chess.square_file(sq)])
                if not own_pawns & file_squares:
                    open_file = not their_pawns & file_squares
                    bonus = ev.ROOK_OPEN_FILE if open_file else ev.ROOK_HALF_OPEN_FILE
                    rook[0] += bonus[0]
                    rook[1] += bonus[1]
    king_attack = 0
    if attackers >= 2 and board.pieces(chess.QUEEN, us):
        king_attack = min(units * units // ev.KING_ATTACK_DIVISOR, ev.KING_ATTACK_MAX)

    own_king = board.king(us)
    kf = chess.square_file(own_king)
    missing = sum(1 for f in (kf - 1, kf, kf + 1)
                  if 0 <= f < 8 and not any(s in own_pawns for s in _ahead(own_king, us, [f])))

    pawn = [0, 0]
    passed = [0, 0]
    race = 0
    for sq in own_pawns:
        f = chess.square_file(sq)
        beside = [p for p in own_pawns if chess.square_file(p) in (f - 1, f + 1)]
        if not beside:
            pawn[0] += ev.ISOLATED_PAWN[0]
            pawn[1] += ev.ISOLATED_PAWN[1]
        step = sq + 8 if us == chess.WHITE else sq - 8
        if (beside and all(p in _ahead(sq, us, [f - 1, f + 1]) for p in beside)
                and board.attackers(them, step) & their_pawns):
            pawn[0] += ev.BACKWARD_PAWN[0]
            pawn[1] += ev.BACKWARD_PAWN[1]
        if any(s in own_pawns for s in _ahead(sq, us, [f])):
            pawn[0] += ev.DOUBLED_PAWN[0]
            pawn[1] += ev.DOUBLED_PAWN[1]
        elif not any(s in their_pawns for s in _ahead(sq, us, [f - 1, f, f + 1])):
            rank = _relative_rank(sq, us)
            passed[0] += ev.PASSED_PAWN_MG[rank]
            passed[1] += ev.PASSED_PAWN_EG[rank]
            weight = ev.PASSER_RACE_WEIGHT[rank]
            if weight:
                step = sq + 8 if us == chess.WHITE else sq - 8
                race += weight * (ev.PASSER_KING_THEM * min(chess.square_distance(their_king, step), 5)
                                  - ev.PASSER_KING_US * min(chess.square_distance(own_king, step), 5))
                if not any(board.piece_at(s) for s in _ahead(sq, us, [f])):
                    race += weight * ev.PASSER_FREE
    for sq in own_pawns:
        if board.attackers(us, sq) & own_pawns:
            pawn[0] += ev.SUPPORTED_PAWN[0]
            pawn[1] += ev.SUPPORTED_PAWN[1]
        f, r = chess.square_file(sq), chess.square_rank(sq)
        if any(0 <= g < 8 and chess.square(g, r) in own_pawns for g in (f - 1, f + 1)):
            rank = _relative_rank(sq, us)
            pawn[0] += ev.PHALANX_PAWN_MG[rank]
            pawn[1] += ev.PHALANX_PAWN_EG[rank]
    every_pawn = own_pawns | their_pawns
    activity = 0
    if every_pawn:
        total = sum(chess.square_distance(own_king, sq) for sq in every_pawn)
        activity = -(ev.KING_PAWN_DISTANCE * total // len(every_pawn))
    pair = ev.BISHOP_PAIR if len(board.pieces(chess.BISHOP, us)) >= 2 else (0, 0)
    outposts = 0
    for sq in board.pieces(chess.KNIGHT, us):
        f = chess.square_file(sq)
        rank = _relative_rank(sq, us)
        chasers = [s for s in _ahead(sq, us, [f - 1, f + 1]) if s in their_pawns]
        if 3 <= rank <= 5 and board.attackers(us, sq) & own_pawns and not chasers:
            outposts += 1
    return [mob[0], mob[1], king_attack, 0, -ev.SHELTER_MISSING * missing, 0, pawn[0], pawn[1],
            passed[0], passed[1], pair[0], pair[1], rook[0], rook[1], 0, race, 0, activity,
            outposts * ev.KNIGHT_OUTPOST[0], outposts * ev.KNIGHT_OUTPOST[1]]


EVAL_FENS = [
    chess.STARTING_FEN,
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 6 5",
    "6k1/5ppp/8/1P6/8/8/2p2PPP/6K1 w - - 0 1",          # passed pawns both sides
    "4k3/8/2p5/2p5/8/P7/P4P2/4K3 b - - 0 1",            # doubled and isolated pawns
    "r4rk1/1b3ppp/p7/1p1Q4/8/1B3N2/PP3PPP/3R1RK1 w - - 0 1",  # open files, bishops
    "6k1/5p1p/6pQ/8/8/5N2/5PPP/6K1 w - - 0 1",          # attack on a castled king
]


@pytest.mark.parametrize("fen", EVAL_FENS)
def test_side_terms_match_reference(fen):
    board = Board(fen)
    chess_board = chess.Board(fen)
    for us in (chess.WHITE, chess.BLACK):
        colour = 0 if us == chess.WHITE else 1
        got = list(ev.side_terms(board.P, board.T, np.int64(colour)))
        assert got == reference_terms(chess_board, us), (fen, us)


def test_side_terms_match_reference_on_suite_positions():
    """Every perft-suite position, and the positions 4 and 8 random plies after it."""
    rng = random.Random(6)
    checked = 0
    for fen in sorted({case.fen for case in load_perft_suites()}):
        chess_board = chess.Board(fen)
        board = Board(fen)
        for plies in (4, 4, 0):
            for us in (chess.WHITE, chess.BLACK):
                colour = 0 if us == chess.WHITE else 1
                got = list(ev.side_terms(board.P, board.T, np.int64(colour)))
                assert got == reference_terms(chess_board, us), (chess_board.fen(), us)
            checked += 1
            for _ in range(plies):
                moves = list(chess_board.legal_moves)
                if not moves:
                    break
                move = rng.choice(moves)
                chess_board.push(move)
                board.push_uci(move.uci())
    assert checked > 1000


def _mirrored(fen: str) -> str:
    return chess.Board(fen).mirror().fen(en_passant="xfen")


@pytest.mark.parametrize("fen", EVAL_FENS)
def test_full_evaluation_is_colour_symmetric(fen):
    """Swapping the colours (board mirrored, other side to move) leaves the side to move's
    score unchanged, and each side's terms move to the other side."""
    board, mirror = Board(fen), Board(_mirrored(fen))
    assert ev.reference_eval(board.P, board.T) == ev.reference_eval(mirror.P, mirror.T)
    assert ev.reference_eval_white(board.P, board.T) == -ev.reference_eval_white(mirror.P, mirror.T)
    assert ev.side_terms(board.P, board.T, np.int64(0)) == ev.side_terms(mirror.P, mirror.T, np.int64(1))


def reference_pesto(board: chess.Board):
    """(mg, eg, phase), white's view, from python-chess's piece list and PeSTO's published
    numbers as engine/pst.py transcribes them (values and tables printed rank 8 first;
    black reads white's table mirrored): the data is shared, the arithmetic is not."""
    from engine.pst import EG_TABLES, EG_VALUE, MG_TABLES, MG_VALUE, PHASE_INC
    mg = eg = phase = 0
    for sq, piece in board.piece_map().items():
        kind = piece.piece_type - 1
        printed = sq ^ 56 if piece.color == chess.WHITE else sq
        sign = 1 if piece.color == chess.WHITE else -1
        mg += sign * (MG_VALUE[kind] + MG_TABLES[kind][printed])
        eg += sign * (EG_VALUE[kind] + EG_TABLES[kind][printed])
        phase += PHASE_INC[kind]
    return mg, eg, phase


def _pst_plus_terms(fen: str) -> int:
    """The full evaluation from independent parts: PeSTO's sums (reference_pesto) and both
    sides' terms from the python-chess reference, tapered by the phase (capped at 24) and
    rounded towards zero."""
    board = chess.Board(fen)
    white = reference_terms(board, chess.WHITE)
    black = reference_terms(board, chess.BLACK)
    mg, eg, phase = reference_pesto(board)
    mg += sum(white[0::2]) - sum(black[0::2])
    eg += sum(white[1::2]) - sum(black[1::2])
    phase = min(phase, 24)
    blend = mg * phase + eg * (24 - phase)
    return int(blend / 24)


def test_pesto_sums_match_the_published_tables():
    """The incremental sums and the recount from the mailbox against the published tables
    (start position: material level, phase 24, and the published symmetry gives 0)."""
    assert reference_pesto(chess.Board()) == (0, 0, 24)
    for fen in EVAL_FENS:
        board = Board(fen)
        assert tuple(int(x) for x in ev.scratch_sums(board.P, board.T)) == \
            reference_pesto(chess.Board(fen)), fen


def test_full_evaluation_is_pst_plus_terms():
    """Also where the evaluation leaves out the end-game-only terms (at the full phase)."""
    board = Board(EVAL_FENS[4])
    assert ev.reference_eval_white(board.P, board.T) == _pst_plus_terms(EVAL_FENS[4])
    assert ev.reference_eval_white(board.P, board.T) != ev.material_pst_white(board.P)
    phases = set()
    for fen in EVAL_FENS + sorted({case.fen for case in load_perft_suites()}):
        board = Board(fen)
        phases.add(min(reference_pesto(chess.Board(fen))[2], 24))
        assert ev.reference_eval_white(board.P, board.T) == _pst_plus_terms(fen), fen
    assert {0, 24} <= phases and len(phases) > 10


def test_king_boxes_hold_the_squares_within_reach():
    """U_KING_BOX[d][sq] (king activity's distance sum) against python-chess's distance."""
    table = Board().T.u
    for d in range(7):
        for sq in range(64):
            box = int(table[ev.U_KING_BOX + d * 64 + sq])
            assert box == int(chess.SquareSet(s for s in chess.SQUARES
                                              if chess.square_distance(s, sq) <= d)), (d, sq)


def test_terms_see_what_they_name():
    """Hand-checked facts, so a wrong constant or mask shows up as a plain failure."""
    def terms(fen, colour):
        b = Board(fen)
        return dict(zip(ev.TERM_NAMES, zip(*[iter(ev.side_terms(b.P, b.T, np.int64(colour)))] * 2)))

    # Backward: e3's neighbours d4 and f4 both stand ahead of it and black's d5 guards e4.
    # With the black pawn on d6 instead, e4 is free and e3 is not backward. In both, e3
    # defends d4 and f4, and no white pawn is isolated or doubled.
    guarded = terms("4k3/8/8/3p4/3P1P2/4P3/8/4K3 w - - 0 1", 0)["pawn structure"]
    free = terms("4k3/8/3p4/8/3P1P2/4P3/8/4K3 w - - 0 1", 0)["pawn structure"]
    assert free == (2 * ev.SUPPORTED_PAWN[0], 2 * ev.SUPPORTED_PAWN[1])
    assert (guarded[0] - free[0], guarded[1] - free[1]) == ev.BACKWARD_PAWN
    passer = terms("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1", 0)
    assert passer["passed pawns"] == (ev.PASSED_PAWN_MG[1], ev.PASSED_PAWN_EG[1])
    blocked = terms("4k3/8/2p5/8/8/8/1P6/4K3 w - - 0 1", 0)   # c6 pawn guards b-file path
    assert blocked["passed pawns"] == (0, 0)
    doubled = terms("4k3/8/8/8/8/1P6/1P6/4K3 w - - 0 1", 0)
    assert doubled["pawn structure"] == (ev.DOUBLED_PAWN[0] + 2 * ev.ISOLATED_PAWN[0],
                                         ev.DOUBLED_PAWN[1] + 2 * ev.ISOLATED_PAWN[1])
    chain = terms("4k3/8/8/8/3P4/2P5/1P6/4K3 w - - 0 1", 0)   # b2-c3-d4: c3 and d4 defended
    assert chain["pawn structure"] == (2 * ev.SUPPORTED_PAWN[0], 2 * ev.SUPPORTED_PAWN[1])
    # Phalanx: d5 and e5 stand side by side on white's 5th rank; black's c6-d6 on its 3rd.
    front = terms("4k3/8/8/3PP3/8/8/8/4K3 w - - 0 1", 0)["pawn structure"]
    assert front == (2 * ev.PHALANX_PAWN_MG[4], 2 * ev.PHALANX_PAWN_EG[4])
    black_front = terms("4k3/8/2pp4/8/8/8/8/4K3 b - - 0 1", 1)["pawn structure"]
    assert black_front == (2 * ev.PHALANX_PAWN_MG[2], 2 * ev.PHALANX_PAWN_EG[2])
    # King activity: white's king on e1 is 3 moves from b4 and 3 from h4; black's on e8, 4 and 4.
    kings = "4k3/8/8/8/1p5P/8/8/4K3 w - - 0 1"
    assert terms(kings, 0)["king activity"] == (0, -3 * ev.KING_PAWN_DISTANCE)
    assert terms(kings, 1)["king activity"] == (0, -4 * ev.KING_PAWN_DISTANCE)
    # Knight outposts: e5 is defended by d4 and no black pawn stands on d6-d7 or f6-f7. A
    # black pawn on f7 could chase it; on e3 (its 3rd rank) it is no outpost; black's d5
    # knight, defended by e6, stands on black's 4th rank.
    outpost = terms("4k3/8/8/4N3/3P4/8/8/4K3 w - - 0 1", 0)
    assert outpost["knight outposts"] == ev.KNIGHT_OUTPOST
    assert terms("4k3/5p2/8/4N3/3P4/8/8/4K3 w - - 0 1", 0)["knight outposts"] == (0, 0)
    assert terms("4k3/8/8/8/8/4N3/3P4/4K3 w - - 0 1", 0)["knight outposts"] == (0, 0)
    black = terms("4k3/8/4p3/3n4/8/8/8/4K3 b - - 0 1", 1)
    assert black["knight outposts"] == ev.KNIGHT_OUTPOST
    pair = terms("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", 0)
    assert pair["bishop pair"] == ev.BISHOP_PAIR
    rooks = terms("4k3/p7/8/8/8/8/1P6/R3K2R w - - 0 1", 0)   # a: half-open, h: open
    assert rooks["rook files"] == (ev.ROOK_OPEN_FILE[0] + ev.ROOK_HALF_OPEN_FILE[0],
                                   ev.ROOK_OPEN_FILE[1] + ev.ROOK_HALF_OPEN_FILE[1])
    sheltered = terms("6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1", 0)
    bare = terms("6k1/8/8/8/8/8/8/6K1 w - - 0 1", 0)
    assert sheltered["king shelter"] == (0, 0)
    assert bare["king shelter"] == (-3 * ev.SHELTER_MISSING, 0)
    attack = terms("6k1/5p1p/6pQ/8/8/5N2/5PPP/6K1 w - - 0 1", 0)
    assert attack["king attack"][0] == 0          # only the queen hits the zone
    attack = terms("6k1/5p1p/6pQ/6N1/8/8/5PPP/6K1 w - - 0 1", 0)
    assert attack["king attack"][0] > 0           # queen and knight
    # Passer race: a b5 pawn (its 5th rank) steps to b6; black's king on h8 is 6 (capped at
    # 5) moves from b6, white's on e1 is 5; nothing stands on b6-b8.
    w = ev.PASSER_RACE_WEIGHT[4]
    race = terms("7k/8/8/1P6/8/8/8/4K3 w - - 0 1", 0)
    assert race["passer race"] == (0, w * (5 * ev.PASSER_KING_THEM - 5 * ev.PASSER_KING_US
                                           + ev.PASSER_FREE))
    near = terms("7k/8/8/1PK5/8/8/8/8 w - - 0 1", 0)    # own king c5, one move from b6
    assert near["passer race"] == (0, w * (5 * ev.PASSER_KING_THEM - 1 * ev.PASSER_KING_US
                                           + ev.PASSER_FREE))
    stopped = terms("1k6/8/8/1PK5/8/8/8/8 w - - 0 1", 0)   # black's king on b8 blocks the path
    assert stopped["passer race"] == (0, w * (2 * ev.PASSER_KING_THEM - 1 * ev.PASSER_KING_US))
    assert terms("7k/8/8/8/8/1P6/8/4K3 w - - 0 1", 0)["passer race"] == (0, 0)   # 3rd rank: weight 0
