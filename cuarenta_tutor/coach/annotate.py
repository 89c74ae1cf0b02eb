"""Provides the coach's judgement of moves: hints for every legal move, annotations with mistake classes, accuracy.

Every figure is a win percentage (0..100) from the agent's `Decision`: `value` before the move and
`action_values` after each legal move, both for the mover's team. The *best* move is the one the agent
itself would play (its most probable move): measured in the arena, choosing moves by the highest
after-move win % plays far worse (18% against the expert over 300 games) than the agent's own choice
(47%), so the critic ranks moves too roughly to name the best one, while it still tells how much a move
gives away. A move's *loss* is the agent's choice's win % after minus the played move's (never below
0); classes by loss follow Lichess (inaccuracy >= 5, mistake >= 10, blunder >= 15 points; the "strict"
preset 2/4/8 matches gnubg's equity bands).

Accuracy follows Lichess (lila `AccuracyPercent.scala`), with the loss in place of its win % drop:

- move accuracy = 103.1668 * exp(-0.04354 * loss) - 3.1669 + 1 ("uncertainty bonus"), clamped to 0..100;
- game accuracy of one player's moves = (volatility-weighted mean + harmonic mean) / 2 of their move
  accuracies. The win % series is each move's win % before it, then the win % after the last move
  (n + 1 values for n moves); windows of size w = clamp(n // 10, 2, 8) slide over it, the first w - 2
  moves reusing the first window, so there is one window per move; a move's weight is the population
  standard deviation of its window clamped to 0.5..12, so moves in sharp positions count more. The
  harmonic mean uses max(accuracy, 1) as lila does, so a 0 % move does not divide by zero.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, fields

from ..agents.base import Decision
from ..engine import State, legal_actions
from ..narrator import move_name

PRESETS = {"standard": (5, 10, 15), "strict": (2, 4, 8)}
"""Loss thresholds in win-% points for inaccuracy, mistake, blunder."""
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class MoveHint:
    """One legal move as the agent sees it."""

    action: int
    name: str
    prob: float
    """The policy's probability of the move: the agent's preference."""
    win_after: float
    """Win % for the mover's team after the move."""
    loss: float
    """Best win_after minus this one (>= 0): the move's cost."""


def hints(state: State, decision: Decision) -> list[MoveHint]:
    """Every legal move, the agent's choice first, then by its preference (ties: win % after, action id)."""
    legal = legal_actions(state)
    if not legal:  # the game is over
        return []
    if any(a not in decision.action_values for a in legal):
        raise ValueError(f"hints need a win probability after every legal move; {decision.model_id or 'this policy'}"
                         f" gives none (use the trained agent, OnnxPolicy)")
    wins = {a: 100.0 * decision.action_values[a] for a in legal}
    probs = {a: float(decision.probs.get(a, 0.0)) for a in legal}
    choice = max(legal, key=lambda a: (probs[a], wins[a], -a))
    out = [MoveHint(a, move_name(state, a), probs[a], wins[a], round(max(0.0, wins[choice] - wins[a]), 6))
           for a in legal]
    return sorted(out, key=lambda h: (h.action != choice, -h.prob, -h.win_after, h.action))


@dataclass(frozen=True)
class Annotation:
    """The coach's verdict on one played move (percentages are win % for the mover's team)."""

    ply: int
    """The move's 0-based index in the game (its place in the record's moves)."""
    seat: int
    action: int
    name: str
    win_before: float
    win_after: float
    best_action: int
    """The best move (the played one when nothing was better)."""
    best_name: str
    win_best: float
    loss: float
    klass: str
    """One of CLASSES."""
    accuracy: float
    """Move accuracy %."""
    prob: float
    """The policy's probability of the played move."""
    model_id: str

    def to_dict(self) -> dict:
        """A plain dict for a game record."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data) -> Annotation:
        """Read `to_dict()`'s output back; ValueError says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"an annotation is an object, not {type(data).__name__}")
        values = {}
        for f in fields(cls):
            v = data.get(f.name)
            kind = {"int": int, "float": (int, float), "str": str}[f.type]
            if isinstance(v, bool) or not isinstance(v, kind):
                raise ValueError(f"annotation field {f.name!r} is {v!r}, not a {f.type}")
            values[f.name] = float(v) if f.type == "float" else v
        if values["klass"] not in CLASSES:
            raise ValueError(f"annotation class {values['klass']!r} is not one of {', '.join(CLASSES)}")
        return cls(**values)


