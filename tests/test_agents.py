"""The bots and the shipped model: legal moves only, no peeking at hidden cards, and the play each one is
documented to make."""

import functools
import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import reshuffled

from cuarenta_tutor.agents import Decision, ExpertPolicy, GreedyPolicy, Policy, RandomPolicy, make_policy
from cuarenta_tutor.agents.expert import move_values
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from cuarenta_tutor.agents.search import SearchPolicy
from cuarenta_tutor.engine import (
    ACTION_KIND,
    TRAIL,
    Dealer,
    World,
    determinize,
    knows_every_card,
    legal_actions,
    make_position,
    match_action,
    new_game,
    p_holds,
    parse_rank,
    preset,
    sum_action,
    trail_action,
)

SEARCH_PLAYOUT = SearchPolicy.playout
LINEUPS = [("random", "greedy"), ("expert", "random"), ("greedy", "expert"), ("search:1", "expert")]


def play(policies, rules, seed, check):
    dealer = Dealer(seed)
    state, _ = dealer.start(rules)
    for s, p in enumerate(policies):
        p.reset(s, seed)
    while not state.is_over:
        decision = policies[state.turn].decide(state)
        check(state, decision)
        state, _ = dealer.play(state, decision.action)
    return state


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("a,b", LINEUPS, ids=[f"{a}-{b}" for a, b in LINEUPS])
def test_policies_only_play_legal_moves(a, b, players):
    # 50 seeded games per bot: every bot appears in two lineups of 25 games each (search, the slow one, in one
    # lineup of 2 games for each table size, one on each team, one world sampled per decision): each chooses among the
    # legal moves the engine lists, so more games would show nothing more.
    games = 2 if a.startswith("search") else 25
    rules = preset("standard", players=players)

    def check(state, decision):
        legal = legal_actions(state)
        assert isinstance(decision, Decision)
        assert decision.action in legal
        assert set(decision.probs) <= set(legal)
        assert abs(sum(decision.probs.values()) - 1.0) < 1e-6

    for g in range(games):
        policies = [make_policy(a if s % 2 == g % 2 else b, seed=g * 4 + s) for s in range(players)]
        assert play(policies, rules, 500 + g, check).winner in (0, 1)


@functools.cache
def positions(count, seed=3) -> tuple:
    """`count` positions of expert games (made once per process: states are immutable values)."""
    out, expert, g = [], ExpertPolicy(), 0
    while len(out) < count:
        dealer = Dealer(seed * 100 + g)
        state, _ = dealer.start()
        while not state.is_over and len(out) < count:
            if len(legal_actions(state)) > 2 and state.plays % 5 == 1:
                out.append(state)
            state, _ = dealer.play(state, expert.decide(state).action)
        g += 1
    return tuple(out)


@pytest.mark.parametrize("name", ["search:6", "expert", "onnx"])
def test_choice_ignores_the_hidden_cards(name):
    rng = random.Random(7)
    changed_worlds = 0
    for state in positions(25):
        seat = state.turn
        other = reshuffled(state, seat, rng)
        changed_worlds += other.hands != state.hands or other.stock != state.stock
        first, second = make_policy(name, seed=11), make_policy(name, seed=11)
        first.reset(seat, 11), second.reset(seat, 11)
        assert first.decide(state).action == second.decide(other).action
    assert changed_worlds >= 15  # the reshuffle really moved hidden cards (late positions may have one)


@pytest.mark.parametrize("options", [{}, {"infer": True}, {"horizon": "hand"}])
def test_where_every_card_is_known_the_search_plays_one_world_with_what_every_world_gives(monkeypatch, options):
    module = sys.modules["cuarenta_tutor.agents.search"]
    known = []
    for state in positions(400):
        if knows_every_card(state) and len(known) < 6:
            known.append(state)
    assert len(known) == 6
    played = []
    monkeypatch.setattr(SearchPolicy, "playout", lambda self, *args: played.append(args) or SEARCH_PLAYOUT(self, *args))
    for state in known:
        one, every = SearchPolicy(8, rng=random.Random(3), **options), SearchPolicy(8, rng=random.Random(3), **options)
        del played[:]
        means = one.move_means(state)
        assert len(played) == len(legal_actions(state))  # one world, each move once
        with monkeypatch.context() as m:
            m.setattr(module, "knows_every_card", lambda state: False)
            assert every.move_means(state) == pytest.approx(means)
        assert one.rng.getstate() == every.rng.getstate()  # the same draws: a seeded run goes on as before


