"""Worlds weighted by the other seats' plays (agents/belief.py): which plays are kept, that the weights favour
the hands an expert opponent really held, and that nothing hidden is read."""

import random

from helpers import reshuffled

from cuarenta_tutor.agents import ExpertPolicy, make_policy
from cuarenta_tutor.agents.belief import Plays, likelihood, weighted_worlds
from cuarenta_tutor.engine import Dealer, determinize, preset
from cuarenta_tutor.table import Table


def watched_positions(count, seed=5):
    """Seat 0's turns late in a deal (the expert in seat 1 has played), with seat 0's Plays fed as in a game."""
    out, g = [], 0
    while len(out) < count:
        plays = Plays()
        table = Table(preset("standard"), [ExpertPolicy(), ExpertPolicy()], Dealer(seed * 100 + g),
                      watchers=[(0, plays)])
        table.start(seeds=[g, g + 1])
        while not table.over and len(out) < count:
            state = table.state
            if state.turn == 0 and len(plays.of_deal(state)) >= 2:
                out.append((state, list(plays.of_deal(state))))
            table.step()
        g += 1
    return out


def test_plays_keep_the_other_seats_plays_of_this_deal_only():
    for state, plays in watched_positions(10):
        assert plays and all(s == 1 for _, s, _ in plays)
        assert all((b.hand_no, b.deal_no) == (state.hand_no, state.deal_no) for b, _, _ in plays)
        assert [a for _, _, a in plays] == sorted([a for _, _, a in plays], key=[a for _, _, a in plays].index)


def test_the_expert_opponents_real_hand_is_likelier_than_a_plain_draw():
    rng, at_least_median, ratios = random.Random(3), 0, []
    positions = watched_positions(40)
    for state, plays in positions:
        real = likelihood(state, state, plays, 0)
        draws = sorted(likelihood(determinize(state, 0, rng).state, state, plays, 0) for _ in range(20))
        at_least_median += real >= draws[len(draws) // 2]  # late in a deal every world may weigh the same
        ratios.append(real / (sum(draws) / len(draws)))
    assert at_least_median >= 0.85 * len(positions), at_least_median
    assert sum(ratios) / len(ratios) > 1.15  # the real hand weighs more than a plain draw, on average


def test_weighted_worlds_keep_n_likely_worlds_consistent_with_the_seat():
    rng, kept_weight, plain_weight = random.Random(4), 0.0, 0.0
    for state, plays in watched_positions(20):
        kept = weighted_worlds(state, 0, plays, 12, rng)
        assert sum(k for _, k in kept) == 12
        assert all(w.state.hands[0] == state.hands[0] and w.state.table == state.table for w, _ in kept)
        kept_weight += sum(k * likelihood(w.state, state, plays, 0) for w, k in kept) / 12
        plain_weight += sum(likelihood(determinize(state, 0, rng).state, state, plays, 0) for _ in range(36)) / 36
    assert kept_weight > 1.1 * plain_weight  # the resample favours the likely worlds


def test_the_weights_read_nothing_hidden_of_the_positions_before():
    rng = random.Random(6)
    for state, plays in watched_positions(12):
        world = determinize(state, 0, rng).state
        hidden_changed = [(reshuffled(b, 0, rng), s, a) for b, s, a in plays]
        assert likelihood(world, state, plays, 0) == likelihood(world, state, hidden_changed, 0)


def test_search_with_inference_is_a_policy_name_and_plays_legal_moves():
    search = make_policy("search:4@infer", seed=2)
    assert search.infer and search.samples == 4 and search.name == "search:4@infer"
    table = Table(preset("standard"), [search, make_policy("expert")], Dealer(9))
    table.start(seeds=[1, 2])
    for _ in range(30):
        table.step()
    assert search.plays.plays  # it watched the expert's plays
