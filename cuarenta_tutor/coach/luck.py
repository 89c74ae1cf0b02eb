"""Provides luck vs skill: how much of the change in a team's win % over each hand the cards did, and how
much the decisions did (as gnubg splits a backgammon game).

- *Skill* is the sum, over every analysed move of the hand, of its loss against the best move: a loss of
  the team's own side counts against it, one of the other side for it. Each side is judged from its own
  view (the analysis of its own decisions), so the other side's hidden cards never make a move look bad.
- *Win change* runs between hand boundaries, where nothing is hidden: before a hand's first deal the win %
  is the hand-value table's (analysis/values.py: the scores and the next dealer hold the whole position),
  and at the end of a finished game it is 100 or 0, whatever ended it: the cartón, a play, or a deal that a
  play brought about (four of a kind, a ronda reaching the target), which then counts in the hand of that
  play. Under rules with no table the hand's first analysed decision stands in (so a hand's figures run to
  the next hand's first decision, and its luck holds that deal).
- *Luck* is the rest, win change minus skill: the deals, and what the other side's hidden cards turned out
  to be. Luck + skill = win change for every hand and for the game, by construction.

Every figure is in win-% points for the team.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from ..analysis.values import for_model
from ..engine import Rules, apply, initial_state, parse_card
from ..i18n import _, ngettext, number, pgettext
from ..records import GameRecord, ReplayedGame
from .review import read


@dataclass(frozen=True)
class HandLuck:
    """One hand from the team's side (hand 1 is the first)."""

    hand: int
    start: float
    """The team's win % as the hand began (before its deal where there is a table)."""
    end: float
    win_change: float
    luck: float
    skill: float
    """The other side's losses minus the team's own."""
    own_loss: float
    other_loss: float
    moves: int
    """Analysed moves behind `skill`."""
    missing: int
    """Decisions of the hand with no analysis (their loss is not counted)."""

    def to_json(self) -> dict:
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in asdict(self).items()}


@dataclass(frozen=True)
class GameLuck:
    team: int
    anchors: str
    """"table" (hand boundaries valued by the hand-value table) or "first decision" (no table for these rules)."""
    hands: list
    """HandLuck per hand."""

    def total(self, name: str) -> float:
        return sum(getattr(h, name) for h in self.hands)

    @property
    def win_change(self) -> float:
        return self.hands[-1].end - self.hands[0].start if self.hands else 0.0

    def to_json(self) -> dict:
        totals = {name: round(self.total(name), 2) for name in ("luck", "skill", "own_loss", "other_loss")}
        return {"team": self.team, "anchors": self.anchors, "units": "win-% points for the team",
                "hands": [h.to_json() for h in self.hands],
                "total": {"win_change": round(self.win_change, 2), **totals,
                          "moves": sum(h.moves for h in self.hands), "missing": sum(h.missing for h in self.hands)}}


def boundaries(game: ReplayedGame) -> list:
    """Per hand (start ply, end ply, the state at its end): the game's last state where the game ended (whatever
    ended it, a deal included), else the state before the next hand's deal; None for the hand the game stopped
    in."""
    states, hands, start = game.states, [], 0
    for i, move in enumerate(game.moves):
        after = states[i + 1]
        if after.is_over:
            hands.append((start, i + 1, after))
            start = i + 1
        elif after.hand_no != states[i].hand_no:
            ended, _ = apply(states[i], move.action, parse_card(move.card))  # the play alone: before the next deal
            hands.append((start, i + 1, ended))
            start = i + 1
    if start < len(game.moves):
        hands.append((start, len(game.moves), None))  # the hand the game stopped in
    return hands


