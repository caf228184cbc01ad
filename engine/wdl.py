"""Win/draw/loss from a score: the model behind `UCI_ShowWDL` (`info ... wdl W D L`).

The side to move wins with probability  1 / (1 + exp((a - s) / b))  and loses with
1 / (1 + exp((a + s) / b)); a draw takes the rest. s is the search score in centipawns; a
(the score at which a win is as likely as not) and b (how fast the odds turn) grow with the
material on the board, t = material / 78 (pawn 1, minor 3, rook 5, queen 9; 78 at the start),
as a = A0 + A1 t and b = B0 + B1 t. Fitted to the engine's games, a is larger with few pieces
left: its endgame scores need more centipawns to win than its middle-game scores do.

A0..B1 are fitted by maximum likelihood to the engine's own games (`python -m lab.network.wdl_fit`,
docs/evaluation.md: the data, the fit and its figures). Pure Python: it runs once per
reported line.
"""
import math
from typing import Tuple

from engine.types import MATE_BOUND

# Fitted by lab/network/wdl_fit.py on 2026-12-04 to 14,566 positions of 568 games of df62e40
# (docs/evaluation.md, "Win/draw/loss model").
A0, A1 = 374.1, -259.2
B0, B1 = 145.7, -8.7
MATERIAL_START = 78                       # both sides' material in the start position
MATERIAL_POINTS = (1, 3, 3, 5, 9, 0)      # pawn, knight, bishop, rook, queen, king


def material_points(counts) -> int:
    """Material of both sides from the piece counts (pawn .. king, both colours summed)."""
    return sum(points * count for points, count in zip(MATERIAL_POINTS, counts))


def wdl_permille(score: int, material: int) -> Tuple[int, int, int]:
    """(win, draw, loss) in permille for the side to move, summing to 1000."""
    if score >= MATE_BOUND:
        return 1000, 0, 0
    if score <= -MATE_BOUND:
        return 0, 0, 1000
    t = min(max(material, 0), MATERIAL_START) / MATERIAL_START
    a, b = A0 + A1 * t, B0 + B1 * t
    win = 1.0 / (1.0 + math.exp(min(50.0, (a - score) / b)))
    loss = 1.0 / (1.0 + math.exp(min(50.0, (a + score) / b)))
    w, l = round(1000 * win), round(1000 * loss)
    return w, 1000 - w - l, l
