"""Drills from the person's mistakes: made by a review, the position as it was seen, Leitner's schedule, and a
deck file that survives damage without losing a drill."""

import json
from datetime import datetime, timedelta, timezone

import pytest
from helpers import SMALL, worst_game, worst_review

from cuarenta_tutor import coach, records
from cuarenta_tutor.coach import drills
from cuarenta_tutor.coach.kinds import KINDS
from cuarenta_tutor.engine import legal_actions

# one worker runs the files that share worst games: helpers keeps each game and its review per process
pytestmark = pytest.mark.xdist_group("worst-games")

NOW = (datetime.now(timezone.utc) + timedelta(hours=1)).replace(microsecond=0)
"""A clock an hour after the drills are made (they are due from when they are made)."""


SEED = 24
"""A worst game (helpers.worst_game) with a mistake and two blunders in SMALL's worlds."""


@pytest.fixture(scope="module")
def made():
    """A game of the person's worst moves, its mistakes reviewed with two of its other doubtful moves (which
    ones: the whole game's review, made once per test run by helpers.worst_review)."""
    session = worst_game(seed=SEED)
    whole = worst_review(SEED, session.record)
    plies = [a.ply for a in whole if a.klass.is_mistake_or_worse]
    plies += [a.ply for a in whole if a.klass in ("inaccuracy", "unclear")][:2]
    found: list = []
    notes = coach.review(session.record, None, SMALL, plies=plies, drills=found)
    return session.record, notes, found


def test_every_mistake_and_blunder_of_the_person_becomes_a_drill_of_the_position_they_saw(made):
    record, notes, found = made
    mistakes = [n for n in notes if n.klass.is_mistake_or_worse]
    assert len(mistakes) >= 2 and len(notes) > len(mistakes)  # the other moves reviewed make no drill
    assert [d.id for d in found] == [f"{record.game_id}:{n.ply}" for n in mistakes]
    states = records.replay(record)
    for drill, note in zip(found, mistakes, strict=True):
        state = drill.state()
        assert state == states[note.ply] and state.turn == record.human_seat == drill.seat
        assert drill.played == note.action and drill.kind in KINDS
        assert sorted(m["action"] for m in drill.moves) == sorted(legal_actions(state))
        assert drill.move(drill.played)["class"] == note.klass and drill.best["action"] == note.best_action
        assert drill.box == 0 and drill.game["moves"] and all(m["annotation"] is None for m in drill.game["moves"])
    assert all(record.moves[int(d.id.split(":")[1])].seat == record.human_seat for d in found)


def test_a_wrong_answer_comes_back_at_once_and_a_right_one_days_later(made):
    _, _, found = made
    deck = drills.Deck([drills.Drill.from_json(json.loads(json.dumps(d.to_json()))) for d in found[:2]])
    first, second = deck.due(NOW)
    right, text = first.answer(first.played, NOW)
    assert not right and first.box == 0 and first.due == NOW.isoformat()
    assert "points below" in text and first.best["move"] in text
    right, text = second.answer(second.best["action"], NOW)
    assert right and second.box == 1 and "the best move" in text and "In the game you played" in text
    assert [d.id for d in deck.due(NOW)] == [first.id]  # the wrong one is back; the right one is not
    assert [d.id for d in deck.due(NOW + timedelta(days=1))] == [first.id, second.id]
    for day in (3, 7, 16, 35, 35):
        second.answer(second.best["action"], NOW)
        assert datetime.fromisoformat(second.due) - NOW == timedelta(days=day)
    second.answer(second.played, NOW)
    assert second.box == 0 and len(second.answers) == 7


