"""The table, the one match loop: games end as their replays through the dealer do, a person's seat waits
for `play`, a table without a dealer stops at each deal, every seat and watcher sees every state, and the
arena and the search bot play at it."""

import random

import pytest
from helpers import reshuffled

from cuarenta_tutor.agents import BasePolicy, Decision, make_policy
from cuarenta_tutor.agents.search import SearchPolicy
from cuarenta_tutor.arena import run_match
from cuarenta_tutor.engine import (
    N_ACTIONS,
    Caida,
    Dealer,
    Dealt,
    IllegalMove,
    Limpia,
    Ronda,
    apply,
    legal_actions,
    preset,
)
from cuarenta_tutor.table import Table

LINEUPS = {2: ("expert", "greedy"), 4: ("expert", "random", "greedy", "random")}


def bots(players, seed=0):
    return [make_policy(name, seed=seed * 8 + s) for s, name in enumerate(LINEUPS[players])]


class Recorder(BasePolicy):
    """A real policy (uniform over the legal moves) that logs every reset, observation and decision."""

    name = "recorder"

    def __init__(self, seed: int = 0):
        super().__init__(random.Random(seed))
        self.log = []

    def reset(self, seat, seed=None):
        super().reset(seat, seed)
        self.log.append(("reset", seat, seed))

    def observe(self, state, events):
        self.log.append(("observe", state, events))

    def decide(self, state):
        self.log.append(("decide", state))
        legal = legal_actions(state)
        return Decision(self.rng.choice(legal), {a: 1 / len(legal) for a in legal}, model_id=self.name)


def replay(rules, seed, actions, first=None):
    """The final state of a game replayed another way: the dealer alone, action after action."""
    dealer = Dealer(seed)
    state, _ = dealer.start(rules, first)
    for action in actions:
        state, _ = dealer.play(state, action)
    return state


@pytest.mark.parametrize("seed", [3, 8])
@pytest.mark.parametrize("players", [2, 4])
def test_a_game_of_bots_ends_as_its_replay_through_the_dealer(players, seed):
    rules = preset("standard", players=players)
    table = Table(rules, bots(players, seed), Dealer(seed))
    table.start()
    steps = table.run()
    assert table.over and table.state.winner in (0, 1)
    assert len(steps) == table.state.plays  # one step per card played in the game
    assert all(step.decision.action == step.action for step in steps)
    assert all(later.before == earlier.after for earlier, later in zip(steps, steps[1:], strict=False))
    assert replay(rules, seed, [step.action for step in steps]) == table.state
    assert {step.seat for step in steps} == set(range(players))


def test_a_person_seat_stops_run_and_moves_through_play():
    rules = preset("standard")
    table = Table(rules, [None, make_policy("expert", seed=1)], Dealer(12))
    table.start(first=1)  # seat 1 deals, so the person in seat 0 leads
    assert table.to_move is None and table.run() == []
    with pytest.raises(ValueError, match="person"):
        table.decide()
    rng, actions, person = random.Random(0), [], 0
    while not table.over:
        if table.to_move is not None:
            steps = table.run()
            assert steps and all(step.seat == 1 for step in steps)
            assert table.over or table.state.turn == 0
            actions += [step.action for step in steps]
            continue
        state = table.state
        legal = legal_actions(state)
        with pytest.raises(IllegalMove):
            table.play(next(a for a in range(N_ACTIONS) if a not in legal))
        assert table.state is state  # a refused move changes nothing
        step = table.play(rng.choice(legal))
        assert step.seat == 0 and step.decision is None and step.before is state and step.after is table.state
        actions.append(step.action)
        person += 1
    assert person > 10
    assert replay(rules, 12, actions, first=1) == table.state


@pytest.mark.parametrize("players", [2, 4])
def test_without_a_dealer_the_table_stops_at_each_deal_and_deal_continues(players):
    rules = preset("standard", players=players)
    dealer = Dealer(31)
    table = Table(rules, bots(players, 2), None)
    with pytest.raises(ValueError, match="first"):
        table.start()
    assert table.start(first=dealer.start(rules)[0].dealer) == ()  # the first deal is awaited too
    stops = 0
    while not table.over:
        table.run()
        if table.over:
            break
        waiting = table.state
        assert waiting.needs_deal and legal_actions(waiting) == ()
        assert table.run() == []  # nothing happens until the cards come
        with pytest.raises(IllegalMove):
            table.play(0)
        with pytest.raises(IllegalMove) as bad:
            table.deal(dealer.next_cards(waiting)[1:])
        assert bad.value.reason == "bad_deal" and table.state is waiting
        table.deal(dealer.next_cards(waiting))
        stops += 1
    with pytest.raises(IllegalMove) as late:
        table.deal(())
    assert late.value.reason == "no_deal_due"
    # The same seats at a table with the dealer play the same game, dealing exactly where the other stopped.
    twin = Table(rules, bots(players, 2), Dealer(31))
    twin.start()
    steps = twin.run()
    assert twin.state == table.state
    assert stops == 1 + sum(isinstance(e, Dealt) for step in steps for e in step.events) > 1


def test_a_table_with_a_dealer_deals_the_deal_a_position_awaits():
    rules = preset("standard")
    dealer = Dealer(44)
    state, _ = dealer.start(rules)
    while not state.needs_deal:
        state, _ = apply(state, legal_actions(state)[0])  # the engine alone never deals
    table = Table(rules, bots(2), Dealer(44), state=state)
    steps = table.run()
    assert table.over and steps[0].before == dealer.deal(state)[0]


