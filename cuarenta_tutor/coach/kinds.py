"""Provides the kinds of mistakes (missed caída, left a caída, missed limpia, missed sum, gave up the cartón),
told from the position, the played move and the best one, and the lesson that teaches each."""

from __future__ import annotations

from ..engine import ACTION_KIND, SUM, Caida, Limpia, State, below, play_events

KINDS = ("missed caída", "missed limpia", "missed sum", "left a caída", "left a limpia", "gave up the cartón",
         "other")
LESSONS = {"missed caída": "rules-05-caida", "missed limpia": "rules-06-limpia", "missed sum": "rules-03-sums",
           "left a caída": "strategy-03-safe-trails", "left a limpia": "strategy-01-empty-table",
           "gave up the cartón": "strategy-05-carton-race"}
"""The lesson that teaches what each kind of mistake misses (lesson ids of lessons/)."""
RISK = 0.15
"""How much more often (a share of the worlds) the played move must let the other side score a caída or a
limpia than the best one to count as leaving it (as narrator.why_better says it)."""


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
