"""lab/network/rebuild.py, the one command that retrains the network: its file choice, its
error on a history without the games, and the whole pipeline on a few games (with
Stockfish, whose static evaluation labels the positions) down to weights the engine's
loader accepts."""
import shutil
from pathlib import Path

import click
import numpy as np
import pytest
from click.testing import CliRunner

from engine.tables import network_arrays
from engine.types import N_SIZE, NN_BUCKETS, NN_HIDDEN
from lab.network import rebuild

KASPAROV = Path(__file__).resolve().parents[1] / "data" / "pgn" / "Kasparov_1994.pgn"


def test_the_largest_files_are_taken_in_name_order(tmp_path):
    for name, size in (("a.pgn", 5), ("b.pgn", 30), ("c.pgn", 20), ("d.pgn", 10)):
        (tmp_path / name).write_text("x" * size)
    paths = sorted(tmp_path.glob("*.pgn"))
    assert [p.name for p in rebuild.largest(paths, 2)] == ["b.pgn", "c.pgn"]
    assert [p.name for p in rebuild.largest(paths, 0)] == ["a.pgn", "b.pgn", "c.pgn", "d.pgn"]


def test_a_commit_the_history_lacks_is_explained(tmp_path):
    with pytest.raises(click.ClickException, match="git archive"):
        rebuild.extract_games("0" * 40, tmp_path)


@pytest.mark.skipif(shutil.which("stockfish", path="/usr/games:/usr/bin:/usr/local/bin") is None,
                    reason="Stockfish labels the positions (make opponents)")
def test_a_few_games_give_weights_the_engine_loads(tmp_path):
    games = tmp_path / "games"
    games.mkdir()
    # The first 40 games of the file: a few thousand positions, one short epoch
    text = KASPAROV.read_text(errors="replace")
    starts = [i for i in range(len(text)) if text.startswith("[Event ", i)]
    (games / "few.pgn").write_text(text[:starts[40]])
    out = tmp_path / "net.npz"
    result = CliRunner().invoke(rebuild.main, ["--pgn-dir", str(games), "--epochs", "1",
                                               "--jobs", "1", "--buckets", str(NN_BUCKETS),
                                               "--out", str(out)])
    assert result.exit_code == 0, result.output
    net = np.load(out)
    assert net["w2"].shape == (NN_BUCKETS, 2 * NN_HIDDEN) and net["b2"].shape == (NN_BUCKETS,)
    nn, _ = network_arrays(net)      # raises on a wrong size or an output sum beyond int32
    assert nn.size == N_SIZE
    assert np.abs(net["w1"]).max() > 0
