"""Provides the players: every policy name -> a policy (`make`, the one registry, above the bots and the adapters),
and the levels of play: how strong the agent plays against a person, and in the arena.

- `beginner`: the network, but a share of its moves are a random legal move (`onnx@eps=E`).
- `club`: the network alone (`onnx`).
- `strong`: the search bot (worlds weighted by the other seats' plays) steered by the network's probabilities,
  at a time budget (StrongPolicy; `strong:W` searches W worlds without a budget, the same moves on any
  machine).
- `adaptive`: a ladder of rungs from random play to `strong`; after every finished game a win moves it a
  rung up and a loss a rung down, so a person's results settle near 50% (a one-up one-down staircase). Its
  state is kept in `level.json` in the user data folder.
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import records
from .agents import POLICY_NAMES as AGENT_NAMES
from .agents import AgentSpec, make_policy, parse_agent
from .agents.search import MAX_WORLDS, SearchPolicy
from .i18n import _, percent, pgettext
from .records import LEVELS as LEVELS  # the one list (the settings file is checked against it), here by name
from .table import Decision, Policy

POLICY_NAMES = ("beginner", "club", "strong[:W]", *AGENT_NAMES, "openspiel:ismcts[:SIMS]")
"""Every name `make` takes: the levels, the bots, the adapters' players."""
BEGINNER_EPS = 0.5
PRIOR = 0.5
"""Points of mean outcome that one unit of log network probability is worth in the strong level's choice."""
STRONG_BUDGET_S = 0.5
STRONG_BATCH = 16
STRONG_MIN_WORLDS = 48
STRONG_MAX_WORLDS = 480
"""The strong level's search: batches of worlds until half a second has passed, 48 worlds to 480."""
STRONG_CARTON = True
"""Whether the strong level's playouts value a deal's end by the cartón the piles lead to (agents/carton.py)."""
RUNGS = ("onnx@eps=1", "onnx@eps=0.9", "onnx@eps=0.8", "onnx@eps=0.65", "onnx@eps=0.5", "onnx@eps=0.35",
         "onnx@eps=0.2", "onnx@eps=0.1", "club", "strong")
"""The adaptive ladder, weakest first: random play, then ever fewer random moves, the network, the search."""
START_RUNG = RUNGS.index("onnx@eps=0.5")


class StrongPolicy:
    """The search bot's judgement with the network's instinct: every legal move is played out in sampled worlds
    (agents/search.py, expert playouts to the end of the deal, the worlds weighted by what the other seats' plays
    reveal, the deal's end valued by the cartón its piles lead to), and the move played maximises its mean outcome
    in points plus PRIOR x the log of the network's probability for it (the network breaks the search's near-ties,
    and its memory of the whole hand speaks where the deal's horizon is blind). The Decision shows the network's
    probabilities and win %."""

    def __init__(self, model=None, seed: int = 0, worlds: int | None = None):
        self.net = compiled(make_policy("onnx" if model is None else f"onnx:{model}", seed))
        self.search = compiled(SearchPolicy(worlds or STRONG_MIN_WORLDS, random.Random(seed), infer=True,
                                            carton=STRONG_CARTON))
        self.worlds = worlds
        self.name = "strong" if worlds is None else f"strong:{worlds}"
        self.model_id = self.net.model_id

    @property
    def path(self):
        return self.net.path

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.net.reset(seat, seed)
        self.search.reset(seat, seed)

    def observe(self, state, events=()) -> None:
        self.net.observe(state, events)
        self.search.observe(state, events)

    def decide(self, state) -> Decision:
        net = self.net.decide(state)
        if len(net.probs) < 2:
            return net
        scores = self.scores(state, net.probs)
        action = max(scores, key=lambda a: (scores[a], -a))
        return Decision(action, net.probs, net.value, net.action_values, self.model_id)

    def scores(self, state, probs: dict | None = None) -> dict[int, float]:
        """What the choice maximises, per legal move: its mean outcome in points plus PRIOR x the log of the
        network's probability for it (`probs`, else the network's now)."""
        probs = self.net.decide(state).probs if probs is None else probs
        means = self.means(state)
        return {a: m + PRIOR * math.log(max(probs.get(a, 0.0), 1e-6)) for a, m in means.items()}

    def means(self, state) -> dict[int, float]:
        """The moves' mean outcomes: `strong:W` over W worlds; `strong` over batches of STRONG_BATCH worlds
        until STRONG_BUDGET_S has passed (at least STRONG_MIN_WORLDS, at most STRONG_MAX_WORLDS)."""
        if self.worlds is not None:
            return self.search.move_means(state, self.worlds)
        start, done, totals = time.perf_counter(), 0, None
        while done < STRONG_MIN_WORLDS or (done < STRONG_MAX_WORLDS
                                           and time.perf_counter() - start < STRONG_BUDGET_S):
            batch = self.search.move_totals(state, STRONG_BATCH)
            totals = batch if totals is None else {a: totals[a] + t for a, t in batch.items()}
            done += STRONG_BATCH
        return {a: t / done for a, t in totals.items()}


