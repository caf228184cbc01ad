"""The experiment grid's machinery: per-position and thesis counts, seeded Zobrist key sets, the CSV
(old rows, rerun skips), the paired bootstrap and the report, and the grid on Dask."""
import csv
from pathlib import Path

import chess
import chess.polyglot
import numpy as np
import pytest
from click.testing import CliRunner
from lab.thesis import tt_experiments

from lab.thesis import experiments as X
from lab.thesis import experiments_report as R
from lab import statistics as S

ROOT = Path(__file__).resolve().parent.parent
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
EP_FEN = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"


@pytest.fixture(scope="module")
def script():
    return tt_experiments


# -- per-position counts and the thesis' count ----------------------------------------------
def _ints(text):
    return [int(x) for x in text.split()]


def test_rows_keep_per_position_and_thesis_counts():
    cleared = X.run_config(X.RunConfig("middle:3", "TwoBig1", 8, False, 3), [2, 3])
    for row in cleared.values():
        assert row["positions"] == 3
        assert sum(_ints(row["per_position"])) == row["nodes"]
        assert sum(_ints(row["per_position_thesis"])) == row["thesis_nodes"]
        assert row["thesis_nodes"] == row["nodes"] - row["qnodes"] + row["horizon_leaves"]
        assert 0 < row["horizon_leaves"] and 0 < row["thesis_nodes"] < row["nodes"]
    # The shallower depth of one cleared pass is read at the end of its iteration: it equals
    # a search to that depth alone in every count, per position too.
    alone = X.run_config(X.RunConfig("middle:3", "TwoBig1", 8, False, 2), [2])[2]
    for name in ("nodes", "qnodes", "horizon_leaves", "thesis_nodes", "per_position",
                 "per_position_thesis"):
        assert cleared[2][name] == alone[name], name
    assert cleared[2]["nodes"] < cleared[3]["nodes"]


def test_test_set_prefixes_and_games_1_to_3():
    assert X.positions_for("middle:4") == X.middle_game_positions()[:4]
    first3 = X.positions_for("middle44")
    assert len(first3) == 44
    assert first3 == X.middle_game_positions()[:44]


# -- seeded Zobrist key sets ------------------------------------------------------------------
def test_key_seed_changes_keys_not_moves_or_perft():
    from engine.board import Board

    for fen in (KIWIPETE, EP_FEN, chess.STARTING_FEN):
        polyglot = Board(fen)
        one, again, two = X.board_for(fen, 1), X.board_for(fen, 1), X.board_for(fen, 2)
        assert polyglot.key == chess.polyglot.zobrist_hash(chess.Board(fen))  # default untouched
        assert len({polyglot.key, one.key, two.key}) == 3
        assert one.key == again.key
        assert sorted(one.legal_moves()) == sorted(polyglot.legal_moves())
        assert one.perft(3) == polyglot.perft(3)
    # The incremental key of make/unmake agrees with a from-scratch key in the new key set.
    board = X.board_for(KIWIPETE, 3)
    for uci in ("e1g1", "h3g2", "a2a4", "b4a3", "g1g2"):
        board.push_uci(uci)
        assert board.key == X.board_for(board.fen(), 3).key
    assert X.key_tables(3).u.flags.writeable is False


def test_search_with_a_key_seed_is_deterministic():
    from engine.driver import Limits
    from engine.session import Session

    def nodes(seed):
        session = Session(profile="paper", positions=64)     # a tiny table: many collisions
        return session.search(X.board_for(KIWIPETE, seed), Limits(depth=4)).nodes

    assert nodes(1) == nodes(1)
    assert len({nodes(None), nodes(1), nodes(2)}) == 3   # the keys decide the collisions


# -- the CSV ---------------------------------------------------------------------------------
OLD_FIELDS = [f for f in X.FIELDS if f not in ("key_seed", "horizon_leaves", "thesis_nodes",
                                               "per_position", "per_position_thesis",
                                               "line_moves", "pv_plies")]
