"""Provides Cuarenta as an OpenSpiel game, `python_cuarenta`, and OpenSpiel's IS-MCTS as a policy of ours.

- Parameters: `rules` (a preset's name, default "standard"), `players` (2 or 4), `max_hands` (1 to 10000,
  default 100: a game still going after that many hands ends drawn, every return 0, so the game has the finite
  length OpenSpiel needs; random play ends long before).
- Chance nodes: the first dealer (one outcome per seat), then every card of every deal, one card a node,
  drawn uniformly from the stock (outcome = card id 0..39); a deal's cards go out in dealing order
  (`engine.deal`), and its announcements are scored there.
- Actions: the 53-action table (engine/actions.py), the same ids as the rest of the project.
- Information state: the public history (the first dealer, every play with its card, every announcement)
  and the player's own hand: perfect recall, since every card a seat held was played in public before the
  next deal. Its tensor, and the observation tensor, is our encoding (encoding.py), which summarises that
  history. The observation string is our text renderer from the player's view.
- Returns: +1 to each seat of the winning team, -1 to the others.
- `resample_from_infostate` redraws the cards the player cannot see (engine.determinize), so OpenSpiel's
  IS-MCTS can search it; `OpenSpielPolicy` ("openspiel:ismcts[:SIMS]" in the arena) runs that search with
  random rollouts to the end of the hand, valued by the change in score lead.
"""

from __future__ import annotations

import copy
import random
from functools import lru_cache

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts
from open_spiel.python.algorithms.mcts import Evaluator

from ..agents.features import encode
from ..encoding import N_ACTIONS, OBS_SIZE
from ..engine import (
    FourOfAKind,
    Ronda,
    action_to_string,
    apply,
    card_str,
    cards_per_deal,
    deal,
    determinize,
    initial_state,
    legal_actions,
    preset,
    render,
)
from ..engine.cards import DECK_SIZE
from ..table import Decision

NAME = "python_cuarenta"
MAX_HANDS = 100
HANDS_LIMIT = 10_000
"""The largest `max_hands` taken: a game of no hands would end before it starts, and OpenSpiel sizes what it
keeps by the game's longest length."""
PLAYS_PER_HAND = DECK_SIZE
"""Every card of a hand is played once (the same with 2 or 4 players)."""


def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=NAME, long_name="Python Cuarenta", dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4, min_num_players=2, provides_information_state_string=True,
        provides_information_state_tensor=True, provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"rules": "standard", "players": 2, "max_hands": MAX_HANDS})


class CuarentaGame(pyspiel.Game):
    """The game for one rules preset and player count."""

    def __init__(self, params=None):
        params = dict(params or {})
        players, max_hands = int(params.get("players", 2)), int(params.get("max_hands", MAX_HANDS))
        if players not in (2, 4):
            raise ValueError(f"python_cuarenta is for 2 or 4 players, not {players}")
        if not 1 <= max_hands <= HANDS_LIMIT:
            raise ValueError(f"python_cuarenta's max_hands must be 1 to {HANDS_LIMIT}, not {max_hands}")
        self.rules = preset(str(params.get("rules", "standard")), players=players)
        self.max_hands = max_hands
        info = pyspiel.GameInfo(num_distinct_actions=N_ACTIONS, max_chance_outcomes=DECK_SIZE, num_players=players,
                                min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=1 + max_hands * (PLAYS_PER_HAND + DECK_SIZE))
        super().__init__(_game_type(), info, params)

    def new_initial_state(self):
        return CuarentaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = bool(iig_obs_type and iig_obs_type.perfect_recall)
        return CuarentaObserver(perfect_recall, params)

    def state_from(self, state, history=()) -> CuarentaState:
        """An OpenSpiel state at an engine position (awaiting a play), with `history` as its public history."""
        out = CuarentaState(self)
        out.engine, out.public = state, list(history)
        return out


