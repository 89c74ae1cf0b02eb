"""Provides the position value, its checks, and PositionError (the refusal that names the field to fix)."""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import DECK_SIZE, PRESETS, RANKS
from ..engine.play import CARDS_PER_DEAL
from ..engine.rules import TARGET_SCORE
from ..i18n import _


class PositionError(ValueError):
    """An unreadable or impossible position; `field` names the part of the line (or the JSON key) to fix."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Position:
    """A seat's view of a position: what the line says, checked (ranks are 0..9, A..K)."""

    preset: str
    players: int
    dealer: int
    seat: int
    """The seat to move, whose view this is."""
    score: tuple
    carton: tuple
    """Per side, the cards captured this hand."""
    hand: tuple
    """The mover's ranks, sorted."""
    table: tuple
    """Ranks on the table, oldest first."""
    last: int | None
    """The rank the previous player just trailed (the newest table card), or None."""
    stock: int
    gone: tuple = ()
    """Ranks the mover knows are in the piles, sorted."""

    def __post_init__(self) -> None:
        _check(self)

    @property
    def lead(self) -> int:
        """The seat that led this deal (the one after the dealer)."""
        return (self.dealer + 1) % self.players

    def hand_sizes(self) -> tuple:
        """Per seat, the cards in hand: the seats that already played in this round hold one fewer."""
        before = (self.seat - self.lead) % self.players
        h = len(self.hand)
        return tuple(h - 1 if (s - self.lead) % self.players < before else h for s in range(self.players))

    @property
    def deal_no(self) -> int:
        return (DECK_SIZE - self.stock) // (CARDS_PER_DEAL * self.players) - 1


def refuse(field: str, message: str):
    """Raise the PositionError of `field` with `message` (already translated)."""
    raise PositionError(field, message)


def _check(p: Position) -> None:
    """Refuse an impossible position, naming the field and the fix."""
    if p.preset not in PRESETS:
        refuse("preset", _("preset: {name} is not a rules preset; use one of {choices}").format(
            name=repr(p.preset), choices=", ".join(PRESETS)))
    if p.players not in (2, 4):
        refuse("players", _("players: {n} players is not a game; write 2p or 4p").format(n=p.players))
    for name, value in (("dealer", p.dealer), ("seat", p.seat)):
        if not 0 <= value < p.players:
            refuse(name, _("{field}: seat {value} is not at the table; seats are 0 to {last}").format(
                field=name, value=value, last=p.players - 1))
    for score in p.score:
        if not 0 <= score < TARGET_SCORE:
            refuse("score", _("score: {score} is not a score of a game going on; each side has 0 to {most}").format(
                score=score, most=TARGET_SCORE - 1))
    for count in p.carton:
        if not 0 <= count <= DECK_SIZE:
            refuse("carton", _("carton: {count} cards captured is impossible; each side has 0 to 40").format(
                count=count))
    h = len(p.hand)
    if not 1 <= h <= CARDS_PER_DEAL:
        refuse("hand", _("hand: a hand holds 1 to 5 cards, not {n}; list the cards the mover holds").format(n=h))
    counts = [0] * len(RANKS)
    for field, ranks in (("hand", p.hand), ("table", p.table), ("gone", p.gone)):
        for r in ranks:
            counts[r] += 1
            if counts[r] > 4:
                refuse(field, _("{field}: a fifth {rank}: the deck has four of each rank; remove one from hand, "
                               "table or gone").format(field=field, rank=RANKS[r]))
    per_deal = CARDS_PER_DEAL * p.players
    stocks = [DECK_SIZE - per_deal * k for k in range(1, DECK_SIZE // per_deal + 1)]
    if p.stock not in stocks:
        refuse("stock", _("stock: no deal leaves {n} cards in the stock with {players} players; use one of "
                         "{choices}").format(n=p.stock, players=p.players, choices=" ".join(map(str, stocks))))
    out = DECK_SIZE - p.stock
    held = sum(p.hand_sizes())
    captured = out - held - len(p.table)
    if captured < 0:
        refuse("hand", _("hand: {held} cards in hands and {table} on the table are more than the {out} dealt at stock "
                        "{stock}; check the hand, the table and the stock").format(
            held=held, table=len(p.table), out=out, stock=p.stock))
    if sum(p.carton) != captured:
        refuse("carton", _("carton: with stock {stock}, a hand of {h} and {table} on the table, the sides have "
                          "captured {captured} cards between them, not {given}; make the two counts add up to "
                          "{captured}").format(stock=p.stock, h=h, table=len(p.table), captured=captured,
                                               given=sum(p.carton)))
    if len(p.gone) > captured:
        refuse("gone", _("gone: {n} cards listed but only {captured} have been captured; list only captured "
                        "cards").format(n=len(p.gone), captured=captured))
    if p.last is not None:
        if not p.table or p.table[-1] != p.last:
            refuse("last", _("last: {rank} is not the newest card on the table; list the table oldest first, "
                            "ending with the card just played, or leave out last").format(rank=RANKS[p.last]))
        if h == CARDS_PER_DEAL and p.seat == p.lead:
            refuse("last", _("last: nobody has played yet in this deal; leave out last"))

