"""scripts/bench.py (the table of `make bench`): its UCI driver reads TwoBig's perft and
search figures, and a row is marked met or not by its target. No speed is asserted."""
from conftest import load_script

bench = load_script("bench")


def test_the_uci_driver_reads_perft_and_a_search_from_twobig():
    engine = bench.Uci(bench.TWOBIG, bench.one_thread(bench.TWOBIG))
    try:
        leaves, per_second = engine.perft(3)
        nodes, nodes_per_second, elapsed_ms = engine.search(bench.PHASES[1][1], 200)
    finally:
        engine.quit()
    assert leaves == 8902 and per_second > 0
    assert nodes > 0 and nodes_per_second > 0 and elapsed_ms > 0


def test_targets_mark_rows_met_or_not(capsys):
    assert bench.met(1.2, (">=", 1.0)) == "yes" and bench.met(0.9, (">=", 1.0)) == "**no**"
    assert bench.met(0.4, ("<", 0.5)) == "yes" and bench.met(0.6, ("<", 0.5)) == "**no**"
    bench.row("nodes/s, endgame", "1,000", "Toga II 3.0", "2,000", 0.5, bench.NODES_TARGET)
    assert capsys.readouterr().out.strip() == \
        "| nodes/s, endgame | 1,000 | Toga II 3.0 | 2,000 | 0.50 | >= 1 | **no** |"
    assert "cores" in bench.cpu_model()
