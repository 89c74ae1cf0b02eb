"""Provides the classes of analysed moves (`Class`, and `classify`, the one classifier: a class only where the
move's paired interval supports it) and their accuracy.

Thresholds are win-% points lost against the best move (Lichess: inaccuracy 5, mistake 10, blunder 15; the
"strict" preset 2/4/8 matches gnubg's bands). A move is put in a class when its loss reaches the class's
threshold and, given the loss's 95% interval, the lower end of it reaches the threshold below (so noise alone
does not make a mistake); a loss at a threshold whose interval does not support it is "unclear". Without an
interval (one forward pass of the network) the loss alone decides.

The classes the tutor warns about (a mistake, a blunder: `Class.is_mistake_or_worse`) are reached by a move that
loses their threshold with a chance of WARN_CHANCE or more, given its interval (a normal error of the interval's
sd): a missed warning costs the learner a move that loses the game's chances, a needless one a keypress, so the
benefit of the doubt goes to the warning. A move just under 10 with an interval of +-3 may well lose 10; one at 9
with an interval of +-1 does not. Being judged wrong at all (an inaccuracy, against good) has no such asymmetry:
its threshold is reached by the loss itself.
"""

from __future__ import annotations

import math
from enum import StrEnum
from statistics import NormalDist

from ..i18n import _, ngettext, pgettext

THRESHOLDS = {"standard": (5.0, 10.0, 15.0), "strict": (2.0, 4.0, 8.0)}
"""Per coaching preset, the loss in win-% points at which a move is an inaccuracy, a mistake, a blunder."""
WARN_CHANCE = 1 / 3
"""The chance, given a move's interval, of losing a mistake's or a blunder's threshold at which the move is put in
that class (a miss weighed as twice a needless warning: 1 / (1 + 2)). `bench analysis` checks what it buys: the
share of the deep reference's mistakes flagged (recall) and of the flags that lose under 5 points (false alarms)."""
Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval (every interval of the analysis)."""
_WARN_Z = NormalDist().inv_cdf(1 - WARN_CHANCE)


def interval_sd(low: float, high: float) -> float:
    """The sd behind a 95% interval (low, high) of the analysis."""
    return (high - low) / (2 * Z95)


class Class(StrEnum):
    """The class of a played move; its value is the word records, JSON and the screens carry."""

    BEST = "best"
    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"
    UNCLEAR = "unclear"
    """A loss at a threshold that the interval does not support."""

    @property
    def is_error(self) -> bool:
        """An inaccuracy, a mistake or a blunder: what a review marks, lists when it changes, and jumps to."""
        return self in (Class.INACCURACY, Class.MISTAKE, Class.BLUNDER)

    @property
    def is_mistake_or_worse(self) -> bool:
        """A mistake or a blunder: what the tutor warns about, a drill is made of, and stats count."""
        return self in (Class.MISTAKE, Class.BLUNDER)

    @property
    def is_right(self) -> bool:
        """The best move, or one within the inaccuracy threshold: a right answer to a drill."""
        return self in (Class.BEST, Class.GOOD)

    @property
    def mark(self) -> str:
        """The annotation mark of a move list: "?!", "?", "??", "~" (unclear), "" (best, good)."""
        return {Class.INACCURACY: "?!", Class.MISTAKE: "?", Class.BLUNDER: "??", Class.UNCLEAR: "~"}.get(self, "")

    @property
    def label(self) -> str:
        """The class's word as a person reads it, in the language in use ("mistake" / "error"); its value is the
        word records and JSON keep."""
        return {Class.BEST: pgettext("class", "best"), Class.GOOD: pgettext("class", "good"),
                Class.INACCURACY: pgettext("class", "inaccuracy"), Class.MISTAKE: pgettext("class", "mistake"),
                Class.BLUNDER: pgettext("class", "blunder"), Class.UNCLEAR: pgettext("class", "unclear")}[self]

    @property
    def with_article(self) -> str:
        """"an inaccuracy", "a mistake", "a blunder"; "best", "good", "unclear" as they are (in the language in
        use)."""
        return {Class.INACCURACY: _("an inaccuracy"), Class.MISTAKE: _("a mistake"),
                Class.BLUNDER: _("a blunder")}.get(self) or self.label

    def counted(self, n: int) -> str:
        """"1 mistake", "3 mistakes": `n` moves of the class, as a review counts them."""
        words = {Class.BEST: ngettext("{n} best move", "{n} best moves", n),
                 Class.GOOD: ngettext("{n} good move", "{n} good moves", n),
                 Class.INACCURACY: ngettext("{n} inaccuracy", "{n} inaccuracies", n),
                 Class.MISTAKE: ngettext("{n} mistake", "{n} mistakes", n),
                 Class.BLUNDER: ngettext("{n} blunder", "{n} blunders", n),
                 Class.UNCLEAR: ngettext("{n} unclear", "{n} unclear", n)}[self]
        return words.format(n=n)


ERRORS = (Class.INACCURACY, Class.MISTAKE, Class.BLUNDER)
"""The errors, mildest first (the order of a review's counts)."""


def classify(loss: float, preset: str = "standard", loss_ci95=None) -> Class:
    """The class of a move that loses `loss` win-% points against the best; with `loss_ci95` (low, high), the
    analysis's interval of it, a mistake or a blunder where the move loses its threshold with a chance of
    WARN_CHANCE or more, and a class only where the interval's low end reaches the threshold below, else UNCLEAR.
    ValueError for an unknown preset or a loss that is not a number."""
    if preset not in THRESHOLDS:
        raise ValueError(_("unknown coaching preset {preset!r}; choose one of: {choices}").format(
            preset=preset, choices=", ".join(THRESHOLDS)))
    if not math.isfinite(loss):
        raise ValueError(f"a loss is a number of win-% points, not {loss!r}")
    if loss <= 0:
        return Class.BEST
    inaccuracy, mistake, blunder = THRESHOLDS[preset]
    low = loss if loss_ci95 is None else loss_ci95[0]
    doubt = 0.0 if loss_ci95 is None else _WARN_Z * max(0.0, interval_sd(*loss_ci95))
    for klass, at, floor in ((Class.BLUNDER, blunder - doubt, mistake), (Class.MISTAKE, mistake - doubt, inaccuracy),
                             (Class.INACCURACY, inaccuracy, 0.0)):
        if loss >= at:
            return klass if low >= floor else Class.UNCLEAR
    return Class.GOOD


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
