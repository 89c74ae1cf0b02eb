"""Coach: mistake classes at their boundaries, accuracy against Lichess' own figures and test cases, hints and
annotations, and the review of a saved game against the annotations made while it was played."""

import itertools
import json
import math

import pytest

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents import Decision, make_policy
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from cuarenta_tutor.coach import Annotation, accuracy_by_group, annotate, classify, format_review, game_accuracy, hints
from cuarenta_tutor.engine import ACTION_RANK, Dealer, legal_actions, make_position, match_action, parse_rank, preset
from cuarenta_tutor.engine.actions import sum_action, trail_action
from cuarenta_tutor.narrator import move_name

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


def test_move_accuracy_is_the_lichess_curve():
    # lila's AccuracyPercent: 100 when the win % does not drop; the site's published curve gives about 81 after
    # a drop of 5 points and about 65 after 10; the curve is fitted to 0 -> 100, 5 -> 75, 10 -> 60, 20 -> 42,
    # 40 -> 20, 60 -> 5, 80 -> 0 (the data in lila's source)
    assert coach.move_accuracy(0) == 100.0 and coach.move_accuracy(-3) == 100.0
    assert coach.move_accuracy(5) == pytest.approx(81, abs=0.5)
    assert coach.move_accuracy(10) == pytest.approx(65, abs=0.5)
    for loss, fitted in ((0, 100), (5, 75), (10, 60), (20, 42), (40, 20), (60, 5), (80, 0)):
        assert abs(coach.move_accuracy(loss) - fitted) < 6.5
    assert coach.move_accuracy(100) == 0.0
    losses = [0, 1, 2, 5, 10, 15, 20, 40, 60]
    assert all(coach.move_accuracy(a) > coach.move_accuracy(b) for a, b in itertools.pairwise(losses))


def lichess_win(cp: float) -> float:
    """lila's WinPercent.fromCentiPawns: the win % of a centipawn evaluation (capped at 1000)."""
    cp = max(-1000, min(1000, cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def lichess_game(cps, white_first=True) -> dict:
    """The annotations of a chess game given as lila's tests give it (the evaluation after each ply, white's point
    of view, from an initial 15): per colour ("white", "black"), its moves with the win % before and after."""
    series = [15, *cps]
    out = {"white": [], "black": []}
    for ply in range(len(cps)):
        white = (ply % 2 == 0) == white_first
        before, after = lichess_win(series[ply]), lichess_win(series[ply + 1])
        if not white:
            before, after = 100 - before, 100 - after
        loss = max(0.0, before - after)
        out["white" if white else "black"].append(Annotation(
            ply, int(not white), 0, "e4", before, after, 0, "e4", before, loss, classify(loss),
            coach.move_accuracy(before - after), 1.0, "stockfish"))
    return out


# lila's AccuracyPercentTest: (evaluations, white first, expected white, expected black, tolerance white, black)
LILA_CASES = [
    ("two good moves", [15, 15], True, 100, 100, 1, 1),
    ("white blunders on first move", [-900, -900], True, 10, 100, 5, 1),
    ("black blunders on first move", [15, 900], True, 100, 10, 1, 5),
    ("both blunder on first move", [-900, 0], True, 10, 10, 5, 5),
    ("20 perfect moves", [15] * 20, True, 100, 100, 1, 1),
    ("20 perfect moves and a white blunder", [15] * 20 + [-900], True, 50, 100, 5, 1),
    ("21 perfect moves and a black blunder", [15] * 21 + [900], True, 100, 50, 1, 5),
    ("5 average moves (65 cpl) on each side", [-50, 15] * 5, True, 76, 76, 8, 8),
    ("50 average moves (65 cpl) on each side", [-50, 15] * 50, True, 76, 76, 8, 8),
    ("50 mediocre moves (150 cpl) on each side", [-135, 15] * 50, True, 54, 54, 8, 8),
    ("50 terrible moves (500 cpl) on each side", [-435, 15] * 50, True, 20, 20, 8, 8),
    ("black first: two good moves", [15, 15], False, 100, 100, 1, 1),
    ("black first: black blunders on first move", [900, 900], False, 100, 10, 1, 5),
    ("black first: white blunders on first move", [15, -900], False, 10, 100, 5, 1),
    ("black first: both blunder on first move", [900, 0], False, 10, 10, 5, 5),
]


@pytest.mark.parametrize("cps,white_first,white,black,tol_white,tol_black", [c[1:] for c in LILA_CASES],
                         ids=[c[0] for c in LILA_CASES])
def test_game_accuracy_gives_lichess_figures_on_lichess_test_games(cps, white_first, white, black, tol_white,
                                                                   tol_black):
    game = lichess_game(cps, white_first)
    assert game_accuracy(game["white"]) == pytest.approx(white, abs=tol_white)
    assert game_accuracy(game["black"]) == pytest.approx(black, abs=tol_black)


def test_one_blunder_weighs_more_in_a_sharp_game_than_in_a_quiet_one():
    # lila weights each move by how much the win % moves around it: the same accuracies in a game whose win %
    # swings give the blunder more weight than in a game that stays level
    def notes(swing):
        return [Annotation(i, 0, 0, "A trails", 50 + (swing if i == 9 else 0), 50, 0, "A trails", 50, 0.0, "best",
                           20.0 if i == 9 else 100.0, 1.0, "m") for i in range(20)]
    assert game_accuracy(notes(30)) < game_accuracy(notes(0))
    assert game_accuracy([]) is None


def _note(win_before, win_after, accuracy, ply=0, seat=0):
    return Annotation(ply, seat, 0, "A trails", win_before, win_after, 0, "A trails", win_after, 0.0, "best", accuracy,
                      1.0, "m")


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
    assert a.prob == 0.05 and a.model_id == "model-sha"
    assert 41 < a.accuracy < 65  # 18 points: between Lichess' ~41 at 20 and ~65 at 10
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
        state, events = dealer.play(state, action, card=card)
        record.add_move(seat, action, card, note, after=state)
    return record, made


def move_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:5].strip().rstrip(".").isdigit()]


