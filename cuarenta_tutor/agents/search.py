"""Provides the search bot: perfect-information Monte Carlo (PIMC) over sampled worlds.

For each of N worlds consistent with what the seat knows (engine.determinize: unseen cards redrawn,
announced rondas respected), every legal move is played out at a table of experts to the end of the
deal (or of the hand, with horizon "hand"); the move with the best mean outcome wins. The outcome is
the change in the score difference (mover's team minus the other) to the horizon, cartón included,
plus a large bonus or penalty when the game is won or lost on the way, and at a deal horizon the
captured-card difference at the expert's card weight. Every move is scored in the same worlds
(common random numbers), and ties go to the expert's own preference. It never reads a hidden card. Where the
seat knows every card (engine.knows_every_card) every world is the true one: it is played once, weighed as all
(agents/known.py gives the same outcomes without drawing: encoding version 3 reads them as a move feature).

With `infer`, the worlds are weighted by what the other seats' plays of the deal reveal (agents/belief.py):
a world where the opponent trailed beside a card it could have taken with its hand is unlikely, and the
playouts go to the likely worlds instead of to all of them alike.

With `carton`, a deal's end is valued by the cartón the piles will bring at the hand's end (agents/carton.py:
the rules' 20-card threshold, the cut-off, a game won by it) instead of a fixed worth a card. With `solve=K`,
once K cards or fewer are left in the hands of a world, the rest of the deal is solved exactly (alpha-beta,
every seat playing its best knowing that world's cards) instead of played out by experts.
"""

from __future__ import annotations

from ..engine import Dealer, State, apply, determinize, knows_every_card, legal_actions
from ..table import Decision, Table
from .base import BasePolicy
from .belief import Plays, weighted_worlds
from .carton import ExpectedCarton
from .expert import ExpertPolicy, move_values
from .known import WIN_OUTCOME, end_outcome

MAX_WORLDS = 10_000
"""The most sampled worlds a move is judged in (a search, an analysis, a level): at tens of milliseconds a world,
minutes a position, where more would run without end in any useful sense."""


