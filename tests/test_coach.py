"""Coach: mistake classes at their boundaries, Lichess accuracy by hand, hints and annotations, review of a record."""

import json
import math
import os
import warnings

import pytest

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents import Decision, make_policy
from cuarenta_tutor.coach import Annotation, accuracy_by_group, annotate, classify, format_review, game_accuracy, hints
from cuarenta_tutor.engine import ACTION_RANK, apply, make_position, match_action, parse_rank, preset, start_game
from cuarenta_tutor.engine.actions import sum_action, trail_action


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


def test_move_accuracy_follows_the_lichess_curve():
    # 103.1668 * exp(-0.04354 * loss) - 3.1669 + 1, clamped to 0..100
    assert coach.move_accuracy(0) == 100.0  # 101.0 before the clamp
    assert coach.move_accuracy(5) == pytest.approx(80.82, abs=0.01)  # 103.1668 * 0.80437 = 82.98; - 3.1669 + 1
    assert coach.move_accuracy(10) == pytest.approx(64.58, abs=0.01)  # 103.1668 * 0.64701 = 66.75; - 2.1669
    assert coach.move_accuracy(20) == pytest.approx(41.02, abs=0.01)  # 103.1668 * 0.41863 = 43.19; - 2.1669
    # the curve is a least-squares fit to 0 -> 100, 5 -> 75, 10 -> 60, 20 -> 42, 40 -> 20, 60 -> 5, 80 -> 0
    for loss, fitted in ((0, 100), (5, 75), (10, 60), (20, 42), (40, 20), (60, 5), (80, 0)):
        assert abs(coach.move_accuracy(loss) - fitted) < 6.5
    assert coach.move_accuracy(100) == 0.0 and coach.move_accuracy(-3) == 100.0


def _note(win_before, win_after, accuracy, ply=0, seat=0):
    return Annotation(ply, seat, 0, "A trails", win_before, win_after, 0, "A trails", win_after, 0.0, "best", accuracy,
                      1.0, "m")


def test_game_accuracy_by_hand():
    # win % series 50 60 40 30 (each move's before, then the last one's after); n = 3 -> window 2:
    # windows [50, 60] [60, 40] [40, 30] -> population stdev 5, 10, 5 -> weights 5, 10, 5
    notes = [_note(50, 60, 100), _note(60, 40, 80), _note(40, 30, 50)]
    weighted = (100 * 5 + 80 * 10 + 50 * 5) / 20  # 77.5
    harmonic = 3 / (1 / 100 + 1 / 80 + 1 / 50)  # 70.588...
    assert weighted == 77.5
    assert game_accuracy(notes) == pytest.approx((weighted + harmonic) / 2)  # 74.044
    assert game_accuracy(notes) == pytest.approx(74.0441176, abs=1e-6)


def test_game_accuracy_clamps_the_weights_and_the_harmonic_mean():
    # series 0 100 100 100: stdev 50 -> weight 12; stdev 0 -> 0.5; an accuracy of 0 counts as 1 in the harmonic mean
    notes = [_note(0, 100, 20), _note(100, 100, 100), _note(100, 100, 0)]
    weighted = (20 * 12 + 100 * 0.5 + 0 * 0.5) / 13
    harmonic = 3 / (1 / 20 + 1 / 100 + 1 / 1)
    assert game_accuracy(notes) == pytest.approx((weighted + harmonic) / 2)  # 12.57
    assert game_accuracy([]) is None


def test_game_accuracy_weights_use_the_population_deviation():
    # series 50 60 84: windows [50, 60] -> 5 and [60, 84] -> 12 (a sample deviation would give 7.07 and 16.97 -> 12)
    notes = [_note(50, 60, 90), _note(60, 84, 40)]
    weighted = (90 * 5 + 40 * 12) / 17  # 54.706
    harmonic = 2 / (1 / 90 + 1 / 40)  # 55.385
    assert game_accuracy(notes) == pytest.approx((weighted + harmonic) / 2)  # 55.045


