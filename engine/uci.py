"""The UCI protocol loop: read a line, dispatch on its first token, call the facade, print.

`uci` is answered before anything heavy is imported: the facade (numba, the jitted core)
is loaded on a background thread started with the loop, and `isready` waits for it.
Every malformed or unknown line is answered with `info string ...`; the loop never exits
on bad input, and no traceback reaches stdout.
"""
import sys
import threading
import traceback

ENGINE_NAME = "TwoBig"
ENGINE_AUTHOR = "the TwoBig developers"
VERSION = "0.1.0"


class UciLoop:
    def __init__(self, out=None, err=None):
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.debug = False
        self._engine = None
        self._load_error = None
        self._loader = threading.Thread(target=self._load, name="twobig-load", daemon=True)
        self._loader.start()

    # -- plumbing ----------------------------------------------------------------------
    def _load(self):
        try:
            from engine.engine import Engine
            self._engine = Engine()
        except Exception as exc:  # reported on first use, never fatal to the loop
            self._load_error = exc
            traceback.print_exc(file=self.err)

    @property
    def engine(self):
        self._loader.join()
        if self._engine is None:
            raise RuntimeError(f"engine failed to load: {self._load_error}")
        return self._engine

    def send(self, line: str) -> None:
        self.out.write(line + "\n")
        self.out.flush()

    def info(self, text: str) -> None:
        self.send("info string " + text)

    def run(self, stream=None) -> None:
        stream = stream or sys.stdin
        for line in stream:
            if not self.handle(line):
                break

    def handle(self, line: str) -> bool:
        """Handle one input line; False means quit."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0], tokens[1:]
        if command == "quit":
            return False
        handler = getattr(self, "cmd_" + command, None)
        if handler is None:
            self.info(f"unknown command: {line.strip()[:200]}")
            return True
        try:
            handler(args)
        except Exception as exc:
            self.info(f"error in '{command}': {exc}")
            if self.debug:
                traceback.print_exc(file=self.err)
        return True

    # -- commands ----------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME} {VERSION}")
        self.send(f"id author {ENGINE_AUTHOR}")
        self.send("uciok")

    def cmd_debug(self, args):
        self.debug = bool(args) and args[0] == "on"

    def cmd_isready(self, args):
        self.engine  # waits for the jitted core to be loaded
        self.send("readyok")

    def cmd_ucinewgame(self, args):
        self.engine.set_position(None, [])

    def cmd_position(self, args):
        if not args:
            self.info("position needs 'startpos' or 'fen <FEN>'")
            return
        moves = []
        if "moves" in args:
            cut = args.index("moves")
            args, moves = args[:cut], args[cut + 1:]
        if args[0] == "startpos" and len(args) == 1:
            fen = None
        elif args[0] == "fen" and len(args) > 1:
            fen = " ".join(args[1:])
        else:
            self.info("position needs 'startpos' or 'fen <FEN>' before 'moves'")
            return
        from engine.engine import PositionError
        try:
            self.engine.set_position(fen, moves)
        except PositionError as exc:
            self.info(str(exc))

    def cmd_go(self, args):
        if args[:1] == ["perft"]:
            if len(args) != 2 or not args[1].isdigit():
                self.info("usage: go perft <depth>")
                return
            for line in self.engine.perft_lines(int(args[1])):
                self.send(line)
            return
        self.info("only 'go perft N' is available in this version")

    def cmd_d(self, args):
        for line in self.engine.display_lines():
            self.send(line)


def main():
    UciLoop().run()
