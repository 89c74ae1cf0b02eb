"""Provides the classes of analysed moves (a class only where the move's paired interval supports it) and
their accuracy.

Thresholds are win-% points lost against the best move (Lichess: inaccuracy 5, mistake 10, blunder 15).
A move is put in a class when its loss reaches the class's threshold and the lower end of its 95% interval
reaches the threshold below (so noise alone does not make a mistake); a loss at a threshold whose interval
does not support it is "unclear".
"""

from __future__ import annotations

THRESHOLDS = {"standard": (5.0, 10.0, 15.0), "strict": (2.0, 4.0, 8.0)}
MISTAKE_OR_WORSE = ("mistake", "blunder")


def judge(move, preset: str = "standard") -> str:
    """"best", "good", "inaccuracy", "mistake", "blunder", or "unclear" for an analysed move (a MoveEval)."""
    inaccuracy, mistake, blunder = THRESHOLDS[preset]
    low = move.loss_ci95[0]
    if move.loss <= 0:
        return "best"
    for name, at, floor in (("blunder", blunder, mistake), ("mistake", mistake, inaccuracy),
                            ("inaccuracy", inaccuracy, 0.0)):
        if move.loss >= at:
            return name if low >= floor else "unclear"
    return "good"


SPREAD = 2.0
"""Win-% points between the best and the worst move below which a decision does not count for accuracy (any
move would do)."""


def range_accuracy(wins, played: float) -> float | None:
    """How much of a decision's range (the win % of every legal move) the played move's win % kept, 0..100:
    100 for the best, 0 for the worst (100 * (played - worst) / (best - worst), as mjai-reviewer rates moves).
    None when the moves are within SPREAD points of each other."""
    best, worst = max(wins), min(wins)
    if best - worst < SPREAD:
        return None
    return min(100.0, max(0.0, 100.0 * (played - worst) / (best - worst)))


def move_accuracy(analysis, action: int) -> float | None:
    """range_accuracy of an analysed move."""
    return range_accuracy([m.win_pct for m in analysis.moves], analysis.move(action).win_pct)