CELL = ("schemes", dict(test_set="middle:2", scheme="DEEP", positions_k=8, stamping=True), [2])


def _write_old_csv(path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=OLD_FIELDS)
        writer.writeheader()
        writer.writerow(dict(experiment="schemes", test_set="middle:2", scheme="DEEP", positions_k=8,
                             stamping="True", use="full", key_bits=64, depth=2, positions=2,
                             nodes=1000, qnodes=900, commit="abc"))
        handle.write("schemes,middle:2,NEW,8,Tr")          # a row cut short by an interruption


def test_old_rows_are_read_skipped_and_migrated(tmp_path):
    path = tmp_path / "results.csv"
    _write_old_csv(path)
    rows = X.read_rows(path)
    assert len(rows) == 1
    assert rows[0]["key_seed"] == rows[0]["per_position"] == rows[0]["thesis_nodes"] == ""
    assert rows[0]["pv_plies"] == ""
    assert X.cells_to_do([CELL], rows) == []
    # An old row ran a 1-ply line (the best move): it is the cell with pv_plies=1.
    assert X.key_of(rows[0]) == X.row_key(*CELL[:2], 2) == X.row_key(CELL[0], dict(CELL[1], pv_plies=1), 2)
    assert X.cells_to_do([(CELL[0], dict(CELL[1], pv_plies=1), [2])], rows) == []
    lines = ("schemes", dict(CELL[1], pv_plies=3), [2])
    assert X.cells_to_do([CELL, lines], rows) == [lines]
    seeded = ("noise", dict(CELL[1], key_seed=1), [2])
    assert X.cells_to_do([CELL, seeded], rows) == [seeded]
    handle, writer = X.open_results(path)
    writer.writerow({"experiment": "noise", "test_set": "middle:2", "scheme": "DEEP",
                     "positions_k": 8, "stamping": "True", "use": "full", "key_bits": 64,
                     "key_seed": 1, "depth": 2, "nodes": 990, "per_position": "500 490"})
    handle.close()
    with open(path, newline="") as handle:
        assert next(csv.reader(handle)) == X.FIELDS
    rows = X.read_rows(path)
    assert [(r["nodes"], r["key_seed"], r["commit"]) for r in rows] == [("1000", "", "abc"), ("990", "1", "")]
    assert X.cells_to_do([CELL, seeded], rows) == []
    assert X.FIELDS[-3:] == ["python", "numba", "twobig"]    # new columns come last


def test_pv_plies_cells_run_and_are_filed_apart(tmp_path):
    """A cell with n-ply lines writes its pv_plies and the ancestor-move counter; the
    1-ply row of the same configuration is another row."""
    path = tmp_path / "npv.csv"
    cfg = dict(test_set="middle:2", scheme="TwoBig1", positions_k=1, stamping=True)
    jobs = [("npv", dict(cfg, pv_plies=plies), [5]) for plies in (1, 5)]
    assert X.run_grid(jobs, path, serial=True, progress=False) == 2
    rows = {int(r["pv_plies"]): r for r in X.read_rows(path)}
    assert sorted(rows) == [1, 5]
    assert rows[1]["pv_plies"] == "1" and rows[5]["pv_plies"] == "5"
    assert rows[1]["line_moves"] == "0" and int(rows[5]["line_moves"]) > 0
    assert X.run_grid(jobs, path, serial=True, progress=False) == 0


