"""Provides what the conformance runner builds from a case and checks against it: the case's rules, positions and
stacked decks set up through the engine, one play's outcome compared with the case's expected fields."""

from __future__ import annotations

from collections import Counter

from ..engine import (
    RANKS,
    Caida,
    Dealer,
    FourOfAKind,
    IllegalMove,
    Limpia,
    Played,
    Ronda,
    Rules,
    State,
    capture_options,
    choice_to_action,
    make_position,
    parse_rank,
    play_points,
    preset,
    rank_of,
)
from ..engine.rules import CAIDA_POINTS, LIMPIA_POINTS, TARGET_SCORE
from ..engine.state import cards_for


class CaseError(Exception):
    """The case does not hold (or cannot be read); the message says where."""


def ranks_of(cards) -> list[str]:
    return sorted((RANKS[rank_of(c)] for c in cards), key=RANKS.index)


def _same_multiset(a, b) -> bool:
    return Counter(a) == Counter(b)


def check(field: str, got, want) -> None:
    if got != want:
        raise CaseError(f"{field}: expected {want!r}, engine gives {got!r}")


def check_ranks(field: str, got, want) -> None:
    if not _same_multiset(got, want):
        raise CaseError(f"{field}: expected {sorted(want, key=RANKS.index)}, engine gives {got}")


def teams(d: dict) -> tuple[int, int]:
    return int(d.get("0", 0)), int(d.get("1", 0))


_CONSTANTS = {"target_score": TARGET_SCORE, "caida_points": CAIDA_POINTS, "limpia_points": LIMPIA_POINTS}
"""Options RULES.md §11 fixes: a case may name them, but only with their one value."""


def case_rules(case: dict, players: int | None = None) -> Rules:
    """The rules of a case: its config as overrides of the standard options, or of a named `preset` (§11)."""
    options = dict(case.get("config") or {})
    name = options.pop("preset", None) or "standard"
    for key, value in _CONSTANTS.items():
        if key in options and options.pop(key) != value:
            raise CaseError(f"config: {key} is fixed at {value} (RULES.md §11)")
    config_players = options.pop("players", 2)
    return preset(name, players or config_players, **options)


def filler_hands(n: int, acting: int, played: str, used_ranks: list[str]) -> list[list[str]]:
    """One spare card for every other seat, so the play does not end the deal."""
    counts = Counter(used_ranks + [played])
    spare = next(r for r in reversed(RANKS) if counts[r] + n - 1 <= 4)
    return [[played] if s == acting else [spare] for s in range(n)]


def choice_action(state: State, played: int, choice: dict) -> int:
    """The action a case's `choice` names (§15): IllegalMove where its base is not a legal option's base, as a match
    that names one card where the rules' match takes every card of the rank (match_takes_all_same_rank)."""
    base = [parse_rank(r) for r in choice["base"]]
    action = choice_to_action(played, choice["kind"], base, state.rules)
    option = next((o for o in capture_options([rank_of(c) for c in state.table], played, state.rules)
                   if o.action == action), None)
    if option is not None and sorted(option.base) != sorted(base):
        name = RANKS[played]
        raise IllegalMove(f"{name} cannot match {'+'.join(RANKS[b] for b in sorted(base))}: under these rules a match "
                          f"takes every {name} on the table ({'+'.join(RANKS[b] for b in option.base)})", "bad_match")
    return action


def compare(what: str, got: dict, expected: dict, multisets=()) -> None:
    """Check every field of `expected` against the engine's `got` (ranks lists in `multisets` as multisets): a
    field the runner does not know fails the case, as one with nothing to check does, never a silent pass."""
    unknown = sorted(set(expected) - set(got))
    if unknown:
        names, known = ", ".join(map(repr, unknown)), ", ".join(sorted(got))
        raise CaseError(f"unknown expected field of {what}: {names} (known: {known})" if len(unknown) == 1 else
                        f"unknown expected fields of {what}: {names} (known: {known})")
    if not expected:
        raise CaseError(f"{what}: no expected field to check")
    for key, want in expected.items():
        (check_ranks if key in multisets else check)(key, got[key], want)


def written_winner(winner: int, want, acting_team: int = -1):
    """A game's `winner` (-1: none yet) as a case writes it: "acting_team" where the case does (play cases) and the
    acting team won, else the winning team's number (a string where the case writes one), None while the game goes
    on."""
    if want == "acting_team":
        return "acting_team" if winner >= 0 and winner == acting_team else None
    if winner < 0:
        return None
    return str(winner) if isinstance(want, str) else winner


def check_result(expected, after, events, acting):
    """Compare one play's outcome with a case's expected fields."""
    team = acting & 1
    played = next(e for e in events if isinstance(e, Played))
    caida = [e for e in events if isinstance(e, Caida)]
    limpia = [e for e in events if isinstance(e, Limpia)]
    captured = ranks_of(played.captured)
    want = expected.get("captured")
    if isinstance(want, list) and len(want) == len(captured) + 1:  # written with the played card: the same play
        captured = ranks_of([*played.captured, played.card])
    got = {"caida": bool(caida), "limpia": bool(limpia), "ronda_caida_bonus": bool(caida and caida[0].ronda_bonus),
           "points": play_points(events), "game_over": after.is_over, "team_score_after": after.scores[team],
           "team_scores_after": {"0": after.scores[0], "1": after.scores[1]}, "captured": captured,
           "table_after": ranks_of(after.table), "winner": written_winner(after.winner, expected.get("winner"), team)}
    compare("the play", got, expected, multisets=("captured", "table_after"))


def awards(events) -> list[dict]:
    awards = []
    for e in events:
        if isinstance(e, FourOfAKind):
            awards.append({"seat": e.seat, "team": e.team, "type": "four_of_a_kind", "points": 0})
        elif isinstance(e, Ronda) and e.points:
            awards.append({"seat": e.seat, "team": e.team, "type": e.kind, "points": e.points})
    return awards


def _stacked(rules, dealer, deals, held=()) -> list[str]:
    """The ranks of one hand's deck: `deals` (a list of {seat: ranks}) in dealing order, then the cards left over
    (less `held`, the cards on the table), one of each rank in turn so that a deal the case does not list brings no
    ronda by accident."""
    n = rules.players
    ranks = []
    for deal in deals:
        for i in range(n):
            ranks.extend(deal[str((dealer + 1 + i) % n)])
    left = Counter({r: 4 for r in RANKS})
    left.subtract(list(ranks) + list(held))
    for i in range(4):
        ranks += [r for r in RANKS if left[r] > i]
    return ranks


def dealing_position(rules, dealer, deals, table=(), scores=(0, 0)) -> tuple[State, Dealer]:
    """A position just before the first deal, and a dealer whose decks are stacked to deal `deals` (a list of
    {seat: ranks}) in order: the first hand's deals, then the next hand's (its dealer the next seat), and so on."""
    n = rules.players
    per_hand = rules.deals_per_hand
    stock = _stacked(rules, dealer, deals[:per_hand], table)
    state = make_position(rules, hands=[[]] * n, table=table, turn=(dealer + 1) % n, dealer=dealer,
                          scores=scores, stock=stock)
    # the stacked ranks as cards of the stock, the suits the table left free (which suit goes where does not matter)
    stacked = Dealer.for_world(state, cards_for(stock, set(state.table)))
    for hand in range(1, -(-len(deals) // per_hand)):
        later = deals[hand * per_hand:(hand + 1) * per_hand]
        stacked.decks[hand] = tuple(cards_for(_stacked(rules, (dealer + hand) % n, later), set()))
    return state, stacked