def test_determinize_keeps_what_the_seat_knows():
    state = positions(1)[0]
    seat = state.turn
    found = determinize(state, seat, random.Random(1))
    assert isinstance(found, World)
    world = found.state
    assert world.hands[seat] == state.hands[seat] and world.table == state.table
    assert world.piles == state.piles and world.played == state.played
    assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
    assert len(world.stock) == len(state.stock)
    assert world.stock == tuple(sorted(world.stock)) and tuple(sorted(found.stock_order)) == world.stock
    assert sorted(c for h in world.hands for c in h) + sorted(world.stock) != [] and sorted(
        [c for h in world.hands for c in h] + list(world.stock)) == sorted(
        [c for h in state.hands for c in h] + list(state.stock))
    assert determinize(reshuffled(state, seat, random.Random(2)), seat, random.Random(1)) == found


def ronda_positions(players, count):
    """Positions of expert games (the seat on turn, the state) in which another seat announced a ronda."""
    out, expert, g = [], ExpertPolicy(), 0
    while len(out) < count:
        dealer = Dealer(900 + g)
        state, _ = dealer.start(preset("standard", players=players))
        while not state.is_over and len(out) < count:
            if any(r >= 0 for s, r in enumerate(state.rondas) if s != state.turn) and state.plays % 3 == 0:
                out.append(state)
            state, _ = dealer.play(state, expert.decide(state).action)
        g += 1
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_determinize_deals_announced_rondas_and_no_unannounced_ones(players):
    # R-ANN: a seat that announced a ronda holds three of one rank among the cards dealt to it this deal
    # (its hand and what it played); a seat that announced none was dealt no three of a kind.
    rng, announced = random.Random(4), 0
    for state in ronda_positions(players, 20):
        seat = state.turn
        for _ in range(5):
            world = determinize(state, seat, rng).state
            for s in range(players):
                if s == seat:
                    continue
                ranks = [c >> 2 for c in world.hands[s] + state.played[s]]
                counts = [ranks.count(r) for r in range(10)]
                if state.rondas[s] >= 0:
                    announced += 1
                    assert 0 <= world.rondas[s] < 10 and counts[world.rondas[s]] >= 3
                else:
                    assert world.rondas[s] == -1 and max(counts) < 3
    assert announced >= 100  # every position has one (20 positions, 5 worlds each)


def test_hypergeometric_odds():
    assert p_holds(0, 5, 20) == 0.0
    assert p_holds(4, 5, 5) == 1.0
    # one specific card among 10 unseen, a hand of 5: exactly one half
    assert p_holds(1, 5, 10) == pytest.approx(0.5)
    # two copies among 10, hand of 5: 1 - C(8,5)/C(10,5) = 1 - 56/252
    assert p_holds(2, 5, 10) == pytest.approx(1 - 56 / 252)


def pos(hand, table, trailed=None, scores=(0, 0), other=("K", "K", "Q", "Q", "J")):
    return make_position(hands=[list(hand), list(other)], table=list(table), turn=0, trailed=trailed,
                         scores=scores, stock=["A"] * 0)


@pytest.mark.parametrize("policy", [GreedyPolicy(), ExpertPolicy()], ids=["greedy", "expert"])
def test_takes_the_caida_y_limpia(policy):
    state = pos(["5", "7", "3"], ["5"], trailed="5")
    assert policy.decide(state).action == match_action(parse_rank("5"))


def test_greedy_prefers_more_cards_when_points_tie():
    state = pos(["5", "K"], ["2", "3", "A", "4", "Q"])
    assert greedy_choice(state) == sum_action(parse_rank("5"), [parse_rank("A"), parse_rank("4")]) or \
        greedy_choice(state) == sum_action(parse_rank("5"), [parse_rank("2"), parse_rank("3")])


def greedy_choice(state):
    return GreedyPolicy().decide(state).action


def test_expert_trails_a_rank_that_cannot_be_matched():
    # Three 6s already captured: trailing the last 6 risks no caída; trailing the 4 does.
    state = make_position(hands=[["6", "4"], ["A", "2", "3", "5", "7"]], table=["K"], turn=0,
                          piles=[["6", "6", "6"], []])
    assert ExpertPolicy().decide(state).action == trail_action(parse_rank("6"))