def test_choices_cells_are_filed_apart_with_their_versions(tmp_path):
    """A cell with an open choice set is another row than the default one; every row names
    the Python, numba and TwoBig versions it ran with; without quiescence nodes in the
    subtree sizes a BIG1 search still counts the same nodes."""
    import platform

    import numba

    import engine
    path = tmp_path / "choices.csv"
    cfg = dict(test_set="middle:2", scheme="BIG1", positions_k=1, stamping=False)
    jobs = [("robustness", dict(cfg, choices=c), [3]) for c in ("", "size_qnodes=0")]
    assert X.run_grid(jobs, path, serial=True, progress=False) == 2
    rows = {r["choices"]: r for r in X.read_rows(path)}
    assert sorted(rows) == ["", "size_qnodes=0"]
    for row in rows.values():
        assert (row["python"], row["numba"], row["twobig"]) == (
            platform.python_version(), numba.__version__, engine.__version__)
    assert X.run_grid(jobs, path, serial=True, progress=False) == 0
    assert X.parse_choices("ties_new=0, leaf_cut=1") == dict(ties_new=False, leaf_cut=True)


def test_the_cell_selector_and_a_forced_rerun(script):
    """--scheme/--size/--depth/--use keep the matching cells, cut to the depths asked for;
    --force drops exactly the rows of the selected cells."""
    cells = script.plan(False)
    chosen = script.select(cells, ["twobig1"], {256}, {8}, True, {"exact", "bounds"})
    assert chosen and all(e == "move_score" and c["scheme"] == "TwoBig1"
                          and c["positions_k"] == 256 and c["use"] in ("exact", "bounds")
                          and d == [8] for e, c, d in chosen)
    middle = script.select(cells, ["DEEP"], {8}, {4}, False)
    assert all(d == [4] for _, _, d in middle) and middle
    keep = {"experiment": "schemes", "test_set": "middle", "scheme": "TwoBig1",
            "positions_k": "8", "stamping": "True", "use": "full", "key_bits": "64",
            "key_seed": "", "depth": "7", "pv_plies": "1", "choices": "", "nodes": "1"}
    drop = dict(keep, experiment="move_score", test_set="short", positions_k="256",
                use="exact", depth="8")
    assert X.without_cells([keep, drop], chosen) == [keep]


def test_merge_adds_the_cells_the_grid_lacks_and_refuses_a_conflict(script, tmp_path):
    """--merge appends another CSV's new cells after the grid's own rows; a shared cell
    may differ only in its time and versions."""
    def full(**values):
        return {name: values.get(name, "") for name in X.FIELDS}

    base = dict(experiment="schemes", test_set="endgame", scheme="BIGALL", positions_k="8",
                stamping="True", use="full", key_bits="64", depth="10", pv_plies="1",
                nodes="100", seconds="5.0", commit="b0506b7")
    ours = [full(**base), full(**dict(base, positions_k="16", nodes="90"))]
    theirs = [full(**dict(base, seconds="7.5", python="3.12")),
              full(**dict(base, scheme="TwoDEEP", nodes="80")),
              full(**dict(base, scheme="TwoDEEP", positions_k="32", nodes="70"))]
    merged, added = X.merge_rows(ours, theirs)
    assert added == 2
    assert merged == ours + theirs[1:]
    with pytest.raises(ValueError, match="nodes"):
        X.merge_rows(ours, [full(**dict(base, nodes="101"))])

    out = tmp_path / "grid"
    out.mkdir()
    X.rewrite_rows(out / X.RESULTS_CSV, ours)
    X.rewrite_rows(tmp_path / "other.csv", theirs)
    result = CliRunner().invoke(script.main, ["--out", str(out), "--report-only",
                                              "--merge", str(tmp_path / "other.csv")])
    assert result.exit_code == 0, result.output
    assert "--merge: 2 rows added" in result.output
    assert [(r["scheme"], r["positions_k"]) for r in X.read_rows(out / X.RESULTS_CSV)] == [
        ("BIGALL", "8"), ("BIGALL", "16"), ("TwoDEEP", "8"), ("TwoDEEP", "32")]
    X.rewrite_rows(tmp_path / "bad.csv", [full(**dict(base, nodes="101"))])
    result = CliRunner().invoke(script.main, ["--out", str(out), "--report-only",
                                              "--merge", str(tmp_path / "bad.csv")])
    assert result.exit_code != 0 and "differs in nodes" in result.output
    assert len(X.read_rows(out / X.RESULTS_CSV)) == 4


