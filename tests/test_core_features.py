"""The compiled observation, move features and expert (core/encode.py, core/expert.py) against the Python reference
(agents.features.encode, agents.expert.move_terms, ExpertPolicy.decide): equal bit for bit on positions of
expert and random games under every preset, 1 v 1 and 2 v 2, and the rules options the presets leave alone."""

import functools
import random

import numpy as np
import pytest

from cuarenta_tutor.agents import ExpertPolicy
from cuarenta_tutor.agents.expert import move_terms as python_terms
from cuarenta_tutor.agents.features import encode as python_encode
from cuarenta_tutor.core.encode import BASE_SIZE, OBS_SIZE, encode_lanes, encode_seat, rules_tail
from cuarenta_tutor.core.expert import N_TERMS, expert_action, expert_lanes, move_terms, round9
from cuarenta_tutor.core.layout import rules_array, to_row
from cuarenta_tutor.encoding import legal_mask
from cuarenta_tutor.engine import (
    ACTION_KIND,
    ACTION_RANK,
    MATCH,
    PRESETS,
    Dealer,
    Rules,
    apply,
    legal_actions,
    preset,
)

CONFIGS = {f"{name}-{n}": preset(name, n) for name in PRESETS for n in (2, 4)}
CONFIGS.update({f"{option}-{n}": Rules(players=n).with_options(**{option: value})
                for option, value in (("forced_capture", True), ("match_takes_all_same_rank", True),
                                      ("leftover_table_cards", "last_capturer")) for n in (2, 4)})
STARTS = ((0, 0), (24, 27), (28, 29), (30, 36), (36, 37), (37, 38), (38, 38), (39, 36))
"""Starting scores: the game, and the cut-offs 30 and 38 and the target 40 near."""
POSITIONS = 250
"""Positions per rules set (each game's last position, won, comes on top), a few of them twice: with the trailing seat's
ronda on the rank it trailed."""
FIELDS = ("points", "cards", "carton", "threat", "keep", "won", "limpia", "table_left", "value")


@functools.cache
def positions(name: str) -> tuple:
    """States of expert, random and mixed games under CONFIGS[name] where a play is due, and the games' ends."""
    rules = CONFIGS[name]
    rng = random.Random(name)
    expert = ExpertPolicy()
    found, game = [], 0
    while len(found) < POSITIONS:
        style = game % 3  # 0: experts, 1: random plays, 2: each seat either
        seats = [style == 0 or (style == 2 and rng.random() < 0.5) for _ in range(rules.players)]
        dealer = Dealer(rng.randrange(1 << 30))
        state, _ = dealer.start(rules, scores=STARTS[game % len(STARTS)])
        game += 1
        while not state.is_over and len(found) < POSITIONS:
            found.append(state)
            if state.trailed >= 0 and rng.random() < 0.3:  # the trailing seat's ronda on the rank: a caída's bonus
                prev = (state.turn - 1) % rules.players  # that the seat on turn must not count (secret rank)
                found.append(state._replace(rondas=tuple(state.trailed if s == prev else r
                                                         for s, r in enumerate(state.rondas))))
            action = expert.decide(state).action if seats[state.turn] else rng.choice(legal_actions(state))
            ended = apply(state, action)[0]
            if ended.hand_no != state.hand_no:  # the next hand awaiting its first deal (a playout's "hand" horizon)
                found.append(ended)
            state, _ = dealer.play(state, action)
        found.append(state)
    return tuple(found)


def rows_of(states) -> np.ndarray:
    return np.stack([to_row(s) for s in states])


@pytest.mark.parametrize("name", CONFIGS)
def test_encode_lanes_equals_the_python_observation_and_mask(name):
    """Catches: any base slot off (a count, a flag, a score mark, a rules-tail slot), a move feature off (its scale,
    the clip, which action's slot), a seat's row in the batch, a mask not the legal moves."""
    states = positions(name)
    rules = CONFIGS[name]
    n = rules.players
    obs = np.full((len(states) * n, OBS_SIZE), np.nan, np.float32)
    mask = np.zeros((len(states) * n, 53), dtype=bool)
    encode_lanes(rows_of(states), np.arange(len(states)), rules_array(rules), rules_tail(rules), obs, mask)
    for k, state in enumerate(states):
        for s in range(n):
            assert np.array_equal(obs[k * n + s], python_encode(state, s, version=2)), (name, k, s)
            want = legal_mask(state) if s == state.turn else np.ones(53, dtype=bool)
            assert np.array_equal(mask[k * n + s], want), (name, k, s)


@pytest.mark.parametrize("name", ["standard-2", "quito_todo_dos-4"])
def test_base_encoding_and_lanes_in_any_order(name):
    """Version 1's width (slots 0-105 only), one seat alone (encode_seat), and lanes picked out of order."""
    states = positions(name)[:60]
    rules = CONFIGS[name]
    n = rules.players
    ra, tail = rules_array(rules), rules_tail(rules)
    rows = rows_of(states)
    idx = np.arange(len(states))[::-1].copy()
    obs = np.zeros((len(states) * n, BASE_SIZE), np.float32)
    mask = np.zeros((len(states) * n, 53), dtype=bool)
    encode_lanes(rows, idx, ra, tail, obs, mask)
    one = np.zeros(OBS_SIZE, np.float32)
    for k, i in enumerate(idx):
        for s in range(n):
            assert np.array_equal(obs[k * n + s], python_encode(states[i], s, version=1)), (name, i, s)
        encode_seat(rows[i], ra, tail, states[i].turn, one)
        assert np.array_equal(one, python_encode(states[i], states[i].turn, version=2)), (name, i)