class CuarentaState(pyspiel.State):
    """A game in progress: the engine state, the cards drawn so far for the deal under way, the public
    history."""

    def __init__(self, game: CuarentaGame):
        super().__init__(game)
        self.rules, self.max_hands = game.rules, game.max_hands
        self.engine = None
        """The engine State (None until the first dealer is drawn)."""
        self.pending: list = []
        """Cards drawn for the deal under way."""
        self.public: list = []
        """What every seat has seen, in order."""

    def __deepcopy__(self, memo):  # engine states are immutable: share them
        out = copy.copy(self)
        out.pending, out.public = list(self.pending), list(self.public)
        return out

    def _dealing(self) -> bool:
        s = self.engine
        return s is None or (not s.is_over and not any(s.hands) and bool(s.stock))

    def _truncated(self) -> bool:
        return self.engine is not None and self.engine.hand_no >= self.max_hands

    def current_player(self):
        if self.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self._dealing():
            return pyspiel.PlayerId.CHANCE
        return self.engine.turn

    def is_terminal(self):
        return self.engine is not None and (self.engine.is_over or self._truncated())

    def _legal_actions(self, player):
        return sorted(legal_actions(self.engine))

    def chance_outcomes(self):
        if self.engine is None:
            n = self.rules.players
            return [(seat, 1.0 / n) for seat in range(n)]
        left = sorted(set(self.engine.stock) - set(self.pending))
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action):
        if self.engine is None:
            self.engine = initial_state(self.rules, int(action))
            self.public.append(f"dealer {action}")
            return
        if self._dealing():
            self.pending.append(int(action))
            if len(self.pending) == cards_per_deal(self.rules):
                self.engine, events = deal(self.engine, self.pending)
                self.pending = []
                self.public.append(" ".join(["deal"] + _announced(events)))
            return
        self.engine, events = apply(self.engine, int(action))
        played = events[0]
        self.public.append(f"{played.seat}:{action_to_string(action)}:{card_str(played.card, ascii_only=True)}")

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"dealer {action}" if self.engine is None else f"card {card_str(action, ascii_only=True)}"
        return action_to_string(action)

    def returns(self):
        n = self.rules.players
        if self.engine is None or not self.engine.is_over:
            return [0.0] * n
        return [1.0 if seat % 2 == self.engine.winner else -1.0 for seat in range(n)]

    def information_state_string(self, player=None):
        return info_string(self, self.current_player() if player is None else player)

    def observation_string(self, player=None):
        return observation_string(self, self.current_player() if player is None else player)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state the player cannot tell from this one: the cards it cannot see redrawn."""
        if self.engine is None or self.pending:
            return self.clone()
        rng = random.Random(int(probability_sampler() * 2**31))
        out = self.clone()
        out.engine = determinize(self.engine, player_id, rng).state
        return out

    def __str__(self):
        if self.engine is None:
            return "awaiting the first dealer"
        return render(self.engine, max(0, self.engine.turn), ascii_only=True)


def _announced(events) -> list[str]:
    """The public part of a deal's announcements (a ronda's rank stays secret until it is played)."""
    out = []
    for e in events:
        if isinstance(e, Ronda):
            out.append(f"ronda {e.seat}")
        elif isinstance(e, FourOfAKind):
            out.append(f"four {e.seat}")
    return out


def info_string(state: CuarentaState, player: int) -> str:
    """The public history and the player's own hand."""
    seen = state.engine is not None and 0 <= player < len(state.engine.hands)
    hand = " ".join(card_str(c, ascii_only=True) for c in state.engine.hands[player]) if seen else ""
    return f"p{player}|{'|'.join(state.public)}|hand {hand}"


def observation_string(state: CuarentaState, player: int) -> str:
    if state.engine is None:
        return "awaiting the first dealer"
    return render(state.engine, max(0, player), ascii_only=True)


