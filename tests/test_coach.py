"""Coach: mistake classes at their boundaries, accuracy as the share of a decision's range, hints and
annotations (from the network and from the analysis), and the review of a saved game on the analysis: its
provenance, what changed since the last review, and the text of the annotated game."""

import json
import math
from dataclasses import replace

import pytest
from helpers import SMALL, fixed

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents import Decision, make_policy
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from cuarenta_tutor.analysis import Analysis, MoveEval, Settings
from cuarenta_tutor.coach import (
    Annotation,
    Provenance,
    accuracy_by_group,
    annotate,
    classify,
    format_review,
    from_analysis,
    game_accuracy,
    hints,
)
from cuarenta_tutor.engine import (
    ACTION_RANK,
    Dealer,
    knows_every_card,
    legal_actions,
    make_position,
    match_action,
    parse_rank,
    preset,
)
from cuarenta_tutor.engine.actions import sum_action, trail_action
from cuarenta_tutor.narrator import move_name

pytestmark = pytest.mark.xdist_group("coach")  # one worker runs the module: its reviewed game is made once

MODEL = default_model_path()  # the shipped model (models/ is in the repository: a missing one fails)


@pytest.mark.parametrize("loss,standard,strict", [
    (0.0, "best", "best"), (0.5, "good", "good"), (1.99, "good", "good"), (2.0, "good", "inaccuracy"),
    (3.99, "good", "inaccuracy"), (4.0, "good", "mistake"), (4.99, "good", "mistake"), (5.0, "inaccuracy", "mistake"),
    (7.99, "inaccuracy", "mistake"), (8.0, "inaccuracy", "blunder"), (9.99, "inaccuracy", "blunder"),
    (10.0, "mistake", "blunder"), (14.99, "mistake", "blunder"), (15.0, "blunder", "blunder"),
    (100.0, "blunder", "blunder"),
])
def test_classes_change_exactly_at_the_thresholds(loss, standard, strict):
    assert classify(loss) == standard
    assert classify(loss, "strict") == strict


def test_classify_refuses_an_unknown_preset_or_a_non_number():
    with pytest.raises(ValueError, match="choose one of: standard, strict"):
        classify(3, "lenient")
    with pytest.raises(ValueError, match="not nan"):
        classify(math.nan)


@pytest.mark.parametrize("loss,ci,standard,strict", [
    (12.0, (5.0, 19.0), "mistake", "blunder"), (12.0, (4.9, 19.0), "unclear", "blunder"),
    (16.0, (10.0, 22.0), "blunder", "blunder"), (16.0, (9.9, 22.0), "unclear", "blunder"),
    (6.0, (0.0, 12.0), "inaccuracy", "unclear"), (6.0, (-3.0, 15.0), "unclear", "unclear"),
    (3.0, (2.0, 4.0), "good", "inaccuracy"), (0.0, (0.0, 0.0), "best", "best"),
])
def test_with_an_interval_a_class_needs_its_low_end_at_the_threshold_below(loss, ci, standard, strict):
    assert classify(loss, loss_ci95=ci) == standard and classify(loss, "strict", ci) == strict
    assert isinstance(classify(loss, loss_ci95=ci), coach.Class)


@pytest.mark.parametrize("loss,ci,standard", [
    (9.5, (6.5, 12.5), "mistake"), (9.5, (8.5, 10.5), "inaccuracy"), (9.2, (6.2, 12.2), "inaccuracy"),
    (14.4, (11.4, 17.4), "blunder"), (14.4, (13.4, 15.4), "mistake"), (4.8, (2.0, 7.6), "good"),
])
def test_a_warning_class_is_reached_by_a_one_in_three_chance_of_its_threshold_and_an_error_by_the_loss(loss, ci,
                                                                                                       standard):
    # 9.5 +- 3: a 37% chance of losing 10 or more (a mistake); +- 1: 16% (not); 9.2 +- 3: 30% (not). Being wrong
    # at all (an inaccuracy) takes the loss itself: 4.8 +- 2.8 is good.
    assert classify(loss, loss_ci95=ci) == standard


