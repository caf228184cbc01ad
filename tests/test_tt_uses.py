"""The table as the search uses it: BIGALL's weighting of retrieved subtrees (what separates
it from BIG1), the thesis' use modes of 2.7.2 (move, score, exact, bounds; none and full),
the refusal of a stored move that is not legal in the position (type-1 errors, 2.4.2),
and the Hash, TT Scheme, TT Aging and Clear Hash options reaching the table.
Expected values come from the thesis' definitions (a hand-planted entry, a hand-made
window), not from the functions under test."""
import chess
import numpy as np
import pytest

from engine import tt as T
from engine.board import Board, move_to_uci
from engine.driver import Limits
from engine.facade import Engine
from engine.search import K_NODES, K_WEIGHTED
from engine.session import Session

E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
MIDDLE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def _store(tt, key, move, score, depth, bound, size):
    T.tt_store(tt, np.uint64(key), np.int64(0), np.int64(move), np.int64(score),
               np.int64(depth), np.int64(bound), np.int64(size))


# -- BIGALL: a retrieved position counts as the nodes its result cost ------------------------
@pytest.mark.parametrize("scheme", range(len(T.SCHEMES)))
def test_hit_weight_is_the_stored_size_beyond_one_node_for_bigall_only(scheme):
    tt = T.new_table(positions=16, scheme=scheme)
    bigall = T.SCHEMES[scheme] == "BIGALL"
    assert T.tt_hit_weight(tt, np.int64(500)) == (499 if bigall else 0)
    assert T.tt_hit_weight(tt, np.int64(1)) == 0
    assert T.tt_hit_weight(tt, np.int64(0)) == 0


@pytest.mark.parametrize("scheme,extra", [(T.BIGALL, 999), (T.BIG1, 0)])
def test_a_cut_by_a_planted_entry_adds_its_cost_under_bigall(scheme, extra):
    """1. e4 only, depth 2 (paper profile): the reply node, searched to depth 1, finds a
    planted exact entry of depth 30 that cost 1,000 nodes, and returns its score (+12 for
    black, so -12 at the root). BIGALL counts that node as 1,000 (999 beyond the node
    itself); BIG1 as one."""
    session = Session(profile="paper", positions=1 << 12, scheme=scheme)
    board = Board()
    e4 = board.parse_uci("e2e4")
    _store(session.table, Board(E4).key, 0, 12, 30, T.BOUND_EXACT, 1000)
    result = session.search(board, Limits(depth=2, searchmoves=[e4]))
    ctrl = session.searcher.S.ctrl
    assert result.best_move == e4 and result.score == -12
    assert int(ctrl[K_WEIGHTED]) - int(ctrl[K_NODES]) == extra


def test_bigall_counts_more_than_it_searches_in_a_real_search():
    sizes = {}
    for scheme in (T.BIG1, T.BIGALL):
        session = Session(profile="paper", positions=1 << 14, scheme=scheme)
        session.search(Board(MIDDLE), Limits(depth=5))
        ctrl = session.searcher.S.ctrl
        sizes[scheme] = int(ctrl[K_WEIGHTED]) - int(ctrl[K_NODES])
    assert sizes[T.BIG1] == 0 and sizes[T.BIGALL] > 0


# -- the use modes of thesis 2.7.2 -------------------------------------------------------------
MOVE = 0x0123    # any non-zero move code: the lookup does not check legality
ALPHA, BETA = -100, 100


def _lookup(use, bound, score):
    tt = T.new_table(positions=16, scheme=T.TWOBIG1)
    T.tt_new_search(tt)
    T.set_table_use(tt, use)
    _store(tt, 77, MOVE, score, 6, bound, 10)
    found, move, cut, got, alpha, beta = T.tt_lookup(
        tt, np.uint64(77), np.int64(0), np.int64(4), np.int64(ALPHA), np.int64(BETA), True)[:6]
    assert found
    return move, bool(cut), got, alpha, beta


