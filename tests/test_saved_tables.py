"""The tables a process builds are saved beside the compiled kernels and read by the next
process (engine.tables): what is read must be what would be built, and anything else in
the file's place is ignored and built again."""
import numpy as np

from engine import tables
from engine.tables import _load_saved, _save, build_tables, get_tables, saved_tables_path


def test_the_saved_tables_are_the_built_ones():
    get_tables()   # this process read them or built and saved them
    saved = _load_saved(saved_tables_path())
    assert saved is not None
    for read, built in zip(saved, build_tables()):
        assert read.dtype == built.dtype
        assert np.array_equal(read, built)


def test_tables_saved_and_read_again_are_equal(tmp_path):
    built = build_tables()
    path = tmp_path / "folder" / "tables.npz"
    _save(path, built)
    for read, original in zip(_load_saved(path), built):
        assert np.array_equal(read, original)
    assert [p.name for p in path.parent.iterdir()] == ["tables.npz"]   # no temporary left


def test_a_missing_damaged_or_foreign_file_is_not_used(tmp_path):
    assert _load_saved(tmp_path / "none.npz") is None
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(b"PK\x03\x04 not a zip archive")
    assert _load_saved(damaged) is None
    u, i, nn = build_tables()
    short = tmp_path / "short.npz"
    np.savez(short, u=u[:-1], i=i, nn=nn)
    assert _load_saved(short) is None
    retyped = tmp_path / "retyped.npz"
    np.savez(retyped, u=u, i=i.astype(np.int32), nn=nn)
    assert _load_saved(retyped) is None
    missing = tmp_path / "missing.npz"
    np.savez(missing, u=u, i=i)
    assert _load_saved(missing) is None


def test_another_network_reads_another_file(tmp_path, monkeypatch):
    shipped = saved_tables_path()
    other = tmp_path / "nnue_net.npz"
    other.write_bytes(tables.NETWORK_FILE.read_bytes() + b"\0")
    monkeypatch.setattr(tables, "NETWORK_FILE", other)
    assert saved_tables_path() != shipped
    assert saved_tables_path().parent == shipped.parent


def test_a_folder_that_cannot_be_written_leaves_nothing_behind(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(np, "savez", full_disk)
    _save(tmp_path / "tables.npz", build_tables())
    assert list(tmp_path.iterdir()) == []
