"""Provides the coach: hints for every legal move, annotations with mistake classes, accuracy, and game review.

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

from .agents.base import Decision
from .engine import Caida, Dealt, GameWon, HandEnded, Limpia, State, action_to_string, capture_options, legal_actions
from .engine.actions import ACTION_RANK
from .records import GameRecord, replay_events, result_text

PRESETS = {"standard": (5, 10, 15), "strict": (2, 4, 8)}
"""Loss thresholds in win-% points for inaccuracy, mistake, blunder."""
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")


def move_name(state: State, action: int) -> str:
    """A move's readable name in a position, with the escalera it takes there ("7 takes 3+4, then J Q")."""
    for option in capture_options([c >> 2 for c in state.table], ACTION_RANK[action], state.rules):
        if option["action"] == action:
            return action_to_string(action, option["sequence"])
    return action_to_string(action)


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


def review(record: GameRecord, policy_factory, preset: str = "standard") -> list[Annotation]:
    """Annotate a saved game: the human's moves, or every seat's when there is no human seat.

    Each annotated seat gets a fresh policy from `policy_factory(seat)`, reset for the seat, that
    observes every state of the replay (as it would have in play) and decides before each of its moves.
    """
    states, events = replay_events(record)
    seats = [record.human_seat] if record.human_seat is not None else range(len(record.seats))
    policies = {seat: policy_factory(seat) for seat in seats}
    for seat, policy in policies.items():
        policy.reset(seat)
    out = []
    for i, move in enumerate(record.moves):
        for policy in policies.values():
            policy.observe(states[i], events[i])
        if move["seat"] in policies:
            decision = policies[move["seat"]].decide(states[i])
            out.append(annotate(states[i], decision, move["action"], i, preset))
    return out


def _notes(events) -> str:
    """What a play scored, from its events (up to the next deal, whose cards are another matter)."""
    notes = []
    for e in events:
        if isinstance(e, Dealt):
            break
        if isinstance(e, Caida):
            notes.append(f"caída +{e.points + e.ronda_bonus}")
        elif isinstance(e, Limpia):
            notes.append(f"limpia +{e.points}")
        elif isinstance(e, HandEnded):
            notes.append(f"hand over, cartón {e.carton[0]}-{e.carton[1]}")
        elif isinstance(e, GameWon):
            notes.append(f"game won {e.scores[0]}-{e.scores[1]}")
    return f" [{'; '.join(notes)}]" if notes else ""


def format_review(record: GameRecord, annotations) -> str:
    """The annotated game as plain text, one line per move, then accuracy per player (for --text and screen readers)."""
    states, events = replay_events(record)
    by_ply = {a.ply: a for a in annotations}
    names = {s["seat"]: s["name"] + (" (you)" if s["seat"] == record.human_seat else "") for s in record.seats}
    width = max(len(n) for n in names.values())
    lines = [f"Game {record.game_id}: {record.rules_preset or 'custom'} rules, {len(record.seats)} players, "
             f"{result_text(record)}",
             "Seats: " + ", ".join(f"{s['seat']} {s['name']} ({s['player']})" for s in record.seats)]
    models = sorted({a.model_id[:12] for a in by_ply.values() if a.model_id})
    if models:
        lines.append(f"Analysis by model {', '.join(models)}; win % is for the mover's team")
    hand = -1
    hand_of = {}
    for i, move in enumerate(record.moves):
        state = states[i]
        if state.hand_no != hand:
            hand = state.hand_no
            lines.append(f"Hand {hand + 1} (score {state.scores[0]}-{state.scores[1]})")
        hand_of[i] = hand + 1
        text = f"{i + 1:4d}. {names[move['seat']]:<{width}}  {move_name(state, move['action'])}"
        a = by_ply.get(i)
        if a is not None:
            text += f"  win {a.win_before:.0f}% -> {a.win_after:.0f}%  {a.klass}"
            if a.klass != "best":
                text += f" (best: {a.best_name}, {a.win_best:.0f}%)"
        lines.append(text + _notes(events[i + 1]))
    lines.append("Accuracy")
    for seat in sorted({a.seat for a in by_ply.values()}):
        mine = [by_ply[p] for p in sorted(by_ply) if by_ply[p].seat == seat]
        per_hand = accuracy_by_group(mine, [hand_of.get(a.ply, 0) for a in mine])
        hands = ", ".join(f"hand {h} {acc:.0f}%" for h, acc in per_hand.items())
        counts = ", ".join(f"{sum(a.klass == k for a in mine)} {k}" for k in ("inaccuracy", "mistake", "blunder"))
        lines.append(f"  {names[seat]}: {game_accuracy(mine):.1f}% over {len(mine)} moves ({counts}); {hands}")
    if not by_ply:
        lines.append("  no move was annotated")
    return "\n".join(lines)
