"""Possible-worlds analysis with the shipped model: it never peeks, plays every move in the same worlds, and
its numbers agree with what the rules make certain."""

import json
import random
import sys
from dataclasses import replace

import numpy as np
import pytest
from helpers import core_loaded_in, reshuffled

from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
from cuarenta_tutor.analysis import Settings, analyse
from cuarenta_tutor.engine import (
    Dealer,
    Rules,
    knows_every_card,
    legal_actions,
    make_position,
    match_action,
    parse_rank,
)
from cuarenta_tutor.table import Table

FAST = Settings(worlds=32, round_worlds=16, budget_s=0, min_worlds=10**6, horizon="deal")
HAND = Settings(worlds=32, round_worlds=16, budget_s=0, min_worlds=10**6)
"""The interactive horizon and leaf: the end of the hand, valued by the model's hand-value table."""
FEW = {"worlds": 8, "round_worlds": 8}
"""Fewer worlds, where what is checked holds in any number of them (no peeking, one world where all are true)."""


def positions(count, seed=3, where=lambda state: True):
    """Positions (`where` holds) where the agent (seat 0, against the expert) has a choice, with its memory there."""
    agent = OnnxPolicy()
    table = Table(Rules(), [agent, make_policy("expert", seed)], Dealer(seed))
    table.start()
    found = []
    while not table.over and len(found) < count:
        if table.state.turn == 0 and len(legal_actions(table.state)) > 1 and where(table.state):
            found.append((table.state, agent.memory))
        table.step()
    return agent, found


@pytest.mark.parametrize("settings", [replace(FAST, **FEW), replace(HAND, **FEW)],
                         ids=["next deal, critic", "end of hand, table"])
def test_the_analysis_never_reads_a_card_the_seat_cannot_see(settings):
    agent, found = positions(4)
    rng = random.Random(1)
    for state, memory in found:
        first = analyse(state, agent, settings, memory=memory)
        other = reshuffled(state, 0, rng)
        assert other.hands[1] != state.hands[1] or not state.hands[1]
        again = analyse(other, agent, settings, memory=memory)
        assert [m.to_json() for m in first.moves] == [m.to_json() for m in again.moves]


def test_every_move_is_valued_in_the_same_worlds_with_intervals():
    agent, found = positions(3, seed=8)
    for state, memory in found:
        result = analyse(state, agent, FAST, memory=memory)
        assert sorted(m.action for m in result.moves) == sorted(legal_actions(state))
        assert result.worlds == 32 and all(m.worlds == 32 for m in result.moves)
        best = result.best
        assert best.loss == 0 and all(m.loss >= 0 for m in result.moves)
        for m in result.moves:
            assert 0 <= m.ci95[0] <= m.win_pct <= m.ci95[1] <= 100
            assert 0 <= m.caida_risk <= 1 and 0 <= m.limpia_risk <= 1
            # the loss is the paired difference of the two moves' values in the same worlds
            assert m.loss == pytest.approx(max(0.0, best.win_pct - m.win_pct), abs=1e-6)
        assert [m.loss for m in result.moves] == sorted(m.loss for m in result.moves)


def test_where_every_card_is_known_one_world_gives_what_every_sampled_world_does(monkeypatch):
    """In the last deal of a 1 v 1 hand the other hand is every card not seen: each sampled world is the true one,
    so the analysis plays one, and its values and intervals are those of many (no sampling error in either)."""
    module = sys.modules["cuarenta_tutor.analysis.analyse"]
    agent, found = positions(3, seed=5, where=knows_every_card)
    assert len(found) == 3
    hand = replace(HAND, **FEW)
    for state, memory in found:
        one = analyse(state, agent, hand, memory=memory)
        with monkeypatch.context() as m:
            m.setattr(module, "knows_every_card", lambda state: False)
            many = analyse(state, agent, hand, memory=memory)
        assert one.worlds == 1 and many.worlds == hand.worlds and one.known and not many.known
        assert one.where == "with every card known" and many.where == f"in {hand.worlds} sampled worlds"
        for a, b in zip(one.moves, many.moves, strict=True):
            assert a.action == b.action and a.win_pct == pytest.approx(b.win_pct) and a.loss == pytest.approx(b.loss)
            assert a.ci95 == pytest.approx(b.ci95) and a.loss_ci95 == pytest.approx(b.loss_ci95)
            assert (a.points, a.caida_risk, a.limpia_risk) == pytest.approx((b.points, b.caida_risk, b.limpia_risk))
        # lanes that deal the next hands (to the game's end, or the critic after the next first deal) meet chance
        for past in (replace(hand, horizon="game", worlds=4, round_worlds=4), replace(hand, leaf="critic")):
            sampled = analyse(state, agent, past, memory=memory)
            assert sampled.worlds == past.worlds and not sampled.known