def test_expert_does_not_trail_onto_an_empty_table_what_is_likely_matched():
    # Empty table: a trailed card matched by the next player is a caída y limpia (4 points).
    # The J has all three others captured already; the 5 has three unseen.
    state = make_position(hands=[["5", "J"], ["A", "2", "3", "4", "7"]], table=[], turn=0,
                          piles=[["J", "J", "J"], []])
    assert ExpertPolicy().decide(state).action == trail_action(parse_rank("J"))


def test_expert_at_38_plays_for_the_caida_not_the_cards():
    # At 38 a limpia scores nothing; a caída wins the game.
    state = make_position(hands=[["4", "7"], ["K", "K", "Q", "Q", "J"]], table=["4", "3"], turn=0, trailed="4",
                          scores=(38, 20))
    decision = ExpertPolicy().decide(state)
    assert decision.action == match_action(parse_rank("4"))
    assert ACTION_KIND[decision.action] != TRAIL


def test_expert_does_not_know_the_rank_of_another_seats_ronda():
    # seat 1 trailed a 5 and announced a ronda: whether it is of fives (a caída then scores 10 more) is secret
    def position(rank):
        return make_position(hands=[["5", "K", "Q"], ["2", "3"]], table=["5", "7"], turn=0, trailed="5",
                             rondas=[None, rank])

    fives, sixes = move_values(position("5")), move_values(position("6"))
    assert fives == sixes and fives[match_action(parse_rank("5"))] > max(v for a, v in fives.items()
                                                                        if a != match_action(parse_rank("5")))


def test_the_experts_kept_gains_are_what_it_reckons_afresh(monkeypatch):
    # the threat keeps each table's best gains; a key that mixed up two situations would show here, where the
    # fresh reckoning (an empty store for every position) and the one kept across thousands disagree
    from cuarenta_tutor.agents import expert
    from cuarenta_tutor.engine import Dealer, legal_actions, preset

    def values(state, store):
        monkeypatch.setattr(expert, "_GAINS", store)
        monkeypatch.setattr(expert, "_last_gains", (None, None))
        return expert.move_values(state)

    warm, kept, fresh = {}, [], []
    for name, players in (("standard", 2), ("standard", 4), ("pagat", 2), ("quito_todo_dos", 4)):
        for seed in range(4):
            dealer, rng = Dealer(seed), random.Random(seed)
            state, _ = dealer.start(preset(name).with_options(players=players), 0)
            while not state.is_over:
                kept.append(values(state, warm))
                fresh.append(values(state, {}))
                state, _ = dealer.play(state, rng.choice(sorted(legal_actions(state))))
    assert len(kept) > 1000 and kept == fresh and sum(len(tables) for tables in warm.values()) > 1000


def test_make_policy_names_the_choices():
    for name in ("random", "greedy", "expert", "search:3"):
        assert isinstance(make_policy(name), Policy)
    assert make_policy("search:3").samples == 3
    with pytest.raises(ValueError, match="choose one of"):
        make_policy("alphago")
    with pytest.raises(ValueError, match="search:200"):
        make_policy("search:lots")
    with pytest.raises(ValueError):
        SearchPolicy(0)
    with pytest.raises(ValueError, match="horizon"):
        SearchPolicy(3, horizon="game")


def test_random_policy_is_reproducible_with_its_seed():
    state = new_game(seed=1)
    picks = []
    for _ in range(2):
        p = RandomPolicy(random.Random(5))
        picks.append([p.decide(state).action for _ in range(20)])
    assert picks[0] == picks[1] and len(set(picks[0])) > 1


def test_shipped_model_card_matches_the_model():
    model = default_model_path()
    assert model.is_file(), f"the shipped model is missing: {model}"
    card = json.loads(Path(str(model).replace(".onnx", ".json")).read_text())
    assert card["sha256"] == file_sha256(model)
    assert model.stat().st_size < 5 * 1024 * 1024


@pytest.mark.parametrize("generation, version, width", [("gen1", 1, 106), ("gen5", 2, 636), ("gen6", 3, 636)])
def test_a_model_of_an_older_encoding_version_still_plays(generation, version, width):
    # generation 1 reads the state alone (106 numbers), generation 5 each move's features too (version 2),
    # generation 6 a move's outcome in the one true world where every card is known (version 3); the shipped model,
    # generation 6's weights, also reads the outcomes over sampled worlds late in 2 v 2's last deal (version 4)
    old = OnnxPolicy(Path(__file__).resolve().parent.parent / "artifacts" / "generations" / f"{generation}.onnx")
    new = OnnxPolicy(default_model_path())
    assert (old.encoding, old.width) == (version, width) and (new.encoding, new.width) == (4, 636)

    checked = []

    def check(state, decision):
        if decision.model_id == old.model_id:
            assert decision.action in legal_actions(state) and 0.0 <= decision.value <= 1.0
            checked.append(decision)

    for g in range(2):  # a game on each seat
        policies = [old, make_policy("expert")] if g % 2 == 0 else [make_policy("expert"), old]
        assert play(policies, preset("standard"), 900 + g, check).winner in (0, 1)
    assert len(checked) > 100


