"""Provides the fixed action table: 53 stable action ids shared by the engine, records, agents and TUI.

| ids    | kind  | meaning                                                              |
|--------|-------|----------------------------------------------------------------------|
| 0-9    | trail | play a card of rank A..K and capture nothing                         |
| 10-19  | match | play rank A..K and take one table card of the same rank (+ escalera) |
| 20-52  | sum   | play a number card and take a multiset of 2+ number cards adding up  |
|        |       | to its value (+ escalera); ordered by played rank, then multiset     |

The escalera (the run above the played rank) is never part of the action: the engine adds it.
Variants only mask entries (``sum_max_cards=2`` leaves the 2-card sums).
"""

from __future__ import annotations

from ..i18n import _
from .cards import N_RANKS, NEXT, RANKS, VALUE

TRAIL, MATCH, SUM = 0, 1, 2
KIND_NAMES = ("trail", "match", "sum")

FIELD_BITS = 4
"""Rank counts are packed 4 bits a rank into one int (counts 0..4, bit 3 a borrow guard)."""
GUARDS = sum(8 << (FIELD_BITS * r) for r in range(N_RANKS))


def pack(ranks) -> int:
    """Pack a multiset of ranks into an int of 4-bit counts."""
    packed = 0
    for r in ranks:
        packed += 1 << (FIELD_BITS * r)
    return packed


def count_in(packed: int, rank: int) -> int:
    """How many cards of a rank a packed multiset holds."""
    return (packed >> (FIELD_BITS * rank)) & 15


def contains(packed: int, sub: int) -> bool:
    """Whether one packed multiset holds every card of another (no field borrows)."""
    return ((packed | GUARDS) - sub) & GUARDS == GUARDS


def _sum_multisets(value: int, below: int) -> list[tuple[int, ...]]:
    """Multisets of 2+ number cards (at most 4 of a rank, each rank below `below`) adding up to value."""
    found = []

    def extend(remaining, max_rank, chosen):
        if remaining == 0:
            if len(chosen) >= 2:
                found.append(tuple(sorted(chosen)))
            return
        for r in range(min(max_rank, below - 1), -1, -1):
            v = VALUE[r]
            if v <= remaining and chosen.count(r) < 4:
                extend(remaining - v, r, chosen + [r])

    extend(value, below - 1, [])
    return sorted(found)


def _build_table():
    kinds, ranks, bases = [], [], []
    for r in range(N_RANKS):
        kinds.append(TRAIL), ranks.append(r), bases.append(())
    for r in range(N_RANKS):
        kinds.append(MATCH), ranks.append(r), bases.append((r,))
    for r in range(7):
        for combo in _sum_multisets(VALUE[r], r):
            kinds.append(SUM), ranks.append(r), bases.append(combo)
    return tuple(kinds), tuple(ranks), tuple(bases)


ACTION_KIND, ACTION_RANK, ACTION_BASE = _build_table()
"""Per action id: its kind (TRAIL/MATCH/SUM), the played rank, the base ranks it takes."""
N_ACTIONS = len(ACTION_KIND)
ACTION_BASE_PACKED = tuple(pack(b) for b in ACTION_BASE)
SUMS_BY_RANK = tuple(tuple(a for a in range(N_ACTIONS) if ACTION_KIND[a] == SUM and ACTION_RANK[a] == r)
                     for r in range(N_RANKS))
"""The sum action ids of each played rank."""
_SUM_INDEX = {(ACTION_RANK[a], ACTION_BASE[a]): a for a in range(N_ACTIONS) if ACTION_KIND[a] == SUM}

assert N_ACTIONS == 53, N_ACTIONS


def trail_action(rank: int) -> int:
    """The id of trailing a rank."""
    return rank


def match_action(rank: int) -> int:
    """The id of matching with a rank."""
    return 10 + rank


def sum_action(rank: int, base) -> int | None:
    """The id of playing `rank` to take the multiset `base`, or None if no such addition exists."""
    return _SUM_INDEX.get((rank, tuple(sorted(base))))


def action_to_string(action: int, escalera=()) -> str:
    """A readable, unique name: "7 trails", "5 takes 5", "7 takes 3+4, then J Q K". Always English: the stable name
    of records, JSON and lesson answer files (what a person reads is narrator.move_name, in the language in use)."""
    if not 0 <= action < N_ACTIONS:
        raise ValueError(_("action {action} is not in the action table (0..{last})").format(action=repr(action),
                                                                                           last=N_ACTIONS - 1))
    played = RANKS[ACTION_RANK[action]]
    kind = ACTION_KIND[action]
    if kind == TRAIL:
        return f"{played} trails"
    text = f"{played} takes " + "+".join(RANKS[r] for r in ACTION_BASE[action])
    if escalera:
        text += ", then " + " ".join(RANKS[r] for r in escalera)
    return text


def escalera(table_packed: int, played_rank: int) -> list[int]:
    """The run taken after a capture: ranks above the played one, one card each (R-CAP-SEQ)."""
    run = []
    r = NEXT[played_rank]
    while r is not None and count_in(table_packed, r):
        run.append(r)
        r = NEXT[r]
    return run