def test_one_class_vocabulary_for_marks_warnings_drills_and_records():
    Class = coach.Class
    assert [c.value for c in Class] == ["best", "good", "inaccuracy", "mistake", "blunder", "unclear"]
    assert [c for c in Class if c.is_error] == list(coach.ERRORS) == [Class.INACCURACY, Class.MISTAKE, Class.BLUNDER]
    assert [c for c in Class if c.is_mistake_or_worse] == [Class.MISTAKE, Class.BLUNDER]
    assert [c for c in Class if c.is_right] == [Class.BEST, Class.GOOD]
    assert [c.mark for c in Class] == ["", "", "?!", "?", "??", "~"]
    assert [c.with_article for c in coach.ERRORS] == ["an inaccuracy", "a mistake", "a blunder"]
    note = _note(50, 50, None)
    assert note.klass is Class.BEST and json.loads(json.dumps(note.to_dict()))["klass"] == "best"


def test_the_tutor_and_the_annotation_classify_every_move_alike_under_each_preset(position):
    from cuarenta_tutor.tui.tutor import warning_for

    state, _, take, t5, tk, t7 = position
    # losses in every band of both presets, some with an interval too wide for their class
    analysis = _analysis(state, [(take, 70, 3, 0, 0), (t5, 65, 3, 5, 1), (tk, 61, 3, 9, 1), (t7, 58, 3, 12, 9)])
    for coaching in coach.THRESHOLDS:
        for move in analysis.moves:
            note = from_analysis(analysis, move.action, 0, coaching)
            assert note.klass == classify(move.loss, coaching, move.loss_ci95)
            warned = warning_for(analysis, move.action, coaching)
            assert warned == (note.klass if note.klass.is_mistake_or_worse else None), (coaching, move.name)
    # under strict, 5 lost is a mistake: the tutor warns, as the annotation after the move says
    assert warning_for(analysis, t5, "strict") == "mistake" and warning_for(analysis, t5) is None


def test_move_accuracy_is_the_share_of_the_decisions_range_kept():
    from cuarenta_tutor.analysis.classes import range_accuracy

    assert range_accuracy([70, 58, 52], 70) == 100.0 and range_accuracy([70, 58, 52], 52) == 0.0
    assert range_accuracy([70, 58, 52], 58) == pytest.approx(100 * 6 / 18)
    assert range_accuracy([50.0, 49.0], 49.0) is None  # within 2 points: any move would do, it does not count


def _note(win_before, win_after, accuracy, ply=0, seat=0):
    return Annotation(ply, seat, 0, "A trails", win_before, win_after, 0, "A trails", win_after, 0.0, "best", accuracy,
                      Provenance("network", "m"))


def test_game_accuracy_is_the_mean_over_the_decisions_that_count():
    notes = [_note(50, 60, 100), _note(60, 40, 40), _note(40, 40, None), _note(30, 30, 10)]
    assert game_accuracy(notes) == pytest.approx(50)
    assert game_accuracy([_note(50, 50, None)]) is None and game_accuracy([]) is None


def test_accuracy_by_group_and_from_stored_dicts():
    notes = [_note(50, 60, 100), _note(60, 40, 80), _note(40, 30, 50), _note(30, 30, 90)]
    groups = accuracy_by_group(notes, [1, 1, 2, 2])
    assert list(groups) == [1, 2]
    assert groups[1] == pytest.approx(game_accuracy(notes[:2]))
    assert groups[2] == pytest.approx(game_accuracy(notes[2:]))
    with pytest.raises(ValueError, match="4 annotations but 3"):
        accuracy_by_group(notes, [1, 1, 2])
    assert coach.summary_accuracy([n.to_dict() for n in notes]) == pytest.approx(game_accuracy(notes))


@pytest.fixture
def position():
    """Seat 0 holds 7 5 K; the table is 3 4 J Q: 7 takes 3+4 and the escalera J Q."""
    state = make_position(hands=[["7", "5", "K"], ["2", "3"]], table=["3", "4", "J", "Q"], turn=0)
    r = parse_rank
    take = sum_action(r("7"), [r("3"), r("4")])
    t7, t5, tk = trail_action(r("7")), trail_action(r("5")), trail_action(r("K"))
    decision = Decision(take, {take: 0.6, t5: 0.2, tk: 0.15, t7: 0.05}, 0.55,
                        {take: 0.70, t5: 0.58, tk: 0.58, t7: 0.52}, "model-sha")
    return state, decision, take, t5, tk, t7


