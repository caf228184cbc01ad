"""lab/matches/referee_latency.py: the referee's time per move, measured through match.py's own
Player and deadline thread. Only the counts and the report's shape are checked: the times
themselves depend on the machine's load."""
import sys
from pathlib import Path

from click.testing import CliRunner
from lab.matches import referee_latency as latency

ROOT = Path(__file__).resolve().parent.parent


def test_one_time_per_move_and_a_report():
    engine = f"{sys.executable} {ROOT / 'uci_main.py'}"
    seconds = latency.referee_times(engine, moves=5, movetime_ms=20, seed=3)
    assert len(seconds) == 5 and all(s > 0 for s in seconds)
    result = CliRunner().invoke(latency.main, ["--engine", engine, "--moves", "3", "--over-ms", "0"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("3 moves of go movetime 30: referee time median ")
    assert "over 0 ms: 3 (move, ms): [(0, " in result.output
