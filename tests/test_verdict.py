"""One verdict per position (real engine, shipped model): the hints, the tutor's warning, the annotation stored in
play, the review, its drills and `analyse --json` (in one process and in two) give the same numbers for a
position, because they all ask for the one analysis (analysis.STANDARD through calibrate.settings_for, seeded from
what the seat knows); and the network's one-pass numbers never give a class."""

import json
import sys
from dataclasses import replace

import pytest

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, file_sha256
from cuarenta_tutor.analysis import analyse as analyse_position
from cuarenta_tutor.analysis.analyse import forget, world_seed
from cuarenta_tutor.analysis.classes import classify
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.cli import main
from cuarenta_tutor.coach.advice import refined_hints
from cuarenta_tutor.engine import legal_actions
from cuarenta_tutor.tui.tutor import warning_for

ANALYSE = sys.modules["cuarenta_tutor.analysis.analyse"]
DECISIONS = 3
"""The person's decisions with a choice played (each its own position)."""


def numbers(move) -> tuple:
    """What every consumer shows of a move: win %, interval, loss, loss interval, class."""
    klass = classify(move.loss, "standard", move.loss_ci95)
    return (move.win_pct, tuple(move.ci95), move.loss, tuple(move.loss_ci95), klass)


def rounded(move: dict) -> tuple:
    """The same, as the JSON of `analyse` and the drills keep it (two decimals)."""
    return (move["win_pct"], tuple(move["ci95"]), move["loss"], tuple(move["loss_ci95"]))


def play(seed=62):
    """A game in which the person plays, at each decision, the move the analysis likes least (mistakes, so drills),
    as the app does: hints, then the tutor's check, then the move annotated from that analysis. Returns the session
    and {ply: (the hints' numbers, the tutor's class, the analysis)}."""
    session = GameSession.new(seed=seed, dealer=1)
    shown = {}
    while len(shown) < DECISIONS:
        if not session.human_turn:
            session.play_agent()
            continue
        if len(legal_actions(session.state)) < 2:
            session.play_human(legal_actions(session.state)[0])
            continue
        analysis = session.analyse(session.position())  # the hints' worker
        hints = {h.action: (h.win_pct, tuple(h.ci95)) for h in refined_hints(session.state, analysis)}
        action = analysis.moves[-1].action
        again = session.analyse(session.position())  # the tutor's check asks too
        shown[len(session.record.moves)] = (hints, warning_for(again, action), again)
        session.play_human(action, analysis=again)
    return session, shown


@pytest.fixture
def small(monkeypatch):
    """The one analysis in 8 worlds (one round: the time cap cannot cut it), so a test plays and reviews quickly;
    every consumer must take it from analysis.STANDARD."""
    settings = replace(ANALYSE.STANDARD, worlds=8, round_worlds=8, min_worlds=8)
    monkeypatch.setattr(ANALYSE, "STANDARD", settings)
    return settings


def analyse_json(path, capsys, jobs) -> dict:
    assert main(["analyse", str(path), "--json", "--jobs", str(jobs)]) == 0
    return {row["ply"] - 1: row for row in map(json.loads, capsys.readouterr().out.splitlines())}


def test_hints_tutor_annotation_review_drill_and_analyse_give_one_verdict(small, capsys):
    """Fails before one verdict: the hints and the tutor analysed with a time budget, the review without it (another
    settings value, so it analysed every move again and listed changed verdicts), and `analyse` in 128 worlds."""
    session, shown = play()
    record = session.record
    path = records.games_dir() / f"{record.game_id}.json"
    model_id = file_sha256(session.model_path)
    settings = coach.review_settings(record)
    for ply, (hints, tutor, analysis) in shown.items():
        assert analysis.worlds == small.worlds and not analysis.cut
        # the hints and the tutor: the one analysis
        assert hints == {m.action: (m.win_pct, tuple(m.ci95)) for m in analysis.moves}
        played = analysis.move(record.moves[ply].action)
        klass = classify(played.loss, "standard", played.loss_ci95)
        assert tutor == (klass if klass.is_mistake_or_worse else None)
        # the annotation stored in play is current for a review: nothing to analyse again
        note = coach.read(record.moves[ply].annotation)
        assert coach.is_current(record.moves[ply].annotation, model_id, settings)
        assert (note.win_after, note.ci95, note.loss, note.loss_ci95, note.klass) == numbers(played)
    forget()  # the review computes every position again (in a new process it would): the same numbers
    made: list = []
    reviewed = {a.ply: a for a in coach.review(record, None, settings, [0], plies=list(shown), drills=made)}
    assert coach.store(record, list(reviewed.values()), [0]) == []  # no verdict changed
    for ply, (_, _, analysis) in shown.items():
        a = reviewed[ply]
        assert (a.win_after, a.ci95, a.loss, a.loss_ci95, a.klass) == numbers(analysis.move(a.action))
        assert a.worlds == analysis.worlds and a.provenance.settings == analysis.settings.to_json()
    assert made, "the least liked moves make at least one drill"
    for drill in made:
        analysis = shown[int(drill.id.rsplit(":", 1)[1])][2]
        want = {m.action: m.to_json() for m in analysis.moves}
        assert {m["action"]: (rounded(m), m["class"]) for m in drill.moves} == \
            {a: (rounded(m), numbers(analysis.move(a))[-1]) for a, m in want.items()}
    forget()
    one, two = analyse_json(path, capsys, 1), analyse_json(path, capsys, 2)
    assert one == two  # the same numbers in one process and in two
    for ply, (_, _, analysis) in shown.items():
        assert one[ply]["worlds"] == analysis.worlds and not one[ply]["cut"]
        assert (one[ply]["leaf"], one[ply]["playout"]) == (analysis.leaf, analysis.playout) == ("table", "policy")
        assert [rounded(m) for m in one[ply]["moves"]] == [rounded(m.to_json()) for m in analysis.moves]