def test_game_accuracy_window_grows_with_the_game():
    # 30 moves -> window 3. Series all 50 but the 16th value 80 (move 15's win before): the windows holding it are
    # those of moves 14, 15 and 16 (move 0 reuses the first window), deviation 14.1 -> weight 12; the rest 0 -> 0.5.
    series = [50.0] * 31
    series[15] = 80.0
    notes = [_note(series[i], series[i + 1], 40.0 if i == 15 else 100.0, ply=i) for i in range(30)]
    weighted = (27 * 0.5 * 100 + 2 * 12 * 100 + 12 * 40) / (27 * 0.5 + 3 * 12)  # 85.4545 (window 2 would give 81.05)
    harmonic = 30 / (29 / 100 + 1 / 40)  # 95.238
    assert game_accuracy(notes) == pytest.approx((weighted + harmonic) / 2)  # 90.346


def test_game_accuracy_of_equal_moves_is_that_accuracy_for_any_window():
    for n in (1, 9, 35, 120):  # windows 2, 2, 3, 8
        notes = [_note(50 + 30 * math.sin(i), 50 + 30 * math.sin(i + 1), 70.0) for i in range(n)]
        assert game_accuracy(notes) == pytest.approx(70.0)


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
    assert (a.best_action, a.best_name, a.loss, a.klass) == (take, "7 takes 3+4, then J Q", 18.0, "blunder")
    assert a.accuracy == pytest.approx(coach.move_accuracy(18)) and a.prob == 0.05 and a.model_id == "model-sha"
    assert annotate(state, decision, t5, 6).klass == "mistake"
    assert annotate(state, decision, t5, 6, "strict").klass == "blunder"
    best = annotate(state, decision, take, 6)
    assert (best.klass, best.loss, best.accuracy, best.best_action) == ("best", 0.0, 100.0, take)


def test_annotation_round_trips_through_json(position):
    state, decision, _, _, _, t7 = position
    a = annotate(state, decision, t7, ply=3)
    assert Annotation.from_dict(json.loads(json.dumps(a.to_dict()))) == a
    with pytest.raises(ValueError, match="'loss' is 'a lot'"):
        Annotation.from_dict({**a.to_dict(), "loss": "a lot"})
    with pytest.raises(ValueError, match="class 'awful'"):
        Annotation.from_dict({**a.to_dict(), "klass": "awful"})


def test_coach_refuses_what_it_cannot_judge(position):
    state, decision, take, *_ = position
    with pytest.raises(ValueError, match="win probability after every legal move; expert gives none"):
        hints(state, Decision(take, {take: 1.0}, model_id="expert"))
    with pytest.raises(ValueError, match="win probability of the position"):
        annotate(state, Decision(take, decision.probs, None, decision.action_values), take, 0)
    with pytest.raises(ValueError, match="not a legal move"):
        annotate(state, decision, match_action(parse_rank("7")), 0)


def _bot_game(seed, human_seat, stop=None, coach_policy=None):
    """A recorded bot game; with `coach_policy`, the human seat's moves are annotated as the TUI does in play."""
    rules = preset("standard")
    bots = [make_policy("greedy", seed), make_policy("expert", seed)]
    for seat, bot in enumerate(bots):
        bot.reset(seat)
    if coach_policy:
        coach_policy.reset(human_seat)
    state, events = start_game(rules, seed, 0)
    record = records.new_record(rules, seed, 0, [("human", "Ana"), ("expert", "Bot")], human_seat)
    made = []
    while state.winner < 0 and (stop is None or len(record.moves) < stop):
        for p in bots + ([coach_policy] if coach_policy else []):
            p.observe(state, events)
        seat = state.turn
        action = bots[seat].decide(state).action
        note = None
        if coach_policy and seat == human_seat:
            note = annotate(state, coach_policy.decide(state), action, len(record.moves))
            made.append(note)
        card = next(c for c in state.hands[seat] if c >> 2 == ACTION_RANK[action])
        state, events = apply(state, action, card=card)
        record.add_move(seat, action, card, note, after=state)
    return record, made