def test_plan_cells_are_unique_and_repeat_headline_cells_with_key_seeds(script):
    for quick in (True, False):
        cells = script.plan(quick, 6)
        keys = [X.row_key(e, cfg, d) for e, cfg, depths in cells for d in depths]
        assert len(keys) == len(set(keys))
        noise = [cfg for e, cfg, _ in cells if e == "noise"]
        assert {cfg["key_seed"] for cfg in noise} == ({1, 2} if quick else {1, 2, 3})
    assert not [c for c in script.plan(True, 6, key_seeds=0) if c[0] == "noise"]


# -- paired bootstrap and the report ------------------------------------------------------------
def test_paired_bootstrap():
    rng = np.random.default_rng(1)
    base = rng.integers(10_000, 1_000_000, size=94).astype(float)
    same = S.paired_bootstrap(base, base)
    assert same.percent == same.low == same.high == 0 and same.within_noise
    double = S.paired_bootstrap(base, 2 * base)
    assert double.percent == pytest.approx(100) and double.low == pytest.approx(100)
    # Position-by-position noise of +-5% around the same totals: within noise.
    noisy = base * rng.uniform(0.95, 1.05, size=94)
    diff = S.paired_bootstrap(base, noisy)
    assert diff.low < diff.percent < diff.high and diff.within_noise
    assert S.paired_bootstrap(base, noisy) == diff                         # seeded
    # A consistent 3% saving with the same noise is outside it.
    better = S.paired_bootstrap(base, noisy * 0.97)
    assert better.high < 0 and not better.within_noise
    assert "within noise" in diff.text() and "within noise" not in better.text()
    with pytest.raises(ValueError):
        S.paired_bootstrap(base, base[:-1])


