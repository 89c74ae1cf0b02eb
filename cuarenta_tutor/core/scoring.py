"""Provides the scoring of a capture and of the cartón over the rules array, compiled (engine/scoring.py is the
reference)."""

from __future__ import annotations

from ..engine.rules import CAIDA_POINTS, CARTON_CARDS, CARTON_MORE_POINTS, LIMPIA_POINTS
from .jit import njit
from .layout import R_BONUS, R_BONUS_CUTOFF, R_CARTON_CUTOFF, R_LIMPIA_CUTOFF, R_STACK


@njit
def capture_score(rules, before, caida, on_ronda, clears):
    """(caída points, ronda-caída bonus, limpia points) of a capture by a team on `before` points (engine
    capture_score)."""
    if caida:
        bonus = rules[R_BONUS] if on_ronda and before < rules[R_BONUS_CUTOFF] else 0
        if clears and rules[R_STACK] and before < rules[R_LIMPIA_CUTOFF]:
            return CAIDA_POINTS, bonus, LIMPIA_POINTS
        return CAIDA_POINTS, bonus, 0
    if clears and before < rules[R_LIMPIA_CUTOFF]:
        return 0, 0, LIMPIA_POINTS
    return 0, 0, 0


@njit
def carton_value(n):
    """Cartón points for n >= 20 cards (engine carton_value)."""
    if n < CARTON_CARDS:
        return 0
    return (n - 14) + ((n - 14) & 1)


@njit
def carton_points(a, b, dealer_team, score0, score1, rules):
    """Cartón points per team at the end of a hand with `a` and `b` cards captured (engine carton_points)."""
    p0, p1 = 0, 0
    non_dealer = 1 - dealer_team
    if a == CARTON_CARDS and b == CARTON_CARDS:
        if non_dealer == 0:
            p0 = carton_value(CARTON_CARDS)
        else:
            p1 = carton_value(CARTON_CARDS)
    elif a >= CARTON_CARDS:
        p0 = carton_value(a)
    elif b >= CARTON_CARDS:
        p1 = carton_value(b)
    elif a != b:
        if a > b:
            p0 = CARTON_MORE_POINTS
        else:
            p1 = CARTON_MORE_POINTS
    elif non_dealer == 0:
        p0 = CARTON_MORE_POINTS
    else:
        p1 = CARTON_MORE_POINTS
    if score0 >= rules[R_CARTON_CUTOFF]:
        p0 = 0
    if score1 >= rules[R_CARTON_CUTOFF]:
        p1 = 0
    return p0, p1