def test_hints_rank_every_legal_move_by_win_after(position):
    state, decision, take, t5, tk, t7 = position
    got = hints(state, decision)
    assert [h.action for h in got] == [take, t5, tk, t7]  # 5 and K tie at 58 %: the likelier first
    assert [h.name for h in got] == ["7 takes 3+4, then J Q", "5 trails", "K trails", "7 trails"]
    assert [h.win_after for h in got] == pytest.approx([70, 58, 58, 52])
    assert [h.loss for h in got] == [0.0, 12.0, 12.0, 18.0]
    assert [h.prob for h in got] == [0.6, 0.2, 0.15, 0.05]


def test_annotation_of_a_mistake_a_blunder_and_the_best_move(position):
    state, decision, take, t5, tk, t7 = position
    a = annotate(state, decision, t7, ply=6)
    assert (a.ply, a.seat, a.action, a.name) == (6, 0, t7, "7 trails")
    assert (a.win_before, a.win_after, a.win_best) == pytest.approx((55, 52, 70))
    # the network's numbers never make a class, however much the move loses by them: a class comes from the analysis
    assert (a.best_action, a.best_name, a.loss, a.klass) == (take, "7 takes 3+4, then J Q", 18.0, "unclear")
    assert a.model_id == "model-sha" and a.method == "network" and a.ci95 is None and a.worlds == 0
    assert a.accuracy == 0.0  # the worst move of the decision
    assert annotate(state, decision, t5, 6).klass == "unclear"
    assert annotate(state, decision, t5, 6).accuracy == pytest.approx(100 * 6 / 18)
    assert annotate(state, decision, t5, 6, "strict").klass == "unclear"
    best = annotate(state, decision, take, 6)
    assert (best.klass, best.loss, best.accuracy, best.best_action) == ("unclear", 0.0, 100.0, take)


def _analysis(state, rows, seat=0):
    """An Analysis of `state` from rows (action, win %, half-width, loss, loss half-width), best first."""
    moves = tuple(MoveEval(a, move_name(state, a), w, (w - h, w + h), loss, (loss - lh, loss + lh), 0.0, 0.1, 0.0,
                           64) for a, w, h, loss, lh in rows)
    return Analysis(seat, moves, 64, 0.5, Settings(worlds=64), "model-sha", "table")


def test_annotation_from_the_analysis_gives_a_class_only_where_the_interval_supports_it(position):
    state, _, take, t5, tk, t7 = position
    analysis = _analysis(state, [(take, 70, 3, 0, 0), (t5, 58, 3, 12, 2), (tk, 57, 3, 13, 9), (t7, 52, 3, 18, 2)])
    a = from_analysis(analysis, t7, 4)
    assert (a.win_before, a.win_after, a.win_best, a.loss, a.klass) == (70, 52, 70, 18, "blunder")
    assert a.ci95 == (49, 55) and a.loss_ci95 == (16, 20) and a.worlds == 64 and a.accuracy == 0.0
    assert a.provenance.method == "analysis" and a.model_id == "model-sha"
    assert a.provenance.settings == Settings(worlds=64).to_json() and a.provenance.leaf == "table"
    assert from_analysis(analysis, t5, 4).klass == "mistake"
    assert from_analysis(analysis, tk, 4).klass == "unclear"  # 13 lost, but its interval reaches down to 4
    assert from_analysis(analysis, take, 4).klass == "best"
    with pytest.raises(ValueError, match="not a legal move"):
        from_analysis(analysis, match_action(parse_rank("7")), 4)


