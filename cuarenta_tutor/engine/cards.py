"""Provides the 40-card deck: ranks, suits, card ids, values and card strings.

A card is an int 0..39: ``rank * 4 + suit``. Ranks are indexed in sequence order
``A 2 3 4 5 6 7 J Q K`` (0..9); suits (0..3: spades, hearts, diamonds, clubs) are kept for display
and records only, every rule works on ranks (RULES.md R-DECK-1..4).
"""

from __future__ import annotations

from ..i18n import _, pgettext

RANKS = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
"""Rank names in sequence order (R-DECK-3); a rank is its index here."""
SUITS = ("♠", "♥", "♦", "♣")
SUIT_LETTERS = ("s", "h", "d", "c")
N_RANKS = 10
DECK_SIZE = 40
COPIES = 4
VALUE = (1, 2, 3, 4, 5, 6, 7, 0, 0, 0)
"""Numeric value per rank; 0 for J, Q, K, which have none (R-DECK-2)."""
NUMBER_RANKS = range(7)
"""Ranks A..7, the only ones that take part in additions."""
NEXT = (1, 2, 3, 4, 5, 6, 7, 8, 9, None)
"""The next rank up in the escalera order; nothing follows K (R-DECK-3)."""

_RANK_INDEX = {name: i for i, name in enumerate(RANKS)}
_RANK_INDEX.update({"1": 0, "a": 0, "j": 7, "q": 8, "k": 9})
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_SUIT_INDEX.update({s: i for i, s in enumerate(SUIT_LETTERS)})
_SUIT_INDEX.update({s.upper(): i for i, s in enumerate(SUIT_LETTERS)})


def rank_of(card: int) -> int:
    """The rank index of a card id."""
    return card >> 2


def suit_of(card: int) -> int:
    """The suit index of a card id."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    """The card id of a rank and a suit."""
    return rank * 4 + suit


def parse_rank(text: str) -> int:
    """Read a rank name ("A", "2".."7", "J", "Q", "K"); raise ValueError otherwise."""
    try:
        return _RANK_INDEX[text.strip()]
    except KeyError:
        raise ValueError(_("{text} is not a Cuarenta rank: use one of {ranks} (8, 9 and 10 are not in the "
                           "deck)").format(text=repr(text), ranks=" ".join(RANKS))) from None


def parse_card(text: str) -> int:
    """Read a card such as "7h", "7♥", "KS"; raise ValueError with the reason otherwise."""
    text = text.strip()
    if len(text) < 2:
        raise ValueError(_("{text} is not a card: write a rank and a suit, such as 7h or K♠").format(text=repr(text)))
    rank = parse_rank(text[:-1])
    suit = _SUIT_INDEX.get(text[-1])
    if suit is None:
        raise ValueError(_("{text} has no suit: end it with one of s h d c (or ♠ ♥ ♦ ♣)").format(text=repr(text)))
    return make_card(rank, suit)


def rank_name(rank: int) -> str:
    """A rank as a person says it: "A", "7", "K" (the letters printed on the cards; Spanish says "as" for the ace)."""
    return pgettext("rank", "A") if rank == 0 else RANKS[rank]


def card_str(card: int, ascii_only: bool = False) -> str:
    """A card as text: "7♥", or "7h" with ascii_only."""
    suits = SUIT_LETTERS if ascii_only else SUITS
    return RANKS[card >> 2] + suits[card & 3]
