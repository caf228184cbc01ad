"""Threads (Lazy SMP): the shared table under concurrent stores and probes, forced mates and
legal moves with several threads, and the UCI loop with `Threads` set. Speed and scaling are
measured by scripts/bench_threads.py, not asserted here."""
import io
import threading

import chess
import numpy as np
import pytest

from engine import tt as T
from engine import tt_layout as L
from engine import tt_research as R
from engine.tt_registry import scheme_index
from engine._jit import jit
from engine.board import Board, move_to_uci
from engine.driver import Limits
from engine.search import K_NODES
from engine.session import Session
from engine.types import MATE, MATE_BOUND
from test_mates import MATE_IDS, MATES, PLAY_EXTRA_PLIES
from test_uci_fuzz import Output

KEY_COUNT = 64      # distinct positions hammered into a table of a few buckets


@jit
def _entry_of(key):
    """The one entry every thread stores for `key` (move, score, depth, size)."""
    return (np.int64(key & np.uint64(0xFFF)), np.int64((key >> np.uint64(12)) & np.uint64(0x3FF)),
            np.int64((key >> np.uint64(24)) & np.uint64(0x3F)),
            np.int64((key >> np.uint64(32)) & np.uint64(0xFFFF)) + 1)


@jit
def _hammer(tt, keys, seed, rounds):
    """Store and probe random keys of `keys`; returns the probes that found a key with an
    entry other than its own (must stay 0) and the hits (to show the test probes at all)."""
    state = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    wrong = 0
    hits = 0
    for _ in range(rounds):
        state ^= state << np.uint64(13)
        state ^= state >> np.uint64(7)
        state ^= state << np.uint64(17)
        key = keys[np.int64(state % np.uint64(keys.shape[0]))]
        move, score, depth, size = _entry_of(key)
        if (state >> np.uint64(40)) & np.uint64(1):
            T.tt_store(tt, key, 0, move, score, depth, T.BOUND_EXACT, size)
        else:
            found, got_move, got_score, got_depth, bound, got_size = T.tt_probe(tt, key, 0)
            if found:
                hits += 1
                if (got_move != move or got_score != score or got_depth != depth
                        or got_size != size or bound != T.BOUND_EXACT):
                    wrong += 1
    return wrong, hits


@pytest.mark.parametrize("scheme", [scheme_index(name) for name in ("TwoBig1", "TwoDEEP", "DEEP", "Age")])
def test_concurrent_stores_and_probes_never_return_another_positions_entry(scheme):
    rng = np.random.default_rng(7)
    keys = rng.integers(1, 2 ** 63, size=KEY_COUNT, dtype=np.int64).astype(np.uint64)
    tt = T.new_table(positions=8, scheme=scheme)
    T.set_store_rules(tt, False)
    _hammer(tt, keys, 1, 10)                     # compile before the threads start
    results = []

    def work(seed):
        results.append(_hammer(tt, keys, seed, 400_000))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(2, 6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r[1] for r in results) > 1000     # the probes did find entries
    assert sum(r[0] for r in results) == 0
    # Every bucket the stores left is sound: no position twice, the right data, and for
    # the two-level schemes level 1 filled whenever level 2 is, and at least as important.
    ways = int(tt.conf[L.C_WAYS])
    stored = R.stored_keys(tt).reshape(-1, ways)
    words = tt.slots.reshape(-1, ways, L.WORDS)
    for bucket in range(stored.shape[0]):
        present = [int(k) for w, k in enumerate(stored[bucket])
                   if L.unpack_data(words[bucket, w, 1])[3] != T.BOUND_NONE]
        assert len(present) == len(set(present))
        assert set(present) <= set(int(k) for k in keys)
        if scheme in (scheme_index("TwoBig1"), scheme_index("TwoDEEP")) and len(present) == 2:
            a, b = (_entry_of(np.uint64(k)) for k in present)
            index = 3 if scheme == scheme_index("TwoBig1") else 2
            assert int(stored[bucket, 0]) == present[0] and a[index] >= b[index]
        if scheme in (scheme_index("TwoBig1"), scheme_index("TwoDEEP")) and present:
            assert L.unpack_data(words[bucket, 0, 1])[3] != T.BOUND_NONE


