"""Provides the coach's judgement of moves: annotations with a class, accuracy, and where they came from.

An annotation is made from the possible-worlds analysis of the position (analysis/), or, in play before the
analysis has answered, from one forward pass of the network (its provenance says which; its numbers on the
analysis's scale, analysis/onepass.py, and its class "unclear": a class comes from the analysis alone). Every figure
is a win percentage (0..100) for the mover's team.

- A move's *loss* is the best move's win % minus the played one's; classes follow Lichess' thresholds
  (inaccuracy 5, mistake 10, blunder 15 points; the "strict" preset 2/4/8 matches gnubg's bands), and with
  the analysis a class is given only where the loss's 95% interval supports it, else "unclear"
  (analysis/classes.py: `Class`, and `classify`, the one classifier).
- A move's *accuracy* is the share of the decision's range the played move kept: 100 for the best move, 0
  for the worst, 100 * (played - worst) / (best - worst), as mjai-reviewer rates moves; decisions where
  every move is within 2 points of the others do not count. A game's accuracy is the mean over the
  decisions that count. On `bench analysis` random play scores about 49, the greedy bot 63, the expert 80.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from ..analysis.classes import THRESHOLDS, Class, classify, range_accuracy
from ..engine import State, legal_actions
from ..i18n import _
from ..narrator import move_name
from ..resources import version
from ..table import Decision


@dataclass(frozen=True)
class MoveHint:
    """One legal move as the network sees it (one forward pass)."""

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
        raise ValueError(_("hints need a win probability after every legal move; {policy} gives none (use the "
                           "trained agent, OnnxPolicy)").format(policy=decision.model_id or _("this policy")))
    wins = {a: 100.0 * decision.action_values[a] for a in legal}
    probs = {a: float(decision.probs.get(a, 0.0)) for a in legal}
    choice = max(legal, key=lambda a: (probs[a], wins[a], -a))
    out = [MoveHint(a, move_name(state, a), probs[a], wins[a], round(max(0.0, wins[choice] - wins[a]), 6))
           for a in legal]
    return sorted(out, key=lambda h: (h.action != choice, -h.prob, -h.win_after, h.action))


def _pair(value) -> tuple | None:
    return None if value is None else (float(value[0]), float(value[1]))


@dataclass(frozen=True)
class Provenance:
    """Where an annotation's numbers come from."""

    method: str = "network"
    """"analysis" (the possible-worlds analysis) or "network" (one forward pass)."""
    model: str = ""
    """The model's sha256."""
    settings: dict | None = None
    """The analysis's settings (Settings.to_json()); None for the network."""
    leaf: str = ""
    """What valued the playouts' ends ("table", "critic")."""
    version: str = ""
    """The app's version."""
    cut: bool = False
    """The time cap cut the analysis short (a review analyses the move again)."""

    METHODS = ("analysis", "network")

    @property
    def worlds(self) -> int:
        """The worlds its settings asked for (0 for the network)."""
        return int((self.settings or {}).get("worlds") or 0)

    def to_json(self) -> dict:
        out = {"method": self.method, "model": self.model, "settings": self.settings, "leaf": self.leaf,
               "version": self.version}
        return {**out, "cut": True} if self.cut else out

    @classmethod
    def from_json(cls, data) -> Provenance:
        """Read `to_json()`'s output (missing keys of earlier versions take their defaults); ValueError says what
        is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"an annotation's provenance is an object, not {type(data).__name__}")
        kinds = {"method": str, "model": str, "settings": (dict, type(None)), "leaf": str, "version": str,
                 "cut": bool}
        values = {k: data[k] for k in kinds if k in data}
        for k, v in values.items():
            if not isinstance(v, kinds[k]):
                raise ValueError(f"provenance field {k!r} is {v!r}, not what it should be")
        found = cls(**values)
        if found.method not in cls.METHODS:
            raise ValueError(f"provenance method {found.method!r} is not one of {', '.join(cls.METHODS)}")
        return found


@dataclass(frozen=True)
class Risks:
    """The share of worlds where the other side's next play is a caída or a limpia, after the played move and after
    the best one (the analysis only; coach/kinds.py and the narrator's reasons read them)."""

    played: tuple[float, float]
    """(caída risk, limpia risk) after the played move, shares 0..1."""
    best: tuple[float, float]

    def by_action(self, played: int, best: int) -> dict:
        """{action: (caída, limpia)} of the two moves, as the narrator's why_better takes them."""
        return {played: self.played, best: self.best}

    def to_json(self) -> dict:
        return {"played": list(self.played), "best": list(self.best)}

    @classmethod
    def from_json(cls, data) -> Risks:
        if not (isinstance(data, dict) and all(
                isinstance(data.get(k), list) and len(data[k]) == 2
                and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in data[k])
                for k in ("played", "best"))):
            raise ValueError(f"annotation field 'risks' is {data!r}, not played and best [caída, limpia] shares")
        return cls(_pair(data["played"]), _pair(data["best"]))


