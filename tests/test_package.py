"""The package layout DESIGN.md describes: engine/ is a regular package, the research
harness lives in lab/, and the compile-cache key covers exactly the kernel modules."""
import ast
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
