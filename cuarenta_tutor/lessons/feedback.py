"""Provides the feedback on a lesson move: the file's text, else what the narrator says the move scores and
what it leaves the opponent; and what search plays in a position and what the tutor's analysis makes of its answer
(strategy answers are checked by both)."""

from __future__ import annotations

import random
from functools import cache

from ..engine import (
    RANKS,
    Played,
    State,
    apply,
    card_str,
    legal_actions,
    play_events,
    play_points,
    unseen_cards,
    unseen_counts,
)
from ..i18n import _, ngettext, number, pgettext
from ..narrator import Narrator, move_name
from .position import Position

SEARCH_SAMPLES, SEARCH_SEEDS = 400, (1, 2, 3)
"""A strategy answer decided by "search" is what SearchPolicy(400, Random(seed)) plays for each seed."""


def search_choices(position: Position, seeds=SEARCH_SEEDS, samples: int = SEARCH_SAMPLES) -> list[int]:
    """What SearchPolicy(samples, Random(seed)) plays in the position, for each seed."""
    from ..agents.search import SearchPolicy

    return [SearchPolicy(samples, random.Random(seed)).decide(position.state).action for seed in seeds]


def analysis_doubts(position: Position) -> str | None:
    """Where the one analysis of the position (the tutor's: the shipped model, the hand table and errors of the
    position's rules and player count) would not take the answer as a right answer to a drill (its class an
    inaccuracy or worse, or unclear: analysis/classes.py): the best move by it and the answer's class and loss with
    its 95% interval, in words; None where the answer is right by it."""
    from dataclasses import replace

    from ..analysis.analyse import analyse
    from ..analysis.calibrate import settings_for

    state = position.state
    agent = _analysing_agent()
    agent.reset(state.turn)  # a lesson's position has no past: the seat's memory starts there
    return doubts(position, analyse(state, agent, replace(settings_for(rules=state.rules), budget_s=0)))


def doubts(position: Position, result) -> str | None:
    """analysis_doubts with the position's analysis (`result`, an analysis.Analysis) given."""
    from ..analysis.classes import classify

    state = position.state
    answer = next(m for m in result.moves if m.action == position.answer)
    klass = classify(answer.loss, loss_ci95=answer.loss_ci95)
    if klass.is_right:
        return None
    return ngettext("the analysis ({worlds} world, ends of hands valued by {leaf}) plays {move}; the answer is "
                    "{klass}: it loses {loss} win-% points ({low} to {high})",
                    "the analysis ({worlds} worlds, ends of hands valued by {leaf}) plays {move}; the answer is "
                    "{klass}: it loses {loss} win-% points ({low} to {high})", result.worlds).format(
        worlds=number(result.worlds), leaf=_leaf(result.leaf),
        move=move_name(state, result.best.action), klass=klass.with_article,
        loss=number(answer.loss, 1), low=number(answer.loss_ci95[0], 1), high=number(answer.loss_ci95[1], 1))


def _leaf(leaf: str) -> str:
    """What valued the analysis's playouts (analyse.Analysis.leaf), as analysis_doubts says it."""
    return {"table": pgettext("analysis leaf", "the table"), "critic": pgettext("analysis leaf", "the critic"),
            "result": pgettext("analysis leaf", "the result")}.get(leaf, leaf)


@cache
def _analysing_agent():
    """The shipped model, loaded once for every position checked."""
    from ..agents.onnx_policy import OnnxPolicy

    return OnnxPolicy()


def _effect(state: State, action: int) -> tuple[int, tuple, list[str]]:
    """(points, table cards taken, what it scores in words) of a move, at once."""
    events = play_events(state, action)
    taken = next(e for e in events if isinstance(e, Played)).captured
    return play_points(events), taken, Narrator(state.rules).effect(events)


