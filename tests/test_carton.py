"""The search's expected cartón (agents/carton.py): the rules' cartón, its cut-off and the game it wins, valued
from the piles of a deal's end."""

import pytest

from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.agents.carton import ExpectedCarton
from cuarenta_tutor.engine import make_position, preset


def deal_end(a: int, b: int, scores=(0, 0), rules="standard"):
    """A position between deals with `a` and `b` cards in the two teams' piles (ranks cycled, suits ignored)."""
    ranks = [str(r) for r in (1, 2, 3, 4, 5, 6, 7, "J", "Q", "K")] * 4
    return make_position(preset(rules), hands=[[], []], piles=(ranks[:a], ranks[a:a + b]),
                         stock=ranks[a + b:], scores=scores, dealer=1)


def test_it_is_the_same_for_both_teams_with_the_sign_changed():
    carton = ExpectedCarton(40.0)
    for a, b in [(10, 10), (14, 8), (3, 17), (20, 12)]:
        state = deal_end(a, b)
        assert carton.value(state, 0) == -carton.value(state, 1)


def test_more_cards_are_worth_more_while_the_cartón_counts():
    carton = ExpectedCarton(40.0)
    worths = [carton.value(deal_end(a, 8), 0) for a in range(6, 21)]
    assert all(x < y for x, y in zip(worths, worths[1:], strict=False))
    assert abs(carton.value(deal_end(10, 10), 0)) < 1.0  # an even race is worth about nothing
    assert carton.value(deal_end(20, 10), 0) >= 6.0  # 20 cards: the cartón's 6 points at least


def test_a_team_at_the_cut_off_gets_nothing_for_its_cards():
    carton = ExpectedCarton(40.0)
    at_cutoff = [carton.value(deal_end(a, 8, scores=(30, 0)), 0) for a in (10, 16, 22)]
    assert all(v <= 0 for v in at_cutoff)
    assert carton.value(deal_end(16, 8, scores=(29, 0)), 0) > 3.0  # one point lower, the cartón counts
    pagat = preset("pagat")  # no cut-off
    assert pagat.carton_cutoff is None and carton.value(deal_end(16, 8, (30, 0), "pagat"), 0) > 3.0


def test_a_cartón_that_reaches_40_is_worth_the_game():
    carton = ExpectedCarton(40.0)
    assert carton.value(deal_end(26, 5, scores=(29, 10)), 0) >= 40.0 + 12  # 26 cards: 12 points, 41: won
    out_of_reach = carton.value(deal_end(20, 5, scores=(20, 10)), 0)  # at most 31 cards, 18 points: 38
    assert 6.0 <= out_of_reach < 40.0
    assert carton.value(deal_end(5, 26, scores=(10, 29)), 0) <= -52.0


def test_the_search_takes_it_by_name():
    assert make_policy("search:8@carton").name == "search:8@carton"
    assert make_policy("search:8@infer@carton").name == "search:8@infer@carton"
    assert make_policy("search:8@carton@solve=6").solve == 6
    for bad in ("search:8@carton@carton", "search:8@solve=x", "search:8@solve=4@solve=6", "search:8@deep"):
        with pytest.raises(ValueError, match="@carton"):
            make_policy(bad)


def test_its_split_model_is_what_expert_self_play_shows():
    from cuarenta_tutor.agents import carton

    found = carton.fit(100, seed=3)
    assert found["deal_ends"] > 800  # three deal ends a hand, about three hands a game
    assert abs(found["leftover"] - carton.LEFTOVER) < 1.0
    assert abs(found["split_variance"] - carton.SPLIT_VARIANCE) < 0.6


def minimax(search, state, world, team):
    """The deal's end by plain minimax, every seat knowing the world's cards: what alpha-beta must equal."""
    from cuarenta_tutor.engine import apply, legal_actions

    if state.needs_deal or state.is_over or state.hand_no != world.hand_no:
        return search.outcome(state, world, team)
    values = [minimax(search, apply(state, a)[0], world, team) for a in legal_actions(state)]
    return max(values) if (state.turn & 1) == team else min(values)


def late_positions(count: int, cards: int):
    """Positions of expert games with `cards` or fewer cards left in the hands of the deal."""
    from cuarenta_tutor.engine import Dealer
    from cuarenta_tutor.table import Table

    found, seed = [], 0
    while len(found) < count:
        table = Table(preset("standard"), [make_policy("expert"), make_policy("expert")], Dealer(seed))
        table.start()
        while not table.over and len(found) < count:
            state = table.state
            if 2 <= sum(map(len, state.hands)) <= cards:
                found.append(state)
            table.step()
        seed += 1
    return found[::3][: count // 3]


def test_the_solver_finds_the_deals_minimax_where_the_expert_playout_may_not():
    from cuarenta_tutor.agents.search import SearchPolicy
    from cuarenta_tutor.engine import apply, legal_actions

    search = SearchPolicy(4, solve=6, carton=True)
    plain = SearchPolicy(4, carton=True)
    differs = 0
    for state in late_positions(90, 6):
        team = state.turn & 1
        for a in legal_actions(state):
            after = apply(state, a)[0]
            exact = minimax(search, after, state, team)
            assert abs(search.solved(after, state, team, -float("inf"), float("inf")) - exact) < 1e-9
            assert abs(search.playout(state, None, a, team) - exact) < 1e-9  # 6 cards or fewer: solved
            differs += abs(plain.playout(state, None, a, team) - exact) > 1e-9
    assert differs > 0  # the experts' playout is not the exact line everywhere
