"""A raw-pipe UCI client for tests: start the real executable, send lines, read replies."""
import collections
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class UciPipe:
    def __init__(self, *args, env=None, drain_stderr=False):
        """drain_stderr: read stderr as it comes (into `stderr_lines`, the last 1000), for
        a process that lives long enough to fill the pipe's buffer and block on it."""
        self.proc = subprocess.Popen(
            [sys.executable, str(ROOT / "uci_main.py"), *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1, cwd=ROOT,
            env=dict(env or os.environ, PYTHONUNBUFFERED="1"))
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.stderr_lines = collections.deque(maxlen=1000)
        if drain_stderr:
            threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _drain(self):
        for line in self.proc.stderr:
            self.stderr_lines.append(line.rstrip("\n"))

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, predicate, timeout=30.0):
        """All lines up to and including the first that satisfies predicate."""
        out = []
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"no matching line within {timeout} s; got {out!r}")
            if line is None:
                raise EOFError(f"engine exited; got {out!r}")
            out.append(line)
            if predicate(line):
                return out

    def ask(self, line, until, timeout=30.0):
        self.send(line)
        return self.read_until(lambda l: l.startswith(until), timeout)

    def display(self):
        """The fields of the `d` command's reply by name (Fen, Key, Checkers ...)."""
        lines = self.ask("d", "Checkers:")
        return {l.split(":", 1)[0]: l.split(":", 1)[1].strip() for l in lines if ":" in l}

    def assert_each_rejected(self, commands, fen):
        """Each command is answered with an `info string` and leaves the position at `fen`."""
        for bad in commands:
            reply = self.ask(bad, "info string")
            assert reply[-1].startswith("info string "), bad
            assert self.display()["Fen"] == fen, bad

    def close(self):
        try:
            self.send("quit")
        except (BrokenPipeError, OSError, ValueError):   # stdin already closed
            pass
        try:
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def default_option_commands():
    """The `setoption` lines that put every option (but the buttons) back to its default."""
    from engine.options import OPTIONS

    lines = []
    for option in OPTIONS:
        if option.kind != "button":
            value = option.default
            if option.kind == "check":
                value = "true" if value else "false"
            lines.append(f"setoption name {option.name} value {value}")
    return lines
