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
from engine import tt_layout as L
from engine import tt_research as R
from engine.tt_registry import SCHEME_NAMES, scheme_index
from engine.board import Board, move_to_uci
from engine.driver import Limits
from engine.facade import Engine
from engine.search import K_HORIZON, K_NODES, K_QNODES, K_WEIGHTED
from engine.session import Session

E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
MIDDLE = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"


def _store(tt, key, move, score, depth, bound, size):
    T.tt_store(tt, np.uint64(key), np.int64(0), np.int64(move), np.int64(score),
               np.int64(depth), np.int64(bound), np.int64(size))


# -- BIGALL: a retrieved position counts as the nodes its result cost ------------------------
@pytest.mark.parametrize("scheme", range(len(SCHEME_NAMES)))
def test_hit_weight_is_the_stored_size_beyond_one_node_for_bigall_only(scheme):
    tt = T.new_table(positions=16, scheme=scheme)
    bigall = SCHEME_NAMES[scheme] == "BIGALL"
    assert T.tt_hit_weight(tt, np.int64(500)) == (499 if bigall else 0)
    assert T.tt_hit_weight(tt, np.int64(1)) == 0
    assert T.tt_hit_weight(tt, np.int64(0)) == 0


@pytest.mark.parametrize("scheme,extra", [(scheme_index("BIGALL"), 999), (scheme_index("BIG1"), 0)])
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
    for scheme in (scheme_index("BIG1"), scheme_index("BIGALL")):
        session = Session(profile="paper", positions=1 << 14, scheme=scheme)
        session.search(Board(MIDDLE), Limits(depth=5))
        ctrl = session.searcher.S.ctrl
        sizes[scheme] = int(ctrl[K_WEIGHTED]) - int(ctrl[K_NODES])
    assert sizes[scheme_index("BIG1")] == 0 and sizes[scheme_index("BIGALL")] > 0


# -- the use modes of thesis 2.7.2 -------------------------------------------------------------
MOVE = 0x0123    # any non-zero move code: the lookup does not check legality
ALPHA, BETA = -100, 100


def _lookup(use, bound, score):
    tt = T.new_table(positions=16, scheme=scheme_index("TwoBig1"))
    T.tt_new_search(tt)
    _store(tt, 77, MOVE, score, 6, bound, 10)   # stored with every use on, then read under `use`
    R.set_table_use(tt, use)
    found, move, cut, got, alpha, beta = T.tt_lookup(
        tt, np.uint64(77), np.int64(0), np.int64(4), np.int64(ALPHA), np.int64(BETA), True)[:6]
    assert found
    return move, bool(cut), got, alpha, beta


@pytest.mark.parametrize("use,stored", [
    ("full", {T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER}),
    ("move", {T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER}),
    ("score", {T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER}),
    ("exact", {T.BOUND_EXACT}),
    ("bounds", {T.BOUND_LOWER, T.BOUND_UPPER}),
])
def test_each_use_mode_stores_only_what_it_uses(use, stored):
    """Thesis 2.7.2: the exact-only and bounds-only tables store only the kind of score they
    use; the move-only table stores every result for its move. A store of another kind is
    counted (unused_kind) and leaves the table as it was."""
    for bound in (T.BOUND_EXACT, T.BOUND_LOWER, T.BOUND_UPPER):
        tt = T.new_table(positions=16, scheme=scheme_index("TwoBig1"))
        T.tt_new_search(tt)
        R.set_table_use(tt, use)
        _store(tt, 77, MOVE, 10, 6, bound, 10)
        found = T.tt_probe(tt, np.uint64(77), np.int64(0))[0]
        assert found == (bound in stored), (use, bound)
        assert R.stats_dict(tt)["unused_kind"] == (0 if bound in stored else 1)


@pytest.mark.parametrize("use,allowed", [("exact", {T.BOUND_EXACT}),
                                         ("bounds", {T.BOUND_LOWER, T.BOUND_UPPER})])
def test_a_real_search_fills_the_table_with_only_the_kind_it_uses(use, allowed):
    """A depth-5 paper search of a middle-game position under the exact-only or bounds-only
    mode: every entry left in the table is of the kind the mode uses, some stores of the
    other kind were skipped, and the table is not empty."""
    session = Session(profile="paper", positions=1 << 14, use=use)
    session.search(Board(MIDDLE), Limits(depth=5))
    table = session.table
    bounds = {int(L.unpack_data(table.slots[at + 1])[3])
              for at in range(0, table.slots.shape[0], L.WORDS)} - {T.BOUND_NONE}
    assert bounds and bounds <= allowed
    assert R.stats_dict(table)["unused_kind"] > 0


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
    tt = T.new_table(positions=16, scheme=scheme_index("TwoBig1"))
    for use in R.TABLE_USES:
        R.set_table_use(tt, use)
        assert bool(T.tt_enabled(tt)) == (use != "none")