# (use, bound, score) -> (move given, cut, alpha, beta); an entry of depth 6 read at
# depth 4 in the window (-100, 100).
USE_CASES = [
    ("full", T.BOUND_EXACT, 40, (MOVE, True, ALPHA, BETA)),
    ("move", T.BOUND_EXACT, 40, (MOVE, False, ALPHA, BETA)),
    ("score", T.BOUND_EXACT, 40, (0, True, ALPHA, BETA)),
    ("exact", T.BOUND_EXACT, 40, (0, True, ALPHA, BETA)),
    ("bounds", T.BOUND_EXACT, 40, (0, False, ALPHA, BETA)),
    ("full", T.BOUND_LOWER, 150, (MOVE, True, 150, BETA)),
    ("move", T.BOUND_LOWER, 150, (MOVE, False, ALPHA, BETA)),
    ("score", T.BOUND_LOWER, 150, (0, True, 150, BETA)),
    ("exact", T.BOUND_LOWER, 150, (0, False, ALPHA, BETA)),
    ("bounds", T.BOUND_LOWER, 150, (0, True, 150, BETA)),
    ("bounds", T.BOUND_LOWER, 50, (0, False, 50, BETA)),      # raises alpha, no cut
    ("exact", T.BOUND_LOWER, 50, (0, False, ALPHA, BETA)),
    ("bounds", T.BOUND_UPPER, -30, (0, False, ALPHA, -30)),   # lowers beta
    ("exact", T.BOUND_UPPER, -30, (0, False, ALPHA, BETA)),
    ("score", T.BOUND_UPPER, -150, (0, True, ALPHA, -150)),
    ("move", T.BOUND_UPPER, -150, (MOVE, False, ALPHA, BETA)),
]


@pytest.mark.parametrize("use,bound,score,expected", USE_CASES)
def test_each_use_mode_takes_only_its_part_of_an_entry(use, bound, score, expected):
    move, cut, got, alpha, beta = _lookup(use, bound, score)
    assert (move, cut, alpha, beta) == expected
    if cut:
        assert got == score


def test_the_use_modes_switch_the_table_on_and_off():
    tt = T.new_table(positions=16, scheme=T.TWOBIG1)
    for use in T.TABLE_USES:
        T.set_table_use(tt, use)
        assert bool(T.tt_enabled(tt)) == (use != "none")


@pytest.mark.parametrize("use", ["move", "score", "exact", "bounds"])
def test_a_search_under_each_use_mode_cuts_only_as_its_mode_allows(use):
    """A depth-5 paper search of one middle-game position: the counters show which parts of
    the entries were used (move only: hits but no cut-off; exact: no bound cut-offs...)."""
    session = Session(profile="paper", positions=1 << 14, use=use)
    result = session.search(Board(MIDDLE), Limits(depth=5))
    stats = T.stats_dict(session.table)
    assert chess.Move.from_uci(move_to_uci(result.best_move)) in chess.Board(MIDDLE).legal_moves
    assert stats["hits"] > 0
    bound_cuts = stats["cut_lower"] + stats["cut_upper"] + stats["window"]
    if use == "move":
        assert stats["cut_exact"] == 0 and bound_cuts == 0
    elif use == "exact":
        assert bound_cuts == 0
    elif use == "bounds":
        assert stats["cut_exact"] == 0 and bound_cuts > 0
    else:
        assert bound_cuts > 0


def test_without_the_stored_move_the_search_orders_worse():
    """The stored move's job: searching it first makes the tree smaller. With the paper
    profile (no pruning that could hide the effect) "full" searches fewer nodes than
    "score", and "move" fewer than "none"."""
    nodes = {}
    for use in ("none", "move", "score", "full"):
        session = Session(profile="paper", positions=1 << 14, use=use)
        nodes[use] = session.search(Board(MIDDLE), Limits(depth=5)).nodes
    assert nodes["full"] < nodes["score"]
    assert nodes["move"] < nodes["none"]


# -- type-1 errors: a stored move that is not legal here is never played -----------------------
def test_a_planted_illegal_move_is_refused():
    """The entry for the position after 1. e4 holds the move e2e4 itself (white's, and e2 is
    empty): too shallow to cut, so only its move would be used. The search refuses it,
    counts the refusal, and plays and reports legal lines."""
    session = Session(profile="paper", positions=1 << 12)
    illegal = Board().parse_uci("e2e4")
    assert chess.Move.from_uci("e2e4") not in chess.Board(E4).legal_moves
    board = Board(E4)
    _store(session.table, board.key, illegal, 0, 0, T.BOUND_UPPER, 1)
    T.tt_new_search(session.table)
    known = T.tt_probe(session.table, np.uint64(board.key), np.int64(0))
    assert known[0] and known[1] == illegal
    result = session.search(Board(), Limits(depth=3), new_generation=False)
    assert T.stats_dict(session.table)["type1_caught"] >= 1
    for it in result.iterations:
        line = chess.Board()
        for move in it.pv:
            move = chess.Move.from_uci(move_to_uci(move))
            assert move in line.legal_moves
            line.push(move)


