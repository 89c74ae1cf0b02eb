"""Provides the one-line position notation (and its JSON form) <-> a seat's view of a position.

A line such as ``standard 2p d1 s0 | 26-30 c8-12 | hand 3 5 K | table 2 4 7 | last 7 | stock 20 | gone A A 6 Q``
names the rules preset, the players, the dealer and the seat to move (whose view it is), the score and the cartón
count (cards captured this hand) of each side, the mover's hand, the table (oldest first), the card the previous
player just trailed (a caída target), the stock size, and optionally the cards the mover knows have gone into the
piles. Suits never matter, so the line holds ranks only (a card typed with a suit, "7h", is read as its rank).
Everything else is unknown: `to_state` deals it at random consistently with the counts. Every position is checked
when built: an impossible one raises `PositionError`, whose `field` names the part of the line to fix
(docs/POSITION.md).
"""

from .notation import SECTIONS, from_json, parse, to_json, to_line
from .states import from_state, to_state
from .value import Position, PositionError

__all__ = ["SECTIONS", "Position", "PositionError", "from_json", "from_state", "parse", "to_json", "to_line",
           "to_state"]
