"""lab/profiling/profile_search.py: numba's symbols read as module.function, and a perf report's
lines add up per function (its specialisations merged)."""
from lab.profiling import profile_search as script

SEARCH = ("_ZN6engine6search6searchB4v158B48c8tJTIeFIjxB2IKSgI4CrvSCKg1MMYiAhicRsBpNAA_3d_3d"
          "E194Position_28array_28uint64_2c_201d_2c_20C_29")
SIDE_0 = "_ZN6engine4eval11_side_termsB4v133B38c8tJTIeFIjxE23Literal_5bint_5d_280_29b"
SIDE_1 = "_ZN6engine4eval11_side_termsB4v121B38c8tJTIeFIjxE23Literal_5bint_5d_281_29b"


def test_demangle_names_module_and_function():
    assert script.demangle(SEARCH) == "engine.search.search"
    assert script.demangle(SIDE_0) == "engine.eval._side_terms"
    assert script.demangle("gc_collect_main") == "gc_collect_main"


def test_shares_merge_specialisations_and_sort():
    report = "\n".join([
        "# Samples: 12K of event 'cycles'",
        f"    22.70%  [.] {SEARCH}",
        f"     4.93%  [.] {SIDE_0}",
        f"     4.90%  [.] {SIDE_1}",
        "     2.15%  [.] __memset_avx512_unaligned_erms",
        "     0.31%  [k] _raw_spin_unlock_irqrestore",
    ])
    got = script.shares(report)
    assert [name for _, name in got] == ["engine.search.search", "engine.eval._side_terms",
                                         "__memset_avx512_unaligned_erms"]
    assert abs(got[1][0] - 9.83) < 1e-9


def test_hot_windows_pick_the_heaviest_runs_without_overlap():
    samples = [0, 5, 0, 0, 9, 9, 0, 0, 0, 1, 0, 3]
    # runs of two: [4, 5] holds 18, then [0, 1] and [1, 2] hold 5 (the first is kept),
    # then [11] holds 3
    assert script.hot_windows(samples, 2, 3) == [4, 0, 10]
    assert script.hot_windows([0, 0, 0], 2, 3) == []