@pytest.mark.parametrize("use", ["move", "score", "exact", "bounds"])
def test_a_search_under_each_use_mode_cuts_only_as_its_mode_allows(use):
    """A depth-5 paper search of one middle-game position: the counters show which parts of
    the entries were used (move only: hits but no cut-off; exact: no bound cut-offs...)."""
    session = Session(profile="paper", positions=1 << 14, use=use)
    result = session.search(Board(MIDDLE), Limits(depth=5))
    stats = R.stats_dict(session.table)
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
    assert R.stats_dict(session.table)["type1_caught"] >= 1
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
    stats = R.stats_dict(session.table)
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
    return (int(conf[L.C_BUCKETS]), int(conf[L.C_WAYS]), SCHEME_NAMES[int(conf[L.C_SCHEME])],
            int(conf[L.C_AGING]))


def test_hash_scheme_and_aging_options_reach_the_table():
    engine = Engine()
    assert _shape(engine) == (16 * 1024 * 1024 // 24 // 2, 2, "TwoBig1", 1)   # Hash 16 (MB)
    engine.set_option("Hash", 1)                    # 43,690 slots of 24 bytes, 2 a bucket
    assert _shape(engine) == (21_845, 2, "TwoBig1", 1)
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
        buckets = int(tt.conf[L.C_BUCKETS])
        _store(tt, 5, 0, 0, 20, T.BOUND_EXACT, 1)
        T.tt_new_search(tt)
        _store(tt, 5 + buckets, 0, 0, 1, T.BOUND_EXACT, 1)      # same bucket
        assert bool(T.tt_probe(tt, np.uint64(5), np.int64(0))[0]) == kept


def test_clear_hash_empties_the_table_and_keeps_its_shape():
    engine = Engine()
    engine.set_option("Hash", 1)
    engine.go(Limits(depth=4))
    engine.finish()
    assert R.tt_count_filled(engine.session.table) > 0
    shape = _shape(engine)
    engine.set_option("Clear Hash", True)
    assert R.tt_count_filled(engine.session.table) == 0 and _shape(engine) == shape


def test_table_options_through_the_protocol_loop():
    import io
    from engine.uci import UciLoop
    from tests.test_uci_fuzz import Output
    out = Output()
    loop = UciLoop(out=out, err=io.StringIO())
    for line in ("setoption name Hash value 1", "setoption name TT Scheme value twodeep",
                 "setoption name TT Aging value false"):
        loop.handle(line)
    assert _shape(loop.engine) == (21_845, 2, "TwoDEEP", 0)


@pytest.mark.parametrize("size_qnodes", [True, False])
def test_subtree_sizes_count_quiescence_nodes_or_the_thesis_count(size_qnodes):
    """With BIG1 (no hit weighting) the subtree size of the root is every node searched, or,
    with size_qnodes off, the thesis' count: interior nodes and horizon leaves."""
    session = Session(profile="paper", positions=1 << 14, scheme=scheme_index("BIG1"),
                      choices=dict(size_qnodes=size_qnodes))
    session.search(Board(MIDDLE), Limits(depth=4))
    ctrl = session.searcher.S.ctrl
    nodes, qnodes, horizon = int(ctrl[K_NODES]), int(ctrl[K_QNODES]), int(ctrl[K_HORIZON])
    assert qnodes > horizon > 0
    expected = nodes if size_qnodes else nodes - qnodes + horizon
    assert int(ctrl[K_WEIGHTED]) == expected


# (bound, stored score) -> (stand-pat without the leaf cut-off, cut with it); stand-pat 0 in
# the window (-100, 100)
LEAF_CASES = [
    (T.BOUND_EXACT, 40, 40, True),
    (T.BOUND_LOWER, 150, 150, True),
    (T.BOUND_LOWER, 50, 50, False),
    (T.BOUND_UPPER, -150, -150, True),
    (T.BOUND_UPPER, -30, -30, False),
    (T.BOUND_UPPER, 30, 0, False),
]


@pytest.mark.parametrize("bound,score,bounded,cuts", LEAF_CASES)
@pytest.mark.parametrize("leaf_cut", [False, True])
def test_a_stored_score_at_a_quiescence_node_bounds_or_returns(bound, score, bounded, cuts,
                                                               leaf_cut):
    """Without the leaf cut-off a stored score only replaces (exact) or bounds the stand-pat;
    with it, a score that would end the node in Figure 2.7 returns."""
    tt = T.new_table(positions=16, scheme=scheme_index("TwoBig1"))
    R.set_open_choices(tt, leaf_cut=leaf_cut)
    T.tt_new_search(tt)
    _store(tt, 77, MOVE, score, 0, bound, 1)
    move, value, cut = T.tt_bound_eval(tt, np.uint64(77), np.int64(0), np.int64(0),
                                       np.int64(ALPHA), np.int64(BETA))
    assert move == MOVE
    assert (bool(cut), int(value)) == ((True, score) if leaf_cut and cuts else (False, bounded))
