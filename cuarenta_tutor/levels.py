"""Provides the levels of play: how strong the agent plays against a person, and in the arena.

- `beginner`: the network, but a share of its moves are a random legal move (`onnx@eps=E`).
- `club`: the network alone (`onnx`).
- `strong`: the network with the possible-worlds analysis at a time budget: it plays the analysis's best
  move where the analysis is sure it beats the network's (STRONG; `strong:W` analyses W worlds without a
  budget, the same moves on any machine).
- `adaptive`: a ladder of rungs from random play to `strong`; after every finished game a win moves it a
  rung up and a loss a rung down, so a person's results settle near 50% (a one-up one-down staircase). Its
  state is kept in `level.json` in the user data folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import records
from .agents import make_policy
from .agents.base import Decision
from .analysis import analyse
from .analysis.analyse import INTERACTIVE
from .analysis.calibrate import settings_for

LEVELS = ("beginner", "club", "strong", "adaptive")
BEGINNER_EPS = 0.5
STRONG = replace(INTERACTIVE, budget_s=0.5)
"""The strong level's analysis: the hints' worlds, half a second a move (p95 under a second here)."""
RUNGS = ("onnx@eps=1", "onnx@eps=0.9", "onnx@eps=0.8", "onnx@eps=0.65", "onnx@eps=0.5", "onnx@eps=0.35",
         "onnx@eps=0.2", "onnx@eps=0.1", "club", "strong")
"""The adaptive ladder, weakest first: random play, then ever fewer random moves, the network, the search."""
START_RUNG = RUNGS.index("onnx@eps=0.5")


class StrongPolicy:
    """The network's memory and the analysis's choice: each move, every legal move is valued in sampled worlds
    (analysis/) and the best is played; the network's probabilities and the analysis's win % come with it."""

    def __init__(self, model=None, seed: int = 0, settings=None, worlds: int | None = None):
        self.net = make_policy("onnx" if model is None else f"onnx:{model}", seed)
        base = STRONG if worlds is None else replace(INTERACTIVE, worlds=worlds, min_worlds=worlds, budget_s=0.0)
        self.settings = settings or settings_for(self.net.path, base)
        self.name = "strong" if worlds is None else f"strong:{worlds}"
        self.model_id = self.net.model_id

    @property
    def path(self):
        return self.net.path

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.net.reset(seat, seed)
        if seed is not None:
            self.settings = replace(self.settings, seed=seed)

    def observe(self, state, events=()) -> None:
        self.net.observe(state, events)

    def decide(self, state) -> Decision:
        """The network's move, unless the analysis is sure another is better: the network's move's loss against
        the analysis's best has its whole 95% interval above 0 (noise alone never overrides the network)."""
        net = self.net.decide(state)
        found = analyse(state, self.net, self.settings)
        values = {m.action: m.win_pct / 100.0 for m in found.moves}
        action = found.best.action if found.move(net.action).loss_ci95[0] > 0 else net.action
        return Decision(action, net.probs, net.value, values, self.model_id)


def make(spec: str, seed: int = 0, model=None):
    """A policy for a level name ("beginner", "club", "strong", "strong:W", an adaptive rung) or any other
    policy name (agents.make_policy); `model` an ONNX file for the network (default: the shipped one)."""
    name, _, arg = spec.partition(":")
    onnx = "onnx" if model is None else f"onnx:{model}"
    if name == "beginner" and not arg:
        return _named(make_policy(f"{onnx}@eps={BEGINNER_EPS}", seed), "beginner")
    if name == "club" and not arg:
        return _named(make_policy(onnx, seed), "club")
    if name == "strong":
        if arg and not arg.isdigit():
            raise ValueError(f"strong takes a number of worlds, as in strong:64, not {arg!r}")
        return StrongPolicy(model, seed, worlds=int(arg) if arg else None)
    if name == "adaptive":
        raise ValueError("adaptive is a level for a person's games (it moves with their results); in the arena "
                         "name a rung instead: " + ", ".join(RUNGS))
    if spec.startswith("onnx") and model is not None and ":" not in spec:
        spec = onnx + spec[4:]
    return make_policy(spec, seed)


def _named(policy, name: str):
    policy.name = name
    return policy


@dataclass
class Ladder:
    """The adaptive level's state: the rung it stands on and the games that moved it."""

    rung: int = START_RUNG
    games: list = field(default_factory=list)
    """[{"game_id", "rung", "won"}], oldest first."""
    problem: str | None = None
    rungs: tuple = RUNGS

    @property
    def spec(self) -> str:
        return self.rungs[self.rung]

    def record(self, game_id: str, won: bool) -> int:
        """A finished game's result: a rung up after a win, down after a loss (once per game); the new rung."""
        if any(g["game_id"] == game_id for g in self.games):
            return self.rung
        self.games.append({"game_id": game_id, "rung": self.rung, "won": bool(won)})
        self.rung = max(0, min(len(self.rungs) - 1, self.rung + (1 if won else -1)))
        return self.rung

    def recent_win_rate(self, last: int = 20) -> float | None:
        recent = self.games[-last:]
        return sum(g["won"] for g in recent) / len(recent) if recent else None


def ladder_path() -> Path:
    return records.data_dir() / "level.json"


def load_ladder(path=None) -> Ladder:
    """The stored ladder; a missing file starts at START_RUNG, a damaged one too, with `problem` set."""
    path = Path(path or ladder_path())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        rung, games = data["rung"], data["games"]
        if data.get("schema_version") != 1 or not (isinstance(rung, int) and 0 <= rung < len(RUNGS)):
            raise ValueError("not a level file of schema version 1")
        if not all(isinstance(g, dict) and {"game_id", "rung", "won"} <= set(g) for g in games):
            raise ValueError("its games are not game results")
        return Ladder(rung, games)
    except FileNotFoundError:
        return Ladder()
    except (OSError, ValueError, KeyError, TypeError) as err:
        return Ladder(problem=f"the level file {path} is damaged ({err}); the adaptive level starts again at "
                              f"{RUNGS[START_RUNG]} (the file is replaced after your next game)")


def save_ladder(ladder: Ladder, path=None) -> Path:
    return records.write_atomic(Path(path or ladder_path()),
                                json.dumps({"schema_version": 1, "rung": ladder.rung, "games": ladder.games}))


def spec_of(level: str | None) -> str:
    """The policy a record's level plays with: "adaptive:<rung>" its rung, None (before levels) "club"."""
    if not level:
        return "club"
    return level.partition(":")[2] if level.startswith("adaptive:") else level


def rung_name(spec: str) -> str:
    """A rung in words: "random play", "the network, 35% random moves", "club", "strong"."""
    if spec == "onnx@eps=1":
        return "random play"
    if spec.startswith("onnx@eps="):
        return f"the network with {100 * float(spec.split('=')[1]):.0f}% random moves"
    return spec
