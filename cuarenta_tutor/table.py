"""Provides the table: the one match loop of the project.

A `Table` seats 2 or 4 players (a policy, or None for a person whose moves arrive through `play`),
steps the engine (plays, and deals from its `Dealer` as their own chance step), feeds every seated
policy what it may observe, and returns a `Step` for every move. The arena, the game session, review,
training rollouts, the search bot's playouts and the benchmarks all play through it; 2 v 2 is a
seating, not another code path. Only the engine is imported here: seats are anything with the
`Policy` methods (reset, observe, decide), defined here with the `Decision` every policy returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, runtime_checkable

from .engine import Dealer, Rules, State, apply, deal, initial_state
from .engine.dealing import first_dealer
from .i18n import _


@dataclass(frozen=True)
class Decision:
    """What a policy chose, and what it thinks of the position (for hints, review and calibration)."""

    action: int
    """The chosen action id."""
    probs: dict[int, float] = field(default_factory=dict)
    """Probability of every legal action (empty when the policy has none to give)."""
    value: float | None = None
    """Win probability of the deciding seat's team before the move, if the policy estimates one."""
    action_values: dict[int, float] = field(default_factory=dict)
    """Win probability after each legal action, from the mover's point of view."""
    model_id: str = ""
    """Which policy or model made the decision (a model's sha256 for the ONNX agent)."""


@runtime_checkable
class Policy(Protocol):
    """A player: `reset` before a game, `observe` every play and deal, `decide` on its turns."""

    name: str

    def reset(self, seat: int, seed: int | None = None) -> None:
        """Start a game in `seat`; `seed` re-seeds the policy's own RNG (duplicate matches need it)."""

    def observe(self, state: State, events: tuple) -> None:
        """See the events of a play (any seat's) and the state after it."""

    def decide(self, state: State) -> Decision:
        """Choose a legal action for the seat on turn."""


class Step(NamedTuple):
    """One move at the table: who, what, and what it did (a following deal's events included)."""

    seat: int
    action: int
    card: int
    """The card played."""
    events: tuple
    before: State
    after: State
    decision: object = None
    """The policy's Decision, when a seated policy chose the move."""
    seconds: float = 0.0
    """Time the policy took to decide."""


class Table:
    """One game: `seats` per seat a policy or None (a person), cards from `dealer` (None: the table stops
    when a deal is due, as a playout that ends at the deal does).

    `watchers` are (seat, policy) pairs that observe a seat's view but never play (the coach beside a
    person). `state` starts the table from a position instead of a new game (a sampled world)."""

    def __init__(self, rules: Rules, seats, dealer: Dealer | None = None, state: State | None = None,
                 watchers=()):
        if len(seats) != rules.players:
            raise ValueError(_("{n} players need {n} seats, got {got}").format(n=rules.players, got=len(seats)))
        self.rules, self.seats, self.dealer = rules, list(seats), dealer
        self.policies = [(s, p) for s, p in enumerate(self.seats) if p is not None] + list(watchers)
        self.state = state

    def start(self, first: int | None = None, seeds=None, scores=(0, 0)) -> tuple:
        """Reset every seated policy and watcher (with its seat's seed from `seeds`), deal the first hand (`first`
        deals; default: drawn from the dealer's seed) and let every seat observe it. Returns its events.

        Without a dealer the game waits for its first deal (`first` must be given): `deal(cards)` makes it."""
        if first is None:
            if self.dealer is None:
                raise ValueError(_("a table without a dealer needs the first dealer's seat (first=...)"))
            first = first_dealer(self.dealer.seed, self.rules.players)
        for seat, policy in self.policies:
            policy.reset(seat, seed=None if seeds is None else seeds[seat])
        self.state = initial_state(self.rules, first, scores)
        if self.dealer is None:
            return ()
        self.state, events = self.dealer.deal(self.state)
        self.observe(events)
        return events

    # ---- the loop ---------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.state.is_over

    @property
    def to_move(self):
        """The policy on turn, or None when a person (or an outside driver) must move."""
        return self.seats[self.state.turn]

    def observe(self, events: tuple) -> None:
        """Let every seated policy see the current state and the events that led to it."""
        for _seat, policy in self.policies:
            policy.observe(self.state, events)

    def deal(self, cards) -> tuple:
        """Deal `cards` (a deal the table awaits, as play.deal takes them) and let every seat observe it."""
        self.state, events = deal(self.state, cards)
        self.observe(events)
        return events

    def play(self, action: int, card: int | None = None, decision=None, seconds: float = 0.0) -> Step:
        """Apply a move for the seat on turn (IllegalMove says why not), deal if one is due and there is a
        dealer, and let every seat observe."""
        return self.commit(self.move(action, card, decision, seconds))

    def move(self, action: int, card: int | None = None, decision=None, seconds: float = 0.0) -> Step:
        """What a move for the seat on turn would do (IllegalMove says why not), a deal it brings included,
        without making it: `commit` makes it (a caller that must save the move first works it out once)."""
        before = self.state
        if self.dealer is not None:
            after, events = self.dealer.play(before, action, card)
        else:
            after, events = apply(before, action, card)
        return Step(before.turn, action, events[0].card, events, before, after, decision, seconds)

    def commit(self, step: Step) -> Step:
        """Make a move worked out by `move` from the current state, and let every seat observe."""
        if step.before is not self.state:
            raise ValueError(_("this move was worked out from another position than the table's"))
        self.state = step.after
        self.observe(step.events)
        return step

    def decide(self):
        """The seated policy's decision for the seat on turn, and the seconds it took."""
        policy = self.to_move
        if policy is None:
            raise ValueError(_("seat {seat} is a person: their move comes through play()").format(
                seat=self.state.turn))
        start = time.perf_counter()
        decision = policy.decide(self.state)
        return decision, time.perf_counter() - start

    def step(self) -> Step:
        """The seat on turn (a policy) decides and plays."""
        decision, seconds = self.decide()
        return self.play(decision.action, decision=decision, seconds=seconds)

    def run(self, until=None) -> list[Step]:
        """Step until the game is over, a person is on turn, a deal is due with no dealer, or
        `until(step)` says stop; returns the steps. A deal due with a dealer (a table started from a
        position awaiting one) is dealt."""
        steps = []
        while not self.over:
            if self.state.needs_deal:
                if self.dealer is None:
                    break
                self.deal(self.dealer.next_cards(self.state))
                continue
            if self.to_move is None:
                break
            steps.append(self.step())
            if until is not None and until(steps[-1]):
                break
        return steps