def test_format_review_writes_one_line_per_move_and_the_accuracy():
    record, _ = _bot_game(5, 0, stop=6)
    first = record.moves[0].seat
    notes = [Annotation(0, first, 0, "A trails", 55.0, 45.0, 16, "7 takes 7", 60.0, 15.0, "blunder", 50.0, 0.1,
                        "0123456789abcdef"),
             Annotation(2, first, 0, "A trails", 40.0, 40.0, 0, "A trails", 40.0, 0.0, "best", 100.0, 0.9, "0123")]
    text = format_review(record, notes)
    lines = text.splitlines()
    moves = move_lines(text)
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
def annotated_game():
    """A whole bot game whose seat 1 was coached by the shipped model while it was played."""
    record, made = _bot_game(9, 1, coach_policy=OnnxPolicy(MODEL))
    return record, made


def test_review_of_a_saved_game_repeats_the_annotations_made_in_play(annotated_game, tmp_path):
    record, made = annotated_game
    assert record.result is not None and made
    loaded = records.load(records.save(record, tmp_path))
    assert [m.annotation for m in loaded.moves if m.seat == 1] == [a.to_dict() for a in made]
    assert all(m.annotation is None for m in loaded.moves if m.seat == 0)
    again = coach.review(loaded, lambda seat: OnnxPolicy(MODEL))
    assert again == made
    assert [a.ply for a in again] == [i for i, m in enumerate(loaded.moves) if m.seat == 1]
    (summary,), _ = records.list_games(tmp_path, accuracy=coach.summary_accuracy)
    assert summary.accuracy == pytest.approx(game_accuracy(made))


def test_annotations_name_legal_moves_and_never_a_negative_loss(annotated_game):
    record, made = annotated_game
    states = records.replay(record)
    sha = file_sha256(MODEL)
    for a in made:
        state, move = states[a.ply], record.moves[a.ply]
        legal = legal_actions(state)
        assert a.action == move.action and a.seat == move.seat == state.turn
        assert a.best_action in legal and a.action in legal
        assert (a.name, a.best_name) == (move_name(state, a.action), move_name(state, a.best_action))
        assert a.loss >= 0 and (a.loss == 0) == (a.klass == "best") and a.klass == classify(a.loss)
        assert 0 <= a.win_before <= 100 and 0 <= a.win_after <= 100 and 0 <= a.win_best <= 100
        assert 0 <= a.accuracy <= 100 and 0 <= a.prob <= 1 and a.model_id == sha
    assert any(a.klass != "best" for a in made)  # a greedy player does not always play the agent's move


def test_format_review_of_a_whole_game_has_one_line_per_move(annotated_game):
    record, made = annotated_game
    states = records.replay(record)
    lines = move_lines(format_review(record, made))
    assert len(lines) == len(record.moves)
    for i, (line, move) in enumerate(zip(lines, record.moves, strict=True)):
        assert line.startswith(f"{i + 1:4d}. ") and move_name(states[i], move.action) in line
        assert (" -> " in line) == (move.seat == 1)
    assert "won" in format_review(record, made).splitlines()[0]


def test_review_without_a_human_annotates_every_seat():
    record, _ = _bot_game(4, None, stop=30)
    made = []
    notes = coach.review(record, lambda seat: made.append(seat) or OnnxPolicy(MODEL))
    assert made == [0, 1] and [a.ply for a in notes] == list(range(30))
    assert [a.seat for a in notes] == [m.seat for m in record.moves]
    text = format_review(record, notes)
    assert text.count(" -> ") == 30 and "  Ana: " in text and "  Bot: " in text