def _threat(state: State, action: int) -> str | None:
    """The best capture the opponent who plays next (seat 1) could answer with, over the ranks they may hold
    (points, then cards)."""
    after = apply(state, action)[0]
    if after.needs_deal or not after.hands[1] or after.is_over:
        return None  # the deal (or the game) is over: the reply is on new cards
    unseen, pool, best = unseen_counts(after, 0), unseen_cards(after, 0), None
    for rank in range(10):
        card = next((c for c in pool if c >> 2 == rank), None)
        if card is None:
            continue
        trial = after._replace(hands=(after.hands[0], (card,), *after.hands[2:]))
        for a in legal_actions(trial):
            points, taken, notes = _effect(trial, a)
            if (points or len(taken) >= 3) and (best is None or (points, len(taken)) > best[:2]):
                best = (points, len(taken), notes, rank, move_name(trial, a))
    if best is None:
        return None
    points, taken, notes, rank, name = best
    if not points:
        gain = ngettext("{count} card", "{count} cards", taken).format(count=taken)
    elif len(notes) > 1:
        gain = ngettext("{scores}, {count} point", "{scores}, {count} points", points).format(
            scores=", ".join(notes), count=points)
    else:
        gain = ", ".join(notes)
    holds = any(c >> 2 == rank for c in state.hands[1])
    message = {(2, True): _("Your opponent could answer \"{move}\" with any {rank} ({unseen} unseen): {gain}. This "
                            "time they hold one."),
               (2, False): _("Your opponent could answer \"{move}\" with any {rank} ({unseen} unseen): {gain}. This "
                             "time they do not hold one."),
               (4, True): _("Your next opponent could answer \"{move}\" with any {rank} ({unseen} unseen): {gain}. "
                            "This time they hold one."),
               (4, False): _("Your next opponent could answer \"{move}\" with any {rank} ({unseen} unseen): {gain}. "
                             "This time they do not hold one.")}[state.rules.players, holds]
    return message.format(move=name, rank=RANKS[rank], unseen=unseen[rank], gain=gain)


def feedback(position: Position, action: int | str) -> tuple[bool, str]:
    """(whether `action` is the answer, what to tell the player): the file's text, else `why` for the
    answer, else what the move takes and scores, what it leaves the opponent, and what another move scores; in the
    language in use. `action` is an action id, or a move's name as a person types it (Position.find: English or
    Spanish, "el 5 se lleva el 5", "botas el K")."""
    state = position.state
    if isinstance(action, str):
        typed, action = action, position.find(action)
        if action is None:
            names = ", ".join(move_name(state, a) for a in legal_actions(state))
            return False, _("\"{typed}\" is not a move here. Your moves: {moves}.").format(typed=typed.strip(),
                                                                                          moves=names)
    right = action == position.answer
    if action in position.feedback:
        return right, _(position.feedback[action])
    if right:
        return True, _(position.why)
    if action not in legal_actions(state):
        return False, _("{action} is not a legal move here.").format(action=repr(action))
    (points, taken, notes), threat = _effect(state, action), _threat(state, action)
    move, cards = move_name(state, action), " ".join(card_str(c) for c in taken)
    if not taken:
        said = _("{move}: it captures nothing.").format(move=move)
    elif notes:
        said = _("{move}: it takes {cards} from the table: {scores}.").format(move=move, cards=cards,
                                                                             scores=", ".join(notes))
    else:
        said = _("{move}: it takes {cards} from the table and scores nothing.").format(move=move, cards=cards)
    parts = [said, threat or ""]
    best_points, best_taken, _notes = _effect(state, position.answer)
    if best_points > points:
        parts.append(ngettext("Another move scores {count} point now.", "Another move scores {count} points now.",
                              best_points).format(count=best_points))
    elif len(best_taken) > len(taken) and not threat:
        parts.append(ngettext("Another move takes {count} card from the table.",
                              "Another move takes {count} cards from the table.", len(best_taken)).format(
            count=len(best_taken)))
    elif not threat:
        parts.append(_("It is not the best move here; look again."))
    return False, " ".join(p for p in parts if p)