def test_the_time_cap_only_cuts_and_says_so():
    """The budget is a safety cap, not a budget to fill: with time to spare every world is played; a round that would
    end past the cap is not started, the analysis says it was cut (and where), and its worlds are the first whole
    rounds of the full analysis's (the same worlds, so a cut analysis is an early look at the same value). Fails
    before the cap: an analysis cut by the budget (16 worlds, a half-size first round) did not say so."""
    agent, found = positions(2, seed=8)
    state, memory = found[0]
    roomy = analyse(state, agent, Settings(worlds=64, round_worlds=32, budget_s=600, min_worlds=10**6,
                                           horizon="deal"), memory=memory)
    assert roomy.worlds == 64 and not roomy.cut and roomy.where == "in 64 sampled worlds"
    spent = analyse(state, agent, Settings(worlds=64, round_worlds=32, budget_s=1e-6, horizon="deal"), memory=memory)
    assert spent.cut and spent.worlds == 32 and spent.where == "in only 32 of 64 sampled worlds (cut by the time cap)"
    first = analyse(state, agent, Settings(worlds=32, round_worlds=32, budget_s=0, horizon="deal"), memory=memory)
    assert [m.to_json() for m in spent.moves] == [m.to_json() for m in first.moves]


def test_from_a_team_at_30_the_intervals_carry_the_late_model_error():
    agent, found = positions(1)
    state, memory = found[0]
    one = replace(HAND, **FEW, value_sd=0.5, loss_sd=0.5)
    apart = replace(one, late_value_sd=6.0, late_loss_sd=6.0)

    def analysed(scores, settings):
        return analyse(state._replace(scores=scores), agent, settings, memory=memory)

    def widths(result):
        return [(round(m.ci95[1] - m.ci95[0], 6), round(m.loss_ci95[1] - m.loss_ci95[0], 6)) for m in result.moves]

    early = (29, 12)  # neither team at LATE_SCORE: the late errors change nothing
    assert [m.to_json() for m in analysed(early, apart).moves] == [m.to_json() for m in analysed(early, one).moves]
    late = (12, 30)
    same, wider = analysed(late, one), analysed(late, apart)
    assert [(m.action, m.win_pct, m.loss) for m in same.moves] == [(m.action, m.win_pct, m.loss) for m in wider.moves]
    pairs = list(zip(widths(wider), widths(same), strict=True))
    assert all(w > s for (w, _), (s, _) in pairs)
    assert all(w > s for (_, w), (_, s) in pairs[1:])  # the best move's loss is 0, exactly
    assert apart.errors_at(state._replace(scores=late)) == (6.0, 6.0) and one.errors_at(state) == (0.5, 0.5)


def test_a_move_that_wins_the_game_is_worth_one_hundred_percent():
    # Seat 0 on 38 can make a caída on the 5 the opponent just trailed: 40, the game is won.
    state = make_position(hands=[["5", "K", "2"], ["Q", "J", "3"]], table=["5", "7"], turn=0, trailed="5",
                          scores=(38, 30), stock=[], dealer=1)
    agent = OnnxPolicy()
    agent.reset(0)
    result = analyse(state, agent, FAST)
    win = result.move(match_action(parse_rank("5")))
    assert win.win_pct == 100 and win.ci95 == (100, 100) and result.best.action == win.action
    assert all(m.loss > 0 for m in result.moves if m.action != win.action)


def test_the_opponents_reply_risks_are_counted_from_the_rules():
    # Every other card has been captured, so the only unseen cards are the opponent's two 4s: trailing the 4
    # on an empty table leaves a caída y limpia in every world, trailing the K (no K unseen) leaves nothing.
    rest = [r for r in "A234567JQK" for _ in range(4)]
    for card in ("4", "K", "4", "4"):
        rest.remove(card)
    state = make_position(hands=[["4", "K"], ["4", "4"]], table=[], turn=0, stock=[], dealer=1,
                          piles=(rest[:18], rest[18:]))
    agent = OnnxPolicy()
    agent.reset(0)
    result = analyse(state, agent, FAST)
    trail_4 = result.move(parse_rank("4"))
    trail_k = result.move(parse_rank("K"))
    assert trail_4.caida_risk == 1 and trail_k.caida_risk == 0
    assert np.isclose(trail_4.limpia_risk, trail_4.caida_risk)  # taking the only card empties the table