def test_annotation_round_trips_through_json(position):
    state, decision, take, t5, tk, t7 = position
    a = annotate(state, decision, t7, ply=3)
    assert Annotation.from_dict(json.loads(json.dumps(a.to_dict()))) == a
    analysed = from_analysis(_analysis(state, [(take, 70, 3, 0, 0), (t7, 52, 3, 18, 2)]), t7, 3)
    assert Annotation.from_dict(json.loads(json.dumps(analysed.to_dict()))) == analysed
    with pytest.raises(ValueError, match="'loss' is 'a lot'"):
        Annotation.from_dict({**a.to_dict(), "loss": "a lot"})
    with pytest.raises(ValueError, match="class 'awful'"):
        Annotation.from_dict({**a.to_dict(), "klass": "awful"})
    with pytest.raises(ValueError, match="'ci95' is \\[1\\], not a \\[low, high\\] pair"):
        Annotation.from_dict({**analysed.to_dict(), "ci95": [1]})
    # provenance and risks are typed values, checked when read
    assert isinstance(analysed.provenance, Provenance) and analysed.provenance.method == "analysis"
    assert analysed.to_dict()["risks"] == {"played": list(analysed.risks.played), "best": list(analysed.risks.best)}
    with pytest.raises(ValueError, match="provenance method 'magic'"):
        Annotation.from_dict({**a.to_dict(), "provenance": {**a.to_dict()["provenance"], "method": "magic"}})
    with pytest.raises(ValueError, match="provenance field 'settings'"):
        Annotation.from_dict({**analysed.to_dict(), "provenance": {"method": "analysis", "settings": [64]}})
    with pytest.raises(ValueError, match="'risks'"):
        Annotation.from_dict({**analysed.to_dict(), "risks": {"played": [0.5], "best": [0, 0]}})
    with pytest.raises(TypeError, match="provenance is a Provenance"):
        Annotation(**{**vars(a), "provenance": {"method": "network"}})


def test_annotations_saved_by_earlier_versions_still_read():
    old = {"ply": 2, "seat": 0, "action": 5, "name": "6 trails", "win_before": 50.0, "win_after": 41.0,
           "best_action": 7, "best_name": "7 trails", "win_best": 52.0, "loss": 11.0, "klass": "mistake",
           "accuracy": 61.2, "prob": 0.1, "model_id": "abc"}
    a = Annotation.from_dict(old)
    assert (a.method, a.model_id, a.klass, a.ci95, a.worlds) == ("network", "abc", "mistake", None, 0)


def test_coach_refuses_what_it_cannot_judge(position):
    state, decision, take, *_ = position
    with pytest.raises(ValueError, match="win probability after every legal move; expert gives none"):
        hints(state, Decision(take, {take: 1.0}, model_id="expert"))
    with pytest.raises(ValueError, match="win probability of the position"):
        annotate(state, Decision(take, decision.probs, None, decision.action_values), take, 0)
    with pytest.raises(ValueError, match="not a legal move"):
        annotate(state, decision, match_action(parse_rank("7")), 0)


def _bot_game(seed, human_seat, stop=None, coach_policy=None):
    """A recorded bot game played by hand (a Dealer and apply, not the coach's Table); with `coach_policy`, the
    human seat's moves are annotated as they are played, as the app does."""
    rules = preset("standard")
    bots = [make_policy("greedy", seed), make_policy("expert", seed)]
    for seat, bot in enumerate(bots):
        bot.reset(seat)
    if coach_policy:
        coach_policy.reset(human_seat)
    dealer = Dealer(seed)
    state, events = dealer.start(rules, 0)
    record = records.new_record(rules, seed, 0, [("human", "Ana"), ("expert", "Bot")], human_seat)
    made = []
    while not state.is_over and (stop is None or len(record.moves) < stop):
        for p in bots + ([coach_policy] if coach_policy else []):
            p.observe(state, events)
        seat = state.turn
        action = bots[seat].decide(state).action
        note = None
        if coach_policy and seat == human_seat:
            note = annotate(state, coach_policy.decide(state), action, len(record.moves))
            made.append(note)
        card = next(c for c in state.hands[seat] if c >> 2 == ACTION_RANK[action])
        state, events = dealer.play(state, action, card=card)
        record.add_move(seat, action, card, note, after=state)
    return record, made


def move_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:5].strip().rstrip(".").isdigit()]