def test_short_keys_cause_type1_errors_that_the_search_survives():
    """With 8 verified key bits in a small table, other positions' entries are read as
    this one's (the thesis' type-1 errors): their moves are refused, and every line
    reported and the move played are legal."""
    session = Session(profile="paper", positions=1 << 8, key_bits=8)
    board = Board(MIDDLE)
    result = session.search(board, Limits(depth=5))
    stats = T.stats_dict(session.table)
    assert stats["type1"] > 0 and stats["type1_caught"] > 0
    assert board.fen() == MIDDLE
    for it in result.iterations:
        line = chess.Board(MIDDLE)
        for move in it.pv:
            move = chess.Move.from_uci(move_to_uci(move))
            assert move in line.legal_moves
            line.push(move)


# -- the options that shape the table -------------------------------------------------------------
def _shape(engine):
    conf = engine.session.table.conf
    return (int(conf[T.C_BUCKETS]), int(conf[T.C_WAYS]), T.SCHEMES[int(conf[T.C_SCHEME])],
            int(conf[T.C_AGING]))


def test_hash_scheme_and_aging_options_reach_the_table():
    engine = Engine()
    assert _shape(engine) == (64 * 1024 * 1024 // 24 // 2, 2, "TWOBIG1", 1)
    engine.set_option("Hash", 1)                    # 43,690 slots of 24 bytes, 2 a bucket
    assert _shape(engine) == (21_845, 2, "TWOBIG1", 1)
    engine.set_option("TT Scheme", "DEEP")          # one level: one slot a bucket
    assert _shape(engine) == (43_690, 1, "DEEP", 1)
    engine.set_option("TT Aging", False)
    assert _shape(engine) == (43_690, 1, "DEEP", 0)
    engine.set_option("Hash", 2)                    # the scheme and aging are kept
    assert _shape(engine) == (87_381, 1, "DEEP", 0)
    engine.new_game()                               # and survive a new game
    assert _shape(engine) == (87_381, 1, "DEEP", 0)
    engine.set_option("TT Scheme", "BIGALL")
    assert _shape(engine) == (87_381, 1, "BIGALL", 0)


def test_aging_off_keeps_an_earlier_searchs_entries():
    """With time stamping on, an entry of an earlier search gives way to any newcomer;
    off, DEEP keeps the deeper one."""
    for aging, kept in ((True, False), (False, True)):
        engine = Engine()
        engine.set_option("Hash", 1)
        engine.set_option("TT Scheme", "DEEP")
        engine.set_option("TT Aging", aging)
        tt = engine.session.table
        T.tt_new_search(tt)
        buckets = int(tt.conf[T.C_BUCKETS])
        _store(tt, 5, 0, 0, 20, T.BOUND_EXACT, 1)
        T.tt_new_search(tt)
        _store(tt, 5 + buckets, 0, 0, 1, T.BOUND_EXACT, 1)      # same bucket
        assert bool(T.tt_probe(tt, np.uint64(5), np.int64(0))[0]) == kept


def test_clear_hash_empties_the_table_and_keeps_its_shape():
    engine = Engine()
    engine.set_option("Hash", 1)
    engine.go(Limits(depth=4))
    engine.finish()
    assert T.tt_count_filled(engine.session.table) > 0
    shape = _shape(engine)
    engine.set_option("Clear Hash", True)
    assert T.tt_count_filled(engine.session.table) == 0 and _shape(engine) == shape


def test_table_options_through_the_protocol_loop():
    import io
    from engine.uci import UciLoop
    from tests.test_uci_fuzz import Output
    out = Output()
    loop = UciLoop(out=out, err=io.StringIO())
    for line in ("setoption name Hash value 1", "setoption name TT Scheme value twodeep",
                 "setoption name TT Aging value false"):
        loop.handle(line)
    assert _shape(loop.engine) == (21_845, 2, "TWODEEP", 0)
