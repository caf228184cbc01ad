"""lab/profiling/bench_call_cost.py (the call micro-benchmark),
lab/profiling/bench_checkouts.py (A/B speed of checkouts),
lab/profiling/bench_table_memory.py (speed by table size) and
lab/profiling/thread_ceiling.py (two threads against two processes): what they count and
print, not how fast anything is."""
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from lab.profiling import bench_call_cost
from lab.profiling import bench_checkouts

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def call_cost():
    return bench_call_cost


@pytest.fixture(scope="module")
def checkouts():
    return bench_checkouts


def _leaf_sum(depth, x):
    if depth == 0:
        return x
    return sum(_leaf_sum(depth - 1, x + i) for i in range(3))


@pytest.mark.parametrize("count", [1, 25])
def test_the_walk_makes_every_call_it_counts(call_cost, count):
    arrays = call_cost.new_arrays(count)
    total = call_cost._walk(arrays, np.int64(4), np.int64(0))
    assert arrays[0][0] == 1 + 3 + 9 + 27 + 81
    assert total == _leaf_sum(4, 0)


def test_call_cost_prints_a_row_per_tuple_size(call_cost):
    result = CliRunner().invoke(call_cost.main, ["--depth", "3", "--rounds", "1"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| ") and "ns" not in line]
    assert [row.split("|")[1].strip() for row in rows] == ["1", "4", "8", "16", "25"]
    assert all(float(row.split("|")[3]) > 0 for row in rows)


def test_checkouts_are_compared_round_by_round(checkouts, monkeypatch, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    speeds = {first: (1000, 1.0e6), second: (1000, 1.5e6)}
    monkeypatch.setattr(checkouts, "measure", lambda checkout, *_: speeds[checkout])
    result = CliRunner().invoke(checkouts.main, [str(first), str(second), "--rounds", "2"])
    assert result.exit_code == 0, result.output
    assert "| 1 | 1,000,000 | 1,500,000 | 1.500 |" in result.output
    assert "| best | 1,000,000 | 1,500,000 | 1.500 |" in result.output
    assert "different trees" not in result.output
    speeds[second] = (999, 1.5e6)
    result = CliRunner().invoke(checkouts.main, [str(first), str(second), "--rounds", "1"])
    assert "different trees" in result.output


def test_checkouts_take_turns_in_reverse_order_every_other_round(checkouts, monkeypatch,
                                                                  tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    calls = []

    def measure(checkout, depth, fen, hash_mb):
        calls.append((checkout.name, depth, fen, hash_mb))
        return 1000, 1.0e6

    monkeypatch.setattr(checkouts, "measure", measure)
    result = CliRunner().invoke(checkouts.main, [str(first), str(second), "--rounds", "3",
                                                 "--fen", "8/8/8/8/8/8/k7/K7 w - - 0 1",
                                                 "--depth", "7", "--hash", "2"])
    assert result.exit_code == 0, result.output
    assert [name for name, *_ in calls] == ["first", "second", "second", "first",
                                            "first", "second"]
    assert {tuple(rest) for _, *rest in calls} == {(7, "8/8/8/8/8/8/k7/K7 w - - 0 1", 2)}


def test_a_position_is_searched_in_its_own_process(checkouts):
    fen = "8/1p3pk1/p1r3p1/8/P2R4/6P1/1P3PK1/8 w - - 0 40"
    nodes, speed = checkouts.measure(ROOT, 4, fen, 1)
    assert nodes > 0 and speed > 0
    assert checkouts.measure(ROOT, 4, fen, 1)[0] == nodes
    assert checkouts.measure(ROOT, 5, fen, 1)[0] > nodes


def test_a_checkout_is_measured_in_its_own_process(checkouts):
    nodes, speed = checkouts.measure(ROOT, 2)
    assert nodes > 0 and speed > 0
    assert checkouts.measure(ROOT, 2)[0] == nodes   # the same tree each time


def test_table_memory_prints_a_speed_per_size_and_round():
    from lab.profiling import bench_table_memory
    result = CliRunner().invoke(bench_table_memory.main,
                                ["--depth", "5", "--sizes", "1,2", "--rounds", "2"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| ") and "MB" not in line]
    assert [row.split("|")[1].strip() for row in rows] == ["1", "2"]
    assert all(float(cell.replace(",", "")) > 0 for row in rows for cell in row.split("|")[2:4])


def test_thread_ceiling_prints_each_round_as_ratios_to_one_process_alone(monkeypatch):
    from lab.profiling import thread_ceiling

    calls = []

    def fake_speed(seconds, threads=1):
        calls.append(threads)
        return 1000.0 * threads   # each process alone makes 1000, Threads 2 twice that

    monkeypatch.setattr(thread_ceiling, "nodes_per_second", fake_speed)
    out = CliRunner().invoke(thread_ceiling.main, ["--rounds", "2", "--seconds", "1"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[2:] == ["| 1 | 1,000 | 2.00x | 2.00x |",
                                           "| 2 | 1,000 | 2.00x | 2.00x |"]
    assert calls == [1, 1, 1, 2] * 2   # alone, the pair, then Threads 2


def test_thread_ceiling_reads_a_real_search():
    from lab.profiling import thread_ceiling

    assert thread_ceiling.nodes_per_second(0.3) > 0
