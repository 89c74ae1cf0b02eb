"""The hand-value table: solved exactly on small hand-made outcomes, read back from JSON, simulated with the real
agent and engine, and used by the analysis at the end of a hand (and only for the rules it was built for)."""

import json
from dataclasses import replace

import numpy as np
import pytest

from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
from cuarenta_tutor.analysis import Settings, analyse
from cuarenta_tutor.analysis.values import HandValues, for_model, simulate, solve
from cuarenta_tutor.engine import Dealer, Rules, apply, initial_state, legal_actions
from cuarenta_tutor.engine.rules import TARGET_SCORE


def test_solve_follows_the_outcomes_to_the_end_of_the_game():
    outcomes = {((0, 0), 0): [0, ((10, 0), 1)],  # team 0 wins at once, or reaches 10-0 with seat 1 to deal
                ((10, 0), 1): [0, 1]}
    table = solve(outcomes, 2)
    assert table[10, 0, 1] == pytest.approx(0.5) and table[0, 0, 0] == pytest.approx(0.75)
    assert np.isnan(table[2, 2, 0])  # never reached


def test_solve_handles_hands_that_leave_the_scores_as_they_were():
    # from 30 a hand can score nothing: 30-30 goes back and forth between the dealers
    outcomes = {((30, 30), 0): [((30, 30), 1), 0], ((30, 30), 1): [((30, 30), 0), 1]}
    table = solve(outcomes, 2)
    assert table[30, 30, 0] == pytest.approx(2 / 3) and table[30, 30, 1] == pytest.approx(1 / 3)


def test_standard_errors_count_each_entrys_hands_and_what_it_inherits():
    from cuarenta_tutor.analysis.values import standard_errors

    outcomes = {((0, 0), 0): [((10, 0), 1), ((10, 0), 1)],  # always the same entry: its error, inherited
                ((10, 0), 1): [0, 1]}  # a coin: variance 0.25 over 2 hands
    table = solve(outcomes, 2)
    se = standard_errors(outcomes, table)
    assert se[10, 0, 1] == pytest.approx((0.25 / 2) ** 0.5) and se[0, 0, 0] == pytest.approx(se[10, 0, 1])
    more = {((0, 0), 0): [0, 1, 0, 1, 0, 1, 0, 1]}  # four times the hands: half the error
    assert standard_errors(more, solve(more, 2))[0, 0, 0] == pytest.approx(se[10, 0, 1] / 2)


def test_win_reads_the_table_for_either_team_and_the_nearest_score_reached():
    table = np.full((TARGET_SCORE, TARGET_SCORE, 2), np.nan)
    table[10, 4, 1], table[12, 4, 1] = 0.7, 0.8
    se = np.where(np.isnan(table), 0.0, 0.02)
    values = HandValues(table, Rules(), hands=3, se=se, seed=9)
    state = initial_state(Rules(), dealer=1, scores=(10, 4))
    assert values.win(state, 0) == pytest.approx(0.7) and values.win(state, 1) == pytest.approx(0.3)
    assert values.win(initial_state(Rules(), 1, (13, 4)), 0) == pytest.approx(0.8)  # 13 was never reached
    assert values.error(state) == 0.02
    again = HandValues.from_json(json.loads(json.dumps(values.to_json())))
    assert again.rules == Rules() and again.hands == 3 and np.allclose(again.table, table, equal_nan=True)
    assert again.seed == 9 and again.error(state) == 0.02
    with pytest.raises(ValueError, match="a hand-value table is 40x40x4, not 40x40x2"):
        HandValues.from_json({**values.to_json(), "rules": Rules(players=4).to_dict()})


def test_simulated_hands_end_at_the_next_hand_or_a_win():
    agent = OnnxPolicy()
    starts = [((0, 0), 0), ((36, 20), 1)]
    first, late = simulate(agent, Rules(), starts, 6, seed=3)
    assert len(first) == len(late) == 6
    for outcome in first:  # from 0-0 nobody reaches 40 in one hand without four of a kind
        if not isinstance(outcome, int):
            scores, dealer = outcome
            assert dealer == 1 and min(scores) >= 0 and max(scores) < TARGET_SCORE
    for outcome in late:
        assert isinstance(outcome, int) or (outcome[1] == 0 and outcome[0][0] >= 36 and outcome[0][1] >= 20)
    assert simulate(agent, Rules(), starts, 6, seed=3) == [first, late]  # the same for the same seed