@dataclass(frozen=True)
class PlayerSpec:
    """A player's name ("club", "strong:64", "search:48@infer", "openspiel:ismcts:6", ...), parsed and checked once
    (`parse`); `make` builds its policy for any seed. Picklable: an arena sends it to its worker processes."""

    text: str
    """The name as given."""
    level: str | None = None
    """beginner, club or strong: a level of play."""
    worlds: int | None = None
    """strong:W's worlds (None: the time budget)."""
    agent: AgentSpec | None = None
    """The bot it plays with: the network for beginner and club, else any other bot (agents.parse_agent)."""
    simulations: int | None = None
    """openspiel:ismcts[:SIMS]'s simulations a decision."""
    model: str | None = None
    """The ONNX file the network plays with (None: the shipped one)."""

    def make(self, seed: int = 0):
        if self.level in ("beginner", "club"):
            return _named(compiled(self.agent.build(seed)), self.level)
        if self.level == "strong":
            return StrongPolicy(self.model, seed, worlds=self.worlds)
        if self.simulations is not None:
            return _openspiel(self.simulations, seed)
        return compiled(self.agent.build(seed))


def parse(spec: str | PlayerSpec, model=None) -> PlayerSpec:
    """A player's name as a PlayerSpec; `model` an ONNX file for the network (default: the shipped one). ValueError
    names the choices."""
    if isinstance(spec, PlayerSpec):
        return spec
    model = None if model is None else str(model)
    name, _sep, arg = spec.partition(":")
    if name in ("beginner", "club") and not arg:
        network = AgentSpec("onnx", spec, path=model, eps=BEGINNER_EPS if name == "beginner" else 0.0)
        return PlayerSpec(spec, level=name, agent=network, model=model)
    if name == "strong":
        if arg and not (arg.isdigit() and 1 <= int(arg) <= MAX_WORLDS):
            raise ValueError(_("strong takes a number of worlds, 1 to {most}, as in strong:64, not {arg!r}").format(
                most=MAX_WORLDS, arg=arg))
        return PlayerSpec(spec, level="strong", worlds=int(arg) if arg else None, model=model)
    if name == "adaptive":
        raise ValueError(_("adaptive is a level for a person's games (it moves with their results); in the arena "
                           "name a rung instead: {rungs}").format(rungs=", ".join(RUNGS)))
    if name == "openspiel":
        kind, _sep, sims = arg.partition(":")
        if kind != "ismcts" or (sims and not sims.isdigit()) or sims == "0":
            raise ValueError(_("openspiel takes ismcts or ismcts:SIMS (simulations a decision, 1 or more), not "
                               "{arg!r}").format(arg=arg))
        _openspiel_class()  # the extra is there, or say how to install it, before any game
        return PlayerSpec(spec, simulations=int(sims) if sims else 0)
    agent_spec = f"onnx:{model}{spec[4:]}" if spec.startswith("onnx") and model is not None and ":" not in spec \
        else spec
    try:
        return PlayerSpec(spec, agent=parse_agent(agent_spec), model=model)
    except ValueError as err:
        if not str(err).startswith("unknown policy"):
            raise
        raise ValueError(_("unknown policy {name!r}; choose one of: {choices}").format(
            name=spec, choices=", ".join(POLICY_NAMES))) from None


def compiled(policy):
    """`policy` with its hot paths on the compiled core where that serves, the same numbers: a search's playouts and
    belief (core/search.py), the network's observations (core/observations.py)."""
    if isinstance(policy, SearchPolicy):
        from .core.search import ends_of, values_of

        policy.ends, policy.values = ends_of, values_of
    elif hasattr(policy, "encoder"):  # the network (agents/onnx_policy.py OnnxPolicy; not imported here: onnxruntime)
        from .core.observations import compiled_agent

        compiled_agent(policy)
    return policy


def make(spec, seed: int = 0, model=None):
    """A policy for a player's name or PlayerSpec (see `parse`): a level ("beginner", "club", "strong", "strong:W",
    an adaptive rung), a bot, or an adapter's player; `model` an ONNX file for the network."""
    return parse(spec, model).make(seed)


def _openspiel_class():
    try:
        from .interop.openspiel import OpenSpielPolicy
    except ImportError:
        raise ValueError(_("openspiel:ismcts needs the openspiel extra: {command}").format(
            command="pip install -e '.[openspiel]'")) from None
    return OpenSpielPolicy