def test_a_drill_answered_wrong_in_the_second_the_others_were_made_waits_behind_them(made):
    _, _, found = made
    deck = drills.Deck([drills.Drill.from_json(json.loads(json.dumps(d.to_json()))) for d in found[:3]])
    made_at = datetime.fromisoformat(deck.drills[0].created)  # times are kept to the second: a fast person ties
    for drill in deck.drills:
        drill.created = drill.due = made_at.isoformat()
    first, *others = deck.due(made_at)
    first.answer(first.played, made_at)  # wrong: due at once, in the same second as the others
    assert first.due == others[0].due and [d.id for d in deck.due(made_at)] == [*(d.id for d in others), first.id]
    assert deck.next_due().id == others[0].id


def test_the_deck_round_trips_and_a_drill_is_added_once(made):
    _, _, found = made
    assert drills.add_drills(found) == (len(found), [])
    assert drills.add_drills(found) == (0, [])
    deck = drills.load_deck()
    assert [d.to_json() for d in deck.drills] == [d.to_json() for d in found] and not deck.problems


def test_a_damaged_deck_is_reported_and_kept_aside_and_a_damaged_drill_is_kept_as_it_was(made):
    _, _, found = made
    path = drills.deck_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json", encoding="utf-8")
    deck = drills.load_deck()
    assert "damaged" in deck.problems[0] and not deck.drills and path.read_text() == "{not json"
    deck.add(found[:1])
    drills.save_deck(deck)
    aside = list(path.parent.glob("drills.damaged-*.json"))
    assert len(aside) == 1 and aside[0].read_text() == "{not json"  # nothing is deleted
    stored = json.loads(path.read_text())
    broken = {**stored["drills"][0], "id": "broken", "due": "someday"}
    cut = {**stored["drills"][0], "id": "cut", "game": {**stored["drills"][0]["game"], "moves": [[1, 2]]}}
    awful = {**stored["drills"][0], "id": "awful",
             "moves": [{**m, "class": "awful"} for m in stored["drills"][0]["moves"]]}  # not a Class
    stored["drills"] += [broken, cut, awful, "not a drill"]
    path.write_text(json.dumps(stored))
    deck = drills.load_deck()
    assert [d.id for d in deck.drills] == [found[0].id] and len(deck.problems) == 4
    assert all("\n" not in p for p in deck.problems) and "'broken'" in deck.problems[0]
    assert "'awful'" in deck.problems[2] and "class is not one of best, good" in deck.problems[2]
    deck.drills[0].answer(deck.drills[0].played, NOW)
    drills.save_deck(deck)
    again = json.loads(path.read_text())["drills"]
    assert again[1:] == [broken, cut, awful, "not a drill"]  # written back untouched


def test_a_drill_keeps_whether_its_intervals_were_measured_and_an_uncalibrated_one_says_so(made):
    _, _, found = made
    drill = found[0]
    assert drill.measured  # the shipped model's sidecar measured its error
    assert "±" in drill.answer(drill.played, NOW)[1]
    stored = {**drill.to_json(), "measured": False}  # as made from an exported model with no sidecar
    uncalibrated = drills.Drill.from_json(json.loads(json.dumps(stored)))
    assert not uncalibrated.measured
    _, text = uncalibrated.answer(uncalibrated.played, NOW)
    assert "(uncalibrated)" in text and "±" not in text
    old = {k: v for k, v in drill.to_json().items() if k != "measured"}  # a deck from before the field
    assert drills.Drill.from_json(old).measured
    with pytest.raises(ValueError, match="measured"):
        drills.Drill.from_json({**drill.to_json(), "measured": "yes"})


def test_a_drill_made_from_an_analysis_with_no_measured_error_is_marked(made):
    from dataclasses import replace

    from cuarenta_tutor.analysis import analyse_game

    record, _, found = made
    plies = [int(found[0].id.split(":")[1])]
    measured = analyse_game(record, SMALL, plies=plies)
    assert [d.measured for d in drills.make(record, measured)] == [True]
    critic = [(ply, replace(a, leaf="critic", settings=replace(a.settings, value_sd=0.0))) for ply, a in measured]
    assert [d.measured for d in drills.make(record, critic)] == [False]  # an exported model with no sidecar