def last_plays(seed):
    """A position with the last two cards of the first hand still to play."""
    dealer = Dealer(seed)
    state = dealer.start(Rules(), 0)[0]
    while not state.is_over and (len(state.stock) > 0 or sum(map(len, state.hands)) > 2):
        state = dealer.play(state, legal_actions(state)[0])[0]
    return state


def test_the_analysis_values_the_end_of_a_hand_with_the_table_for_its_rules_only():
    agent = OnnxPolicy()
    quick = Settings(worlds=8, round_worlds=8, min_worlds=8, budget_s=0)
    table = for_model(agent.path, agent.model_id, Rules())
    assert table is not None, "the shipped model has its hand-value table"
    checked = 0
    for seed in range(12):
        state = last_plays(seed)
        if state.is_over:
            continue
        result = analyse(state, agent, quick)
        assert result.leaf == "table"
        for move in result.moves:  # nothing is hidden now: the hand ends on one of the replies
            after = apply(state, move.action)[0]
            ends = [apply(after, a)[0] for a in legal_actions(after)]
            if not after.is_over and all(not end.is_over for end in ends):
                end = next(e for e in ends if move.win_pct == pytest.approx(100 * table.win(e, state.turn & 1)))
                # every world the same: the interval is the table entry's own error, nothing else
                half = (move.ci95[1] - move.ci95[0]) / 2
                assert half == pytest.approx(1.959964 * 100 * table.error(end)) and half > 0
                checked += 1
    assert checked >= 6
    assert analyse(state, agent, replace(quick, leaf="critic")).leaf == "critic"
    other = Rules().with_options(carton_cutoff=None)
    assert for_model(agent.path, agent.model_id, other) is None


def test_a_stopped_table_build_goes_on_from_its_checkpoint_to_the_same_table_in_any_number_of_processes(tmp_path):
    from cuarenta_tutor.analysis.values import build

    agent, keep = OnnxPolicy(), tmp_path / "hand-table.json"
    whole = build(agent, hands=1, seed=3, batch=120)
    batches = []

    def stop_after_two(done, total):
        batches.append(done)
        if len(batches) == 2:
            raise KeyboardInterrupt  # as a person's Ctrl-C, or the end of a session

    with pytest.raises(KeyboardInterrupt):
        build(agent, hands=1, seed=3, batch=120, progress=stop_after_two, keep=keep)
    kept = json.loads(keep.read_text())
    assert kept["round"] == 2 and len(kept["outcomes"]) == batches[-1] and kept["todo"]
    # went on in two processes, each batch's starts shared between them (each start's hands keep their seeds)
    again = build(agent, hands=1, seed=3, batch=120, keep=keep, progress=lambda done, total: batches.append(done),
                  jobs=2)
    assert batches[2] > batches[1]  # went on from the checkpoint, not from 0-0
    np.testing.assert_array_equal(again.table, whole.table)
    np.testing.assert_array_equal(again.se, whole.se)


def test_a_new_hand_table_keeps_the_one_pass_fit_and_drops_the_errors():
    from cuarenta_tutor.analysis.calibrate import with_table
    from cuarenta_tutor.analysis.values import read_sidecar, sidecar

    agent = OnnxPolicy()
    shipped = dict(read_sidecar(agent.path, agent.model_id))
    table = HandValues.from_json(shipped["hand_values"])
    data = with_table(shipped, agent.model_id, table)
    assert data["one_pass"] == shipped["one_pass"] and "errors" not in data and "errors" in shipped
    assert data["hand_values"] == table.to_json() and data["model_sha256"] == agent.model_id
    assert sidecar(agent.path).name.endswith(".analysis.json")


