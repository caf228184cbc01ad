"""lab/network/compare_networks.py: a network's held-out errors against scores, results and
their blend."""
import random

import numpy as np
import pytest
from click.testing import CliRunner

from conftest import random_game
from lab.network import compare_networks, nnue


def _labels(tmp_path, with_results=True):
    rng = random.Random(4)
    lines = []
    for game in range(30):
        result = rng.choice(["1", "0.5", "0"])
        for _ in range(4):
            board = random_game(rng, rng.randrange(6, 40))
            tail = f";{result}" if with_results else ""
            lines.append(f"{board.fen()};{rng.randrange(-300, 300)};{game}{tail}\n")
    path = tmp_path / "labels.txt"
    path.write_text("".join(lines))
    return path


def _network(tmp_path, seed, buckets, king_buckets=0):
    path = tmp_path / f"net{seed}.npz"
    net = nnue.new_network(8, seed=seed, buckets=buckets, king_buckets=king_buckets)
    np.savez(path, **nnue.quantized(net))
    return path


def test_each_column_is_the_error_against_its_target(tmp_path):
    labels = _labels(tmp_path)
    nets = [_network(tmp_path, 1, 1), _network(tmp_path, 2, 8),
            _network(tmp_path, 3, 1, nnue.KING_BUCKETS)]
    result = CliRunner().invoke(compare_networks.main, [
        "--labels", str(labels), "--net", str(nets[0]), "--net", str(nets[1]),
        "--net", str(nets[2]), "--result-weight", "0.25", "--held-out", "0.3",
        "--error-sample", "0"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith("| /")]
    assert len(rows) == 3
    # The same figures from load_labels' own targets on the same split, each network's
    # positions read with its own inputs.
    for path, row in zip(nets, rows):
        q = np.load(path)
        net = nnue.from_quantized(q)
        expected = []
        for weight in (0.0, 1.0, 0.25):
            data = nnue.load_labels(labels, weight, nnue.quantized_king_buckets(q))
            expected.append(nnue.mean_error(net, nnue.split_by_game(data, 0.3, 0)[1]))
        printed = [float(cell) for cell in row.strip("|").split("|")[1:]]
        assert printed == pytest.approx(expected, abs=1e-6)
    assert len({row.split("|")[2] for row in rows}) == 3


def test_labels_without_results_are_refused(tmp_path):
    result = CliRunner().invoke(compare_networks.main, [
        "--labels", str(_labels(tmp_path, with_results=False)),
        "--net", str(_network(tmp_path, 1, 1))])
    assert result.exit_code != 0 and "without a result" in result.output
