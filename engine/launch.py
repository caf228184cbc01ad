"""The `twobig` executable. Without arguments (as a GUI starts it) it goes straight into the
UCI loop; with any, into the click command line of engine.cli, whose import (click) took
20 ms of every GUI start."""
import sys


def main() -> None:
    if len(sys.argv) <= 1:
        from engine.uci import main as uci_main
        uci_main()
    else:
        from engine.cli import main as cli_main
        cli_main()
