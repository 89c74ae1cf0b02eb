"""Provides the bots: the baseline bots, the expert, search and the ONNX agent, and `make_policy` to build one
from a name such as "expert" or "search:200" (players.make adds the levels and the adapters' players)."""

from __future__ import annotations

import random

from ..table import Decision, Policy
from .base import BasePolicy
from .expert import ExpertPolicy
from .simple import GreedyPolicy, RandomPolicy

__all__ = ["BasePolicy", "Decision", "Policy", "ExpertPolicy", "GreedyPolicy", "RandomPolicy", "make_policy",
           "POLICY_NAMES"]

POLICY_NAMES = ("random", "greedy", "expert", "search[:N][@infer][@carton][@solve=K]",
                "onnx[:PATH][@temp=T][@eps=E]")
"""The bots' names; players.POLICY_NAMES adds the levels and the adapters' players."""


def make_policy(spec: str, seed: int = 0) -> Policy:
    """Build a policy from its command-line name; ValueError names the choices."""
    if spec.startswith("onnx@"):
        spec = "onnx:" + spec[4:]
    name, _, arg = spec.partition(":")
    rng = random.Random(seed)
    if name == "random" and not arg:
        return RandomPolicy(rng)
    if name == "greedy" and not arg:
        return GreedyPolicy(rng)
    if name == "expert" and not arg:
        return ExpertPolicy(rng)
    if name == "search":
        from .search import SearchPolicy

        count, *options = arg.split("@")
        solves = [o.removeprefix("solve=") for o in options if o.startswith("solve=")]
        flags = [o for o in options if not o.startswith("solve=")]
        try:
            if len(solves) > 1 or len(set(flags)) < len(flags) or not set(flags) <= {"infer", "carton"}:
                raise ValueError
            solve = int(solves[0]) if solves else 0
            samples = int(count) if count else SearchPolicy.DEFAULT_SAMPLES
        except ValueError:
            raise ValueError(f"search takes a number of sampled deals, @infer (worlds weighted by the other "
                             f"seats' plays), @carton (piles valued by the cartón they lead to) and @solve=K "
                             f"(the deal's last K cards solved exactly), as in search:200 or "
                             f"search:48@infer@carton@solve=6, not {arg!r}") from None
        return SearchPolicy(samples, rng, infer="infer" in flags, carton="carton" in flags, solve=solve)
    if name == "onnx":
        from .onnx_policy import OnnxPolicy

        path, *options = arg.split("@")
        values = {"temp": 0.0, "eps": 0.0}
        for option in options:
            key, _, value = option.partition("=")
            try:
                if key not in values:
                    raise ValueError
                values[key] = float(value)
                if not 0 <= values[key] < float("inf") or (key == "eps" and values[key] > 1):
                    raise ValueError
            except ValueError:
                raise ValueError(f"onnx takes @temp=T (T 0 or more: samples its moves) and @eps=E (E 0..1: plays a "
                                 f"random legal move that share of the time), as in onnx@temp=0.5@eps=0.2, not "
                                 f"@{option}") from None
        return OnnxPolicy(path or None, rng, values["temp"], values["eps"])
    raise ValueError(f"unknown policy {spec!r}; choose one of: {', '.join(POLICY_NAMES)}")
