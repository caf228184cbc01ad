#!/usr/bin/env python3
"""The executable a chess GUI starts: the TwoBig command line (with no arguments, the UCI loop)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from engine.launch import main  # noqa: E402

if __name__ == "__main__":
    main()