@pytest.mark.parametrize("players", [2, 4])
def test_every_seat_and_watcher_observes_every_state(players):
    rules = preset("standard", players=players)
    seats = [Recorder(seed=s) for s in range(players)]
    watcher = Recorder(seed=99)
    seeds = [100 + s for s in range(players)]
    table = Table(rules, seats, Dealer(17), watchers=[(1, watcher)])
    first = table.start(seeds=seeds)
    start = table.state
    steps = table.run()
    assert table.over
    for seat, policy in enumerate(seats):
        expected = [("reset", seat, seeds[seat]), ("observe", start, first)]
        for step in steps:
            if step.seat == seat:
                expected.append(("decide", step.before))
            expected.append(("observe", step.after, step.events))
        assert policy.log == expected
    assert watcher.log == [("reset", 1, seeds[1]), ("observe", start, first)] + [
        ("observe", step.after, step.events) for step in steps]
    # a count made by the engine: one state per card played, and the first deal's
    assert len(watcher.log) - 1 == table.state.plays + 1
    assert replay(rules, 17, [step.action for step in steps]) == table.state


def test_the_two_v_two_arena_plays_the_table_game():
    seed = 5
    rules = preset("standard", players=4)
    results = run_match("expert", "random", 4, seed=seed, players=4)
    assert [(r.pair, r.swapped) for r in results] == [(0, False), (0, True), (1, False), (1, True)]
    for r in results:
        game_seed = seed * 1_000_003 + r.pair  # the arena's documented seeding: (seed, pair, seat)
        a_team = int(r.swapped)
        seeds = [game_seed * 8 + s for s in range(4)]
        table = Table(rules, [make_policy("expert" if s % 2 == a_team else "random", seed=seeds[s]) for s in range(4)],
                      Dealer(game_seed))
        events = list(table.start(seeds=seeds))
        steps = table.run()
        events += [e for step in steps for e in step.events]
        state = table.state
        assert r.a_won == (state.winner == a_team)
        assert (r.a.points, r.b.points) == (state.scores[a_team], state.scores[1 - a_team])
        for team, tally in ((a_team, r.a), (1 - a_team, r.b)):
            assert tally.decisions == sum(step.seat % 2 == team for step in steps)
            assert tally.caidas == sum(isinstance(e, Caida) and e.team == team for e in events)
            assert tally.limpias == sum(isinstance(e, Limpia) and e.team == team and e.points > 0 for e in events)
            assert tally.rondas == sum(isinstance(e, Ronda) and e.team == team for e in events)


def positions(players, count, seed=50):
    """Expert-game positions with a real choice: half of them after another seat announced a ronda."""
    with_ronda, others, g = [], [], 0
    while len(with_ronda) < count // 2 or len(others) < count - count // 2:
        table = Table(preset("standard", players=players), bots(players, g), Dealer(seed + g))
        table.start()
        while not table.over:
            state = table.state
            if len(legal_actions(state)) > 2:
                if any(r >= 0 for s, r in enumerate(state.rondas) if s != state.turn):
                    with_ronda.append(state)
                elif state.plays % 7 == 1:
                    others.append(state)
            table.step()
        g += 1
    return with_ronda[:count // 2] + others[:count - count // 2]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("horizon", ["deal", "hand"])
def test_search_plays_only_legal_moves(horizon, players):
    rules = preset("standard", players=players)
    for g in range(2):  # the search on each team, for its team's 20 decisions of the first hand
        seats = [SearchPolicy(3, random.Random(g), horizon=horizon) if s % 2 == g % 2 else make_policy("expert")
                 for s in range(players)]
        table = Table(rules, seats, Dealer(40 + g))
        table.start()
        searched = 0
        while searched < 20:
            legal = legal_actions(table.state)
            searching = isinstance(table.to_move, SearchPolicy)
            decision, _ = table.decide()
            assert decision.action in legal and set(decision.probs) <= set(legal)
            assert sum(decision.probs.values()) == pytest.approx(1.0)
            searched += searching
            table.play(decision.action, decision=decision)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("horizon", ["deal", "hand"])
def test_search_never_reads_hidden_cards(horizon, players):
    rng = random.Random(7)
    moved = rondas = 0
    for state in positions(players, 14):
        seat = state.turn
        other = reshuffled(state, seat, rng)
        moved += other.hands != state.hands
        rondas += any(r >= 0 for s, r in enumerate(state.rondas) if s != seat)
        first = SearchPolicy(4, random.Random(11), horizon=horizon)
        second = SearchPolicy(4, random.Random(11), horizon=horizon)
        first.reset(seat), second.reset(seat)
        assert first.decide(state) == second.decide(other)
    assert moved >= 10 and rondas == 7  # hidden cards really moved, and announced rondas were in play


def test_the_search_horizon_changes_what_the_playouts_see():
    # Played to the end of the hand, some moves look different than to the end of the deal: were "hand"
    # playouts stopped at the deal, every decision would be the same.
    assert any(SearchPolicy(4, random.Random(3), horizon="deal").decide(state).action
               != SearchPolicy(4, random.Random(3), horizon="hand").decide(state).action
               for state in positions(2, 30, seed=70))  # up to the first that differs (the 18th)
