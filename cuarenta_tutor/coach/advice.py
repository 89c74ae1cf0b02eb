"""Provides the hints a person sees: every legal move with the key that plays it, what it does now, its win %
(the network's at once, the analysis's once refined, with its interval) and what it risks next.

The first hint is the best by the numbers it shows: the highest win %. Refined hints come from the
possible-worlds analysis (analysis/), the quick ones from one forward pass of the network, shown on the analysis's
scale (analysis/onepass.py) and never with a class.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import ACTION_RANK, State, legal_actions, play_events
from ..i18n import _, number, percent
from ..narrator import Narrator, best_despite, cards, move_name


@dataclass(frozen=True)
class Hint:
    """One legal move as shown to the person."""

    action: int
    name: str
    key: str
    """The key that plays it (the card's place in the hand; a capture choice may follow)."""
    does: str
    """What it does now: "trails", "takes 3♥ 4♠, caída +2"."""
    win_pct: float
    ci95: tuple | None = None
    """The interval of win_pct, once refined."""
    caida_risk: float | None = None
    """Chance that the other side's next play is a caída (refined only)."""
    limpia_risk: float | None = None
    refined: bool = False
    cut: bool = False
    """The analysis behind a refined hint was cut short by its time cap (fewer worlds than planned)."""
    measured: bool = True
    """Its interval holds a measured model error (False: the critic valued the playouts and no calibration measured
    its error, so the interval is unknown: `measured_error`)."""
    loss_ci95: tuple | None = None
    """The interval of what it loses to the analysis's best move, paired over the same worlds (refined only)."""

    @property
    def margin(self) -> float | None:
        """Half the interval's width ("62% ±3")."""
        return None if self.ci95 is None else (self.ci95[1] - self.ci95[0]) / 2


def key_of(state: State, action: int) -> str:
    """The key of the first card of the move's rank in the hand of the seat on turn."""
    rank = ACTION_RANK[action]
    return str(next(i for i, c in enumerate(state.hands[state.turn], 1) if c >> 2 == rank))


def does(state: State, action: int) -> str:
    """What a move does at once, in the narrator's words ("takes 3♥ 4♠, caída +2")."""
    events = play_events(state, action)
    taken = events[0].captured
    head = _("takes {cards}").format(cards=cards(taken)) if taken else _("trails")
    return ", ".join([head, *Narrator(state.rules).notes(events)])


def quick_hints(state: State, decision, scale=None) -> list[Hint]:
    """Every legal move with the network's win % after it (one forward pass), best first; `scale` maps the network's
    value onto the analysis's win % (analysis.onepass.scale; None: the network's own, 100 * value)."""
    legal = legal_actions(state)
    scale = scale or (lambda v: 100.0 * v)
    hints = [Hint(a, move_name(state, a), key_of(state, a), does(state, a), scale(decision.action_values[a]))
             for a in legal]
    return sorted(hints, key=lambda h: (-h.win_pct, h.action))


def measured_error(settings, leaf: str) -> bool:
    """Whether an analysis's intervals hold the model's error: the hand-value table's or the game's result valued
    the playouts, or a calibration measured the critic's (settings.value_sd, from the model's sidecar). An
    exported model with no sidecar values them with its critic, whose error nobody measured: its "±0" would look
    certain, so its intervals are shown as unknown."""
    sd = settings.get("value_sd", 0.0) if isinstance(settings, dict) else getattr(settings, "value_sd", 0.0)
    return leaf != "critic" or bool(sd)


def win_text(win: float, ci95, measured: bool = True) -> str:
    """"62% ±3" (an analysed move), "62%" (the network's), or "62% (uncalibrated)" where the analysis has no
    measured error (advice.measured_error): its interval is unknown."""
    if ci95 is None:
        return percent(win)
    if not measured:
        return _("{win} (uncalibrated)").format(win=percent(win))
    return f"{percent(win)} ±{number((ci95[1] - ci95[0]) / 2)}"


def refined_hints(state: State, analysis) -> list[Hint]:
    """Every legal move with the analysis's win %, interval and risks, best first."""
    measured = measured_error(analysis.settings, analysis.leaf)
    hints = [Hint(m.action, m.name, key_of(state, m.action), does(state, m.action), m.win_pct, m.ci95,
                  m.caida_risk, m.limpia_risk, True, analysis.cut, measured, m.loss_ci95) for m in analysis.moves]
    return sorted(hints, key=lambda h: (-h.win_pct, h.action))


def star_note(state: State, hints) -> str:
    """Why the starred (first) hint is best though it leaves the highest caída risk of all the moves: its gain over
    the safest move, and the narrator's reasons (why_better); "" when the star is not the riskiest move. When its
    lead over the safest is inside the noise (the paired interval of the safest's loss reaches 0: either may be
    best), it says the two are even, and that the other risks less: "even with 7 trails (+2 win %, inside the
    noise: ±3), which risks less caída (10% against 40%)"."""
    if len(hints) < 2 or not hints[0].refined:
        return ""
    best = hints[0]
    safest = min(hints[1:], key=lambda h: (h.caida_risk, -h.win_pct, h.action))
    if not best.caida_risk or best.caida_risk < max(h.caida_risk for h in hints) or best.caida_risk <= \
            safest.caida_risk:
        return ""
    if safest.loss_ci95 is not None and safest.loss_ci95[0] <= 0.0:
        low, high = safest.loss_ci95
        said = _("even with {move} (+{gain} win %, inside the noise: ±{margin}), which risks less caída ({safe_risk} "
                 "against {risk})")
        return said.format(move=move_name(state, safest.action), gain=number(best.win_pct - safest.win_pct),
                           margin=number((high - low) / 2), safe_risk=percent(100 * safest.caida_risk),
                           risk=percent(100 * best.caida_risk))
    risks = {h.action: (h.caida_risk, h.limpia_risk) for h in (best, safest)}
    return best_despite(state, best.action, safest.action, risks, best.win_pct - safest.win_pct)