def test_format_review_writes_one_line_per_move_and_the_accuracy():
    record, _ = _bot_game(5, 0, stop=6)
    first = record.moves[0]["seat"]
    notes = [Annotation(0, first, 0, "A trails", 55.0, 45.0, 16, "7 takes 7", 60.0, 15.0, "blunder", 50.0, 0.1,
                        "0123456789abcdef"),
             Annotation(2, first, 0, "A trails", 40.0, 40.0, 0, "A trails", 40.0, 0.0, "best", 100.0, 0.9, "0123")]
    text = format_review(record, notes)
    lines = text.splitlines()
    moves = [line for line in lines if line[:5].strip().rstrip(".").isdigit()]
    assert len(moves) == 6 and moves[0].startswith("   1. ")
    assert "win 55% -> 45%  blunder (best: 7 takes 7, 60%)" in moves[0]
    assert "win 40% -> 40%  best" in moves[2] and "(best:" not in moves[2]
    assert "win" not in moves[1]
    assert "Hand 1 (score 0-0)" in lines and "unfinished" in lines[0] and "model 0123, 0123456789ab" in text
    name = "Ana (you)" if first == 0 else "Bot"
    expected = game_accuracy(notes)
    assert f"  {name}: {expected:.1f}% over 2 moves (0 inaccuracy, 0 mistake, 1 blunder); hand 1" in text
    assert "no move was annotated" in format_review(record, [])


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch", reason="needs the train extra")
    pytest.importorskip("onnx", reason="needs the train extra")
    from cuarenta_tutor.training.a2c import Config, train
    from cuarenta_tutor.training.export import export

    out = tmp_path_factory.mktemp("coach-run")
    cfg = Config(total_steps=4096, num_envs=8, rollout_len=16, eval_every=0, snapshot_every=4, hidden=32,
                 feature=64, strategy=32)
    with warnings.catch_warnings(), open(os.devnull, "w") as log:
        warnings.simplefilter("ignore")  # the exporter's deprecation and tracer notes
        return export(train(cfg, out, log=log), out / "tiny.onnx")


def test_review_of_a_saved_game_repeats_the_annotations_made_in_play(tiny_model, tmp_path):
    from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, file_sha256

    record, made = _bot_game(9, 1, coach_policy=OnnxPolicy(tiny_model))
    assert record.result is not None and made
    loaded = records.load(records.save(record, tmp_path))
    assert [m["annotation"] for m in loaded.moves if m["seat"] == 1] == [a.to_dict() for a in made]
    again = coach.review(loaded, lambda seat: OnnxPolicy(tiny_model))
    assert again == made
    assert [a.ply for a in again] == [i for i, m in enumerate(loaded.moves) if m["seat"] == 1]
    sha = file_sha256(tiny_model)
    for a in again:
        assert a.model_id == sha and a.loss >= 0 and a.klass == classify(a.loss) and 0 <= a.win_before <= 100
        assert a.loss == pytest.approx(max(0.0, a.win_best - a.win_after), abs=1e-6)
    (summary,), _ = records.list_games(tmp_path, accuracy=coach.summary_accuracy)
    assert summary.accuracy == pytest.approx(game_accuracy(made))


def test_review_without_a_human_annotates_every_seat(tiny_model):
    from cuarenta_tutor.agents.onnx_policy import OnnxPolicy

    record, _ = _bot_game(4, None, stop=30)
    made = []
    notes = coach.review(record, lambda seat: made.append(seat) or OnnxPolicy(tiny_model))
    assert made == [0, 1] and [a.ply for a in notes] == list(range(30))
    assert [a.seat for a in notes] == [m["seat"] for m in record.moves]
    text = format_review(record, notes)
    assert text.count(" -> ") == 30 and "  Ana: " in text and "  Bot: " in text
