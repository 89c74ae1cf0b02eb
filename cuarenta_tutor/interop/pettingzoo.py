"""Provides Cuarenta as a PettingZoo AEC environment, `cuarenta_v0`: `env(**kwargs)` (with PettingZoo's usual
wrappers) and `raw_env`.

- Agents: `player_0` .. `player_{n-1}`, one a seat; seat % 2 is the team (partners opposite in 2 v 2). They
  move in the game's turn order, which is not a fixed cycle: the seat after the dealer leads each hand.
- Arguments: `players` (2 or 4), `rules` (a preset's name, engine PRESETS), `render_mode` (None or "ansi").
- Observation: a Dict of `observation`, our encoding from the agent's seat (encoding.py, float32,
  OBS_SIZE), and `action_mask`, int8 over the 53 actions: the legal ones for the agent to move, zeros for
  the others. Action: Discrete(53), the fixed action table (engine/actions.py).
- Rewards: 0 until the end; then +1 to each agent of the winning team, -1 to the others, and every agent
  is terminated. `infos[agent]`: its legal actions (empty when not to move) and the scores per team.
- `reset(seed=s)` plays the engine's game of seed s (`Dealer(s)`: the deals, as chance steps inside the
  Dealer, and the first dealer); without a seed one is drawn from the environment's `np_random`. A game
  won on its first deal (four of a kind) has no move to play: it is skipped for a seed drawn from it.
- Illegal actions: `raw_env.step` raises the engine's IllegalMove (a ValueError) naming the rule, and
  the game is unchanged; `env()` wraps it in PettingZoo's TerminateIllegalWrapper as the classic games do,
  so there an illegal action ends the game: -1 to the agent that made it, 0 to the others.
- `render()` with render_mode "ansi" returns the text view of the table from the agent to move
  (engine/render.py: its own hand shown, the others' counted).
"""

from __future__ import annotations

import gymnasium
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..encoding import N_ACTIONS
from ..engine import Dealer, preset, render
from .gymnasium_env import as_action, game_seeds, info, observation, observation_space


def env(**kwargs) -> AECEnv:
    """The environment with PettingZoo's wrappers: an illegal action loses, an action outside the table is an
    assertion error, and calls out of order are refused."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):
    """A game of Cuarenta for 2 or 4 agents; `game` is the engine state, `game_seed` the seed it was dealt from."""

    metadata = {"render_modes": ["ansi"], "name": "cuarenta_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: str = "standard", render_mode: str | None = None):
        super().__init__()
        self.rules = preset(rules, players=players)
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(players)]
        self.seats = {agent: s for s, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: observation_space() for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(N_ACTIONS) for agent in self.possible_agents}
        self.np_random = None
        self.dealer = self.game = self.game_seed = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game (see the module docstring for the seed)."""
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed)
        for game_seed in game_seeds(seed, self.np_random):
            self.dealer = Dealer(game_seed)
            self.game, _ = self.dealer.start(self.rules)
            if not self.game.is_over:
                break
        self.game_seed = game_seed
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._update()

    def observe(self, agent):
        return observation(self.game, self.seats[agent])

    def step(self, action) -> None:
        """Play `action` for the agent to move (IllegalMove if the rules forbid it), deal when a deal is due, and
        score the end of the game."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game, _ = self.dealer.play(self.game, as_action(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.game.is_over:
            for a in self.agents:
                self.rewards[a] = 1.0 if self.seats[a] % 2 == self.game.winner else -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        self._update()

    def _update(self) -> None:
        """Point agent_selection at the seat to move and refresh the infos."""
        self.agent_selection = self.possible_agents[self.game.turn]
        self.infos = {a: info(self.game, self.seats[a]) for a in self.agents}

    def render(self):
        """The table as the agent to move sees it (text), with render_mode "ansi"."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: choose render_mode='ansi'")
            return None
        return render(self.game, self.seats[self.agent_selection])

    def close(self) -> None:
        """Nothing to release."""