def test_the_shipped_models_mask_leaves_no_probability_on_a_move_it_does_not_allow():
    # the graph zeroes every action its mask leaves out, whatever the observation and the memory: the agent cannot
    # pick an illegal move by construction. Random inputs and random masks (one allowed action at least).
    from cuarenta_tutor.encoding import N_ACTIONS

    agent = OnnxPolicy()
    rng = np.random.default_rng(5)
    batch = 256
    obs = rng.normal(0, 2, size=(batch, agent.width)).astype(np.float32)
    h, c = (rng.normal(size=(1, batch, agent.hidden)).astype(np.float32) for _ in range(2))
    mask = rng.random((batch, N_ACTIONS)) < 0.15
    mask[np.arange(batch), rng.integers(0, N_ACTIONS, batch)] = True
    probs = agent.run(obs, mask, h, c)[0]
    assert (probs[~mask] == 0).all() and np.allclose(probs.sum(axis=1), 1, atol=1e-5)
    unmasked = agent.run(obs, np.ones_like(mask), h, c)[0]
    assert ((unmasked * ~mask).sum(axis=1) > 1e-6).mean() > 0.5  # without the mask those actions get probability


@pytest.mark.parametrize("players", [2, 4])
def test_shipped_model_plays_only_legal_moves_in_seeded_games(players):
    agent = OnnxPolicy()  # the shipped model: ModelError if it is missing
    others = [make_policy(name, seed=7) for name in ("random", "greedy", "expert")]
    rules = preset("standard", players=players)
    decisions, games = 0, 6 if players == 2 else 3
    for g in range(games):
        seat, other = g % 2, others[g % 3]
        dealer = Dealer(70_000 + g)
        state, _ = dealer.start(rules)
        agent.reset(seat)
        for s in range(players):
            other.reset(s)
        while not state.is_over:
            if state.turn == seat:
                d = agent.decide(state)
                legal = set(legal_actions(state))
                assert d.action in legal and set(d.probs) == legal
                raw = agent._seen[1]  # the network's own output over the whole action table
                assert float(raw[[a for a in range(len(raw)) if a not in legal]].sum()) == 0.0
                decisions += 1
                action = d.action
            else:
                action = other.decide(state).action
            state, events = dealer.play(state, action)
            agent.observe(state, events)
    assert decisions > 25 * games


@pytest.mark.parametrize("name", ["standard", "pagat", "agent_dory", "quito_todo_dos"])
@pytest.mark.parametrize("players", [2, 4])
def test_the_experts_terms_are_what_the_engine_says_the_play_does(name, players):
    # move_terms reckons a capture from the engine's cached outcomes instead of playing it: every legal move's points,
    # cards, win, limpia and table left must be those of the engine's own play (ronda ranks of other seats hidden)
    from cuarenta_tutor.agents.expert import move_terms
    from cuarenta_tutor.engine import GameWon, Limpia, Played, apply, play_points

    checked = 0
    for seed in range(3):
        dealer, rng = Dealer(seed), random.Random(seed)
        state, _ = dealer.start(preset(name).with_options(players=players), 0)
        while not state.is_over:
            seat = state.turn
            hidden = state._replace(rondas=tuple(r if s == seat else -1 for s, r in enumerate(state.rondas)))
            for a, t in move_terms(state).items():
                after, events = apply(hidden, a)
                taken = next(e for e in events if isinstance(e, Played)).captured
                assert (t.points, t.cards, t.won, t.limpia) == (
                    play_points(events), len(taken) + 1 if taken else 0,
                    any(isinstance(e, GameWon) and e.team == seat & 1 for e in events),
                    any(isinstance(e, Limpia) for e in events)), (name, players, seed, a)
                if after.hand_no == state.hand_no and (any(after.hands) or after.stock):  # not the hand's last play
                    assert t.table_left == len(after.table)
                checked += 1
            state, _ = dealer.play(state, rng.choice(sorted(legal_actions(state))))
    assert checked > 1500