def classify(loss: float, preset: str = "standard") -> str:
    """The class of a move by its loss in win-% points: blunder, mistake, inaccuracy, good, or best (no loss)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown coaching preset {preset!r}; choose one of: {', '.join(PRESETS)}")
    if not math.isfinite(loss):
        raise ValueError(f"a loss is a number of win-% points, not {loss!r}")
    inaccuracy, mistake, blunder = PRESETS[preset]
    if loss >= blunder:
        return "blunder"
    if loss >= mistake:
        return "mistake"
    if loss >= inaccuracy:
        return "inaccuracy"
    return "good" if loss > 0 else "best"


def move_accuracy(loss: float) -> float:
    """Lichess move accuracy % for a loss in win-% points: 100 for no loss, ~81 at 5, ~65 at 10, 0 from ~73."""
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * loss) - 3.166924740191411
    return min(100.0, max(0.0, raw + 1))


def annotate(state: State, decision: Decision, played_action: int, ply: int, preset: str = "standard") -> Annotation:
    """Judge `played_action` in `state` from the Decision the agent made for the mover before the move."""
    if decision.value is None:
        raise ValueError(f"annotations need the win probability of the position; "
                         f"{decision.model_id or 'this policy'} gives none (use the trained agent, OnnxPolicy)")
    ranked = hints(state, decision)
    played = next((h for h in ranked if h.action == played_action), None)
    if played is None:
        raise ValueError(f"{played_action!r} is not a legal move here")
    best = ranked[0]  # the agent's own choice
    return Annotation(ply, state.turn, played.action, played.name, 100.0 * decision.value, played.win_after,
                      best.action, best.name, best.win_after, played.loss, classify(played.loss, preset),
                      move_accuracy(played.loss), played.prob, decision.model_id)


def game_accuracy(annotations) -> float | None:
    """Lichess game accuracy % of one player's annotated moves, in game order (see the module doc); None if none."""
    moves = list(annotations)
    if not moves:
        return None
    series = [a.win_before for a in moves] + [moves[-1].win_after]
    w = min(max(len(moves) // 10, 2), 8)
    windows = [series[:w]] * (min(w, len(series)) - 2) + [series[i:i + w] for i in range(len(series) - w + 1)]
    weights = [min(max(statistics.pstdev(x), 0.5), 12.0) for x in windows]
    accuracies = [a.accuracy for a in moves]
    weighted = sum(a * wt for a, wt in zip(accuracies, weights, strict=True)) / sum(weights)
    harmonic = len(accuracies) / sum(1 / max(a, 1.0) for a in accuracies)
    return (weighted + harmonic) / 2


def accuracy_by_group(annotations, groups) -> dict:
    """Game accuracy per group: `groups` holds each annotation's key (a hand, a seat), in first-seen order."""
    annotations, groups = list(annotations), list(groups)
    if len(annotations) != len(groups):
        raise ValueError(f"{len(annotations)} annotations but {len(groups)} group keys")
    buckets: dict = {}
    for a, g in zip(annotations, groups, strict=True):
        buckets.setdefault(g, []).append(a)
    return {g: game_accuracy(items) for g, items in buckets.items()}


def summary_accuracy(annotation_dicts) -> float | None:
    """Game accuracy from stored annotation dicts (pass to `records.list_games(accuracy=...)`)."""
    return game_accuracy([Annotation.from_dict(d) for d in annotation_dicts])
