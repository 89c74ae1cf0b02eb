"""Provides the training configuration (every setting, stored in each checkpoint and the model card) and
checkpoints (a state dict and plain values, loaded with weights_only=True)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import torch

from ..agents.onnx_policy import MAX_HIDDEN
from ..i18n import _
from . import MAX_STEPS


@dataclass
class Config:
    """Every training setting; stored in each checkpoint and in the model card."""

    seed: int = 1
    """Seeds Python, numpy, torch and every game."""
    total_steps: int = 20_000_000
    """Environment steps (plays, summed over all games) to train for."""
    num_envs: int = 64
    """Games played side by side."""
    rollout_len: int = 32
    """Plays per game between two updates."""
    lr: float = 3e-4
    """Adam learning rate (annealed linearly to 10% of it)."""
    gamma: float = 1.0
    """Discount; 1 keeps the critic a win probability."""
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    update_epochs: int = 1
    """1 is A2C; more, with clip_coef, is PPO."""
    num_minibatches: int = 1
    """Minibatches per epoch, split by stream (whole sequences, never single steps)."""
    clip_coef: float | None = None
    """PPO ratio clip (None: plain policy gradient)."""
    bc_coef: float = 1.0
    """Weight of the imitation term toward the expert's move at the start of training."""
    bc_fraction: float = 0.15
    """Share of training over which the imitation weight decays to zero."""
    pool: dict = field(default_factory=lambda: {"self": 0.35, "past": 0.15, "expert": 0.4, "greedy": 0.05,
                                                 "random": 0.05})
    """Chance of each opponent kind for a new game: itself, a past snapshot, or a bot."""
    distill_data: str = ""
    """A folder of the search's games (search_games.py; `cuarenta-tutor search-games`): expert iteration."""
    distill_coef: float = 0.0
    """Weight of the term that moves the policy toward the search's move distribution in those games and the
    critic toward their outcomes (0: none)."""
    distill_batch: int = 16
    """Seat sequences (whole games) from the search's games per minibatch."""
    snapshot_every: int = 100
    """Updates between refreshes of the past-self opponent."""
    eval_every: int = 200
    """Updates between arena evaluations against the expert (0: never)."""
    checkpoint_every: int = 50
    """Updates between two saves of checkpoint.pt (also saved at every evaluation and at the end)."""
    log_every: int = 10
    """Updates between two progress lines (and records in metrics.jsonl)."""
    eval_games: int = 200
    rules: str = "standard"
    """The rules of every game, 2 players, when `mix` is empty; the rules of the evaluations otherwise."""
    mix: dict = field(default_factory=dict)
    """Chance of each rules preset and player count for a new game, as {"standard": 0.4, "standard/4": 0.4,
    "pagat": 0.2} ("/4": 2 v 2). Empty: `rules`, 1 v 1 only. Evaluations and gates play every entry."""
    encoding: int = 3
    """The observation's encoding version (encoding.py): 3, as 2 with each move's played-out outcome where every
    card is known (the last deal of 1 v 1); 2 adds each move's features and the network's move head; 1, the state
    alone (models before 2026-11). 4 also plays the moves out over 16 sampled worlds late in 2 v 2's last deal, about
    7 ms a decision there (`bench agent --players 4`), which would slow the 2 v 2 share of the rollouts several times
    over; the default stays 3, and a model trained on 3 reads 4 without more training (`export MODEL.onnx --encoding
    4`, as the shipped model does)."""
    feature: int = 256
    strategy: int = 128
    hidden: int = 128
    threads: int = 1
    """torch threads of the learner; 1 avoids stalls on a 2-core machine."""
    workers: int = 2
    """Rollout processes, each playing its share of the games with one thread (1: in the learner's
    process). One per core: the learner waits while they play. Results depend on it."""

    @classmethod
    def from_dict(cls, data: dict) -> Config:
        """A config from JSON; ValueError names a field that is unknown or of the wrong type."""
        if not isinstance(data, dict):
            raise ValueError(f"a config is a JSON object of settings, not {json_kind(data)}")
        known = {f.name: f.type for f in fields(cls)}
        unknown = sorted(set(data) - set(known))
        if unknown:
            raise ValueError(f"unknown config field(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        kinds = {"int": (int,), "float": (int, float), "float | None": (int, float, type(None)), "str": (str,),
                 "dict": (dict,)}
        for name, value in data.items():
            kind = kinds.get(known[name])
            if kind and (isinstance(value, bool) or not isinstance(value, kind)):
                raise ValueError(f"config field {name!r} is {value!r}, not {KIND_WORDS[known[name]]}")
        return cls(**data)

    def __post_init__(self):
        """Refuse settings that would only fail later, in a worker or after an hour of training."""
        from ..engine import preset

        preset(self.rules)  # ValueError names the presets
        for key in self.mix:
            name, _, players = key.partition("/")
            if players not in ("", "2", "4"):
                raise ValueError(f"mix entry {key!r}: a preset, or a preset/4 for 2 v 2, as in \"standard/4\"")
            preset(name)
        if self.mix and (min(self.mix.values()) < 0 or sum(self.mix.values()) <= 0):
            raise ValueError("mix needs non-negative weights that do not all vanish, as in {\"standard\": 0.5, "
                             "\"standard/4\": 0.5}")
        unknown = sorted(set(self.pool) - {"self", "past", "expert", "greedy", "random"})
        if unknown:
            raise ValueError(f"unknown opponent kind(s) in pool: {', '.join(unknown)}; "
                             "choose from self, past, expert, greedy, random")
        if not self.pool or min(self.pool.values()) < 0 or sum(self.pool.values()) <= 0:
            raise ValueError("pool needs non-negative weights that do not all vanish, as in {\"self\": 0.5, "
                             "\"expert\": 0.5}")
        from ..encoding import SIZES

        for name, (low, high) in SPANS.items():
            value = getattr(self, name)
            if value is None and name == "clip_coef":
                continue
            if name in ABOVE_ZERO and not low < value <= high:  # NaN fails too
                raise ValueError(f"{name} must be above {low:g} and at most {high:g}, not {value}")
            if not low <= value <= high:
                raise ValueError(f"{name} must be from {low:g} to {high:g}, not {value}")
        if not all(math.isfinite(w) for w in [*self.pool.values(), *self.mix.values()]):
            raise ValueError("pool and mix weights must be finite numbers")
        if self.encoding not in SIZES:
            raise ValueError(f"encoding must be one of {', '.join(map(str, SIZES))}, not {self.encoding}")
        if self.distill_coef > 0 and not self.distill_data:
            raise ValueError("distill_coef needs distill_data: the folder of the search's games")
        per = seats_per_game(self)
        if self.num_minibatches > per * self.num_envs:
            raise ValueError(f"num_minibatches ({self.num_minibatches}) cannot exceed the streams "
                             f"({per} x num_envs = {per * self.num_envs})")


