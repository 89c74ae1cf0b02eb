"""The arena: duplicate deals, the seed-pair interval, calibration, and --jobs independence."""

import dataclasses
import json
import subprocess
import sys

import pytest

from cuarenta_tutor.arena import GameResult, MatchSummary, play_game, run_match, summarize
from cuarenta_tutor.arena.stats import reliability, win_rate_interval


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
    from cuarenta_tutor.engine import first_dealer, new_game
    seed = 9 * 1_000_003
    state = new_game(seed=seed, dealer=first_dealer(seed, 2))
    assert state.hands[0] != state.hands[1]  # in game two A sits in seat 1 and gets these cards


@pytest.mark.parametrize("players", [2, 4])
def test_a_game_tallies_what_a_plain_replay_counts(players):
    # The game played again without the table: the dealer's plays, the policies asked in turn, every event
    # counted here. Seat policies are seeded from (seed, pair, seat) as the arena documents.
    from cuarenta_tutor.agents import make_policy
    from cuarenta_tutor.engine import Caida, Dealer, Limpia, Ronda, first_dealer, preset

    seed, pair = 6, 1
    for swapped in (False, True):
        result = play_game("expert", "greedy", "standard", players, seed, pair, swapped)
        game_seed = seed * 1_000_003 + pair
        a_team = int(swapped)
        policies = [make_policy("expert" if s % 2 == a_team else "greedy", seed=game_seed * 8 + s)
                    for s in range(players)]
        for s, p in enumerate(policies):
            p.reset(s, seed=game_seed * 8 + s)
        dealer = Dealer(game_seed)
        state, events = dealer.start(preset("standard", players=players), first_dealer(game_seed, players))
        counts = {"a": [0, 0, 0], "b": [0, 0, 0]}
        decisions = {"a": 0, "b": 0}
        while True:
            for e in events:
                side = "a" if getattr(e, "team", None) == a_team else "b"
                if isinstance(e, Caida):
                    counts[side][0] += 1
                elif isinstance(e, Limpia) and e.points:
                    counts[side][1] += 1
                elif isinstance(e, Ronda):
                    counts[side][2] += 1
            for p in policies:
                p.observe(state, events)
            if state.is_over:
                break
            decisions["a" if state.turn % 2 == a_team else "b"] += 1
            state, events = dealer.play(state, policies[state.turn].decide(state).action)
        assert result.a_won == (state.winner == a_team)
        assert (result.a.points, result.b.points) == (state.scores[a_team], state.scores[1 - a_team])
        for side, tally in (("a", result.a), ("b", result.b)):
            assert [tally.caidas, tally.limpias, tally.rondas] == counts[side]
            assert tally.decisions == decisions[side]
        assert sum(counts["a"]) + sum(counts["b"]) > 0


def comparable(summary):
    out = summary.to_json()
    for k in ("a", "b"):
        out[k] = {key: v for key, v in out[k].items() if key != "decision_ms"}
        out.pop(f"decision_ms_{k}")
    return out


def untimed(results):
    """Results without the time spent deciding (the one figure that may differ between runs)."""
    return [dataclasses.replace(r, a=dataclasses.replace(r.a, seconds=0.0), b=dataclasses.replace(r.b, seconds=0.0))
            for r in results]


@pytest.mark.parametrize("players", [2, 4])
def test_jobs_do_not_change_the_result(players):
    games = 12 if players == 2 else 8
    first = run_match("greedy", "expert", games, jobs=1, seed=4, players=players)
    second = run_match("greedy", "expert", games, jobs=2, seed=4, players=players)
    assert untimed(first) == untimed(second)
    one, two = summarize("greedy", "expert", first), summarize("greedy", "expert", second)
    assert isinstance(one, MatchSummary)
    assert comparable(one) == comparable(two)
    assert (one.win_rate, one.a.mean_points, one.b.mean_points, one.a.caidas_per_game, one.b.limpias_per_game,
            one.a.rondas_per_game) == (two.win_rate, two.a.mean_points, two.b.mean_points, two.a.caidas_per_game,
                                       two.b.limpias_per_game, two.a.rondas_per_game)
    assert one.games == games and one.pairs == games // 2
    # the games are not all alike: the comparison has something to compare
    assert len({(r.a.points, r.b.points) for r in first}) > 1


def test_odd_games_and_bad_names_are_refused():
    with pytest.raises(ValueError, match="even"):
        run_match("random", "random", 3)
    with pytest.raises(ValueError, match="unknown policy"):
        run_match("random", "nobody", 2)
    with pytest.raises(ValueError, match="preset"):
        run_match("random", "random", 2, rules="vegas")
    with pytest.raises(ValueError, match="jobs"):
        run_match("random", "random", 2, jobs=0)


def test_four_player_match_runs():
    results = run_match("greedy", "random", 4, players=4, seed=2)
    assert len(results) == 4 and all(r.a.decisions > 0 and r.b.decisions > 0 for r in results)
    assert all(isinstance(r, GameResult) for r in results)
    with pytest.raises(dataclasses.FrozenInstanceError):
        results[0].a_won = not results[0].a_won


def test_arena_command_prints_a_table_and_json():
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "arena", "greedy", "random", "--games", "6",
                          "--seed", "3", "--json"], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for key in ("games", "win_rate", "ci_low", "ci_high", "mean_point_diff", "decision_ms_a", "decision_ms_b"):
        assert key in result
    assert result["games"] == 6 and result["ci_low"] <= result["win_rate"] <= result["ci_high"]
    assert "95% CI" in out.stdout
    assert "6/6" in out.stderr  # the progress bar reached the end
    bad = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "arena", "greedy", "zorro"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and "unknown policy" in bad.stderr
    assert bad.stderr.startswith("cuarenta-tutor arena:")  # refused before any progress bar


def test_platt_scaling_recovers_a_known_distortion():
    import math
    import random

    from cuarenta_tutor.arena.stats import fit_platt, platt

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


def test_platt_scaling_of_values_that_separate_the_outcomes_stays_finite():
    import math

    from cuarenta_tutor.arena.stats import fit_platt, platt

    values, outcomes = [0.001, 0.2, 0.3, 0.7, 0.8, 0.999999], [False, False, False, True, True, True]
    a, b = fit_platt(values, outcomes)  # a plain maximum-likelihood fit runs off to infinity here
    assert math.isfinite(a) and math.isfinite(b) and a > 0
    assert platt(0.9, a, b) > 0.5 > platt(0.1, a, b) and platt(1e-9, 1e6, 0.0) == 0.0