def test_format_review_writes_one_line_per_move_the_intervals_the_provenance_and_the_accuracy():
    record, _ = _bot_game(5, 0, stop=6)
    first = record.moves[0].seat
    prov = Provenance("analysis", "0123456789abcdef", {"worlds": 256}, "table", "9.9")
    notes = [Annotation(0, first, 0, "A trails", 60.0, 45.0, 16, "7 takes 7", 60.0, 15.0, "blunder", 50.0, prov,
                        (42.0, 48.0), (12.0, 18.0), 256),
             Annotation(2, first, 0, "A trails", 40.0, 40.0, 0, "A trails", 40.0, 0.0, "best", 100.0, prov,
                        (38.0, 42.0), (0.0, 0.0), 256)]
    text = format_review(record, notes)
    lines = text.splitlines()
    moves = move_lines(text)
    assert len(moves) == 6 and moves[0].startswith("   1. ")
    assert "win 45% ±3  blunder (best: 7 takes 7, 60%, loss 15.0, 95% 12.0-18.0)" in moves[0]
    assert "win 40% ±2  best" in moves[2] and "(best:" not in moves[2]
    assert "win" not in moves[1]
    assert "Hand 1 (score 0-0)" in lines and "unfinished" in lines[0]
    assert ("Annotations by model 0123456789ab: analysis in up to 256 sampled worlds per move, ends valued by the "
            "table (version 9.9)") in lines
    name = "Ana (you)" if first == 0 else "Bot"
    assert f"  {name}: 75.0% over 2 moves (0 inaccuracies, 0 mistakes, 1 blunder, 0 unclear); hand 1 75%" in text
    assert "no move was annotated" in format_review(record, [])


DEEPER = fixed(48)
"""A deeper review, of a few moves."""
FEW = fixed(2)
"""Where only which moves are annotated counts."""


@pytest.fixture(scope="module")
def annotated_game():
    """A whole bot game whose seat 1 was coached by the shipped network while it was played (seed 70: a short
    game, 35 decisions, one of which the analysis calls a blunder and the network does not)."""
    record, made = _bot_game(70, 1, coach_policy=OnnxPolicy(MODEL))
    return record, made


def test_annotations_made_in_play_by_the_network_are_saved(annotated_game, tmp_path):
    record, made = annotated_game
    assert record.result is not None and made
    loaded = records.load(records.save(record, tmp_path))
    assert [m.annotation for m in loaded.moves if m.seat == 1] == [a.to_dict() for a in made]
    assert all(m.annotation is None for m in loaded.moves if m.seat == 0)
    assert all(a.method == "network" and a.model_id == file_sha256(MODEL) for a in made)


@pytest.fixture(scope="module")
def reviewed(annotated_game):
    """The coached game reviewed on the analysis (SMALL)."""
    record, _ = annotated_game
    return coach.review(record, MODEL, SMALL)


def test_review_analyses_every_decision_with_its_interval_and_provenance(annotated_game, reviewed):
    record, _ = annotated_game
    states = records.replay(record)
    assert [a.ply for a in reviewed] == coach.decisions(record, [1]) and len(reviewed) > 10
    assert all(len(legal_actions(states[a.ply])) > 1 for a in reviewed)
    sha = file_sha256(MODEL)
    for a in reviewed:
        state, move = states[a.ply], record.moves[a.ply]
        assert a.action == move.action and a.seat == move.seat == state.turn
        assert a.best_action in legal_actions(state)
        assert (a.name, a.best_name) == (move_name(state, a.action), move_name(state, a.best_action))
        assert a.ci95[0] <= a.win_after <= a.ci95[1] and a.loss >= 0
        assert a.worlds == (1 if knows_every_card(state) else SMALL.worlds)  # every card known: the one true world
        assert (a.loss == 0) == (a.klass == "best") and a.win_best == a.win_before >= a.win_after
        assert a.accuracy is None or 0 <= a.accuracy <= 100
        assert a.provenance.model == sha and a.provenance.settings == SMALL.to_json()
    sampled = [a for a in reviewed if a.worlds > 1][:2]
    assert len(sampled) == 2  # the same numbers every time (two decisions again: each is analysed on its own)
    assert coach.review(record, MODEL, SMALL, plies=[a.ply for a in sampled]) == sampled