SPANS = {
    "total_steps": (1, MAX_STEPS), "num_envs": (1, 4096), "rollout_len": (1, 4096), "update_epochs": (1, 100),
    "num_minibatches": (1, 4 * 4096), "distill_batch": (1, 4096), "workers": (1, 256), "threads": (1, 256),
    "snapshot_every": (1, 10**9), "checkpoint_every": (1, 10**9), "log_every": (1, 10**9), "eval_every": (0, 10**9),
    "eval_games": (0, 100_000), "feature": (1, MAX_HIDDEN), "strategy": (1, MAX_HIDDEN), "hidden": (1, MAX_HIDDEN),
    "lr": (0, 1), "gamma": (0, 1), "gae_lambda": (0, 1), "bc_fraction": (0, 1), "ent_coef": (0, 1000),
    "vf_coef": (0, 1000), "bc_coef": (0, 1000), "distill_coef": (0, 1000), "max_grad_norm": (0, 10**6),
    "clip_coef": (0, 10),
}
"""The range of every number setting: one outside it would only fail later (in torch, in a worker, after an hour
of training), or never end."""
ABOVE_ZERO = ("lr", "max_grad_norm", "clip_coef")
"""The settings that 0 would make meaningless (no learning, no gradient, no policy change)."""


CONFIG_BYTES = 1 << 20
"""The largest config file read (one is a few hundred bytes; cli.options.MAX_CONFIG_BYTES)."""
KIND_WORDS = {"int": "an int", "float": "a float", "float | None": "a float or null", "str": "a str", "dict": "a dict"}
"""A config field's type as its error says it, article and all ("not an int")."""