def test_the_worlds_come_from_what_the_seat_knows():
    """Two positions the seat cannot tell apart (the hidden cards dealt anew) get the same seed and the same worlds;
    another position another seed. Fails before: every position was drawn from the settings' seed alone (no
    world_seed)."""
    import random

    from helpers import reshuffled

    session = GameSession.new(seed=3, dealer=1)
    while not session.human_turn:
        session.play_agent()
    state = session.state
    other = reshuffled(state, 0, random.Random(2))
    assert other.hands[1] != state.hands[1]
    assert world_seed(state, 0) == world_seed(other, 0) != world_seed(state, 0, seed=1)
    session.play_human(legal_actions(state)[0])
    while not session.human_turn:
        session.play_agent()
    assert world_seed(session.state, 0) != world_seed(state, 0)
    agent = OnnxPolicy()
    tiny = replace(ANALYSE.STANDARD, worlds=4, round_worlds=4, min_worlds=4, budget_s=0)
    first = analyse_position(state, agent, tiny, memory=session.helper.memory)
    again = analyse_position(other, agent, tiny, memory=session.helper.memory)
    assert [m.to_json() for m in first.moves] == [m.to_json() for m in again.moves]


def test_the_networks_numbers_give_no_class_and_sit_on_the_analysis_scale():
    """An annotation made from the network's one pass (no analysis yet) carries the class "unclear" whatever its loss,
    and its numbers, like the quick hints', are the fitted ones (analysis/onepass.py), not the critic's own. Fails
    before: the network's loss made a class (classify), and the quick hints showed 100 * the critic's value."""
    from cuarenta_tutor.analysis.onepass import for_model

    fit = for_model()
    assert fit is not None and fit.slope > 0, "the shipped model's sidecar has the one-pass fit"
    session = GameSession.new(seed=7, dealer=1)
    losses = []
    while len(session.record.moves) < 24 and not session.over:
        if not session.human_turn:
            session.play_agent()
            continue
        decision = session.coach_decision()
        quick = {h.action: h.win_pct for h in session.quick_hints()}
        assert quick == {a: fit.win_pct(v) for a, v in decision.action_values.items()}
        worst = min(decision.action_values, key=decision.action_values.get)
        report = session.play_human(worst)
        note = report.annotation
        assert note.method == "network" and note.klass == "unclear"
        assert note.win_after == fit.win_pct(decision.action_values[worst])
        losses.append(100 * (decision.action_values[note.best_action] - decision.action_values[worst]))
    assert max(losses) >= 10, "a loss that the network alone used to call a mistake"


def test_an_analysis_the_time_cap_cut_says_so_and_a_review_does_it_again():
    """The cap cuts a round short only on a very busy machine; here a cap of a microsecond cuts every analysis after
    its first round. The hints mark it, the tutor's sentence (`where`) says it, the annotation keeps it, and a review
    does not take it as current (it analyses the move again). Fails before: a budget's cut said nothing anywhere."""
    from cuarenta_tutor.coach.annotate import from_analysis

    session = GameSession.new(seed=4, dealer=1)
    while not session.human_turn:
        session.play_agent()
    capped = replace(session.analysis_settings, worlds=8, round_worlds=4, min_worlds=8, budget_s=1e-6)
    state, memory = session.position()
    cut = analyse_position(state, session.helper, capped, memory=memory)
    assert cut.cut and cut.worlds == 4 and cut.where == "in only 4 of 8 sampled worlds (cut by the time cap)"
    assert all(h.cut for h in refined_hints(state, cut))  # the hints panel marks them "cut short by the time cap"
    note = from_analysis(cut, cut.best.action, len(session.record.moves))
    assert note.provenance.cut and note.worlds == 4
    assert not coach.is_current(note.to_dict(), cut.model_id, capped)
    whole = replace(capped, budget_s=0)
    done = from_analysis(analyse_position(state, session.helper, whole, memory=memory), cut.best.action, 0)
    assert coach.is_current(done.to_dict(), cut.model_id, capped)  # the cap is not part of what the analysis is