class SearchPolicy(BasePolicy):
    """PIMC with `samples` sampled worlds per decision, expert playouts to the end of the deal or hand."""

    DEFAULT_SAMPLES = 48

    def __init__(self, samples: int = DEFAULT_SAMPLES, rng=None, horizon: str = "deal", infer: bool = False,
                 carton: bool = False, solve: int = 0):
        super().__init__(rng)
        if horizon not in ("deal", "hand"):
            raise ValueError("horizon must be 'deal' or 'hand'")
        self.horizon = horizon
        if not 1 <= samples <= MAX_WORLDS:
            raise ValueError(f"search needs 1 to {MAX_WORLDS} sampled deals, not {samples}")
        self.samples = samples
        options = ("@infer" if infer else "") + ("@carton" if carton else "") + (f"@solve={solve}" if solve else "")
        self.name = f"search:{samples}{options}"
        self.solve = solve
        self.carton = ExpectedCarton(WIN_OUTCOME) if carton else None
        self._rollout = ExpertPolicy()
        self.infer = infer
        self.plays = Plays()
        self.ends = None
        """`ends(worlds, actions)`: every action's playout in every world to the deal's end, compiled (core/search.py
        ends_of, set by the layer above where it serves), or None, when the playouts are Python's."""
        self.values = move_values
        """The expert's move values the belief judges the other seats' plays by: move_values, or the same numbers
        compiled (core/search.py values_of, set by the layer above)."""

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.plays.reset(seat)

    def observe(self, state: State, events: tuple) -> None:
        if self.infer:
            self.plays.observe(state, events)

    def decide(self, state: State) -> Decision:
        legal = legal_actions(state)
        if len(legal) == 1:
            return Decision(legal[0], {legal[0]: 1.0}, model_id=self.name)
        means = self.move_means(state)
        prefer = move_values(state)
        best = max(legal, key=lambda a: (round(means[a], 6), prefer[a], -a))
        return Decision(best, {a: float(a == best) for a in legal}, model_id=self.name)

    def move_means(self, state: State, samples: int | None = None) -> dict[int, float]:
        """Every legal move's mean outcome (points of score difference for the mover's team) over `samples`
        worlds (default: the policy's)."""
        totals = self.move_totals(state, samples or self.samples)
        return {a: t / (samples or self.samples) for a, t in totals.items()}

    def move_totals(self, state: State, samples: int) -> dict[int, float]:
        """Every legal move's summed outcome over `samples` worlds (sums of several calls make one mean)."""
        legal = legal_actions(state)
        team = state.turn & 1
        totals = dict.fromkeys(legal, 0.0)
        if self.infer:
            worlds = weighted_worlds(state, state.turn, self.plays.of_deal(state), samples, self.rng, self.values)
        else:
            worlds = [(determinize(state, state.turn, self.rng), 1) for _ in range(samples)]
        if knows_every_card(state):
            # every world is the true one: play it once, weighed as all (all drawn: the seed's sequence stays)
            worlds = [(worlds[0][0], sum(copies for _, copies in worlds))]
        compiled = self.ends is not None and self.horizon == "deal" and not self.solve
        ends = self.ends([w.state for w, _ in worlds], legal) if compiled else None
        if ends is not None:  # the same outcomes from the compiled playouts' ends
            for w, (world, copies) in enumerate(worlds):
                for m, a in enumerate(legal):
                    totals[a] += copies * self.end_value(ends[w, m], world.state, team)
            return totals
        for world, copies in worlds:
            dealer = Dealer.for_world(world.state, world.stock_order) if self.horizon == "hand" else None
            for a in legal:
                totals[a] += copies * self.playout(world.state, dealer, a, team)
        return totals

    def playout(self, world: State, dealer: Dealer | None, action: int, team: int) -> float:
        """Outcome for `team` of playing `action` in `world`, then experts to the horizon (the end of the
        deal, or of the hand with the world's later deals from `dealer`)."""
        if self.horizon == "deal" and sum(map(len, world.hands)) <= self.solve:
            after, _ = apply(world, action)
            return self.solved(after, world, team, -float("inf"), float("inf"))
        table = Table(world.rules, [self._rollout] * world.rules.players, state=world)
        table.play(action)
        while True:
            table.run()
            state = table.state
            if self.horizon == "deal" or not state.needs_deal or state.hand_no != world.hand_no:
                break
            table.deal(dealer.next_cards(state))
        return self.outcome(state, world, team)

    def solved(self, state: State, world: State, team: int, alpha: float, beta: float) -> float:
        """`team`'s outcome of `state` with every seat playing its best to the end of the deal, knowing the
        world's cards (alpha-beta over the deal's last plays; `solve` bounds the cards in hands where it is
        used, so the tree stays small)."""
        if state.needs_deal or state.is_over or state.hand_no != world.hand_no:
            return self.outcome(state, world, team)
        mine = (state.turn & 1) == team
        best = -float("inf") if mine else float("inf")
        for a in legal_actions(state):
            value = self.solved(apply(state, a)[0], world, team, alpha, beta)
            if mine:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

    def end_value(self, end, world: State, team: int) -> float:
        """`outcome` of a compiled playout's end (core/search.py END_* fields)."""
        return self.outcome_at((int(end[0]), int(end[1])), int(end[4]), int(end[5]), (int(end[2]), int(end[3])),
                               int(end[6]), world, team)

    def outcome(self, state: State, world: State, team: int) -> float:
        """`team`'s outcome of the plays from `world` to `state`, the horizon (see the module's docstring)."""
        return self.outcome_at(tuple(state.scores), state.winner, state.hand_no, tuple(map(len, state.piles)),
                               state.dealer, world, team)

    def outcome_at(self, scores: tuple, winner: int, hand_no: int, piles: tuple, dealer: int, world: State,
                   team: int) -> float:
        """`outcome` of an end given by its scores, winner (-1: none), hand, pile sizes and dealer."""
        if self.carton is None or winner >= 0 or hand_no != world.hand_no:
            return end_outcome(scores, winner, hand_no, piles, world, team)
        diff = scores[team] - scores[1 - team] - (world.scores[team] - world.scores[1 - team])
        return diff + self.carton.value_at(piles, scores, dealer, world.rules, team) - self.carton.value(world, team)

