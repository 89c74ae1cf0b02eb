"""Provides the review of a saved game: annotations made again at a table, and the annotated game as text."""

from __future__ import annotations

from .. import records
from ..engine import Rules, parse_card
from ..narrator import Narrator, move_name
from ..play.table import Table
from ..records import GameRecord, replay_events, result_text
from .annotate import Annotation, accuracy_by_group, annotate, game_accuracy


def review(record: GameRecord, policy_factory, preset: str = "standard") -> list[Annotation]:
    """Annotate a saved game: the human's moves, or every seat's when there is no human seat.

    The game is played again at a table where each annotated seat is watched by a fresh policy from
    `policy_factory(seat)`, which observes what it would have in play and decides before each of its moves.
    """
    records.replay(record)  # RecordError names a move that does not fit
    seats = [record.human_seat] if record.human_seat is not None else range(len(record.seats))
    watchers = {seat: policy_factory(seat) for seat in seats}
    table = Table(Rules().with_options(**record.rules), [None] * len(record.seats), record.dealer,
                  watchers=list(watchers.items()))
    table.start(record.first_dealer)
    out = []
    for i, move in enumerate(record.moves):
        if move.seat in watchers:
            decision = watchers[move.seat].decide(table.state)
            out.append(annotate(table.state, decision, move.action, i, preset))
        table.play(move.action, parse_card(move.card))
    return out


def format_review(record: GameRecord, annotations) -> str:
    """The annotated game as plain text, one line per move, then accuracy per player (for --text and screen readers)."""
    states, events = replay_events(record)
    by_ply = {a.ply: a for a in annotations}
    names = {s.seat: s.name + (" (you)" if s.seat == record.human_seat else "") for s in record.seats}
    narrator = Narrator(Rules().with_options(**record.rules), [s.name for s in record.seats], record.human_seat)
    width = max(len(n) for n in names.values())
    lines = [f"Game {record.game_id}: {record.rules_preset or 'custom'} rules, {len(record.seats)} players, "
             f"{result_text(record)}",
             "Seats: " + ", ".join(f"{s.seat} {s.name} ({s.player})" for s in record.seats)]
    models = sorted({a.model_id[:12] for a in by_ply.values() if a.model_id})
    if models:
        lines.append(f"Analysis by model {', '.join(models)}; win % is for the mover's team")
    hand = -1
    hand_of = {}
    for i, move in enumerate(record.moves):
        state = states[i]
        if state.hand_no != hand:
            hand = state.hand_no
            lines.append(f"Hand {hand + 1} (score {state.scores[0]}-{state.scores[1]})")
        hand_of[i] = hand + 1
        text = f"{i + 1:4d}. {names[move.seat]:<{width}}  {move_name(state, move.action)}"
        a = by_ply.get(i)
        if a is not None:
            text += f"  win {a.win_before:.0f}% -> {a.win_after:.0f}%  {a.klass}"
            if a.klass != "best":
                text += f" (best: {a.best_name}, {a.win_best:.0f}%)"
        notes = narrator.notes(events[i + 1])
        lines.append(text + (f" [{'; '.join(notes)}]" if notes else ""))
    lines.append("Accuracy")
    for seat in sorted({a.seat for a in by_ply.values()}):
        mine = [by_ply[p] for p in sorted(by_ply) if by_ply[p].seat == seat]
        per_hand = accuracy_by_group(mine, [hand_of.get(a.ply, 0) for a in mine])
        hands = ", ".join(f"hand {h} {acc:.0f}%" for h, acc in per_hand.items())
        counts = ", ".join(f"{sum(a.klass == k for a in mine)} {k}" for k in ("inaccuracy", "mistake", "blunder"))
        lines.append(f"  {names[seat]}: {game_accuracy(mine):.1f}% over {len(mine)} moves ({counts}); {hands}")
    if not by_ply:
        lines.append("  no move was annotated")
    return "\n".join(lines)