def json_kind(data) -> str:
    """What a JSON value is, with its article ("a list", "a number"), for a config's error (English, as the training
    tools speak)."""
    if isinstance(data, list):
        return "a list"
    if isinstance(data, str):
        return "a text"
    if isinstance(data, bool):
        return "true or false"
    return "a number" if isinstance(data, (int, float)) else "null"


def read_config(path) -> dict:
    """The settings in a config file (records.read_json: a regular file, UTF-8, strict JSON, an object), for
    Config.from_dict; records.FileError (a ValueError) names the file, what is wrong and what to do."""
    from .. import records

    def settings(data) -> dict:
        if not isinstance(data, dict):
            raise ValueError(f"a config is a JSON object of settings, not {json_kind(data)}")
        return data
    return records.read_json(path, _("the config file"), settings, max_bytes=CONFIG_BYTES, keep=False,
                             then="fix it, or give another --config")


def variants(cfg: Config) -> list[tuple[str, int, float]]:
    """(preset, players, weight) of every kind of game the config trains on."""
    if not cfg.mix:
        return [(cfg.rules, 2, 1.0)]
    out = []
    for key, weight in cfg.mix.items():
        name, _, players = key.partition("/")
        out.append((name, int(players or 2), float(weight)))
    return out


def seats_per_game(cfg: Config) -> int:
    """Streams per game in the rollout buffers: 4 when any game has 4 players (a 1 v 1 game leaves two idle)."""
    return max(players for _, players, _ in variants(cfg))


def save_checkpoint(path: Path, net, optimizer, cfg: Config, progress: dict,
                    rollouts: list[bytes] | None = None) -> None:
    """Write a checkpoint; with `rollouts` (every worker's state, as bytes) and torch's generator, so that a resumed
    run goes on exactly as an uninterrupted one would."""
    tmp = path.with_suffix(".tmp")
    data = {"model": net.state_dict(), "optimizer": optimizer.state_dict(), "config": asdict(cfg),
            "progress": progress}
    if rollouts is not None:
        data["rollouts"] = [torch.frombuffer(bytearray(b), dtype=torch.uint8) for b in rollouts]
        data["rng"] = torch.get_rng_state()
    torch.save(data, tmp)
    tmp.replace(path)


def rollout_states(ckpt: dict) -> list[bytes] | None:
    """The workers' states a checkpoint keeps (None for one written before they were kept)."""
    return [t.numpy().tobytes() for t in ckpt["rollouts"]] if "rollouts" in ckpt else None


class CheckpointError(ValueError):
    """A checkpoint that cannot be used; the message says which file and what is wrong."""


def load_checkpoint(path) -> dict:
    """A checkpoint as saved by training (tensors and plain values only: weights_only=True); CheckpointError
    in one line for a file that is missing, damaged or not a checkpoint, whose config is not one this code takes,
    or whose weights are not finite numbers."""
    path = Path(path)
    if path.exists() and not path.is_file():  # a FIFO would be waited on for ever
        raise CheckpointError(f"{path} is {'a folder' if path.is_dir() else 'not a regular file'}, not a checkpoint "
                              f"file")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path}") from None
    except Exception as err:  # torch's loader raises EOFError, UnpicklingError, KeyError, RuntimeError...
        raise CheckpointError(f"{path} is not a usable checkpoint: damaged, cut short, or another kind of file "
                              f"({type(err).__name__})") from None
    if not isinstance(ckpt, dict) or not {"config", "model"} <= set(ckpt) or not isinstance(ckpt["config"], dict) \
            or not isinstance(ckpt["model"], dict):
        raise CheckpointError(f"{path} is not a cuarenta-tutor checkpoint (it lacks its config and model)")
    ckpt["config"].setdefault("encoding", 1)  # checkpoints from before encoding version 2 do not name theirs
    try:
        Config.from_dict(ckpt["config"])
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{path} holds a training config this version cannot use: {err}") from None
    if not all(torch.isfinite(t).all() for t in ckpt["model"].values() if torch.is_tensor(t) and t.is_floating_point()):
        raise CheckpointError(f"{path} holds weights that are not numbers (NaN or infinity: the training diverged); "
                              f"use an earlier checkpoint")
    return ckpt