def saved_game(moves=6, seed=4):
    """A few moves of a real game against the agent, saved in the user data folder."""
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=seed, dealer=1)
    while len(session.record.moves) < moves:
        if session.human_turn:
            session.play_human(session.hints()[-1].action)
        else:
            session.play_agent()
    return session, records.games_dir() / f"{session.record.game_id}.json"


def test_analyse_command_prints_one_json_object_per_position(capsys):
    import json

    from cuarenta_tutor.cli import main
    from cuarenta_tutor.records import load, replay

    session, path = saved_game()
    assert main(["analyse", str(path), "--json", "--worlds", "8", "--jobs", "1"]) == 0  # workers: below
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    states = replay(load(path))
    person = [i for i, m in enumerate(session.record.moves) if m.seat == 0 and len(legal_actions(states[i])) > 1]
    assert [line["ply"] for line in lines] == [i + 1 for i in person]
    for line in lines:
        state = states[line["ply"] - 1]
        assert line["seat"] == 0 and sorted(m["action"] for m in line["moves"]) == sorted(legal_actions(state))
        for m in line["moves"]:
            assert set(m) >= {"move", "action", "win_pct", "ci95", "loss", "caida_risk", "limpia_risk", "worlds"}
            assert m["worlds"] == 8 and m["ci95"][0] <= m["win_pct"] <= m["ci95"][1]
    assert main(["analyse", str(path), "--ply", "2", "--json", "--worlds", "8"]) == 0
    (one,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert one["ply"] == 2 and one["seat"] == session.record.moves[1].seat


def test_an_analysis_worker_starts_with_the_compiled_core_loaded():
    # forked from a server that loaded it once (analysis/preload.py), not loading it from the disk cache itself
    import multiprocessing

    from cuarenta_tutor.analysis.workers import worker_pool

    if "forkserver" not in multiprocessing.get_all_start_methods():
        pytest.skip("no forkserver here: workers are spawned, each loading the core")
    with worker_pool(1) as pool:
        assert core_loaded_in(pool) is True


def test_a_games_analysis_is_the_same_in_worker_processes_as_in_one():
    # each position is analysed from its state, the seat's memory there, the settings and the model: the workers
    # (forked from a server that loaded the core, each loading the model) must give what one process gives, in the
    # game's order
    from cuarenta_tutor.analysis import analyse_game
    from cuarenta_tutor.records import load

    _, path = saved_game(moves=6)
    record = load(path)
    hand = replace(HAND, worlds=4, round_worlds=4)  # what is compared holds in any number of worlds
    one = analyse_game(record, hand, seats=[0, 1], jobs=1)
    calls = []
    two = analyse_game(record, hand, seats=[0, 1], jobs=2, progress=lambda done, total: calls.append((done, total)))
    assert len(one) >= 4 and {a.seat for _, a in one} == {0, 1}
    assert [(ply, a.seat, a.moves, a.worlds) for ply, a in one] == [(ply, a.seat, a.moves, a.worlds) for ply, a in two]
    assert calls == [(i + 1, len(one)) for i in range(len(one))]


def test_analyse_command_refuses_bad_input_with_one_line(tmp_path, capsys):
    from cuarenta_tutor.cli import main

    _, path = saved_game(moves=2)
    assert main(["analyse", str(path), "--ply", "99"]) == 2
    assert "--ply must be 1..2" in capsys.readouterr().err
    damaged = tmp_path / "damaged.json"
    damaged.write_text('{"schema_version": 1, "moves": [')
    assert main(["analyse", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert "damaged" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_arena_records_every_game_so_it_can_be_analysed(tmp_path, capsys):
    import json

    from cuarenta_tutor import records
    from cuarenta_tutor.arena import run_match
    from cuarenta_tutor.cli import main

    results = run_match("expert", "greedy", 4, seed=2, records_dir=str(tmp_path))
    saved, problems = records.list_games(tmp_path)
    assert not problems and len(saved) == 4
    for r in results:
        record = records.load(tmp_path / f"arena-S2-P{r.pair}-{'b' if r.swapped else 'a'}.json")
        final = records.replay(record)[-1]
        a_team = 1 if r.swapped else 0
        assert (final.winner == a_team) == r.a_won and final.scores[a_team] == r.a.points
        assert record.human_seat is None and record.seats[a_team].name == "A expert"
    path = tmp_path / "arena-S2-P0-a.json"
    assert main(["analyse", str(path), "--ply", "1", "--json", "--worlds", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["seat"] == records.load(path).moves[0].seat


def test_the_shipped_model_has_its_hand_values_and_measured_errors_beside_it():
    import json

    from cuarenta_tutor.agents.onnx_policy import default_model_path, file_sha256
    from cuarenta_tutor.analysis.calibrate import settings_for
    from cuarenta_tutor.analysis.values import HandValues, sidecar

    data = json.loads(sidecar(default_model_path()).read_text(encoding="utf-8"))
    assert data["model_sha256"] == file_sha256(default_model_path())  # made for this very model
    errors = data["errors"]
    assert errors["positions"] >= 20 and errors["horizon"] == Settings().horizon and errors["leaf"] == "table"
    settings = settings_for(None)
    # what the sampling does not explain (0: the table's leaf leaves no error the reference can see)
    assert settings.value_sd == errors["value_sd"] >= 0 and settings.loss_sd == errors["loss_sd"] >= 0
    assert errors["value_mae"] < 3
    values = HandValues.from_json(data["hand_values"])
    assert values.rules == Rules() and values.hands >= 100
    known = ~np.isnan(values.table)
    assert 0 < values.se[known].min() and values.se[known].max() < 0.05  # each entry's error: a few points
    # 0-0 is close to even, and a big lead is worth more than a small one, for either dealer
    for dealer in (0, 1):
        assert 0.35 < values.table[0, 0, dealer] < 0.65
        assert values.table[30, 10, dealer] > values.table[20, 10, dealer] > values.table[10, 10, dealer]
    # other rules have no table, and the errors measured with one do not apply to them
    assert settings_for(None, rules=Rules().with_options(carton_cutoff=None)).value_sd == 0


def test_the_model_error_is_the_least_that_makes_95_percent_of_the_intervals_hold():
    from cuarenta_tutor.analysis.calibrate import covering_sd

    assert covering_sd([0.5] * 20, [1.0] * 20) == 0.0  # sampling explains them all
    # half the moves are exact (nothing hidden, no sampling error) yet miss by 3 points: 3 / 1.96 is needed
    assert covering_sd([3.0] * 10 + [0.0] * 10, [0.0] * 20) == pytest.approx(3 / 1.959964, abs=1e-6)
    assert covering_sd([3.0] + [0.0] * 19, [0.0] * 20) == 0.0  # one miss in twenty is the 5% allowed


def test_the_benchs_coverage_comes_with_an_interval_over_its_positions():
    from cuarenta_tutor.analysis.validate import coverage_interval

    assert coverage_interval([True] * 12, [k // 4 for k in range(12)]) == [1.0, 1.0]  # nothing missed anywhere
    # 40 positions of 4 moves, 2 of them missing every move: 95% of the moves, but two positions' luck
    covered, where = [k >= 8 for k in range(160)], [k // 4 for k in range(160)]
    low, high = coverage_interval(covered, where)
    assert low < 0.95 < high and 0.86 < low and high == 1.0
    # the same misses spread over 8 positions, one each, are a surer share: the interval is narrower
    spread = [k % 20 != 0 for k in range(160)]
    assert coverage_interval(spread, where)[0] > low


def test_the_late_moves_get_their_own_model_error_where_each_side_has_enough_of_them():
    from cuarenta_tutor.analysis.calibrate import APART, _covering_apart

    errors = np.array([0.0] * APART + [3.0] * APART)  # the late half misses by 3 points with no sampling error
    late = np.array([False] * APART + [True] * APART)
    early, later = _covering_apart(errors, np.zeros(2 * APART), late)
    assert early == 0.0 and later == pytest.approx(3 / 1.959964, abs=1e-3)
    few = late.copy()
    few[APART:-1] = False  # one late move: both sides take the error of all the moves
    pooled = _covering_apart(errors, np.zeros(2 * APART), few)
    assert pooled[0] == pooled[1] > 0


def test_references_are_kept_as_they_are_done_and_a_stopped_run_goes_on_from_them(tmp_path):
    from cuarenta_tutor.analysis.validate import references, sample_positions

    found = sample_positions(3, seed=5)
    keep = tmp_path / "cache" / "references.jsonl"
    calls = []
    first = references(found, FAST, keep=keep, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)] and len(keep.read_text().splitlines()) == 3
    rows = [json.loads(line) for line in keep.read_text().splitlines()]
    for row, truth in zip(rows, first, strict=True):
        assert {m["action"] for m in row["moves"]} == set(truth)
    # the second position's row says something no analysis would: read back, it shows the row was used
    rows[1]["moves"][0]["win_pct"] = 123.0
    # a run stopped while writing the third row leaves it cut short: that position is analysed again
    keep.write_text("\n".join(json.dumps(r) for r in rows[:2]) + "\n" + json.dumps(rows[2])[:40])
    calls.clear()
    again = references(found, FAST, keep=keep, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(2, 3), (3, 3)]
    assert again[0] == first[0] and again[2] == first[2]
    assert again[1][rows[1]["moves"][0]["action"]].win_pct == 123.0
    calls.clear()
    assert references(found, FAST, keep=keep, progress=lambda done, total: calls.append((done, total))) == again
    assert calls == [(3, 3)]  # all three kept now, the one analysed again included
    # other settings are other references
    calls.clear()
    references(found[:1], HAND, keep=keep, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 1)]


def test_the_benchs_positions_come_from_games_of_the_rules_asked_with_the_agent_in_every_seat():
    from cuarenta_tutor.analysis.validate import sample_positions
    from cuarenta_tutor.engine.rules import preset

    rules = preset("agent_dory", 4)
    found = sample_positions(10, seed=3, rules=rules)
    assert all(state.rules == rules and len(legal_actions(state)) > 1 for state, _ in found)
    turns = [state.turn for state, _ in found]
    # the agent's seat goes round the table game by game (0 in the first game, 1 in the next...), and ten positions
    # come from several games, not two (validate.SPREAD)
    assert turns[0] == 0 and len(set(turns)) >= 3, turns
    assert [repr(s) for s, _ in sample_positions(3, seed=3)] != [repr(s) for s, _ in found[:3]]


def test_a_learners_positions_are_the_bots_seat_against_the_agent_with_a_watching_networks_memory():
    from cuarenta_tutor.analysis.calibrate import seat_players
    from cuarenta_tutor.analysis.validate import sample_positions

    agents = sample_positions(4, seed=3)
    greedy = sample_positions(4, seed=3, seat_player="greedy")
    expert = sample_positions(4, seed=3, seat_player="expert")
    assert len({tuple(repr(s) for s, _ in found) for found in (agents, greedy, expert)}) == 3
    for state, (h, _) in greedy:
        assert len(legal_actions(state)) > 1 and np.isfinite(h).all() and np.abs(h).sum() > 0
    assert greedy[0][0].turn == 0
    assert seat_players("agent,expert, greedy") == (None, "expert", "greedy")
    with pytest.raises(ValueError, match="unknown policy"):
        seat_players("agent,champion")


@pytest.mark.parametrize("sidecar", [None, b'{"model_sha256": "cut', b"[]"], ids=["missing", "damaged", "shape"])
def test_a_model_with_no_usable_sidecar_is_said_uncalibrated_and_its_numbers_from_the_critic(tmp_path, capsys,
                                                                                          sidecar):
    import shutil

    from cuarenta_tutor.agents.onnx_policy import default_model_path
    from cuarenta_tutor.app import files
    from cuarenta_tutor.cli import main
    from cuarenta_tutor.tui.home import model_label

    _, path = saved_game(moves=1)
    mine = tmp_path / "mine.onnx"
    shutil.copyfile(default_model_path(), mine)
    if sidecar is not None:
        mine.with_suffix(".analysis.json").write_bytes(sidecar)
    shipped = default_model_path()
    assert files.uncalibrated(shipped) is None and "uncalibrated" not in model_label(shipped)
    said = files.uncalibrated(mine)
    assert said and "mine" in said and "critic" in said and "cuarenta_tutor.analysis.calibrate --model" in said
    assert "uncalibrated" in model_label(mine)
    assert main(["analyse", str(path), "--ply", "1", "--worlds", "2", "--jobs", "1", "--model", str(mine)]) == 0
    out, err = capsys.readouterr()
    assert err.startswith(f"cuarenta-tutor analyse: {said}\n") and "valued by the model's critic" in out
    if sidecar is not None:
        assert mine.with_suffix(".analysis.json").read_bytes() == sidecar  # said, left as it was


def test_waiting_that_raises_stops_the_worker_processes_before_a_position_ends():
    # a person who quits mid-review: the review's `waiting` raises, and the processes end without finishing the
    # position under way (each takes seconds in 4096 worlds; before, quitting waited for it)
    import multiprocessing

    from helpers import agent_position, fixed

    from cuarenta_tutor.analysis.parallel import analyse_positions

    class Quit(Exception):
        pass

    calls = []

    def waiting():
        calls.append(1)
        raise Quit

    positions = [agent_position(2, plies, 3) for plies in (0, 2)]
    results = analyse_positions(positions, fixed(4096), jobs=2, waiting=waiting)
    with pytest.raises(Quit):
        next(results)  # no analysis came first
    assert calls == [1]
    assert not multiprocessing.active_children()  # the pool's processes are gone