@dataclass(frozen=True)
class Annotation:
    """The coach's verdict on one played move (percentages are win % for the mover's team)."""

    ply: int
    """The move's 0-based index in the game (its place in the record's moves)."""
    seat: int
    action: int
    name: str
    win_before: float
    """The position's win %: its best move's."""
    win_after: float
    best_action: int
    """The best move (the played one when nothing was better)."""
    best_name: str
    win_best: float
    loss: float
    klass: Class
    accuracy: float | None
    """Share of the decision's range the move kept (see the module doc); None where the moves hardly differ."""
    provenance: Provenance
    """Where the numbers come from."""
    ci95: tuple | None = None
    """(low, high) of win_after (the analysis only)."""
    loss_ci95: tuple | None = None
    worlds: int = 0
    """Sampled worlds behind the numbers (0: one forward pass of the network)."""
    risks: Risks | None = None
    """The caída and limpia risks after the played and the best move (the analysis only)."""

    def __post_init__(self):
        object.__setattr__(self, "klass", Class(self.klass))  # a class's word ("mistake") is read as its Class
        if not isinstance(self.provenance, Provenance):
            raise TypeError(f"an annotation's provenance is a Provenance, not {type(self.provenance).__name__}")
        if self.risks is not None and not isinstance(self.risks, Risks):
            raise TypeError(f"an annotation's risks are Risks, not {type(self.risks).__name__}")

    @property
    def model_id(self) -> str:
        return self.provenance.model

    @property
    def method(self) -> str:
        return self.provenance.method

    def to_dict(self) -> dict:
        """A plain dict for a game record."""
        out = asdict(self)
        out["klass"] = self.klass.value
        out["provenance"] = self.provenance.to_json()
        out["risks"] = None if self.risks is None else self.risks.to_json()
        out["ci95"], out["loss_ci95"] = (None if v is None else list(v) for v in (self.ci95, self.loss_ci95))
        return out

    @classmethod
    def from_dict(cls, data) -> Annotation:
        """Read `to_dict()`'s output back (and the network-only annotations of earlier versions); ValueError
        says what is wrong."""
        if not isinstance(data, dict):
            raise ValueError(f"an annotation is an object, not {type(data).__name__}")
        data = dict(data)
        if "provenance" not in data:  # before analysis: {"model_id", "prob", ...}, all from the network
            data["provenance"] = {"method": "network", "model": data.get("model_id", "")}
        values = {}
        for f in fields(cls):
            v = data.get(f.name)
            if f.name in ("ci95", "loss_ci95", "accuracy", "risks") and v is None:
                values[f.name] = None
                continue
            if f.name == "worlds" and v is None:
                v = 0
            if f.name == "provenance":
                values[f.name] = Provenance.from_json(v)
                continue
            if f.name == "risks":
                values[f.name] = Risks.from_json(v)
                continue
            kind = {"int": int, "float": (int, float), "float | None": (int, float), "str": str,
                    "tuple | None": (list, tuple), "Class": str}[f.type]
            if isinstance(v, bool) or not isinstance(v, kind):
                raise ValueError(f"annotation field {f.name!r} is {v!r}, not a {f.type}")
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"annotation field {f.name!r} is {v!r}, not a number")
            values[f.name] = float(v) if f.type.startswith("float") else v
        if values["klass"] not in set(Class):
            raise ValueError(f"annotation class {values['klass']!r} is not one of {', '.join(Class)}")
        values["klass"] = Class(values["klass"])
        for name in ("ci95", "loss_ci95"):
            if values[name] is not None:
                if len(values[name]) != 2 or not all(isinstance(x, (int, float)) for x in values[name]):
                    raise ValueError(f"annotation field {name!r} is {values[name]!r}, not a [low, high] pair")
                values[name] = _pair(values[name])
        return cls(**values)


