"""Provides the dealer: who shuffles, in which order the cards come, and the first dealer of a game.

Chance lives here and not in `State`: a `Dealer` holds the seed and any deck orders fixed in advance
(tests, duplicate matches, records, sampled worlds), and answers the cards of the next deal of a
state. The engine applies them with `play.deal`.
"""

from __future__ import annotations

import random

from ..i18n import _
from .cards import DECK_SIZE, parse_card
from .play import apply, cards_per_deal, deal, initial_state
from .rules import Rules
from .state import State


def seeded_deck(seed: int, hand_no: int) -> tuple:
    """The deck order of a hand shuffled from (seed, hand): the same on every machine and version."""
    deck = list(range(DECK_SIZE))
    random.Random(f"cuarenta:{seed}:{hand_no}").shuffle(deck)
    return tuple(deck)


def first_dealer(seed: int, players: int) -> int:
    """The first dealer of a seeded game (R-DEAL-2: chosen at random)."""
    return random.Random(f"cuarenta:{seed}:dealer").randrange(players)


def check_deck(deck) -> tuple:
    """A deck order as a tuple of the 40 distinct card ids; ValueError says what is wrong."""
    deck = tuple(parse_card(c) if isinstance(c, str) else c for c in deck)
    if len(deck) != DECK_SIZE or sorted(deck) != list(range(DECK_SIZE)):
        raise ValueError(_("a deck must hold each of the 40 cards once; got {cards} cards, {distinct} distinct").format(
            cards=len(deck), distinct=len(set(deck))))
    return deck


class Dealer:
    """Deals a game: hand h comes from `decks[h]` if given (a list for the first hands, or a dict by hand
    number), else shuffled from `seed`. Each deal gives the next cards of the hand's deck."""

    def __init__(self, seed: int = 0, decks=()):
        self.seed = seed
        items = decks.items() if isinstance(decks, dict) else enumerate(decks)
        self.decks = {h: check_deck(d) for h, d in items}
        """Deck orders by hand: the ones given, and the seed's once a hand has been dealt."""

    def deck(self, hand_no: int) -> tuple:
        """The deck order of a hand."""
        found = self.decks.get(hand_no)
        if found is None:
            found = self.decks[hand_no] = seeded_deck(self.seed, hand_no)
        return found

    def next_cards(self, state: State) -> tuple:
        """The cards of the deal `state` awaits, in dealing order."""
        deck = self.deck(state.hand_no)
        start = DECK_SIZE - len(state.stock)
        return deck[start:start + min(cards_per_deal(state.rules), len(state.stock))]

    def next_stock(self, state: State) -> tuple:
        """The order the rest of `state`'s stock will be dealt in."""
        return self.deck(state.hand_no)[DECK_SIZE - len(state.stock):]

    def deal(self, state: State) -> tuple[State, tuple]:
        """Deal the next cards to `state` (which must await a deal): (state, events)."""
        return deal(state, self.next_cards(state))

    def start(self, rules: Rules | None = None, dealer: int | None = None, scores=(0, 0)) -> tuple[State, tuple]:
        """A new game after its first deal, and that deal's events; the first dealer is drawn from the seed
        unless given."""
        rules = rules or Rules()
        if dealer is None:
            dealer = first_dealer(self.seed, rules.players)
        return self.deal(initial_state(rules, dealer, scores))

    def play(self, state: State, action: int, card: int | None = None, next_hand: bool = True) -> tuple[State, tuple]:
        """Apply a play and, when it ends a deal or a hand, deal the next cards: (state, all events). With
        `next_hand` False a play that ends the hand leaves the next hand awaiting its first deal."""
        hand_no = state.hand_no
        state, events = apply(state, action, card)
        if not any(state.hands) and state.stock and not state.is_over and (next_hand or state.hand_no == hand_no):
            state, dealt = self.deal(state)
            events += dealt
        return state, events

    @classmethod
    def for_world(cls, state: State, stock_order, seed: int = 0) -> Dealer:
        """A dealer that deals the rest of `state`'s hand in `stock_order` (a sampled world's), then later
        hands from `seed`."""
        order = set(stock_order)
        rest = [c for c in range(DECK_SIZE) if c not in order]
        return cls(seed, {state.hand_no: tuple(rest) + tuple(stock_order)})


def new_game(rules: Rules | None = None, seed: int = 0, dealer: int | None = None, decks=()) -> State:
    """A new game after its first deal (see Dealer.start); later deals need the same Dealer(seed, decks)."""
    return Dealer(seed, decks).start(rules, dealer)[0]
