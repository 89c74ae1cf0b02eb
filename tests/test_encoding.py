"""The observation: its documented layout, what it carries, and that hidden cards never reach it."""

import random

import numpy as np
import pytest
from helpers import reshuffled

from cuarenta_tutor.agents import ExpertPolicy
from cuarenta_tutor.encoding import ENCODING_VERSION, INDEX_MAP, N_ACTIONS, OBS_SIZE, encode, encode_into, legal_mask
from cuarenta_tutor.engine import (
    Dealer,
    determinize,
    legal_actions,
    make_position,
    parse_rank,
    preset,
)


def test_layout_is_documented():
    assert OBS_SIZE == 106 and N_ACTIONS == 53 and ENCODING_VERSION >= 1
    covered = set()
    for entry in INDEX_MAP:
        low, _, high = entry.partition("-")
        covered |= set(range(int(low), int(high or low) + 1))
    assert covered == set(range(OBS_SIZE))


def game_states(count, players=2, seed=0):
    expert, out, g = ExpertPolicy(), [], 0
    while len(out) < count:
        dealer = Dealer(seed + g)
        state, _ = dealer.start(preset("standard", players=players))
        while state.winner < 0 and len(out) < count:
            out.append(state)
            state, _ = dealer.play(state, expert.decide(state).action)
        g += 1
    return out


@pytest.mark.parametrize("players", [2, 4])
def test_hidden_cards_never_leak(players):
    rng = random.Random(1)
    changed = 0
    for state in game_states(150, players)[::3]:
        for seat in range(players):
            for other in (reshuffled(state, seat, rng), determinize(state, seat, rng).state):
                changed += other.hands != state.hands
                assert np.array_equal(encode(state, seat), encode(other, seat))
    assert changed > 50  # the hidden cards really moved


def test_what_a_seat_knows_is_in_the_vector():
    state = make_position(hands=[["5", "5", "K"], ["A", "2"]], table=["3", "7"], turn=0, trailed="7",
                          scores=(30, 38), piles=[["Q", "J"], ["6"]], rondas=["5", None])
    v = encode(state, 0)
    five, seven = parse_rank("5"), parse_rank("7")
    assert v[five] == 0.5 and v[10 + seven] == 0.25 and v[50 + seven] == 1.0 and v[60 + five] == 1.0
    assert v[72] == pytest.approx(0.75) and v[73] == pytest.approx(0.95)
    assert list(v[74:78]) == [1, 0, 1, 1]
    assert v[78] == pytest.approx(2 / 40) and v[91] == 1.0
    # unseen: 4 - hand - table - piles, per rank
    assert v[40 + five] == pytest.approx(0.5) and v[40 + parse_rank("Q")] == pytest.approx(0.75)
    # the opponent's view: its own ronda slot empty, ours only as "announced"
    w = encode(state, 1)
    assert w[60:70].sum() == 0 and w[70] == 1.0 and w[91] == 0.0


def test_encode_into_reuses_the_buffer_and_legal_mask_matches():
    state = game_states(1)[0]
    buf = np.full(OBS_SIZE, 7.0, np.float32)
    assert encode_into(buf, state, 0) is buf and np.array_equal(buf, encode(state, 0))
    mask = legal_mask(state)
    assert mask.dtype == bool and set(np.flatnonzero(mask)) == set(legal_actions(state))


@pytest.mark.parametrize("players", [2, 4])
def test_every_kind_of_buffer_gets_the_same_vector(players):
    # encode_into writes a contiguous float32 row with struct and anything else item by item:
    # a row of a batch, a strided column view and a float64 buffer must all agree.
    for state in game_states(60, players, seed=5)[::7]:
        for seat in range(players):
            want = encode(state, seat).astype(np.float64)
            batch = np.zeros((3, OBS_SIZE), np.float32)
            strided = np.zeros((OBS_SIZE, 2), np.float32)[:, 1]
            wide = np.zeros(OBS_SIZE, np.float64)
            for out in (batch[1], strided, wide):
                encode_into(out, state, seat)
                assert np.allclose(out, want, atol=1e-7)
            assert not batch[0].any() and not batch[2].any()