@lru_cache(maxsize=4096)
def _encoded(engine_state, player: int) -> np.ndarray:
    """encode(), kept for the states seen last: OpenSpiel asks for the same state's tensor again (every player's
    view, a state read back from its serialization, a resampled one), and late in 2 v 2's last deal the encoding
    plays each move out over sampled worlds (milliseconds). Engine states are immutable values; read-only."""
    vector = encode(engine_state, player)
    vector.flags.writeable = False
    return vector


class CuarentaObserver:
    """OpenSpiel's observer: our encoding as the tensor; the history (perfect recall) or the rendered view as
    the string."""

    def __init__(self, perfect_recall: bool, params=None):
        if params:
            raise ValueError(f"python_cuarenta takes no observation parameters, not {params}")
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CuarentaState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = _encoded(state.engine, player)

    def string_from(self, state: CuarentaState, player: int) -> str:
        return info_string(state, player) if self.perfect_recall else observation_string(state, player)


pyspiel.register_game(_game_type(), CuarentaGame)


class HandRolloutEvaluator(Evaluator):
    """Values a state by random play to the end of the hand: each team's change in score lead, scaled to
    -1..1 (+-1 for a won or lost game). A full game of random play per simulation would be ten times slower
    and hardly better informed."""

    def __init__(self, rng: np.random.RandomState):
        self.rng = rng

    def evaluate(self, state):
        working = state.clone()
        start, hand = working.engine.scores, working.engine.hand_no
        while not working.is_terminal() and working.engine.hand_no == hand:
            if working.is_chance_node():
                outcomes = working.chance_outcomes()
                working.apply_action(outcomes[self.rng.randint(len(outcomes))][0])
            else:
                actions = working.legal_actions()
                working.apply_action(actions[self.rng.randint(len(actions))])
        if working.engine.is_over:
            return np.array(working.returns())
        lead = (working.engine.scores[0] - start[0]) - (working.engine.scores[1] - start[1])
        value = max(-1.0, min(1.0, lead / 20.0))
        return np.array([value if seat % 2 == 0 else -value for seat in range(working.rules.players)])

    def prior(self, state):
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


class OpenSpielPolicy:
    """OpenSpiel's IS-MCTS bot (open_spiel.python.algorithms.ismcts) playing at our table: each decision it
    searches `simulations` times from worlds consistent with what its seat knows."""

    DEFAULT_SIMULATIONS = 100

    def __init__(self, rules=None, simulations: int = DEFAULT_SIMULATIONS, seed: int = 0):
        self.simulations, self.seed = simulations, seed
        self.name = f"openspiel:ismcts:{simulations}"
        self.rules = rules
        self.seat = 0
        self._setup(seed)

    def _setup(self, seed: int) -> None:
        self.rng = np.random.RandomState(seed % 2**32)
        self._games: dict = {}

    def _game(self, rules) -> CuarentaGame:
        if rules not in self._games:
            game = pyspiel.load_game(NAME, {"players": rules.players})
            game.rules = rules  # the table's rules (any preset or variant)
            self._games[rules] = game
        return self._games[rules]

    def reset(self, seat: int, seed: int | None = None) -> None:
        self.seat = seat
        self._setup(self.seed if seed is None else seed)

    def observe(self, state, events) -> None:
        """Nothing to remember: each search starts from the position (its tree keys need no history)."""

    def decide(self, state) -> Decision:
        game = self._game(state.rules)
        seen = determinize(state, state.turn, random.Random(int(self.rng.randint(2**31)))).state  # no peeking
        root = game.state_from(seen)
        bot = ismcts.ISMCTSBot(game, HandRolloutEvaluator(self.rng), uct_c=2.0, max_simulations=self.simulations,
                               random_state=self.rng)
        bot.set_resampler(lambda s, player: s.resample_from_infostate(player, self.rng.random_sample))  # seeded
        policy = dict(bot.run_search(root))
        action = max(policy, key=lambda a: (policy[a], -a))
        return Decision(int(action), {int(a): float(p) for a, p in policy.items()}, model_id=self.name)
