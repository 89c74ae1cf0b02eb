"""Provides the game state value, the typed events, IllegalMove, and the ways to build a state.

State and events are typed NamedTuples: immutable values like frozen dataclasses, but about ten
times cheaper to build, which matters because every play builds one (see `bench engine`). A state
holds no seed and no future deck: the stock is the set of cards not yet dealt, and who deals them
in which order is the dealer's business (dealing.py).
"""

from __future__ import annotations

from typing import NamedTuple

from ..i18n import _
from .actions import pack
from .cards import card_str, make_card, parse_card, parse_rank, rank_of
from .rules import Rules

RULE_OF = {
    "game_over": "R-WIN-2", "deal_first": "R-DEAL-3", "no_deal_due": "R-DEAL-3", "bad_deal": "R-DEAL-3",
    "not_in_hand": "R-TURN-2", "wrong_card": "R-TURN-2", "no_match": "R-CAP-MATCH", "bad_match": "R-CAP-MATCH",
    "sum_too_long": "R-CAP-SUM", "face_sum": "R-CAP-SUM", "face_in_sum": "R-CAP-SUM", "short_sum": "R-CAP-SUM",
    "bad_sum": "R-CAP-SUM", "bad_kind": "R-CAP-OPTIONS", "not_on_table": "R-CAP-OPTIONS", "illegal": "R-CAP-OPTIONS",
    "one_capture": "R-CAP-ONE", "forced_capture": "R-CAP-OPT", "trail_takes": "R-CAP-TRAIL", "too_many": "R-DECK-1",
}
"""The rule of RULES.md each refusal of the engine breaks, by its reason code."""


class IllegalMove(ValueError):
    """A move the rules forbid; `reason` is a short code, the message says why in plain words and ends with the
    rule it breaks (`rule`, RULES.md's id; None for a refusal that is not the rules', such as the app's)."""

    def __init__(self, message: str, reason: str = "illegal"):
        self.rule = RULE_OF.get(reason)
        super().__init__(f"{message} ({self.rule})" if self.rule else message)
        self.reason = reason


class State(NamedTuple):
    """One moment of a game, as every seat's cards and the public record of the hand."""

    rules: Rules
    hand_no: int
    """0-based hand (data) of the game."""
    dealer: int
    deal_no: int
    """0-based deal within the hand (the last one dealt while the next deal is awaited)."""
    turn: int
    """The seat to play (while a deal is awaited: the seat that will lead it)."""
    hands: tuple
    """Per seat, the cards in hand (sorted)."""
    table: tuple
    """Cards on the table, oldest first."""
    table_packed: int
    """The table's rank counts, packed (see actions.pack)."""
    stock: tuple
    """Cards not yet dealt in this hand, sorted: which come next is chance, not part of the state."""
    piles: tuple
    """Per team, the cards captured this hand."""
    scores: tuple
    """Per team, the game score."""
    trailed: int
    """The rank the previous player just trailed in this deal (a caída target), or -1."""
    rondas: tuple
    """Per seat, the rank of the ronda (or doble ronda) dealt in this deal, or -1. That a seat has one is
    public; the rank is private (R-ANN-6)."""
    played: tuple
    """Per seat, the cards it has played in this deal, in order (public)."""
    last_capturer: int
    """The team that captured last in this hand, or -1."""
    winner: int
    """The winning team, or -1 while the game goes on."""
    discarded: tuple
    """Table cards left over at the end of the last hand (kept when the game ended there)."""
    plays: int
    """Cards played so far in the game."""

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.winner >= 0

    @property
    def needs_deal(self) -> bool:
        """Whether the next step is a deal (a chance step), not a play: every hand is empty, cards remain."""
        return not self.is_over and not any(self.hands) and bool(self.stock)

    def team_of(self, seat: int) -> int:
        return seat & 1

    def __deepcopy__(self, memo) -> State:
        """The state itself: an immutable value has no parts to copy (OpenSpiel deep-copies a game state's attributes
        on every clone)."""
        return self


# Events: what a play, a deal or the end of a hand did, in order.
class Dealt(NamedTuple):
    hand_no: int
    deal_no: int
    dealer: int


class Ronda(NamedTuple):
    """A seat was dealt three of a kind ("ronda") or, with four_of_a_kind="points", four ("doble_ronda").
    The rank is secret (R-ANN-6), so it is not in the event."""
    seat: int
    team: int
    points: int
    kind: str = "ronda"


