"""What a `go` does beyond finding a move, at the level that decides it: the clock of the
side to move, movestogo, a single legal move, the soft-time stretch, the answer after a
failed search, options set while searching, and the Lazy SMP vote. Expected values are
worked out by hand from the rules in engine/timeman.py's and engine/driver.py's docstrings
(40 moves to go, 40% / 50% shares of the clock, votes (score - lowest + 14) x depth), not
computed by the functions under test. No wall-clock assertions: time limits are read
from the limits handed to the search, or the searcher's clock is set by hand."""
import threading
import time

import chess
import pytest

from engine.board import Board, move_to_uci
from engine.driver import (BEST_MOVE_CHANGE_STRETCH, SCORE_DROP_STRETCH, Limits, Result,
                           Searcher)
from engine.facade import Engine, Listener
from engine.search import STACK_PV_LEN
from engine.timeman import REPAIRED_GO_MOVETIME_MS, Clock, budgets
from engine.tt import new_table
from engine.types import MATE
from engine.uci import parse_go

HANG_GUARD = 120.0    # seconds: only a hang can take this long


class Recorder(Listener):
    """Everything the facade reports, with an event for the one bestmove."""

    def __init__(self):
        self.iterations = []
        self.notes = []
        self.best = []
        self.done = threading.Event()

    def iteration(self, it):
        self.iterations.append(it)

    def note(self, text):
        self.notes.append(text)

    def best_move(self, move, ponder):
        self.best.append((move, ponder))
        self.done.set()


def _limits_seen(fen, moves, go_line):
    """The Limits the facade hands the search for `go_line` (the search itself is replaced
    by one that records its limits and returns at once)."""
    seen = []
    engine = Engine()
    engine.session.search = lambda board, limits, *a, **k: seen.append(limits) or Result()
    engine.set_position(fen, moves)
    engine.go(parse_go(go_line.split()[1:])[0])
    engine.wait()
    return seen[0]


# -- the clock of the side to move ---------------------------------------------------------
# Move Overhead 100 ms (the default). A clock of 600,000 ms leaves 599.9 s: planned as 40
# moves to go, soft = 599.9 / 40 = 14.9975 s, hard = 3 x soft = 44.9925 s. A clock of
# 1,000 ms leaves 0.9 s: soft = 0.0225 s, hard = 0.0675 s.
BIG_SOFT, BIG_HARD = 14.9975, 44.9925
SMALL_SOFT, SMALL_HARD = 0.0225, 0.0675


@pytest.mark.parametrize("moves,wtime,btime,soft,hard", [
    ([], 1_000, 600_000, SMALL_SOFT, SMALL_HARD),             # white to move, white short
    ([], 600_000, 1_000, BIG_SOFT, BIG_HARD),                 # white to move, black short
    (["e2e4"], 1_000, 600_000, BIG_SOFT, BIG_HARD),           # black to move, white short
    (["e2e4"], 600_000, 1_000, SMALL_SOFT, SMALL_HARD),       # black to move, black short
])
def test_the_budget_follows_the_clock_of_the_side_to_move(moves, wtime, btime, soft, hard):
    limits = _limits_seen(None, moves, f"go wtime {wtime} btime {btime}")
    assert limits.soft_time == pytest.approx(soft)
    assert limits.hard_time == pytest.approx(hard)


def test_the_increment_of_the_side_to_move_counts():
    # Black to move, 60 s each; black's increment 2 s, white's none. 59.9 s left holds
    # 29.95 increments, more than the reserve of 10: 0.75 x 2 s is planned on top of
    # 59.9 / 40 = 1.4975 s.
    limits = _limits_seen(None, ["e2e4"], "go wtime 60000 btime 60000 winc 0 binc 2000")
    assert limits.soft_time == pytest.approx(1.4975 + 1.5)
    limits = _limits_seen(None, ["e2e4"], "go wtime 60000 btime 60000 winc 2000 binc 0")
    assert limits.soft_time == pytest.approx(1.4975)


def test_clock_budgets_read_the_right_side():
    clock = Clock(wtime=1_000, btime=600_000, winc=0, binc=0)
    assert clock.budgets(True, 100) == pytest.approx((SMALL_SOFT, SMALL_HARD))
    assert clock.budgets(False, 100) == pytest.approx((BIG_SOFT, BIG_HARD))


