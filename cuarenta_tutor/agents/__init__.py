"""Provides the bots: the baseline bots, the expert, search and the ONNX agent, and `make_policy` to build one
from a name such as "expert" or "search:200" (players.make adds the levels and the adapters' players)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..i18n import _
from ..table import Decision, Policy
from .base import BasePolicy
from .expert import ExpertPolicy
from .simple import GreedyPolicy, RandomPolicy

__all__ = ["BasePolicy", "Decision", "Policy", "ExpertPolicy", "GreedyPolicy", "RandomPolicy", "make_policy",
           "parse_agent", "AgentSpec", "POLICY_NAMES"]

POLICY_NAMES = ("random", "greedy", "expert", "search[:N][@infer][@carton][@solve=K]",
                "onnx[:PATH][@temp=T][@eps=E]")
"""The bots' names; players.POLICY_NAMES adds the levels and the adapters' players."""


@dataclass(frozen=True)
class AgentSpec:
    """A bot's name, parsed and checked once (`parse_agent`); `build` makes its policy for any seed."""

    kind: str
    """random, greedy, expert, search or onnx."""
    text: str = ""
    """The name as given."""
    samples: int = 0
    """search: sampled deals a decision."""
    infer: bool = False
    carton: bool = False
    solve: int = 0
    path: str | None = None
    """onnx: the model file (None: the shipped one)."""
    temp: float = 0.0
    eps: float = 0.0

    def build(self, seed: int = 0) -> Policy:
        rng = random.Random(seed)
        if self.kind == "search":
            from .search import SearchPolicy

            return SearchPolicy(self.samples, rng, infer=self.infer, carton=self.carton, solve=self.solve)
        if self.kind == "onnx":
            from .onnx_policy import OnnxPolicy

            return OnnxPolicy(self.path, rng, self.temp, self.eps)
        return {"random": RandomPolicy, "greedy": GreedyPolicy, "expert": ExpertPolicy}[self.kind](rng)


def parse_agent(spec: str) -> AgentSpec:
    """A bot's command-line name as an AgentSpec; ValueError names the choices."""
    text = spec
    for name in ("onnx", "search"):  # options without the count or path: search@infer, onnx@eps=0.2
        if spec.startswith(name + "@"):
            spec = f"{name}:{spec[len(name):]}"
    name, _sep, arg = spec.partition(":")
    if name in ("random", "greedy", "expert") and not arg:
        return AgentSpec(name, text)
    if name == "search":
        from .search import MAX_WORLDS, SearchPolicy

        count, *options = arg.split("@")
        solves = [o.removeprefix("solve=") for o in options if o.startswith("solve=")]
        flags = [o for o in options if not o.startswith("solve=")]
        try:
            if len(solves) > 1 or len(set(flags)) < len(flags) or not set(flags) <= {"infer", "carton"}:
                raise ValueError
            solve = int(solves[0]) if solves else 0
            samples = int(count) if count else SearchPolicy.DEFAULT_SAMPLES
            if not 1 <= samples <= MAX_WORLDS or solve < 0:
                raise ValueError
        except ValueError:
            raise ValueError(_("search takes a number of sampled deals (1 to {most}), @infer (worlds weighted by "
                               "the other seats' plays), @carton (piles valued by the cartón they lead to) and "
                               "@solve=K (the deal's last K cards solved exactly), as in search:200 or "
                               "search:48@infer@carton@solve=6, not {arg!r}").format(
                most=MAX_WORLDS, arg=arg)) from None
        return AgentSpec("search", text, samples, "infer" in flags, "carton" in flags, solve)
    if name == "onnx":
        path, *options = arg.split("@")
        values = {"temp": 0.0, "eps": 0.0}
        for option in options:
            key, _sep, value = option.partition("=")
            try:
                if key not in values:
                    raise ValueError
                values[key] = float(value)
                if not 0 <= values[key] < float("inf") or (key == "eps" and values[key] > 1):
                    raise ValueError
            except ValueError:
                raise ValueError(_("onnx takes @temp=T (T 0 or more: samples its moves) and @eps=E (E 0..1: plays a "
                                   "random legal move that share of the time), as in onnx@temp=0.5@eps=0.2, not "
                                   "{option}").format(option="@" + option)) from None
        return AgentSpec("onnx", text, path=path or None, temp=values["temp"], eps=values["eps"])
    raise ValueError(_("unknown policy {name!r}; choose one of: {choices}").format(
        name=text, choices=", ".join(POLICY_NAMES)))


def make_policy(spec: str, seed: int = 0) -> Policy:
    """Build a policy from its command-line name; ValueError names the choices."""
    return parse_agent(spec).build(seed)
