"""The arena: duplicate deals, the seed-pair interval, calibration, and --jobs independence."""

import json
import subprocess
import sys

import pytest

from cuarenta_tutor.arena import play_game, run_match, summarize
from cuarenta_tutor.stats import reliability, win_rate_interval


def test_interval_matches_a_hand_computed_one():
    # pair scores 1, .5, .5, 0, 1: mean .6; sample sd = sqrt(.7/4) = .41833; se = .18708;
    # 1.96 se = .36668 -> [.23332, .96668]
    rate, low, high = win_rate_interval([1, 0.5, 0.5, 0, 1])
    assert rate == pytest.approx(0.6)
    assert low == pytest.approx(0.23332, abs=1e-4)
    assert high == pytest.approx(0.96668, abs=1e-4)
    assert win_rate_interval([1, 1, 1]) == (1.0, 1.0, 1.0)
    assert win_rate_interval([0.5]) == (0.5, 0.0, 1.0)
    with pytest.raises(ValueError):
        win_rate_interval([])


def test_reliability_table_and_ece_by_hand():
    values = [0.05, 0.05, 0.95, 0.95, 0.55, 0.55]
    outcomes = [False, True, True, True, True, True]
    rows, ece = reliability(values, outcomes)
    # bins: [0,.1): pred .05 obs .5 (2); [.5,.6): pred .55 obs 1 (2); [.9,1]: pred .95 obs 1 (2)
    assert [r["count"] for r in rows] == [2, 0, 0, 0, 0, 2, 0, 0, 0, 2]
    assert ece == pytest.approx((2 * 0.45 + 2 * 0.45 + 2 * 0.05) / 6)
    assert reliability([1.0], [True])[0][9]["count"] == 1


def test_duplicate_games_deal_the_same_cards_to_swapped_seats():
    first = play_game("random", "random", "standard", 2, 9, 0, False)
    second = play_game("random", "random", "standard", 2, 9, 0, True)
    assert first.pair == second.pair and first.swapped != second.swapped
    from cuarenta_tutor.engine import new_game
    from cuarenta_tutor.engine.state import first_dealer
    seed = 9 * 1_000_003
    state = new_game(seed=seed, dealer=first_dealer(seed, 2))
    assert state.hands[0] != state.hands[1]  # in game two A sits in seat 1 and gets these cards


def comparable(summary):
    out = dict(summary)
    for k in ("a", "b"):
        out[k] = {key: v for key, v in out[k].items() if key != "decision_ms"}
        out.pop(f"decision_ms_{k}")
    return out


def test_jobs_do_not_change_the_result():
    one = summarize("greedy", "expert", run_match("greedy", "expert", 12, jobs=1, seed=4))
    two = summarize("greedy", "expert", run_match("greedy", "expert", 12, jobs=2, seed=4))
    assert comparable(one) == comparable(two)
    assert one["games"] == 12 and one["pairs"] == 6


def test_odd_games_and_bad_names_are_refused():
    with pytest.raises(ValueError, match="even"):
        run_match("random", "random", 3)
    with pytest.raises(ValueError, match="unknown policy"):
        run_match("random", "nobody", 2)
    with pytest.raises(ValueError, match="preset"):
        run_match("random", "random", 2, rules="vegas")


def test_four_player_match_runs():
    results = run_match("greedy", "random", 4, players=4, seed=2)
    assert len(results) == 4 and all(r.decisions["a"] > 0 and r.decisions["b"] > 0 for r in results)


def test_arena_command_prints_a_table_and_json():
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "arena", "greedy", "random", "--games", "6",
                          "--seed", "3", "--json"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for key in ("games", "win_rate", "ci_low", "ci_high", "mean_point_diff", "decision_ms_a", "decision_ms_b"):
        assert key in result
    assert result["games"] == 6 and result["ci_low"] <= result["win_rate"] <= result["ci_high"]
    assert "95% CI" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "arena", "greedy", "zorro"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "unknown policy" in bad.stderr


def test_platt_scaling_recovers_a_known_distortion():
    import math
    import random

    from cuarenta_tutor.stats import fit_platt, platt

    rng = random.Random(3)
    values, outcomes = [], []
    for _ in range(4000):
        v = rng.uniform(0.02, 0.98)  # what the model says
        true = 1 / (1 + math.exp(-(0.6 * math.log(v / (1 - v)) - 0.4)))  # what really happens
        values.append(v)
        outcomes.append(rng.random() < true)
    a, b = fit_platt(values, outcomes)
    assert a == pytest.approx(0.6, abs=0.1) and b == pytest.approx(-0.4, abs=0.1)
    assert platt(0.5, 1.0, 0.0) == pytest.approx(0.5)
    assert reliability([platt(v, a, b) for v in values], outcomes)[1] < reliability(values, outcomes)[1]
    with pytest.raises(ValueError):
        fit_platt([0.2, 0.7], [True, True])