@pytest.mark.parametrize("threads", [2, 4])
@pytest.mark.parametrize("fen,kind,keys", MATES, ids=MATE_IDS)
def test_several_threads_find_forced_mates(fen, kind, keys, threads):
    """Two plies more than one thread may need (2N + 1 + PLAY_EXTRA_PLIES, tests/test_mates.py):
    helpers searching other moves first store pruned (not wrong) bounds that can hide a mate
    from the main thread at the minimal depth, as in any Lazy SMP engine (e.g.
    8/5P1k/5K2/8/8/8/8/8 w: f8=R mates in 2; a null-window search behind f8=Q's stalemate
    prunes it by reverse futility). Since one thread may need the two extra plies (the
    history-guided reductions, cec1c04), 2N + 3 alone left the threads none and failed now
    and then (the mate in 3 of 3K4/8/8/1k6/8/8/6P1/5q2 b, 4 threads, in a loaded CI run)."""
    moves = int(kind[-1])
    session = Session(hash_mb=8)
    session.set_threads(threads)
    result = session.search(Board(fen), Limits(depth=2 * moves + 3 + PLAY_EXTRA_PLIES))
    # What threads guarantee, whatever their timing: a legal move, a mate found, and no
    # mate claimed shorter than the forced one. Which thread's line wins the vote, and so
    # the exact distance (a helper may report a longer mate first), depends on timing.
    move = chess.Move.from_uci(move_to_uci(result.best_move))
    assert move in chess.Board(fen).legal_moves
    assert MATE_BOUND <= result.score <= MATE - (2 * moves - 1)
    if result.score == MATE - (2 * moves - 1):
        assert move.uci() in keys              # the shortest mate starts with a mating move


def test_several_threads_play_legal_moves_and_restore_the_board():
    rng = np.random.default_rng(11)
    session = Session(hash_mb=4)
    session.set_threads(3)
    board = chess.Board()
    for ply in range(40):
        if board.is_game_over():
            break
        ours = Board(board.fen())
        limits = Limits(nodes=int(rng.integers(500, 20_000))) if ply % 2 else Limits(depth=4)
        result = session.search(ours, limits)
        assert ours.fen() == board.fen()
        move = chess.Move.from_uci(move_to_uci(result.best_move))
        assert move in board.legal_moves
        board.push(move)


def test_node_limit_counts_every_thread():
    session = Session(hash_mb=4)
    session.set_threads(4)
    result = session.search(Board(), Limits(nodes=40_000))
    assert result.nodes <= 40_000 + 4 * 300      # each thread may finish its current node


def test_the_paper_profile_stays_single_threaded_and_deterministic():
    counts = []
    for threads in (1, 4):
        session = Session(profile="paper", hash_mb=4)
        session.set_threads(threads)
        counts.append(session.search(Board(), Limits(depth=5)).nodes)
    assert counts[0] == counts[1]


def test_uci_loop_with_threads_survives_stop_newgame_hash_and_quit():
    from engine.uci import UciLoop
    out = Output()
    uci = UciLoop(out=out, err=io.StringIO())
    for line in ("setoption name Threads value 4", "isready"):
        uci.handle(line)
    out.wait_for("readyok", 0)
    sequences = [
        ["position startpos", "go infinite", "stop"],
        ["position startpos moves e2e4", "go infinite", "setoption name Hash value 8", "stop"],
        ["position startpos", "go infinite", "ucinewgame", "position startpos moves d2d4"],
        ["go depth 6"],
        ["setoption name Threads value 2", "go nodes 30000"],
    ]
    for lines in sequences:
        before = sum(1 for line in out.lines if line.startswith("bestmove"))
        for line in lines:
            uci.handle(line)
        uci.engine.finish()
        uci.engine.wait()
        bestmoves = [line for line in out.lines if line.startswith("bestmove")]
        assert len(bestmoves) == before + 1, lines          # exactly one bestmove per go
        start = len(out.lines)
        uci.handle("isready")
        out.wait_for("readyok", start)
    board = chess.Board()
    board.push_uci("d2d4")
    move = bestmoves[-1].split()[1]
    assert chess.Move.from_uci(move) in board.legal_moves
    uci.handle("quit")


def test_each_thread_counts_into_its_own_counters():
    """With two threads the table's counters are the main thread's alone: a node probes the
    table at most once, so its probes cannot exceed its own nodes, while the helper searched
    (and probed) as well."""
    session = Session(hash_mb=8)
    session.set_threads(2)
    result = session.search(Board(), Limits(depth=9))
    main_nodes = int(session.searcher.S.ctrl[K_NODES])
    probes = R.stats_dict(session.table)["probes"]
    assert 0 < probes <= main_nodes < result.nodes


def test_helpers_start_after_the_first_iteration_and_not_after_an_early_stop(monkeypatch):
    """The first iteration runs alone (with more threads than cores it would otherwise wait
    for them and for the interpreter lock); a stop before it ends leaves the helpers unstarted."""
    from engine.driver import Searcher
    from engine.threads import Helpers
    starts = []
    reported = []
    original = Helpers.start

    def recording_start(self, *args):
        starts.append(len(reported))
        return original(self, *args)

    monkeypatch.setattr(Helpers, "start", recording_start)
    searcher = Searcher()
    searcher.set_threads(3)
    board = Board()
    searcher.run(board, T.new_table(mb=4), Limits(depth=4), on_iteration=reported.append)
    assert starts == [1]
    starts.clear()
    searcher.clear_stop()
    searcher.stop()
    result = searcher.run(board, T.new_table(mb=4), Limits(infinite=True), keep_stop=True)
    assert result.depth == 1 and starts == []
    searcher.set_threads(1)