@pytest.mark.parametrize("moves,go_line", [
    ([], "go btime 500"),                      # white to move, only black's clock
    (["e2e4"], "go wtime 500 winc 100"),        # black to move, only white's
    ([], "go winc 100 binc 100"),               # increments, no clock
    ([], "go movestogo 10"),
])
def test_a_clock_without_the_side_to_moves_time_searches_a_second(moves, go_line):
    """The GUI waits for a move, and nothing else would end the search: it searches the
    repaired go's second, and says why."""
    limits = _limits_seen(None, moves, go_line)
    assert limits.hard_time is not None and limits.hard_time <= REPAIRED_GO_MOVETIME_MS / 1000
    assert not limits.infinite


@pytest.mark.parametrize("go_line", ["go", "go infinite btime 500", "go btime 500 depth 3",
                                     "go btime 500 nodes 1000", "go wtime 500"])
def test_a_go_with_its_own_end_is_left_as_it_is(go_line):
    limits = _limits_seen(None, [], go_line)
    assert limits.clock.movetime is None


def test_the_missing_clock_is_named_in_an_info_string():
    listener = Recorder()
    engine = Engine(listener=listener)
    engine.set_position(None, [])
    engine.go(parse_go(["btime", "500"])[0])
    assert listener.done.wait(HANG_GUARD)
    assert any("no time given for white" in note for note in listener.notes), listener.notes
    assert listener.best and listener.best[0][0] is not None


# -- movestogo --------------------------------------------------------------------------------
@pytest.mark.parametrize("movestogo,soft,hard", [
    (None, 59.9 / 40, 3 * 59.9 / 40),       # sudden death: 40 moves planned
    (10, 5.99, 17.97),                      # 59.9 / 10, and three times that
    (2, 23.96, 29.95),                      # capped by 40% and 50% of the 59.9 s left
    (1, 0.6 * 59.9, 0.85 * 59.9),           # the last move before the control
])
def test_movestogo_sets_the_budget(movestogo, soft, hard):
    assert budgets(60_000, 0, movestogo, None, 100) == pytest.approx((soft, hard))
    line = "go wtime 60000 btime 60000" + (f" movestogo {movestogo}" if movestogo else "")
    limits = _limits_seen(None, [], line)
    assert (limits.soft_time, limits.hard_time) == pytest.approx((soft, hard))


# -- a single legal move -------------------------------------------------------------------------
ONLY_MOVE_FEN = "6k1/5ppp/8/8/8/8/6PP/r5K1 w - - 0 1"     # Ra1+: Kf2 is the one answer


def test_a_single_legal_move_is_answered_after_one_iteration():
    assert [m.uci() for m in chess.Board(ONLY_MOVE_FEN).legal_moves] == ["g1f2"]
    listener = Recorder()
    engine = Engine(listener)
    engine.set_position(ONLY_MOVE_FEN, [])
    engine.go(parse_go("go wtime 600000 btime 600000".split()[1:])[0])   # 15 s planned
    assert listener.done.wait(HANG_GUARD)
    engine.wait()
    assert [move_to_uci(m) for m, _ in listener.best] == ["g1f2"]
    assert max(it.depth for it in listener.iterations) == 1


# -- the soft-time stretch ------------------------------------------------------------------------
def _searcher_after(seconds):
    searcher = Searcher()
    searcher._clock = time.perf_counter() - seconds
    return searcher


@pytest.mark.parametrize("stretch", [BEST_MOVE_CHANGE_STRETCH, SCORE_DROP_STRETCH])
def test_a_stretched_soft_limit_starts_another_iteration(stretch):
    """120 s spent of a 100 s soft limit: over it unstretched, under it stretched by 1.4 or
    1.5 (140 s or 150 s; 20 s of margin for a slow machine between the two calls)."""
    assert stretch >= 1.4
    limits = Limits(soft_time=100.0, hard_time=1000.0)
    searcher = _searcher_after(120.0)
    assert searcher._should_stop(limits, Result(), 1.0, 20)
    assert not searcher._should_stop(limits, Result(), stretch, 20)


def test_the_hard_limit_caps_the_stretch():
    limits = Limits(soft_time=100.0, hard_time=110.0)
    assert _searcher_after(120.0)._should_stop(limits, Result(), SCORE_DROP_STRETCH, 20)


