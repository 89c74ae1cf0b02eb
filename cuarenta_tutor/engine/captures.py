"""Provides the capture options of a card on a table (R-CAP-OPTIONS), for people and for the bots."""

from __future__ import annotations

from typing import NamedTuple

from .actions import ACTION_BASE, ACTION_KIND, KIND_NAMES, MATCH, TRAIL, count_in, escalera, pack, trail_action
from .play import rank_actions
from .rules import Rules


class CaptureOption(NamedTuple):
    """One way a played rank can capture, or its trail: the action id and the ranks it takes."""

    action: int
    kind: str
    """"match", "sum" or "trail"."""
    base: tuple
    """The ranks of the match or the addition (empty for a trail)."""
    sequence: tuple
    """The escalera taken after the base (R-CAP-SEQ)."""

    @property
    def captured(self) -> tuple:
        """Every table rank the move takes."""
        return self.base + self.sequence


def capture_options(table_ranks, played_rank: int, rules: Rules | None = None,
                    with_trail: bool = False) -> list[CaptureOption]:
    """Every capture option of a rank on a table (R-CAP-OPTIONS), in action order; `with_trail` adds the
    trail last where the rules allow it (not under forced capture when a capture exists)."""
    rules = rules or Rules()
    table = pack(table_ranks)
    options = []
    trail = False
    for a in rank_actions(played_rank, table, rules):
        if ACTION_KIND[a] == TRAIL:
            trail = True
            continue
        base = ACTION_BASE[a]
        if ACTION_KIND[a] == MATCH and rules.match_takes_all_same_rank:
            base = base * count_in(table, played_rank)
        options.append(CaptureOption(a, KIND_NAMES[ACTION_KIND[a]], base, tuple(escalera(table - pack(base),
                                                                                         played_rank))))
    if with_trail and trail:
        options.append(CaptureOption(trail_action(played_rank), "trail", (), ()))
    return options


_OUTCOME_CACHE: dict[int, tuple] = {}


def capture_outcomes(rank: int, table_packed: int, rules: Rules) -> tuple[tuple[int, int, int], ...]:
    """For each capture a card of `rank` can make on a packed table: (action, cards taken, table left).

    Cached like legal moves; the bots use it to weigh what the next player could take.
    """
    key = (table_packed << 9) | (rank << 5) | (rules.match_takes_all_same_rank << 4) | rules.legal_key
    found = _OUTCOME_CACHE.get(key)
    if found is None:
        if len(_OUTCOME_CACHE) >= 500_000:
            _OUTCOME_CACHE.clear()
        out = []
        for a in rank_actions(rank, table_packed, rules):
            if ACTION_KIND[a] == TRAIL:
                continue
            base = ACTION_BASE[a]
            if ACTION_KIND[a] == MATCH and rules.match_takes_all_same_rank:
                base = base * count_in(table_packed, rank)
            left = table_packed - pack(base)
            run = escalera(left, rank)
            out.append((a, len(base) + len(run), left - pack(run)))
        found = _OUTCOME_CACHE[key] = tuple(out)
    return found
