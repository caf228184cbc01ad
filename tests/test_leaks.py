"""Searchers and their tables are freed with their last reference: each searcher's watchdog
thread ends with it, so a program that makes many of them (the experiment grid, the tests)
keeps its thread count and memory; and a new table is in memory before its first search."""
import gc
import threading

from engine.board import Board
from engine.driver import Limits
from engine.session import Session

MADE_AND_DROPPED = 60


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _watchdogs() -> int:
    return sum(thread.name == "twobig-watchdog" for thread in threading.enumerate())


def _make_and_drop(count: int) -> None:
    board = Board()
    for _ in range(count):
        session = Session(profile="paper", positions=64 * 1024)
        session.search(board, Limits(depth=1))
    del session


def test_dropped_searchers_take_their_threads_and_memory_with_them():
    _make_and_drop(2)                       # the kernels loaded, the allocator warmed
    gc.collect()
    threads_before, rss_before = _watchdogs(), _rss_kib()
    _make_and_drop(MADE_AND_DROPPED)
    gc.collect()
    # a closed watchdog ends within its next wake-up; give the threads a moment to exit
    for thread in [t for t in threading.enumerate() if t.name == "twobig-watchdog"]:
        thread.join(timeout=5)
    assert _watchdogs() <= threads_before
    # Each one holds a 64K-position table (1.5 MB) and search arrays of a few MB: kept
    # alive, 60 of them would add well over 100 MB.
    assert _rss_kib() - rss_before < 60 * 1024


def test_a_watchdog_still_stops_a_live_search_on_time():
    """The weak reference does not lose the searcher while it is alive: a hard time limit
    stops an unbounded search."""
    session = Session(profile="play", positions=64 * 1024)
    result = session.search(Board(), Limits(hard_time=0.2))
    assert result.best_move
    assert result.iterations and result.iterations[-1].depth < 64


def test_a_new_table_is_resident_before_the_first_search():
    """Every page of a new table is written when the table is made: left to the first search,
    the page faults of a 64 MB table held the first searches after start-up to a few
    hundred nodes a second (the first move of a game was a one- or two-ply search)."""
    Session(profile="play", hash_mb=1)          # everything else it allocates, warm
    gc.collect()
    before = _rss_kib()
    session = Session(profile="play", hash_mb=64)
    grown = _rss_kib() - before
    assert grown > 56 * 1024, grown              # most of the 64 MB are in memory already
    del session
