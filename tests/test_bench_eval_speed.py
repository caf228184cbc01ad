"""lab/profiling/bench_eval_speed.py: a checkout measured in its own process evaluates the same
positions to the same values as the engine imported here."""
from pathlib import Path

from lab.profiling import bench_eval_speed as script

ROOT = Path(__file__).resolve().parent.parent


def test_a_checkout_in_its_own_process_gives_the_same_values():
    positions, ns, checksum = script.run_in(ROOT, 1)
    assert positions > 200 and ns > 0
    here = script.measure(1)
    assert (here[0], here[2]) == (positions, checksum)
    assert checksum != 0