@pytest.mark.parametrize("name", CONFIGS)
def test_move_terms_equal_the_experts(name):
    """Catches: the threat (its ranks' order by gain then chance, p_holds, the next hand's size, a caída on the
    seat's own ronda), the cartón race terms, another seat's ronda read, the hand's settlement, keep."""
    rules = CONFIGS[name]
    ra = rules_array(rules)
    terms = np.zeros((53, N_TERMS))
    for k, state in enumerate(positions(name)):
        count = move_terms(to_row(state), ra, terms)
        want = python_terms(state) if not state.is_over else {}
        assert count == len(want), (name, k)
        assert sorted(np.flatnonzero(terms.any(axis=1))) == sorted(want), (name, k)
        for a, t in want.items():
            got = dict(zip(FIELDS, terms[a].tolist(), strict=True))
            expected = {f: float(getattr(t, f)) for f in FIELDS[:-1]} | {"value": t.value}
            assert got == expected, (name, k, a)


@pytest.mark.parametrize("name", CONFIGS)
def test_the_experts_choice(name):
    """Catches: the tie-break (round to 9 digits, then the higher rank, then the lower id), a one-move position."""
    rules = CONFIGS[name]
    states = [s for s in positions(name) if legal_actions(s)]
    rows = rows_of(states)
    got = np.full(len(states), -2, dtype=np.int32)
    expert_lanes(rows, np.arange(len(states)), rules_array(rules), got)
    expert = ExpertPolicy()
    want = [expert.decide(s).action for s in states]
    assert got.tolist() == want
    assert [expert_action(rows[k], rules_array(rules)) for k in range(0, len(states), 7)] == want[::7]


def test_round9_is_pythons_round():
    """numba's own round(x, 9) rounds x * 1e9 as rounded; round9 must give Python's round(x, 9) everywhere, ties
    (exact halves, e.g. 1/1024) and the expert's own values included."""
    rng = random.Random(9)
    values = [rng.uniform(-120, 120) for _ in range(20000)] + [rng.uniform(-2, 2) for _ in range(20000)]
    values += [j / 1024 for j in range(-3000, 3000)] + [k * 0.35 + q * 0.1 - 1.5 * b for k in range(40)
                                                        for q in range(3) for b in range(2)]
    values += [(2 * k + 1) / 2e9 for k in range(-2000, 2000)] + [0.0, -0.0, 100.0, 104.0]
    for name in ("standard-2", "pagat-4"):
        for state in positions(name):
            values += [t.value for t in (python_terms(state) if not state.is_over else {}).values()]
    assert [round9(v) for v in values] == [round(v, 9) for v in values]


def test_the_positions_cover_the_hard_cases():
    """The positions above hold what the differential tests must see: rondas (2 v 2 too), caídas on offer, the last
    play of a deal and of a hand, scores at 30, 38 and 39, games won, a threat on the seat's own ronda rank."""
    seen = set()
    for name in CONFIGS:
        for state in positions(name):
            n, seat = state.rules.players, state.turn
            if state.is_over or state.needs_deal:
                seen.add("won" if state.is_over else "deal due")
                continue
            others = [s for s in range(n) if s != seat]
            if any(state.rondas[s] >= 0 for s in others):
                seen.add(f"other ronda {n}")
            if state.rondas[seat] >= 0:
                seen.add(f"own ronda {n}")
            if any(ACTION_KIND[a] == MATCH and ACTION_RANK[a] == state.trailed for a in legal_actions(state)):
                seen.add("caida")
                if state.rondas[(seat - 1) % n] == state.trailed:
                    seen.add(f"caida on a ronda {n}")
            if len(state.hands[seat]) == 1 and not any(state.hands[s] for s in others):
                seen.add("ends hand" if not state.stock else "ends deal")
            seen |= {f"score {mark}" for mark in (30, 38, 39) if mark in state.scores}
    assert seen >= {"won", "deal due", "other ronda 2", "other ronda 4", "own ronda 2", "own ronda 4", "caida",
                    "caida on a ronda 2", "caida on a ronda 4", "ends hand", "ends deal", "score 30", "score 38",
                    "score 39"}, seen


@pytest.mark.parametrize("name", CONFIGS)
def test_the_playout_policys_compiled_choice_equals_the_python_one(name):
    from cuarenta_tutor.agents.features import move_features
    from cuarenta_tutor.analysis.policy import PlayoutPolicy
    from cuarenta_tutor.core.scorer import policy_lanes, size

    policy = PlayoutPolicy(8, np.random.default_rng(len(name)).normal(size=size(8)))
    states = [s for s in positions(name) if legal_actions(s)]
    compiled = np.empty(len(states), np.int32)
    policy_lanes(rows_of(states), np.arange(len(states)), rules_array(CONFIGS[name]), policy.params, 8, compiled)
    python = [policy.choose(s, functools.partial(move_features, version=2)) for s in states]
    assert compiled.tolist() == python
    assert len(set(python)) > 5  # the weights choose among many moves, not one every time