def test_a_changed_best_move_or_a_score_drop_stretches_the_next_decision(monkeypatch):
    """The driver passes a stretch above 1 to `_should_stop` after an iteration whose best
    move changed or the score dropped by more than SCORE_DROP_MARGIN, and lets it decay by
    0.9 an iteration. The iterations' answers are replaced by hand: the move changes at
    depth 2, nothing changes at depth 3, the score drops by 110 at depth 4."""
    answers = iter([("e2e4", 10), ("d2d4", 10), ("d2d4", 10), ("d2d4", -100), ("d2d4", -100)])
    board = Board()
    searcher = Searcher()
    stretches = []

    def fake_aspiration(self, board_, tt, depth, guess, paper, aspire, cb, result, line):
        move, score = next(answers)
        self.S.pv[0, 0] = board.parse_uci(move)
        self.S.stack[0, STACK_PV_LEN] = 1   # a line of one move
        return score

    def record(self, limits, result, stretch, root_moves, last_iteration=0.0):
        stretches.append(stretch)
        return len(stretches) >= 4

    monkeypatch.setattr(Searcher, "_aspiration", fake_aspiration)
    monkeypatch.setattr(Searcher, "_should_stop", record)
    searcher.run(board, new_table(mb=1), Limits(soft_time=1.0, hard_time=2.0))
    assert stretches[0] == 1.0
    assert stretches[1] == pytest.approx(BEST_MOVE_CHANGE_STRETCH)
    assert stretches[2] == pytest.approx(BEST_MOVE_CHANGE_STRETCH * 0.9)
    assert stretches[3] == pytest.approx(SCORE_DROP_STRETCH)


# -- a failed search still answers ---------------------------------------------------------------
def test_a_failing_search_still_gives_a_legal_bestmove_and_says_why(capsys):
    listener = Recorder()
    engine = Engine(listener)
    engine.set_position(None, ["e2e4"])

    def broken(*args, **kwargs):
        raise RuntimeError("kernel exploded")

    engine.session.search = broken
    engine.go(Limits(depth=5))
    assert listener.done.wait(HANG_GUARD)
    engine.wait()
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert len(listener.best) == 1
    assert chess.Move.from_uci(move_to_uci(listener.best[0][0])) in after_e4.legal_moves
    assert any("search failed" in note and "kernel exploded" in note for note in listener.notes)
    assert not engine.searching


# -- options set during a search ---------------------------------------------------------------
def test_a_table_the_machine_cannot_hold_is_refused_and_the_old_one_kept(monkeypatch):
    """More than the machine's memory is refused before it is asked for (Linux would promise
    it, and writing its pages would get the process killed); a refused allocation leaves the
    table and its size as they were, so that a new game or Clear Hash makes the old size
    again instead of failing on every call."""
    import engine.session as session_module
    from engine import tt as ttmod
    listener = Recorder()
    engine = Engine(listener)
    table = engine.session.table
    monkeypatch.setattr(session_module, "physical_memory_mb", lambda: 64)
    engine.set_option("Hash", 128)
    assert any("Hash 128: no memory for the table" in n for n in listener.notes), listener.notes
    assert engine.options["Hash"] == 16 and engine.session.table is table

    def refused(**args):
        raise MemoryError("refused")

    monkeypatch.setattr(ttmod, "new_table", refused)
    engine.set_option("Hash", 32)
    assert engine.options["Hash"] == 16 and engine.session.table is table
    monkeypatch.undo()
    engine.new_game()
    engine.set_option("Clear Hash", None)
    assert engine.session.table.slots.nbytes == table.slots.nbytes    # 16 MB again
    assert len([n for n in listener.notes if "no memory" in n]) == 2


def test_options_set_during_a_search_apply_when_it_ends():
    listener = Recorder()
    engine = Engine(listener)
    buckets = int(engine.session.table.conf[0])
    engine.go(Limits(infinite=True))
    engine.set_option("Hash", 1)
    engine.set_option("MultiPV", 3)
    assert any("Hash will be applied after this search" in n for n in listener.notes)
    assert int(engine.session.table.conf[0]) == buckets        # not during the search
    assert engine.options["MultiPV"] == 1
    engine.stop()
    assert listener.done.wait(HANG_GUARD)
    engine.wait()
    # 1 MiB of 24-byte slots, two per bucket (TwoBig1): 43,690 slots in 21,845 buckets.
    assert int(engine.session.table.conf[0]) == 21_845
    assert engine.options["MultiPV"] == 3


