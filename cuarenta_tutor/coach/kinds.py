"""Provides the kinds of mistakes (missed caída, left a caída, missed limpia, missed sum, gave up the cartón),
told from the position, the played move and the best one, and the lesson that teaches each."""

from __future__ import annotations

from ..engine import ACTION_KIND, SUM, Caida, Limpia, State, below, play_events
from ..i18n import N_, _

KINDS = ("missed caída", "missed limpia", "missed sum", "left a caída", "left a limpia", "gave up the cartón",
         "other")
LESSONS = {"missed caída": "rules-05-caida", "missed limpia": "rules-06-limpia", "missed sum": "rules-03-sums",
           "left a caída": "strategy-03-safe-trails", "left a limpia": "strategy-01-empty-table",
           "gave up the cartón": "strategy-05-carton-race"}
"""The lesson that teaches what each kind of mistake misses (lesson ids of lessons/)."""
NAMES = {"missed caída": N_("missed caída"), "missed limpia": N_("missed limpia"), "missed sum": N_("missed sum"),
         "left a caída": N_("left a caída"), "left a limpia": N_("left a limpia"),
         "gave up the cartón": N_("gave up the cartón"), "other": N_("other")}
"""Each kind's words as a person reads them (`label`); the kinds themselves are ids: drills and stats keep them."""
RISK = 0.15
"""How much more often (a share of the worlds) the played move must let the other side score a caída or a
limpia than the best one to count as leaving it (as narrator.why_better says it)."""


def label(kind: str) -> str:
    """A kind of mistake in the language in use ("missed caída" / "caída perdida")."""
    return _(NAMES[kind]) if kind in NAMES else kind


def with_article(kind: str) -> str:
    """A kind of mistake with its article, in the language in use ("a missed caída" / "una caída perdida")."""
    words = {"missed caída": _("a missed caída"), "missed limpia": _("a missed limpia"),
             "missed sum": _("a missed sum"), "left a caída": _("a caída given away"),
             "left a limpia": _("a limpia given away"),
             "gave up the cartón": _("a cartón given up"), "other": _("another mistake")}
    return words.get(kind, kind)


def kind(state: State, played: int, best: int, risks=None) -> str:
    """The kind of the mistake of playing `played` where `best` was better; `risks` (an annotation's Risks: the
    played and the best move's caída and limpia risks) tells what a move leaves the next player."""
    if played == best:
        return "other"
    now = {a: play_events(state, a) for a in (played, best)}

    def scores(a, event) -> bool:
        return any(isinstance(e, event) and (e.points or getattr(e, "ronda_bonus", 0)) for e in now[a])

    for event, name in ((Caida, "missed caída"), (Limpia, "missed limpia")):
        if scores(best, event) and not scores(played, event):
            return name
    taken = {a: len(now[a][0].captured) for a in (played, best)}
    if ACTION_KIND[best] == SUM and taken[best] > taken[played]:
        return "missed sum"
    if risks:
        for i, name in ((0, "left a caída"), (1, "left a limpia")):
            if risks.played[i] - risks.best[i] >= RISK:
                return name
    if taken[best] > taken[played] and below(state.scores[state.turn & 1], state.rules.carton_cutoff):
        return "gave up the cartón"
    return "other"
