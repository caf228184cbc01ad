"""Readers for the test-data files in data/ (perft EPDs, tactical EPDs)."""
import os
import re
from pathlib import Path
from typing import Dict, List, NamedTuple

# The repository's data/ folder (see its README), unless TWOBIG_DATA names another one.
DATA_DIR = Path(os.environ.get("TWOBIG_DATA")
                or Path(__file__).resolve().parents[2] / "data")
PERFT_FILES = ("perft_cpw_standard6.epd", "perftsuite.epd", "perft_stress_whittington.epd",
               "perft_double_checks_ferdy.epd")

_DEPTH_FIELD = re.compile(r"^D(\d+)\s+(\d+)$")


class PerftCase(NamedTuple):
    fen: str
    counts: Dict[int, int]   # depth -> leaf count
    source: str              # "file:line"


def load_perft_file(path) -> List[PerftCase]:
    """Parse lines `FEN ;D1 n ;D2 n ...` (also `; D1 n`, CRLF, `id "..."` fields)."""
    path = Path(path)
    cases = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.replace("\x00", "").strip()  # some files end lines with NUL bytes
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(";")]
        counts = {}
        for field in fields[1:]:
            match = _DEPTH_FIELD.match(field)
            if match:
                counts[int(match.group(1))] = int(match.group(2))
        cases.append(PerftCase(" ".join(fields[0].split()), counts, f"{path.name}:{lineno}"))
    return cases


def load_perft_suites(data_dir=DATA_DIR) -> List[PerftCase]:
    cases = []
    for name in PERFT_FILES:
        cases.extend(load_perft_file(Path(data_dir) / "perft" / name))
    return cases