def split(game: GameRecord | ReplayedGame, team: int, model=None, model_id: str = "") -> GameLuck:
    """Luck vs skill per hand for `team`, from the annotations in the record (every seat's decisions should
    be analysed: `missing` counts those that are not). `model`/`model_id` pick the hand-value table."""
    game = ReplayedGame.of(game)
    record = game.record
    rules = Rules().with_options(**record.rules)
    hands = boundaries(game)
    table = for_model(str(model), model_id, rules) if model is not None and model_id else None
    notes = [read(m.annotation) for m in record.moves]

    def mine(note, pct: float) -> float:  # a mover's win % as the team's
        return pct if note.seat % 2 == team else 100.0 - pct

    def first_decision(lo: int, hi: int) -> float | None:
        note = next((n for n in notes[lo:hi] if n is not None), None)
        return None if note is None else mine(note, note.win_before)

    def value_at(ended) -> float:
        if ended.is_over:
            return 100.0 if ended.winner == team else 0.0
        return 100.0 * table.win(ended, team)

    out = []
    begin = 100.0 * table.win(initial_state(rules, record.first_dealer), team) if table else None
    for k, (lo, hi, ended) in enumerate(hands):
        start = begin if table else first_decision(lo, hi)
        if ended is not None and (table or ended.is_over):
            end = value_at(ended)
        elif ended is not None and k + 1 < len(hands):
            end = first_decision(*hands[k + 1][:2])
        else:  # the game stopped mid-hand: its last analysed move
            last = next((n for n in reversed(notes[lo:hi]) if n is not None), None)
            end = None if last is None else mine(last, last.win_after)
        if start is None or end is None:
            break  # nothing analysed to anchor the hand: the split stops here
        own = sum(n.loss for n in notes[lo:hi] if n is not None and n.seat % 2 == team)
        other = sum(n.loss for n in notes[lo:hi] if n is not None and n.seat % 2 != team)
        decisions = [i for i in range(lo, hi) if game.choices[i]]
        analysed = sum(notes[i] is not None for i in decisions)
        skill = other - own
        out.append(HandLuck(k + 1, start, end, end - start, end - start - skill, skill, own, other, analysed,
                            len(decisions) - analysed))
        begin = end
    return GameLuck(team, "table" if table else "first decision", out)


def summary_line(luck: GameLuck) -> str:
    """"Win % 50 → 100 (+50.0): luck +41.2, skill +8.8 (losses: own side 12.3, other side 21.1)"."""
    if not luck.hands:
        return _("Luck vs skill: no analysed hand yet.")
    t = luck.to_json()["total"]
    text = _("Win % {start} → {end} ({change}): luck {luck}, skill {skill} (losses: own side {own}, other side "
             "{other})").format(start=number(luck.hands[0].start), end=number(luck.hands[-1].end),
                                change=_plus(t["win_change"]), luck=_plus(t["luck"]), skill=_plus(t["skill"]),
                                own=number(t["own_loss"], 1), other=number(t["other_loss"], 1))
    if t["missing"]:
        text = ngettext("{text}; {n} decision not analysed yet", "{text}; {n} decisions not analysed yet",
                        t["missing"]).format(text=text, n=t["missing"])
    return text


def _plus(value: float) -> str:
    """A signed figure with one decimal in the language's format, signed as `+.1f` signs it ("+2.5", "-0.0")."""
    shown = round(value, 1)
    return ("-" if math.copysign(1.0, shown) < 0 else "+") + number(abs(shown), 1)


def table_lines(luck: GameLuck) -> list[str]:
    """The per-hand table as text lines."""
    heads = (pgettext("luck table", "hand"), pgettext("luck table", "start"), pgettext("luck table", "end"),
             pgettext("luck table", "change"), pgettext("luck table", "luck"), pgettext("luck table", "skill"))
    widths = [max(w, len(head)) for w, head in zip((4, 6, 6, 7, 7, 7), heads, strict=True)]

    def row(cells) -> str:
        return " ".join(f"{cell:>{w}}" for cell, w in zip(cells, widths, strict=True))

    lines = [row(heads)]
    for h in luck.hands:
        lines.append(row((h.hand, number(h.start, 1), number(h.end, 1), _plus(h.win_change), _plus(h.luck),
                          _plus(h.skill))))
    if luck.hands:
        lines.append(row((pgettext("luck table", "all"), number(luck.hands[0].start, 1), number(luck.hands[-1].end, 1),
                          _plus(luck.win_change), _plus(luck.total("luck")), _plus(luck.total("skill")))))
    return lines
