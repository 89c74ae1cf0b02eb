"""Provides the search's games for expert iteration: games of a model against itself in which some moves are
chosen by the analysis search with that model inside, and the batches training draws from them.

At a decision with more than one legal move, with chance `share`, the position is analysed from the mover's view
(analysis/analyse.py: sampled worlds, the model's playouts to the end of the hand); the search's move
distribution is a softmax of the moves' win % over `temperature` points, and the move played is drawn from it
(the exploration). Other moves are drawn from the model's own probabilities. Every seat's observation is kept at
every play, as the training rollouts step every seat's memory, so a game replays as one sequence per seat:

    obs [L, P, O] (float16), mover [L], legal [L, A], target [L, A] (float16), labelled [L], outcome [P]

Games are written in shards of `SHARD_GAMES` (shard-00000.npz, ...), each from its own seed and written whole:
an interrupted collection resumes where it stopped, with the games it would have played. Needs numpy and
onnxruntime only (no torch).
"""

from __future__ import annotations

import math
import multiprocessing
import random
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..encoding import N_ACTIONS, legal_mask
from ..engine import Dealer, knows_every_card, legal_actions, preset
from ..table import Table

SHARD_GAMES = 10
TEACHERS = ("search", "analysis", "strong")
"""What labels the moves (SearchSettings.teacher)."""


@dataclass(frozen=True)
class SearchSettings:
    """Which search labels moves, and how."""

    teacher: str = "search"
    """"search": the search bot (PIMC, expert playouts to the end of the deal; search:48 beats the shipped network,
    0.625 in the arena), its moves' mean outcomes in points; "analysis": the analysis with the model inside
    (worlds to the end of the hand), its moves' win %; "strong": the strong level (players.StrongPolicy: the search
    with inferred worlds and the cartón, steered by the model's prior), the score it chooses by, in points (each
    move's mean outcome plus PRIOR x the log of the model's probability for it)."""
    worlds: int = 48
    """Worlds per labelled position (all of them: no time budget, so the labels depend only on the seed)."""
    share: float = 0.5
    """Chance that a decision with a choice is labelled (and its move drawn from the search's distribution)."""
    temperature: float = 0.5
    """Units of the softmax that turns the moves' values into the search's distribution: points of score for
    "search", win-% points for "analysis"."""
    known_only: bool = False
    """Label only positions where the mover knows every card (1 v 1, the stock empty: the other hand is all the
    cards it has not seen), where the one true world is played (either teacher), so the labels are exact."""

    def __post_init__(self):
        if self.teacher not in TEACHERS:
            raise ValueError(f"unknown teacher {self.teacher!r}; choose {' or '.join(TEACHERS)}")
        if self.worlds < 1 or not 0 <= self.share <= 1 or not 0 <= self.temperature < math.inf:  # NaN fails
            raise ValueError("worlds must be 1 or more, share between 0 and 1, temperature 0 or more")


def search_distribution(win_pct: dict[int, float], temperature: float) -> dict[int, float]:
    """Softmax of the moves' win % (points) over `temperature` points; 0: all on the best moves."""
    best = max(win_pct.values())
    if temperature <= 0:
        top = [a for a, w in win_pct.items() if w == best]
        return {a: (1.0 / len(top) if a in top else 0.0) for a in win_pct}
    weights = {a: math.exp((w - best) / temperature) for a, w in win_pct.items()}
    total = sum(weights.values())
    return {a: w / total for a, w in weights.items()}


def play_game(model, rules_name: str, players: int, seed: int, settings: SearchSettings) -> dict:
    """One self-play game of `model` (an ONNX path) with the search choosing a share of the moves; its arrays."""
    from ..agents.onnx_policy import OnnxPolicy
    from ..agents.search import SearchPolicy
    from ..analysis.analyse import Settings, analyse
    from ..players import StrongPolicy, compiled

    rng = random.Random(seed)
    agents = [compiled(OnnxPolicy(model)) for _ in range(players)]
    strong = [StrongPolicy(model, rng.randrange(1 << 30), settings.worlds) for _ in range(players)] \
        if settings.teacher == "strong" else []  # each seat's, watching the game as its own seat sees it
    table = None
    while table is None or table.over:  # a deal can end the game (four of a kind): skip it
        table = Table(preset(rules_name, players=players), [None] * players, Dealer(rng.randrange(1 << 62)),
                      watchers=list(enumerate(agents)) + list(enumerate(strong)))
        table.start(seeds=[rng.randrange(1 << 30) for _ in range(players)])
    obs, mover, legal, target, labelled = [], [], [], [], []
    worlds = Settings(worlds=settings.worlds, round_worlds=settings.worlds, min_worlds=settings.worlds, budget_s=0.0)
    search = compiled(SearchPolicy(settings.worlds, rng=random.Random(rng.randrange(1 << 62))))

    def values(state, agent, probs) -> dict[int, float]:
        if settings.teacher == "search":
            return search.move_means(state)
        if settings.teacher == "strong":
            return strong[state.turn].scores(state, probs)  # the mover's probabilities, decided once
        found = analyse(state, agent, replace(worlds, seed=rng.randrange(1 << 30)))
        return {m.action: m.win_pct for m in found.moves}

    while not table.over:
        state = table.state
        row = np.zeros((players, agents[0].width), np.float32)
        for s in range(players):
            agents[0].encoder(row[s], state, s, agents[0].encoding)  # compiled where the core serves
        seat, moves = state.turn, legal_actions(state)
        agent = agents[seat]
        probs = agent.decide(state).probs
        aim = np.zeros(N_ACTIONS, np.float32)
        if len(moves) > 1 and (knows_every_card(state) or not settings.known_only) and rng.random() < settings.share:
            dist = search_distribution(values(state, agent, probs), settings.temperature)
            for a, p in dist.items():
                aim[a] = p
            labelled.append(True)
            choices = dist
        else:
            labelled.append(False)
            choices = probs
        actions = sorted(choices)
        action = rng.choices(actions, [max(choices[a], 1e-9) for a in actions])[0]
        obs.append(row), mover.append(seat), legal.append(legal_mask(state)), target.append(aim)
        table.play(action)
    return {"obs": np.stack(obs).astype(np.float16), "mover": np.array(mover, np.int8),
            "legal": np.stack(legal), "target": np.stack(target).astype(np.float16),
            "labelled": np.array(labelled), "outcome": np.array([float(table.state.winner == s % 2)
                                                                 for s in range(players)], np.float32)}