def _openspiel(simulations: int, seed: int) -> Policy:
    """OpenSpiel's IS-MCTS bot with `simulations` a decision (0: its default; the openspiel extra)."""
    cls = _openspiel_class()
    return cls(simulations=simulations or cls.DEFAULT_SIMULATIONS, seed=seed)


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
    """The stored ladder; a missing file starts at START_RUNG, a damaged one too, with `problem` set (the file is
    kept aside: records.read_json)."""
    path = Path(path or ladder_path())
    try:
        return records.read_json(path, _("the level file"), _ladder, max_bytes=1 << 22, missing=None,
                                 then=_("the adaptive level starts again at {rung}").format(
                                     rung=rung_name(RUNGS[START_RUNG]))) or Ladder()
    except records.FileError as err:
        return Ladder(problem=str(err))


def _ladder(data) -> Ladder:
    if not isinstance(data, dict) or data.get("schema_version") != 1:
        raise ValueError(_("not a level file of schema version {n}").format(n=1))
    rung, games = data["rung"], data["games"]
    if type(rung) is not int or not 0 <= rung < len(RUNGS):
        raise ValueError(_("its rung {rung!r} is not one of 0..{last}").format(rung=rung, last=len(RUNGS) - 1))
    if not isinstance(games, list) or not all(
            isinstance(g, dict) and isinstance(g.get("game_id"), str) and type(g.get("rung")) is int
            and isinstance(g.get("won"), bool) for g in games):
        raise ValueError(_("its games are not game results"))
    return Ladder(rung, games)


def save_ladder(ladder: Ladder, path=None) -> Path:
    """Write the ladder atomically. It writes over what is stored: a game's result is `record_result` (counted on
    the file as it is)."""
    return records.write_atomic(Path(path or ladder_path()),
                                json.dumps({"schema_version": 1, "rung": ladder.rung, "games": ladder.games}))


def record_result(game_id: str, won: bool, path=None) -> tuple[int, Ladder]:
    """Count a finished adaptive game's result on the stored ladder as it is now (records.update_file: re-read
    under its lock, so a result another process counted meanwhile stays, and a game is counted once); the rung
    before it and the ladder after (its `problem`: load_ladder's, where the file was damaged and kept aside)."""
    before = []

    def count(ladder: Ladder) -> Ladder | None:
        before.append(ladder.rung)
        counted = len(ladder.games)
        ladder.record(game_id, won)
        return ladder if len(ladder.games) != counted else None

    ladder = records.update_file(Path(path or ladder_path()), load_ladder, count, save_ladder)
    return before[-1], ladder


@dataclass(frozen=True)
class Level:
    """A game's level of play, as its record keeps it ("beginner", "club", "strong", "adaptive:<rung>"; None in games
    before levels: the network alone), read once."""

    name: str = "club"
    """beginner, club, strong or adaptive."""
    rung: str | None = None
    """An adaptive game's rung (a player's name, RUNGS)."""

    @classmethod
    def of(cls, text: str | None) -> Level:
        if not text:
            return cls()
        name, _sep, rung = text.partition(":")
        return cls("adaptive", rung) if name == "adaptive" else cls(text)

    @property
    def adaptive(self) -> bool:
        """Whether the game counts for the person's adaptive level."""
        return self.name == "adaptive"

    @property
    def spec(self) -> str:
        """The player the level plays with: an adaptive game's rung, else the level's own name."""
        return self.rung if self.adaptive else self.name

    def __str__(self) -> str:
        """In words, in the language in use: "club", "adaptive, now the network with 50% random moves"."""
        if self.adaptive:
            return _("adaptive, now {rung}").format(rung=rung_name(self.rung))
        return level_name(self.name)


def level_name(level: str) -> str:
    """A level of play's name as a person reads it, in the language in use ("beginner" / "principiante"); the
    level ids (LEVELS) stay as they are in files and on the command line."""
    return {"beginner": pgettext("level", "beginner"), "club": pgettext("level", "club"),
            "strong": pgettext("level", "strong"), "adaptive": pgettext("level", "adaptive")}.get(level, level)


def level_description(level: str) -> str:
    """What a level of play is, in a line: "beginner: the agent, with half its moves at random"."""
    about = {"beginner": _("the agent, with half its moves at random"), "club": _("the agent (the trained network)"),
             "strong": _("the agent with its search, half a second a move"),
             "adaptive": _("follows your results, one step a game")}.get(level)
    return f"{level_name(level)}: {about}" if about else level_name(level)


def rung_name(spec: str) -> str:
    """A rung in words: "random play", "the network with 35% random moves", "club", "strong"."""
    if spec == "onnx@eps=1":
        return _("random play")
    if spec.startswith("onnx@eps="):
        return _("the network with {share} random moves").format(share=percent(100 * float(spec.split("=")[1])))
    return level_name(spec)