# -- the Lazy SMP vote ---------------------------------------------------------------------------
def _codes(board, line):
    """The move codes of a line of UCI moves played from `board` (restored)."""
    codes = []
    for text in line:
        codes.append(board.parse_uci(text))
        board.push(codes[-1])
    for _ in codes:
        board.pop()
    return codes


def _vote(main, helpers):
    """Run the vote on hand-made lines: main = (depth, score, [uci...]), helpers likewise.
    Returns (best move, ponder move, score, depth) as text and numbers."""
    board = Board()
    searcher = Searcher()
    searcher._board = board
    pv = _codes(board, main[2])
    result = Result(best_move=pv[0], ponder_move=pv[1] if len(pv) > 1 else 0,
                    score=main[1], depth=main[0])
    finished = [(d, s, _codes(board, line)) for d, s, line in helpers]
    searcher._vote(result, finished, new_table(mb=1), None)
    ponder = move_to_uci(result.ponder_move) if result.ponder_move else None
    return move_to_uci(result.best_move), ponder, result.score, result.depth


def test_a_helpers_mate_wins_the_vote():
    assert _vote((20, 50, ["e2e4"]), [(8, MATE - 5, ["d2d4", "d7d5"]), (12, 60, ["e2e4"])]) \
        == ("d2d4", "d7d5", MATE - 5, 8)
    # Where the votes alone would not pick it: a thread being mated sets the lowest score
    # at -(MATE - 10), so a depth-1 mate weighs about 2 x MATE and the main thread's
    # depth-20 line about 20 x MATE. The proven mate still wins.
    assert _vote((20, 0, ["e2e4"]), [(1, MATE - 5, ["d2d4"]), (2, -(MATE - 10), ["g1f3"])])[:3] \
        == ("d2d4", None, MATE - 5)


def test_the_shortest_mate_wins():
    assert _vote((10, MATE - 9, ["e2e4"]), [(6, MATE - 3, ["g1f3"]), (14, MATE - 7, ["d2d4"])])[0] \
        == "g1f3"


def test_being_mated_is_no_mate_to_follow():
    # Scores -MATE + 4 and 0: lowest -MATE + 4, so e2e4 gets 14 x 10 and d2d4
    # (MATE - 4 + 14) x 3: the line that is not lost wins by its score.
    assert _vote((10, -(MATE - 4), ["e2e4"]), [(3, 0, ["d2d4"])])[0] == "d2d4"


def test_votes_are_weighted_by_score():
    # lowest 0: e2e4 (0 + 14) x 10 = 140, d2d4 (100 + 14) x 10 = 1140. By count alone it
    # is one each, and the main thread's move would stay.
    assert _vote((10, 0, ["e2e4"]), [(10, 100, ["d2d4"])])[:3] == ("d2d4", None, 100)


def test_votes_are_weighted_by_depth():
    # Equal scores: e2e4 14 x 12 = 168 against d2d4 3 x 14 x 2 = 84. By count alone d2d4
    # would win three to one.
    assert _vote((12, 0, ["e2e4"]), [(2, 0, ["d2d4"])] * 3)[0] == "e2e4"


def test_votes_add_up_and_the_deepest_line_of_the_winner_is_played():
    # lowest 20: e2e4 14 x 10 = 140; d2d4 (10 + 14) x 9 + (5 + 14) x 9 = 216 + 171 = 387;
    # of the two d2d4 lines (equal depth) the better one is played.
    assert _vote((10, 20, ["e2e4"]), [(9, 30, ["d2d4", "d7d5"]), (9, 25, ["d2d4", "g8f6"])]) \
        == ("d2d4", "d7d5", 30, 9)
    # Against a main thread of weight 14 x 20 = 280, one helper (216) loses and two win.
    assert _vote((20, 20, ["e2e4"]), [(9, 30, ["d2d4"])])[0] == "e2e4"
    assert _vote((20, 20, ["e2e4"]), [(9, 30, ["d2d4"]), (9, 25, ["d2d4"])])[0] == "d2d4"
