"""The package layout docs/architecture.md describes: engine/ is a regular package, the
research harness lives in lab/ and is never installed, and the compile-cache key covers
exactly the kernel modules."""
import ast
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from engine._jit import KERNEL_MODULES

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def _engine_imports(path: Path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("engine"):
            if node.module == "engine":
                names.update(alias.name for alias in node.names)
            else:
                names.add(node.module.split(".")[1])
    return names


def test_engine_is_a_regular_package_without_an_engine_module():
    assert (ENGINE / "__init__.py").exists()
    assert not (ENGINE / "engine.py").exists()
    assert (ENGINE.parent / "lab" / "__init__.py").exists()


def test_every_jitted_module_and_what_it_imports_keys_the_cache():
    jitted = {p.stem for p in ENGINE.glob("*.py") if "@jit" in p.read_text() or "@jit_alloc" in p.read_text()}
    assert jitted <= set(KERNEL_MODULES), jitted - set(KERNEL_MODULES)
    for name in KERNEL_MODULES:
        missing = _engine_imports(ENGINE / f"{name}.py") - set(KERNEL_MODULES)
        assert not missing, (name, missing)


# tables.py reads the 781 Polyglot random numbers from python-chess once, when it builds the
# key table (facts, not code); no kernel calls python-chess.
READS_POLYGLOT_KEYS = {"tables"}


def test_kernels_never_import_the_glue_or_the_harness():
    glue = {p.stem for p in ENGINE.glob("*.py")} - set(KERNEL_MODULES)
    for name in KERNEL_MODULES:
        text = (ENGINE / f"{name}.py").read_text()
        assert "from lab" not in text and "import lab" not in text, name
        assert ("import chess" not in text) or name in READS_POLYGLOT_KEYS, name
        assert not (_engine_imports(ENGINE / f"{name}.py") & glue), name


def test_the_engine_never_imports_the_research_harness():
    for path in ENGINE.glob("*.py"):
        text = path.read_text()
        assert "from lab" not in text and "import lab" not in text, path.name


def _top_level_imports(path: Path):
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_user_scripts_import_neither_the_harness_nor_each_other():
    scripts = sorted((ENGINE.parent / "scripts").glob("*.py"))
    forbidden = {"lab", "scripts", "tests"} | {path.stem for path in scripts}
    for path in scripts:
        assert not _top_level_imports(path) & forbidden, path.name


def test_no_tool_edits_the_import_path_and_none_exists_twice():
    scripts = list((ENGINE.parent / "scripts").glob("*.py"))
    lab = [p for p in (ENGINE.parent / "lab").rglob("*.py") if p.name != "__init__.py"]
    for path in scripts + lab:
        assert not re.search(r"sys\.path\.(insert|append)|sys\.path\s*=", path.read_text()), path
    assert not {p.stem for p in scripts} & {p.stem for p in lab}
    assert len({p.stem for p in lab}) == len(lab), sorted(p.stem for p in lab)


def test_every_lab_group_is_a_package():
    groups = [p for p in (ENGINE.parent / "lab").iterdir() if p.is_dir() and p.name != "__pycache__"]
    assert {p.name for p in groups} >= {"thesis", "network", "matches", "profiling"}
    for group in groups:
        assert (group / "__init__.py").exists(), group.name


def _build_wheel(out: Path) -> Path:
    """The wheel `pip install .` would install, built without the network (the venv's
    setuptools; `make install` upgrades it to what pyproject.toml asks) from a copy of the
    checkout's tracked files, so that no leftover build/ folder can add to it."""
    source = out / "source"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ENGINE.parent, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (ENGINE.parent / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ENGINE.parent / name, source / name)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                            "--no-build-isolation", "--wheel-dir", str(out), str(source)],
                           capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = out.glob("twobig-*.whl")
    return wheel


def test_the_wheel_ships_the_engine_and_its_command_only(tmp_path):
    from engine import __version__

    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    packages = {name.split("/")[0] for name in names if "/" in name}
    assert packages == {"engine", f"twobig-{__version__}.dist-info"}, packages
    shipped = {name.split("/", 1)[1] for name in names if name.startswith("engine/")}
    assert {f"{p.name}" for p in ENGINE.glob("*.py")} <= shipped
    assert "nnue_net.npz" in shipped
    metadata = zipfile.ZipFile(wheel).read(f"twobig-{__version__}.dist-info/METADATA").decode()
    assert f"Version: {__version__}" in metadata
    entry_points = zipfile.ZipFile(wheel).read(f"twobig-{__version__}.dist-info/entry_points.txt")
    assert b"twobig = engine.launch:main" in entry_points


def test_version_is_written_once_and_printed_by_the_command():
    from engine import __version__

    root = ENGINE.parent
    pyproject = (root / "pyproject.toml").read_text()
    project_table = pyproject.split("[project]\n")[1].split("\n[")[0]
    assert re.search(r"^version\s*=", project_table, re.M) is None    # no second copy
    assert 'version = { attr = "engine.__version__" }' in pyproject
    out = subprocess.run([sys.executable, "-m", "engine.cli", "--version"], capture_output=True,
                         text=True, timeout=120, cwd=root)
    assert out.stdout.strip() == f"twobig {__version__}"


def test_warm_names_its_steps_on_stderr_and_reports_on_stdout():
    from engine.warmup import STEPS

    out = subprocess.run([sys.executable, "-m", "engine.cli", "warm"], capture_output=True,
                         text=True, timeout=900, cwd=ENGINE.parent)
    assert out.returncode == 0, out.stderr
    for number, (what, _) in enumerate(STEPS, 1):
        assert f"[{number}/{len(STEPS)}] {what}" in out.stderr
    assert out.stdout.startswith("numba cache warm (")