def test_each_presets_and_player_counts_table_and_errors_are_found_by_their_rules(model_copy):
    from cuarenta_tutor.analysis.calibrate import settings_for, with_errors, with_table, write_sidecar
    from cuarenta_tutor.analysis.values import read_sidecar, sidecar_problem
    from cuarenta_tutor.engine.rules import preset

    agent = OnnxPolicy(model_copy)
    pagat4 = preset("pagat", 4)
    shipped = dict(read_sidecar(model_copy, agent.model_id))
    shipped["variants"] = [v for v in shipped.get("variants", [])  # as if pagat 2 v 2 had no table yet
                           if HandValues.from_json(v["hand_values"]).rules != pagat4]
    standard = HandValues.from_json(shipped["hand_values"])
    made = HandValues(np.full((TARGET_SCORE, TARGET_SCORE, 4), 0.25), pagat4, hands=3)
    data = with_errors(with_table(shipped, agent.model_id, made), pagat4, {"horizon": "hand", "leaf": "table",
                                                                          "playout": "policy", "value_sd": 1.5,
                                                                          "loss_sd": 2.5, "late": {
                                                                              "value_sd": 3.0, "loss_sd": 4.0}},
                                                                          "cmd")
    write_sidecar(model_copy, data)
    assert sidecar_problem(model_copy, agent.model_id) is None
    assert for_model(model_copy, agent.model_id, pagat4).table[0, 0, 3] == 0.25
    np.testing.assert_array_equal(for_model(model_copy, agent.model_id, Rules()).table, standard.table)  # kept
    custom = Rules().with_options(sum_max_cards=2)
    assert for_model(model_copy, agent.model_id, custom) is None  # no table made for these rules
    measured = settings_for(model_copy, rules=pagat4)
    assert (measured.value_sd, measured.loss_sd, measured.late_value_sd, measured.late_loss_sd) == (1.5, 2.5, 3.0, 4.0)
    assert settings_for(model_copy).loss_sd == shipped["errors"]["loss_sd"]  # standard 1 v 1's own
    assert settings_for(model_copy, rules=custom).loss_sd == 0.0  # no errors measured there
    again = with_table(data, agent.model_id, HandValues(made.table * 2, pagat4, hands=4))  # rebuilt: replaces it
    assert len(again["variants"]) == len(shipped.get("variants", [])) + 1 and again["errors"]
    assert "errors" not in again["variants"][-1] and again["variants"][-1]["hand_values"]["hands_per_score"] == 4
    again["variants"][-1]["hand_values"]["win_team0"] = "damaged"
    write_sidecar(model_copy, again)
    assert "is damaged" in sidecar_problem(model_copy, agent.model_id)


def test_calibrate_builds_a_2v2_table_for_a_preset_beside_the_standard_one(model_copy, monkeypatch, tmp_path):
    from cuarenta_tutor.analysis.calibrate import main
    from cuarenta_tutor.analysis.values import read_sidecar
    from cuarenta_tutor.engine.rules import preset

    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(tmp_path / "home"))
    assert main(["--model", str(model_copy), "--rules", "quito_todo_dos", "--players", "4", "--hands", "1",
                 "--table-only"]) == 0
    agent = OnnxPolicy(model_copy)
    table = for_model(model_copy, agent.model_id, preset("quito_todo_dos", 4))
    assert table.table.shape == (TARGET_SCORE, TARGET_SCORE, 4) and table.hands == 1
    assert not np.isnan(table.table[0, 0]).any()  # every dealer from 0-0
    assert list((tmp_path / "home" / "cache").glob("hand-table-*-quito_todo_dos-4p-1.json"))  # its checkpoint
    assert read_sidecar(model_copy, agent.model_id)["errors"]  # the standard table's errors stay


def test_calibrate_all_builds_each_player_counts_table_once(model_copy, monkeypatch, tmp_path, capsys):
    # a new generation's sidecar in one command: every preset (here one, to be quick) x 1 v 1 and 2 v 2, and a second
    # run (a stopped one started again) builds none of those already there
    from cuarenta_tutor.analysis import calibrate
    from cuarenta_tutor.engine.rules import PRESETS, preset

    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(calibrate, "PRESETS", {"quito_todo_dos": PRESETS["quito_todo_dos"]})
    args = ["--model", str(model_copy), "--all", "--hands", "1", "--table-only"]
    assert calibrate.main(args) == 0
    assert capsys.readouterr().err.count("building the hand-value table of quito_todo_dos") == 2
    agent = OnnxPolicy(model_copy)
    assert [for_model(model_copy, agent.model_id, preset("quito_todo_dos", p)).hands for p in (2, 4)] == [1, 1]
    assert calibrate.main(args) == 0
    assert "building" not in capsys.readouterr().err


def test_calibrate_without_hands_keeps_the_tables_there(model_copy, monkeypatch, tmp_path, capsys):
    # a fit run again without --hands must not rebuild a table of another count with the default's (the shipped
    # standard table has 1600 hands per score, the default for a new one is 400)
    from cuarenta_tutor.analysis import calibrate

    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(calibrate, "HANDS", 2)  # a rebuild, if one starts, is quick and shows
    assert calibrate.main(["--model", str(model_copy), "--rules", "quito_todo_dos", "--players", "4", "--hands", "1",
                           "--table-only"]) == 0
    assert "building the hand-value table of quito_todo_dos, 4 players (1 hands" in capsys.readouterr().err
    for rules in (["--rules", "quito_todo_dos", "--players", "4"], []):  # the one just built; the shipped one
        assert calibrate.main(["--model", str(model_copy), *rules, "--table-only"]) == 0
        assert "building" not in capsys.readouterr().err