def from_analysis(analysis, action: int, ply: int, preset: str = "standard") -> Annotation:
    """Judge `action` from the analysis of its position (made from the mover's view)."""
    played = next((m for m in analysis.moves if m.action == action), None)
    if played is None:
        raise ValueError(f"{action!r} is not a legal move here")
    best = analysis.best
    provenance = Provenance("analysis", analysis.model_id, analysis.settings.to_json(), analysis.leaf, version(),
                            cut=bool(analysis.cut))  # cut: the time cap stopped it short, a review analyses it again
    return Annotation(ply, analysis.seat, action, played.name, best.win_pct, played.win_pct, best.action, best.name,
                      best.win_pct, played.loss, classify(played.loss, preset, played.loss_ci95),
                      range_accuracy([m.win_pct for m in analysis.moves], played.win_pct), provenance,
                      played.ci95, played.loss_ci95, played.worlds,
                      move_risks(played, best))


def move_risks(played, best) -> Risks:
    """An annotation's `risks`: the played and the best move's caída and limpia risks (analysed moves)."""
    return Risks(*((round(float(m.caida_risk), 3), round(float(m.limpia_risk), 3)) for m in (played, best)))


def annotate(state: State, decision: Decision, played_action: int, ply: int, preset: str = "standard",
             scale=None) -> Annotation:
    """Note `played_action` in `state` from the network's Decision for the mover (before the analysis has
    answered): the best move is the agent's own choice (the critic alone ranks moves too roughly to name it); the
    win % on the analysis's scale by `scale` (analysis.onepass.scale; None: the network's own); the class "unclear",
    never one from these numbers (a review of the game gives the analysis's)."""
    if preset not in THRESHOLDS:
        raise ValueError(_("unknown coaching preset {preset!r}; choose one of: {choices}").format(
            preset=preset, choices=", ".join(THRESHOLDS)))
    if decision.value is None:
        raise ValueError(_("annotations need the win probability of the position; {policy} gives none (use the "
                           "trained agent, OnnxPolicy)").format(policy=decision.model_id or _("this policy")))
    ranked = hints(state, decision)
    played = next((h for h in ranked if h.action == played_action), None)
    if played is None:
        raise ValueError(f"{played_action!r} is not a legal move here")
    best = ranked[0]
    provenance = Provenance("network", decision.model_id, None, "critic", version())
    scale = scale or (lambda v: 100.0 * v)
    wins = {h.action: scale(h.win_after / 100.0) for h in ranked}
    loss = round(max(0.0, wins[best.action] - wins[played.action]), 6)
    return Annotation(ply, state.turn, played.action, played.name, scale(decision.value), wins[played.action],
                      best.action, best.name, wins[best.action], loss, Class.UNCLEAR,
                      range_accuracy(list(wins.values()), wins[played.action]), provenance)


def game_accuracy(annotations) -> float | None:
    """The mean accuracy of the annotated moves that count (see the module doc); None if none does."""
    counted = [a.accuracy for a in annotations if a.accuracy is not None]
    return sum(counted) / len(counted) if counted else None


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