class FourOfAKind(NamedTuple):
    """A seat was dealt four of a kind: its team wins at once (four_of_a_kind="win")."""
    seat: int
    team: int


class Played(NamedTuple):
    seat: int
    card: int
    action: int
    captured: tuple
    """Table cards taken (base + escalera); empty for a trail."""


class Caida(NamedTuple):
    seat: int
    team: int
    points: int
    ronda_bonus: int
    """Extra points for a caída on the previous player's ronda rank (0 if none or blocked)."""


class Limpia(NamedTuple):
    seat: int
    team: int
    points: int
    """0 when the team was at or above limpia_cutoff (the table was still cleared)."""


class HandEnded(NamedTuple):
    hand_no: int
    captured: tuple
    """Cards per team after leftovers were settled."""
    leftover: tuple
    """Table cards nobody took."""
    carton: tuple
    """Cartón points per team."""


class GameWon(NamedTuple):
    team: int
    scores: tuple


def _has_suit(text: str) -> bool:
    text = text.strip()
    return len(text) >= 2 and text[-1] not in "0123456789AJQKajqk"


def cards_for(ranks, used: set[int], reserved: frozenset | set = frozenset()) -> list[int]:
    """Physical cards for a list of ranks (or card strings), taking suits not yet in `used` and not
    `reserved` for a card named elsewhere."""
    out = []
    for item in ranks:
        if isinstance(item, str) and _has_suit(item):
            card = parse_card(item)
        else:
            rank = parse_rank(item) if isinstance(item, str) else int(item)
            free = [make_card(rank, s) for s in range(4) if make_card(rank, s) not in used | reserved]
            if not free:
                raise ValueError(_("more than four cards of rank {rank}").format(rank=repr(item)))
            card = free[0]
        if card in used:
            raise ValueError(_("card {card} appears twice").format(card=repr(item)))
        used.add(card)
        out.append(card)
    return out


def make_position(rules: Rules | None = None, *, hands, table=(), turn: int = 0, dealer: int | None = None,
                  scores=(0, 0), piles=((), ()), stock=(), trailed=None, rondas=None, deal_no: int = 0,
                  hand_no: int = 0, last_capturer: int = -1) -> State:
    """Build any position from ranks or card strings (for tests, lessons and rule cases).

    `hands` is one list per seat; `trailed` the rank the previous player just trailed (or None);
    `rondas` per seat the ronda rank dealt this deal (or None). Cards need not add up to 40. With
    every hand empty and a stock, the position awaits a deal (see play.deal).
    """
    rules = rules or Rules()
    n = rules.players
    if len(hands) != n:
        raise ValueError(_("{n} players need {n} hands, got {got}").format(n=n, got=len(hands)))
    if not 0 <= turn < n:
        raise ValueError(_("turn must be a seat 0..{last}").format(last=n - 1))
    used: set[int] = set()
    # Cards named with a suit are placed first, so a plain rank never takes a suit named later.
    groups = [*hands, table, *piles, stock]
    named = [parse_card(x) for g in groups for x in g if isinstance(x, str) and _has_suit(x)]
    duplicates = {card_str(c) for c in named if named.count(c) > 1}
    if duplicates:
        raise ValueError(_("card {card} appears twice").format(card=repr(sorted(duplicates)[0])))
    reserved = set(named)
    hand_cards = tuple(tuple(sorted(cards_for(h, used, reserved))) for h in hands)
    table_cards = tuple(cards_for(table, used, reserved))
    pile_cards = tuple(tuple(cards_for(p, used, reserved)) for p in piles)
    stock_cards = tuple(cards_for(stock, used, reserved))
    to_rank = lambda r: -1 if r is None else (parse_rank(r) if isinstance(r, str) else int(r))  # noqa: E731
    ronda_ranks = tuple(to_rank(r) for r in (rondas or [None] * n))
    return State(rules, hand_no, (turn - 1) % n if dealer is None else dealer, deal_no, turn,
                 hand_cards, table_cards, pack(rank_of(c) for c in table_cards), tuple(sorted(stock_cards)),
                 pile_cards, tuple(scores), to_rank(trailed), ronda_ranks, ((),) * n, last_capturer, -1, (), 0)
