"""The UCI options: their declaration (printed by `uci`) and parsing of `setoption` values.
Light on purpose: `uci` is answered before numba or the jitted core is imported."""
from dataclasses import dataclass
from typing import Optional, Tuple

from engine.strength import ELO_MAX, ELO_MIN, SKILL_MAX
from engine.tt_registry import DEFAULT_SCHEME, SCHEME_NAMES


@dataclass(frozen=True)
class Option:
    name: str
    kind: str                     # spin, check, combo, button, string
    default: object = None
    min: Optional[int] = None
    max: Optional[int] = None
    vars: Tuple[str, ...] = ()

    def declaration(self) -> str:
        text = f"option name {self.name} type {self.kind}"
        if self.kind == "button":
            return text
        default = self.default
        if self.kind == "check":
            default = "true" if default else "false"
        elif self.kind == "string" and default == "":
            default = "<empty>"
        text += f" default {default}"
        if self.kind == "spin":
            text += f" min {self.min} max {self.max}"
        for var in self.vars:
            text += f" var {var}"
        return text

    def parse(self, raw: Optional[str]):
        """The typed value of `raw`; raise ValueError with a readable reason."""
        if self.kind == "button":
            return True
        if raw is None:
            if self.kind == "string":
                return ""
            raise ValueError(f"option '{self.name}' needs a value")
        if self.kind == "spin":
            try:
                value = int(raw)
            except ValueError:
                raise ValueError(f"option '{self.name}' wants an integer, got {raw!r}") from None
            if not self.min <= value <= self.max:
                raise ValueError(f"option '{self.name}' must be within {self.min}..{self.max}, got {value}")
            return value
        if self.kind == "check":
            if raw.lower() not in ("true", "false"):
                raise ValueError(f"option '{self.name}' wants true or false, got {raw!r}")
            return raw.lower() == "true"
        if self.kind == "combo":
            for var in self.vars:
                if var.lower() == raw.lower():
                    return var
            raise ValueError(f"option '{self.name}' must be one of {', '.join(self.vars)}, got {raw!r}")
        return "" if raw == "<empty>" else raw


OPTIONS = (
    Option("Hash", "spin", 16, 1, 65536),
    Option("Clear Hash", "button"),
    Option("Threads", "spin", 1, 1, 256),   # Lazy SMP (engine.driver); paper profile: 1
    Option("MultiPV", "spin", 1, 1, 64),
    Option("Ponder", "check", False),
    Option("Move Overhead", "spin", 100, 0, 5000),
    Option("OwnBook", "check", False),
    Option("BookFile", "string", ""),
    Option("UCI_Chess960", "check", False),   # castling written king-takes-rook (e1h1)
    Option("TT Scheme", "combo", SCHEME_NAMES[DEFAULT_SCHEME], vars=SCHEME_NAMES),
    Option("TT Aging", "check", True),
    Option("Search Profile", "combo", "play", vars=("play", "paper")),
    Option("Debug Log File", "string", ""),
    Option("UCI_LimitStrength", "check", False),          # engine.strength
    Option("UCI_Elo", "spin", ELO_MAX, ELO_MIN, ELO_MAX),
    Option("Skill Level", "spin", SKILL_MAX, 0, SKILL_MAX),
    Option("UCI_ShowWDL", "check", False),                # engine.wdl
)
OPTIONS_BY_KEY = {option.name.lower(): option for option in OPTIONS}
