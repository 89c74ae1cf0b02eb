"""Provides the scoring that is not part of a single play: the deal announcements and the cartón."""

from __future__ import annotations

from .cards import rank_of
from .rules import CAIDA_POINTS, CARTON_CARDS, CARTON_MORE_POINTS, LIMPIA_POINTS, TARGET_SCORE, Rules
from .state import FourOfAKind, Ronda


def below(score: int, cutoff: int | None) -> bool:
    """Whether a score is under a cut-off (a None cut-off never blocks)."""
    return cutoff is None or score < cutoff


def capture_score(rules: Rules, before: int, caida: bool, on_ronda: bool, clears: bool) -> tuple[int, int, int]:
    """(caída points, ronda-caída bonus, limpia points) of a capture by a team on `before` points
    (R-CAIDA-2, R-BONUS-1, R-LIMPIA-1, R-BOTH-1): `on_ronda` when the caída takes the rank of the
    previous player's ronda, `clears` when it empties the table. Every check uses the score before."""
    if caida:
        cut = rules.ronda_caida_cutoff
        bonus = rules.ronda_caida_bonus if on_ronda and (cut is None or before < cut) else 0
        if clears and rules.caida_limpia_stack and (rules.limpia_cutoff is None or before < rules.limpia_cutoff):
            return CAIDA_POINTS, bonus, LIMPIA_POINTS
        return CAIDA_POINTS, bonus, 0
    if clears and (rules.limpia_cutoff is None or before < rules.limpia_cutoff):
        return 0, 0, LIMPIA_POINTS
    return 0, 0, 0


def carton_value(n: int) -> int:
    """Cartón points for n >= 20 cards: 6 for 20, then +1 a card rounded up to even (R-CARTON-1)."""
    return 0 if n < CARTON_CARDS else (n - 14) + ((n - 14) & 1)


def carton_points(captured, dealer_team: int, scores, rules: Rules) -> tuple[int, int]:
    """Cartón points per team at the end of a hand (R-CARTON-2, R-CARTON-3)."""
    a, b = captured
    points = [0, 0]
    non_dealer = 1 - dealer_team
    if a == CARTON_CARDS and b == CARTON_CARDS:
        points[non_dealer] = carton_value(CARTON_CARDS)
    elif a >= CARTON_CARDS:
        points[0] = carton_value(a)
    elif b >= CARTON_CARDS:
        points[1] = carton_value(b)
    elif a != b:
        points[0 if a > b else 1] = CARTON_MORE_POINTS
    else:
        points[non_dealer] = CARTON_MORE_POINTS
    for team in (0, 1):
        if not below(scores[team], rules.carton_cutoff):
            points[team] = 0
    return points[0], points[1]


def announcements(hands, dealer: int, scores, rules: Rules):
    """Score the rondas and four of a kind of a fresh deal (R-ANN-1..8).

    Returns (events, scores after, winner or -1, ronda rank per seat or -1).
    """
    n = rules.players
    start = tuple(scores)
    scores = list(scores)
    rondas = [-1] * n
    events = []
    winner = -1
    for i in range(1, n + 1):
        seat = (dealer + i) % n
        counts = [0] * 10
        for c in hands[seat]:
            counts[rank_of(c)] += 1
        best = max(counts)
        if best < 3:
            continue
        team = seat & 1
        rondas[seat] = counts.index(best)
        if best == 4 and rules.four_of_a_kind == "win":
            events.append(FourOfAKind(seat, team))
            winner = team
            break
        kind, value = ("doble_ronda", rules.four_of_a_kind_points) if best == 4 else ("ronda", rules.ronda_points)
        points = value if below(start[team], rules.ronda_cutoff) else 0
        scores[team] += points
        events.append(Ronda(seat, team, points, kind))
        if scores[team] >= TARGET_SCORE:
            winner = team
            break
    return events, tuple(scores), winner, tuple(rondas)


def settle_hand(captured, leftover: int, last_capturer: int, dealer_team: int, scores, rules: Rules):
    """Close a hand: leftovers (R-END-2), cartón (R-CARTON), win check (R-WIN).

    `captured` is the card count per team and `leftover` the cards left on the table. Returns
    (final captured counts, cartón points, scores after, winning team or -1).
    """
    captured = list(captured)
    if leftover and rules.leftover_table_cards == "last_capturer" and last_capturer >= 0:
        captured[last_capturer] += leftover
    carton = carton_points(captured, dealer_team, scores, rules)
    after = (scores[0] + carton[0], scores[1] + carton[1])
    winner = next((t for t in (0, 1) if carton[t] and after[t] >= TARGET_SCORE), -1)
    return tuple(captured), carton, after, winner
