"""Adjustable strength: `UCI_LimitStrength` / `UCI_Elo` and `Skill Level`.

A weaker TwoBig plays the way a weaker player does: it looks less far (a node budget per
move: short searches miss the deep tactics first) and it picks among the few moves that
look reasonable rather than always the best one (a MultiPV search, then a choice weighted
by exp(-loss / temperature), never a move that looks more than `max_loss` centipawns worse
than the best). Low settings see little, so they drop material to simple tactics, as
beginners do; they never pick a move they themselves see losing a queen for nothing unless
the setting is at its lowest.

Everything follows from one number, the level x in [-1, 1]. From 0 to 1 the node budget
grows and the choice narrows; below 0 (the novice settings) the budget stays at its
smallest and the choice widens further, up to moves that lose a piece. The Elo each level
plays at was measured in matches against Stockfish 15.1's `UCI_Elo` ladder at 10 s + 0.1 s
(and, below the ladder's lowest rung, against the measured levels), and `ELO_TO_LEVEL`
interpolates between the measured points (docs/strength.md, "Adjustable strength": the
table, the games and the command).
"""
import math
import random
from dataclasses import dataclass, replace
from typing import List, Optional, Sequence

# No engine import at module level: engine.options reads the ranges above before `uciok`,
# which is sent before numpy or numba load.

ELO_MIN = 500              # UCI_Elo's range: a beginner ...
ELO_MAX = 2400             # ... to about full strength at 10 s + 0.1 s (docs/strength.md)
SKILL_MAX = 20             # Skill Level 0..20; 20 is full strength

# (Elo, level): where the measured settings fall (docs/strength.md); piecewise linear
# between them, clamped at the ends.
ELO_TO_LEVEL = ((-49, -1.0), (153, -0.5), (452, 0.0), (1018, 0.35), (1675, 0.6), (2109, 0.837),
                (2406, 1.0))

NODES_AT_LOWEST = 40       # nodes per move at level 0 and below ...
NODES_AT_HIGHEST = 400_000  # ... and at level 1, geometric in between
TEMPERATURE_AT_LOWEST = 160.0   # centipawns at level 0; shrinks with (1 - level)^2 ...
TEMPERATURE_FLOOR = 6.0         # ... to this at level 1
MAX_LOSS_AT_LOWEST = 500   # a move this much worse than the best may still be played ...
MAX_LOSS_AT_HIGHEST = 40   # ... down to this at level 1
MULTIPV_AT_LOWEST = 8      # candidate moves searched at level 0 ...
MULTIPV_AT_HIGHEST = 4     # ... and at level 1
NOVICE_TEMPERATURE = 3.0   # at level -1: the temperature of level 0 times this, ...
NOVICE_MAX_LOSS = 1000     # ... this loss limit (a queen), ...
NOVICE_MULTIPV = 12        # ... and this many candidates; linear from level 0


@dataclass(frozen=True)
class Plan:
    """How a search at one strength setting runs and chooses its move."""
    elo: int
    level: float
    nodes: int
    multipv: int
    temperature: float
    max_loss: int


def elo_of_skill(skill: int) -> int:
    """The Elo a `Skill Level` stands for: 0 is ELO_MIN, 20 is ELO_MAX, linear between."""
    skill = min(max(skill, 0), SKILL_MAX)
    return round(ELO_MIN + (ELO_MAX - ELO_MIN) * skill / SKILL_MAX)


def level_of_elo(elo: int) -> float:
    points = ELO_TO_LEVEL
    if elo <= points[0][0]:
        return points[0][1]
    for (elo_a, level_a), (elo_b, level_b) in zip(points, points[1:]):
        if elo <= elo_b:
            return level_a + (level_b - level_a) * (elo - elo_a) / (elo_b - elo_a)
    return points[-1][1]


def plan_for(elo: int) -> Plan:
    level = level_of_elo(elo)
    if level < 0:
        novice = -level
        at_zero = plan_for_level(0.0)
        return Plan(elo=elo, level=level, nodes=at_zero.nodes,
                    multipv=int(round(at_zero.multipv + (NOVICE_MULTIPV - at_zero.multipv) * novice)),
                    temperature=at_zero.temperature * (1 + (NOVICE_TEMPERATURE - 1) * novice),
                    max_loss=int(round(at_zero.max_loss + (NOVICE_MAX_LOSS - at_zero.max_loss) * novice)))
    return plan_for_level(level, elo)


def plan_for_level(level: float, elo: int = 0) -> Plan:
    """The knobs of a level in [0, 1]."""
    nodes = math.exp(math.log(NODES_AT_LOWEST)
                     + level * (math.log(NODES_AT_HIGHEST) - math.log(NODES_AT_LOWEST)))
    weak = 1.0 - level
    return Plan(elo=elo, level=level, nodes=int(round(nodes)),
                multipv=int(round(MULTIPV_AT_HIGHEST + (MULTIPV_AT_LOWEST - MULTIPV_AT_HIGHEST) * weak)),
                temperature=TEMPERATURE_FLOOR + TEMPERATURE_AT_LOWEST * weak * weak,
                max_loss=int(round(MAX_LOSS_AT_HIGHEST + (MAX_LOSS_AT_LOWEST - MAX_LOSS_AT_HIGHEST) * weak)))


def plan_from_options(options) -> Optional[Plan]:
    """The plan the options ask for, or None at full strength. `UCI_LimitStrength` with
    `UCI_Elo` wins over `Skill Level`, as in Stockfish."""
    if options.get("UCI_LimitStrength"):
        # The top of the range is the engine unlimited (measured there: docs/strength.md).
        return plan_for(options["UCI_Elo"]) if options["UCI_Elo"] < ELO_MAX else None
    if options.get("Skill Level", SKILL_MAX) < SKILL_MAX:
        return plan_for(elo_of_skill(options["Skill Level"]))
    return None


def final_lines(iterations: Sequence) -> List:
    """The exact lines (one per multipv index) of the deepest iteration that reported its
    first line exactly; the last report of each index at that depth counts."""
    exact = [it for it in iterations if it.bound is None and it.pv]
    depth = max((it.depth for it in exact if it.multipv == 1), default=None)
    if depth is None:
        return []
    lines = {}
    for it in exact:
        if it.depth == depth:
            lines[it.multipv] = it
    return [lines[index] for index in sorted(lines)]


def choose(lines: Sequence, plan: Plan, rng: random.Random):
    """One of `lines` (Iterations, best first by score), drawn with weight
    exp(-loss / temperature) among those within max_loss of the best. A proven mate for
    the side to move is kept when the best line has one and the level is above the lowest
    quarter: a weak player still sees a mate the search hands it."""
    from engine.types import MATE_BOUND

    if not lines:
        return None
    best = max(lines, key=lambda it: it.score)
    if best.score >= MATE_BOUND and plan.level >= 0.25:
        return best
    candidates = [it for it in lines if best.score - it.score <= plan.max_loss]
    weights = [math.exp(-(best.score - it.score) / plan.temperature) for it in candidates]
    pick = rng.random() * sum(weights)
    for it, weight in zip(candidates, weights):
        pick -= weight
        if pick <= 0:
            return replace(it, multipv=1)
    return replace(candidates[-1], multipv=1)
