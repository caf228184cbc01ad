"""Where the harness reads the repository's test data: data/ (see its README), unless
TWOBIG_DATA names another folder. The perft files' reader is scripts/perft_suites.py's,
beside the tool that runs them."""
import os
from pathlib import Path

DATA_DIR = Path(os.environ.get("TWOBIG_DATA")
                or Path(__file__).resolve().parents[2] / "data")
