"""Provides the capture options of a card on a table (R-CAP-OPTIONS), for people and for the bots."""

from __future__ import annotations

from .actions import ACTION_BASE, ACTION_KIND, MATCH, TRAIL, count_in, escalera, pack
from .play import _compute_legal, _rank_actions
from .rules import Rules


def capture_options(table_ranks, played_rank: int, rules: Rules | None = None) -> list[dict]:
    """Every capture option of a rank on a table (R-CAP-OPTIONS): kind, base, sequence, captured ranks."""
    rules = rules or Rules()
    table = pack(table_ranks)
    options = []
    ids = [a for a in _compute_legal(1 << played_rank, table, rules) if ACTION_KIND[a] != TRAIL]
    for a in ids:
        base = list(ACTION_BASE[a])
        if ACTION_KIND[a] == MATCH and rules.match_takes_all_same_rank:
            base = base * count_in(table, played_rank)
        run = escalera(table - pack(base), played_rank)
        options.append({"action": a, "kind": "match" if ACTION_KIND[a] == MATCH else "sum",
                        "base": base, "sequence": run, "captured": base + run})
    return options


_OUTCOME_CACHE: dict[int, tuple] = {}


def capture_outcomes(rank: int, table_packed: int, rules: Rules) -> tuple[tuple[int, int, int], ...]:
    """For each capture a card of `rank` can make on a packed table: (action, cards taken, table left).

    Cached like legal moves; the bots use it to weigh what the next player could take.
    """
    key = (table_packed << 8) | (rank << 4) | rules._legal_key | (rules.match_takes_all_same_rank << 3)
    found = _OUTCOME_CACHE.get(key)
    if found is None:
        if len(_OUTCOME_CACHE) >= 500_000:
            _OUTCOME_CACHE.clear()
        out = []
        for a in _rank_actions(rank, table_packed, rules):
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