def test_a_review_is_stored_with_what_changed_and_a_deeper_one_says_what_changed_again(annotated_game, reviewed,
                                                                                        tmp_path):
    record, made = annotated_game
    path = records.save(record, tmp_path)
    loaded = records.load(path)
    by_ply = {a.ply: a for a in made}
    changes = coach.store(loaded, reviewed, [1])
    errors = {"inaccuracy", "mistake", "blunder"}
    assert all(by_ply[a.ply].klass == "unclear" for a in reviewed) and {a.klass for a in reviewed} & errors
    assert changes == []  # the network's annotations had no verdict to change: the first one is the analysis's
    records.save(loaded, path=path)
    again = records.load(path)
    sha = file_sha256(MODEL)
    decided = {a.ply for a in reviewed}
    for i, m in enumerate(again.moves):
        if m.seat == 1:  # a move without a choice keeps no annotation
            assert (m.annotation is not None) == (i in decided)
            assert m.annotation is None or coach.is_current(m.annotation, sha, SMALL)
    doubtful = [a.ply for a in reviewed if a.klass in errors | {"unclear"}]  # where more worlds may well say otherwise
    deeper = coach.review(again, MODEL, DEEPER, plies=doubtful)
    said = next(a for a in reviewed if a.ply == deeper[0].ply)  # as if the review in SMALL had called it a mistake
    again.annotate(said.ply, replace(said, klass="blunder" if deeper[0].klass == "mistake" else "mistake"))
    lines = coach.store(again, deeper, [1])
    assert lines and all(f" (deeper review: {DEEPER.worlds} worlds), now " in line for line in lines)
    assert coach.is_current(again.moves[deeper[0].ply].annotation, sha, SMALL)  # the deeper verdict stays
    first, second = deeper[0].ply, deeper[1].ply
    coach.store(again, coach.review(again, MODEL, SMALL, plies=[first]), [1])  # one move again: the rest stay
    assert coach.is_current(again.moves[first].annotation, sha, SMALL)
    assert again.moves[second].annotation == deeper[1].to_dict()
    (summary,), _ = records.list_games(tmp_path, accuracy=coach.summary_accuracy)
    assert summary.accuracy == pytest.approx(game_accuracy(reviewed))


def test_format_review_of_a_whole_game_has_one_line_per_move(annotated_game, reviewed):
    record, _ = annotated_game
    states = records.replay(record)
    lines = move_lines(format_review(record, reviewed))
    assert len(lines) == len(record.moves)
    decided = {a.ply for a in reviewed}
    for i, (line, move) in enumerate(zip(lines, record.moves, strict=True)):
        assert line.startswith(f"{i + 1:4d}. ") and move_name(states[i], move.action) in line
        assert (" ±" in line) == (i in decided)
    assert "won" in format_review(record, reviewed).splitlines()[0]


def test_review_without_a_human_annotates_every_seat_and_a_seat_when_asked():
    record, _ = _bot_game(4, None, stop=6)
    notes = coach.review(record, MODEL, FEW)
    assert [a.ply for a in notes] == coach.decisions(record, [0, 1])
    assert {a.seat for a in notes} == {0, 1}
    assert [a.ply for a in coach.review(record, MODEL, FEW, seats=coach.reviewed_seats(record, 1))] == \
        [a.ply for a in notes if a.seat == 1]
    with pytest.raises(ValueError, match="seat 2 is not at this table"):
        coach.reviewed_seats(record, 2)
    text = format_review(record, notes)
    assert "  Ana: " in text and "  Bot: " in text


def test_an_unreadable_annotation_is_made_again_by_a_review_not_fatal(annotated_game, tmp_path):
    record, made = annotated_game
    path = records.save(record, tmp_path)
    data = json.loads(path.read_text())
    ply = made[0].ply
    data["moves"][ply]["annotation"]["win_after"] = "n/a"  # edited by hand (a NaN refuses the file: test_user_files)
    path.write_text(json.dumps(data))
    loaded = records.load(path)
    assert coach.read(loaded.moves[ply].annotation) is None
    assert not coach.is_current(loaded.moves[ply].annotation, file_sha256(MODEL), SMALL)
    (summary,), problems = records.list_games(tmp_path, accuracy=coach.summary_accuracy)
    assert summary.accuracy is None and not problems  # listed, without a figure
    coach.store(loaded, coach.review(loaded, MODEL, SMALL, plies=[ply]), [1])
    assert coach.is_current(loaded.moves[ply].annotation, file_sha256(MODEL), SMALL)