def _shard(job) -> Path:
    model, out, index, seed, kinds, settings = job
    rng = random.Random(f"{seed}:{index}")
    path = out / f"shard-{index:05d}.npz"
    games = {}
    for g in range(SHARD_GAMES):
        rules, players = rng.choices([(r, p) for r, p, _ in kinds], [w for _, _, w in kinds])[0]
        game = play_game(model, rules, players, rng.randrange(1 << 62), settings)
        games.update({f"{g}/{key}": value for key, value in game.items()})
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **games)
    tmp.replace(path)
    return path


def collect(model, out, games: int, seed: int = 0, kinds=(("standard", 2, 1.0),),
            settings: SearchSettings = SearchSettings(), jobs: int = 1, progress=None) -> list[Path]:
    """Play `games` (rounded up to whole shards) into `out`, skipping shards already there; the shard paths.
    `kinds`: (preset, players, weight) of the games, drawn per game."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    count = math.ceil(games / SHARD_GAMES)
    paths = [out / f"shard-{i:05d}.npz" for i in range(count)]
    todo = [(Path(model), out, i, seed, list(kinds), settings) for i in range(count) if not paths[i].exists()]
    done = count - len(todo)
    if progress:
        progress(done * SHARD_GAMES, count * SHARD_GAMES)
    if jobs <= 1:
        results = map(_shard, todo)
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs)
        results = pool.imap_unordered(_shard, todo)
    for _ in results:
        done += 1
        if progress:
            progress(done * SHARD_GAMES, count * SHARD_GAMES)
    if jobs > 1:
        pool.close()
        pool.join()
    return paths


def load(folder) -> list[dict]:
    """Every game in the shards of `folder`; ValueError (what is wrong, and what to do) for none or a damaged one."""
    paths = sorted(Path(folder).glob("shard-*.npz"))
    paths = [p for p in paths if not p.name.endswith(".tmp.npz")]
    if not paths:
        raise ValueError(f"no search games in {folder}: make them with cuarenta-tutor search-games --out {folder}")
    games = []
    for path in paths:
        try:
            with np.load(path) as data:
                for g in range(SHARD_GAMES):
                    games.append({key: data[f"{g}/{key}"] for key in
                                  ("obs", "mover", "legal", "target", "labelled", "outcome")})
        except Exception as err:  # zipfile, KeyError, ValueError: a shard cut short or from elsewhere
            raise ValueError(f"{path} is damaged ({type(err).__name__}): delete it and run search-games again "
                             "with the same arguments to play it again") from None
    return games


class Batches:
    """Batches of whole games for training, one sequence per seat (2 v 2 games give four), padded to the longest.
    `sample(count, key)` is the same for the same key: a resumed run draws what an uninterrupted one would."""

    def __init__(self, games: list[dict], seed: int):
        self.streams = [(g, s) for g, game in enumerate(games) for s in range(len(game["outcome"]))]
        self.games, self.seed = games, seed
        self.width = games[0]["obs"].shape[-1] if games else 0
        """The observation size the games were recorded with (that of the playing model's encoding)."""

    def sample(self, count: int, key) -> dict:
        """{"obs" [T,B,O], "mask" [T,B,A] bool, "starts" [T,B], "target" [T,B,A], "labelled" [T,B] bool (the
        seat's own analysed moves), "outcome" [T,B], "valid" [T,B] (0 on padding)}, numpy arrays."""
        rng = np.random.default_rng([self.seed, *key])
        picks = [self.streams[i] for i in rng.integers(len(self.streams), size=count)]
        T = max(len(self.games[g]["mover"]) for g, _ in picks)
        out = {"obs": np.zeros((T, count, self.width), np.float32), "mask": np.ones((T, count, N_ACTIONS), bool),
               "starts": np.zeros((T, count), np.float32), "target": np.zeros((T, count, N_ACTIONS), np.float32),
               "labelled": np.zeros((T, count), bool), "outcome": np.zeros((T, count), np.float32),
               "valid": np.zeros((T, count), np.float32)}
        out["starts"][0] = 1.0
        for b, (g, s) in enumerate(picks):
            game = self.games[g]
            n = len(game["mover"])
            own = game["mover"] == s
            out["obs"][:n, b] = game["obs"][:, s]
            out["mask"][:n, b][own] = game["legal"][own]
            out["labelled"][:n, b] = own & game["labelled"]
            out["target"][:n, b][own] = game["target"][own]
            out["outcome"][:n, b] = game["outcome"][s]
            out["valid"][:n, b] = 1.0
        return out
