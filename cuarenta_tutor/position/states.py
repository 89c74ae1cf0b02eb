"""Provides a seat's view of an engine state (from_state) and one engine state consistent with a view (to_state)."""

from __future__ import annotations

import random

from ..engine import DECK_SIZE, RANKS, State, preset, preset_name
from ..engine.actions import pack
from ..i18n import _
from .value import Position, refuse


def from_state(state: State, seat: int | None = None, known: bool = True) -> Position:
    """The view of the seat to move in an engine state (`seat`, if given, must be it): its hand, the table, the
    scores, the cartón counts, the stock, the card just trailed, and with `known` every captured card as gone."""
    seat = state.turn if seat is None else seat
    if seat != state.turn or state.is_over or state.needs_deal:
        refuse("seat", _("seat: a position is seen by the seat to move, in a game going on, not while a deal is "
                        "awaited"))
    name = preset_name(state.rules)
    if name is None:
        refuse("preset", _("preset: these rules are not a preset, and the line names only presets"))
    gone = sorted(c >> 2 for pile in state.piles for c in pile) if known else []
    return Position(name, state.rules.players, state.dealer, seat, tuple(state.scores),
                    tuple(len(p) for p in state.piles), tuple(sorted(c >> 2 for c in state.hands[seat])),
                    tuple(c >> 2 for c in state.table), None if state.trailed < 0 else state.trailed, len(state.stock),
                    tuple(gone))


def to_state(p: Position, rng: random.Random) -> State:
    """One engine state consistent with the position: the cards it names get suits, the unknown ones are dealt
    at random into the piles (beside the cards gone), the other hands and the stock. What the line does not hold
    is set plainly: hand 0, no rondas announced this deal, no cards recorded as played this deal (the plays made
    from here are), and the last capturer the side with more cards (the mover's opponents on a tie), or none while
    nothing was captured."""
    free = {r: [r * 4 + s for s in range(4)] for r in range(len(RANKS))}
    for cards in free.values():
        rng.shuffle(cards)

    def take(ranks) -> list:
        return [free[r].pop() for r in ranks]

    hand, table, gone = take(p.hand), take(p.table), take(p.gone)
    unknown = [c for cards in free.values() for c in cards]
    rng.shuffle(unknown)
    sizes = p.hand_sizes()
    hands = [()] * p.players
    hands[p.seat] = tuple(sorted(hand))
    for s in range(p.players):
        if s != p.seat:
            hands[s], unknown = tuple(sorted(unknown[:sizes[s]])), unknown[sizes[s]:]
    pooled = gone + unknown[:sum(p.carton) - len(gone)]
    unknown = unknown[sum(p.carton) - len(gone):]
    rng.shuffle(pooled)
    piles = (tuple(pooled[:p.carton[0]]), tuple(pooled[p.carton[0]:]))
    mine = p.seat & 1
    last_capturer = -1 if not sum(p.carton) else (mine if p.carton[mine] > p.carton[1 - mine] else 1 - mine)
    rules = preset(p.preset, players=p.players)
    n = p.players
    return State(rules, 0, p.dealer, p.deal_no, p.seat, tuple(hands), tuple(table), pack(c >> 2 for c in table),
                 tuple(sorted(unknown)), piles, tuple(p.score), -1 if p.last is None else p.last, (-1,) * n, ((),) * n,
                 last_capturer, -1, (), DECK_SIZE - p.stock - sum(sizes))
