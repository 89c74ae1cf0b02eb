"""Provides Cuarenta as a Gymnasium environment for one seat, `CuarentaEnv`, against a bot in the other seats;
and the observation pieces it shares with the PettingZoo environment (pettingzoo.py).

- Observation: a Dict of `observation`, our encoding of the state from the seat (encoding.py, float32,
  OBS_SIZE), and `action_mask`, int8 over the 53 actions: the legal ones on the seat's turn, zeros once
  the game is over (the seat is shown only its turns and the end).
- Action: Discrete(53), the fixed action table (engine/actions.py).
- Reward: +1 when the seat's team wins, -1 when it loses, 0 before the end. An illegal action loses: the
  episode ends with -1 and `info["illegal_move"]` says which rule refused it (Gymnasium's checker steps
  random actions, so an environment that raised would fail it).
- `reset(seed=s)` plays the engine's game of seed s (`Dealer(s)`: the deals and the first dealer) and seeds
  the bots from s; without a seed both come from the environment's `np_random`. A game won on its first
  deal (four of a kind) has no move to learn from: it is skipped for a game seed drawn from `np_random`.
- `render_mode="ansi"`: `render()` returns the text view of the table from the seat (engine/render.py).
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces

from ..agents import make_policy
from ..agents.features import encode
from ..encoding import BASE_SIZE, MOVE_BOUNDS, N_ACTIONS, OBS_SIZE, legal_mask
from ..engine import Dealer, IllegalMove, State, legal_actions, preset, render
from ..table import Table

SCORE_SLOTS = slice(72, 74)
"""The two score slots of the encoding (score / target score): they pass 1 only on the play that wins."""
SCORE_HIGH = 2.0
"""Their bound: under every preset no play and the cartón after it take a score below the target as far again
(random games end below 60 points)."""
SEED_RANGE = 2**31
"""Game and bot seeds drawn from `np_random` are below this."""


def observation_space() -> spaces.Dict:
    """The space of `observation`: the encoding (0..1, the scores up to SCORE_HIGH, the move features in
    MOVE_BOUNDS) and the int8 action mask."""
    low, high = np.zeros(OBS_SIZE, dtype=np.float32), np.ones(OBS_SIZE, dtype=np.float32)
    high[SCORE_SLOTS] = SCORE_HIGH
    low[BASE_SIZE:] = np.tile([lo for lo, _ in MOVE_BOUNDS], N_ACTIONS)
    high[BASE_SIZE:] = np.tile([hi for _, hi in MOVE_BOUNDS], N_ACTIONS)
    return spaces.Dict({
        "observation": spaces.Box(low, high, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
    })


def observation(state: State, seat: int) -> dict:
    """What `seat` observes: the encoding of the state from it, and its legal actions as an int8 mask (zeros when
    another seat is to move or the game is over)."""
    mask = legal_mask(state) if state.turn == seat and not state.is_over else np.zeros(N_ACTIONS, dtype=bool)
    return {"observation": encode(state, seat), "action_mask": mask.astype(np.int8)}


def info(state: State, seat: int) -> dict:
    """The info of a seat: its legal actions (empty when it is not to move) and the game scores per team."""
    legal = list(legal_actions(state)) if state.turn == seat else []
    return {"legal_actions": legal, "scores": state.scores}


def game_seeds(seed: int | None, rng: np.random.Generator):
    """The game seeds a reset tries in turn: `seed` when given, then seeds drawn from `rng`."""
    if seed is not None:
        yield seed
    while True:
        yield int(rng.integers(SEED_RANGE))


def as_action(action):
    """An action as a Python int (numpy integers and 0-d arrays included); anything else is left for the engine
    to refuse."""
    if isinstance(action, bool):
        return action
    try:
        return operator.index(action)
    except TypeError:
        return action


class CuarentaEnv(gymnasium.Env):
    """One seat of a game of Cuarenta against `opponent` (a policy name for agents.make_policy) in every other
    seat (the partner in 2 v 2 too); `rules` is a preset's name, `players` 2 or 4; `table` is the game's Table."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}
    """render_fps only quiets Gymnasium's checker: text frames have no rate."""

    def __init__(self, opponent: str = "expert", seat: int = 0, rules: str = "standard", players: int = 2,
                 render_mode: str | None = None):
        self.rules = preset(rules, players=players)
        if seat not in range(players):
            raise ValueError(f"seat must be 0..{players - 1} with {players} players, not {seat!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.seat, self.opponent, self.render_mode = seat, opponent, render_mode
        self.bots = [None if s == seat else make_policy(opponent) for s in range(players)]
        self.observation_space = observation_space()
        self.action_space = spaces.Discrete(N_ACTIONS)
        self.table: Table | None = None
        self.game_seed: int | None = None
        """The engine seed of the game being played (Dealer(game_seed) deals it)."""
        self.done = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game and let the bots play up to the seat's first turn: (observation, info)."""
        super().reset(seed=seed)
        bot_seeds = [int(s) for s in self.np_random.integers(SEED_RANGE, size=self.rules.players)]
        for game_seed in game_seeds(seed, self.np_random):
            self.table = Table(self.rules, self.bots, Dealer(game_seed))
            self.table.start(seeds=bot_seeds)
            self.table.run()
            if not self.table.over:
                break
        self.game_seed, self.done = game_seed, False
        return observation(self.table.state, self.seat), info(self.table.state, self.seat)

    def step(self, action):
        """Play the seat's action, then the bots' moves up to its next turn or the end:
        (observation, reward, terminated, truncated, info)."""
        if self.done:
            raise RuntimeError("the episode is over: call reset() first")
        try:
            self.table.play(as_action(action))
        except IllegalMove as e:
            self.done = True
            found = info(self.table.state, self.seat)
            found["illegal_move"] = f"{e} ({e.reason})"
            return observation(self.table.state, self.seat), -1.0, True, False, found
        self.table.run()
        state = self.table.state
        self.done = state.is_over
        reward = 0.0 if not self.done else 1.0 if state.winner == self.seat % 2 else -1.0
        return observation(state, self.seat), reward, self.done, False, info(state, self.seat)

    def render(self):
        """The table as the seat sees it (text), with render_mode "ansi"."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: choose render_mode='ansi'")
            return None
        return render(self.table.state, self.seat) if self.table is not None else ""