def _row(scheme, nodes, experiment="schemes", seed="", depth=5):
    return {"experiment": experiment, "test_set": "middle", "scheme": scheme, "positions_k": "8",
            "stamping": "True", "use": "full", "key_bits": "64", "key_seed": str(seed),
            "depth": str(depth),
            "positions": str(len(nodes)), "nodes": str(int(sum(nodes))),
            "thesis_nodes": str(int(sum(nodes)) // 10),
            "per_position": " ".join(str(int(n)) for n in nodes),
            "per_position_thesis": " ".join(str(int(n) // 10) for n in nodes)}


def test_report_gives_intervals_and_the_noise_floor(tmp_path):
    rng = np.random.default_rng(7)
    base = rng.integers(50_000, 500_000, size=40)
    rows = [_row(scheme, base * factor) for scheme, factor in
            (("DEEP", 1.10), ("NEW", 1.25), ("OLD", 1.3), ("BIG1", 1.05), ("BIGALL", 1.05),
             ("TwoDEEP", 1.0), ("TwoBig1", 1.0))]
    rows += [_row("TwoBig1", base * 1.01, "noise", 1), _row("TwoDEEP", base, "noise", 1)]
    R.write_report(rows, tmp_path, quick=True)
    text = (tmp_path / "README.md").read_text()
    assert "| TwoDEEP: +0.0% [+0.0, +0.0], within noise |" in text   # TwoBig1 = TwoDEEP
    assert "+30.0% [+30.0, +30.0] |" in text                          # OLD vs the best
    assert "The thesis' count (interior nodes + horizon leaves)" in text
    assert "## 5. Noise floor" in text and "up to 1.00%" in text
    assert "vs TwoDEEP: +0.00%, +1.00% (the sign depends on the keys)" in text
    # Old rows (no per-position counts) still report, without intervals.
    for r in rows:
        r["per_position"] = r["per_position_thesis"] = ""
    R.write_report(rows, tmp_path, quick=True)
    text = (tmp_path / "README.md").read_text()
    assert ", within noise" not in text and "[+" not in text
    assert "| TwoDEEP: +0.0% |" in text


def test_a_depth_with_only_some_of_its_cells_gets_no_table_or_plot(tmp_path):
    """A deepest depth with part of its cells in the CSV: the report says how many and
    draws no table or plot for it, as the claims leave it out."""
    base = np.random.default_rng(3).integers(50_000, 500_000, size=40)
    factors = (("DEEP", 1.10), ("NEW", 1.25), ("OLD", 1.3), ("BIG1", 1.05), ("BIGALL", 1.05),
               ("TwoDEEP", 1.0), ("TwoBig1", 1.0))
    rows = [_row(scheme, base * factor) for scheme, factor in factors]
    rows += [_row(scheme, 3 * base * factor, depth=6) for scheme, factor in factors[:2]]
    R.write_report(rows, tmp_path, quick=True)
    text = (tmp_path / "README.md").read_text()
    assert "### middle, depth 6, time stamping on" in text
    assert "2 of its cells are in the CSV, against 7 at 5 ply" in text
    assert (tmp_path / "schemes_middle_d5_stamp.png").exists()
    assert not (tmp_path / "schemes_middle_d6_stamp.png").exists()
    assert "| middle | 5 | on |" in text and "| middle | 6 | on |" not in text


# -- the grid: serial and on a Dask LocalCluster -----------------------------------------------
GRID = [
    ("schemes", dict(test_set="middle:3", scheme="TwoBig1", positions_k=8, stamping=False), [2, 3]),
    ("schemes", dict(test_set="middle:3", scheme="DEEP", positions_k=1, stamping=True), [3]),
    ("noise", dict(test_set="middle:3", scheme="DEEP", positions_k=1, stamping=True, key_seed=1), [3]),
]


def _measured(path):
    rows = X.read_rows(path)
    return sorted(({k: v for k, v in r.items() if k != "seconds"} for r in rows), key=X.key_of)


def test_grid_on_dask_equals_the_serial_run(tmp_path):
    from dask.distributed import LocalCluster

    serial, local, remote = tmp_path / "serial.csv", tmp_path / "local.csv", tmp_path / "remote.csv"
    assert X.run_grid(GRID, serial, serial=True, commit="c0", progress=False) == 3
    expected = _measured(serial)
    assert len(expected) == 4 and all(r["per_position"] for r in expected)
    # The default: a LocalCluster of 2 worker processes started for the grid.
    assert X.run_grid(GRID, local, workers=2, commit="c0", progress=False) == 3
    assert _measured(local) == expected
    # --scheduler: the cells go to a running cluster's scheduler (checked, then warmed).
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        assert X.run_grid(GRID, remote, scheduler=cluster.scheduler_address, commit="c0",
                          progress=False) == 3
    assert _measured(remote) == expected
    # A rerun finds every cell done; a lost row brings back only its cell.
    assert X.run_grid(GRID, local, serial=True, progress=False) == 0
    lines = local.read_text().splitlines()
    local.write_text("\n".join(line for line in lines if not line.startswith("noise,")) + "\n")
    assert X.run_grid(GRID, local, serial=True, commit="c0", progress=False) == 1
    assert _measured(local) == expected


class _FakeClient:
    def __init__(self, digests):
        self.digests, self.ran = digests, []

    def run(self, fn, workers=None):
        self.ran.append((fn.__name__, workers))
        return dict(self.digests) if fn is X.code_digest else {}

    def scheduler_info(self, n_workers=-1):
        return {"workers": {a: {"host": a.split(":")[1]} for a in self.digests}}


def test_workers_with_other_sources_are_refused():
    mine = X.code_digest()
    good = _FakeClient({"tcp://a:1": mine, "tcp://a:2": mine, "tcp://b:1": mine})
    X.check_workers(good)
    assert good.ran[-1] == ("warm_all", ["tcp://a:1", "tcp://b:1"])   # one worker per host
    bad = _FakeClient({"tcp://a:1": mine, "tcp://b:1": "0" * 16})
    with pytest.raises(RuntimeError, match="tcp://b:1"):
        X.check_workers(bad)
    assert [name for name, _ in bad.ran] == ["code_digest"]


def test_the_claims_name_an_incomplete_endgame_depth_with_its_cell_count():
    """The claims document's depth line counts the cells of a deeper endgame depth from the
    CSV instead of a fixed sentence."""
    from lab.thesis import reproduction

    base = np.random.default_rng(5).integers(50_000, 500_000, size=10)
    rows = [dict(_row(scheme, base), test_set="endgame", depth="9")
            for scheme in ("DEEP", "NEW", "TwoBig1")]
    rows += [dict(_row("DEEP", 3 * base), test_set="endgame", depth="10")]
    text = "\n".join(reproduction._differences(reproduction.Grid(rows, games=lambda s: None)))
    assert "scheme comparison at 9 ply" in text
    assert "10 ply: 1 of its cells are in the CSV, against 3 at 9 ply" in text


def test_the_collisions_table_gives_both_counts_against_equation_2_2():
    """The counter counts a position again each time it is stored after losing its slot;
    M - filled counts it once, as equation 2.2 does. Old rows without the distinct count
    get a dash there."""
    row = {"experiment": "collisions", "test_set": "middle", "stamping": "False", "depth": "5",
           "scheme": "DEEP", "positions_k": "8", "use": "full", "key_bits": "64", "key_seed": "",
           "collisions": "300", "distinct": "1000", "filled": "800",
           "expected_collisions": "200"}
    lines = []
    R._section_collisions([row], lines)
    assert "| 8K | 5 | 300 | 1,000 | 200 | 1.50 | 200 | 1.00 |" in lines
    assert "marked *" not in "\n".join(lines)     # the note only where a row is starred
    lines = []
    R._section_collisions([dict(row, distinct="")], lines)
    assert "| 8K | 5 | 300 | 1,100* | 200 | 1.50 | - | - |" in lines
    assert "marked *" in "\n".join(lines)


def test_the_compressed_csv_appends_and_keeps_what_precedes_a_cut_member(tmp_path):
    """The grid's CSV is gzip-compressed; each run appends a member. A run killed mid-write
    leaves a member cut short: its complete rows are kept, and the next run rewrites the
    file so that what it appends can be read."""
    def row(scheme, nodes):
        values = dict(experiment="schemes", test_set="middle", scheme=scheme, positions_k="8",
                      stamping="True", use="full", key_bits="64", depth="5", pv_plies="1",
                      nodes=str(nodes))
        return {name: values.get(name, "") for name in X.FIELDS}

    path = tmp_path / X.RESULTS_CSV
    X.rewrite_rows(path, [row("DEEP", 100)])
    first = path.read_bytes()
    X.rewrite_rows(path, [row("DEEP", 100)])
    assert path.read_bytes() == first                     # the same rows, the same bytes
    handle, writer = X.open_results(path)
    writer.writerow(row("BIG1", 90))
    handle.close()
    assert [r["scheme"] for r in X.read_rows(path)] == ["DEEP", "BIG1"]
    handle, writer = X.open_results(path)
    writer.writerow(row("TwoDEEP", 80))
    handle.flush()
    whole = path.read_bytes()
    handle.close()
    path.write_bytes(whole)                               # the member's end never written
    assert [r["scheme"] for r in X.read_rows(path)] == ["DEEP", "BIG1", "TwoDEEP"]
    handle, writer = X.open_results(path)
    writer.writerow(row("TwoBig1", 70))
    handle.close()
    assert [r["scheme"] for r in X.read_rows(path)] == ["DEEP", "BIG1", "TwoDEEP", "TwoBig1"]
    assert path.read_bytes()[:2] == b"\x1f\x8b"            # gzip
