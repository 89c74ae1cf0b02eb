"""The observation: its documented layout, what it carries, and that hidden cards never reach it."""

import random

import numpy as np
import pytest
from helpers import reshuffled

from cuarenta_tutor.agents import ExpertPolicy
from cuarenta_tutor.agents.expert import move_terms, move_values
from cuarenta_tutor.agents.features import encode, encode_into
from cuarenta_tutor.encoding import (
    BASE_SIZE,
    ENCODING_VERSION,
    INDEX_MAP,
    MOVE_FEATURES,
    N_ACTIONS,
    OBS_SIZE,
    SIZES,
    legal_mask,
)
from cuarenta_tutor.engine import (
    Dealer,
    determinize,
    legal_actions,
    make_position,
    parse_rank,
    preset,
)


def test_layout_is_documented():
    assert BASE_SIZE == 106 and N_ACTIONS == 53 and ENCODING_VERSION == 4
    assert SIZES == {1: 106, **{v: 106 + 53 * MOVE_FEATURES for v in (2, 3, 4)}}
    assert OBS_SIZE == SIZES[ENCODING_VERSION]
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
        while not state.is_over and len(out) < count:
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


def test_move_features_are_the_experts_reckoning_of_each_legal_move():
    # South holds a 7 and a 5: the 7 takes the 7 just trailed (a caída, 2 points) and empties the table (a
    # limpia, 2 more); trailing the 5 leaves two cards for North.
    state = make_position(hands=[["7", "5"], ["A", "2"]], table=["7"], turn=0, trailed="7",
                          stock=["3", "4", "6", "J"])
    v = encode(state, 0)
    moves = v[BASE_SIZE:].reshape(N_ACTIONS, MOVE_FEATURES)
    legal = set(legal_actions(state))
    assert set(np.flatnonzero(moves[:, 0])) == legal
    assert not moves[[a for a in range(N_ACTIONS) if a not in legal]].any()
    terms, values = move_terms(state), move_values(state)
    take = next(a for a in legal if terms[a].cards)
    assert moves[take, 1] == pytest.approx(terms[take].points / 4) and terms[take].points == 4
    assert moves[take, 7] == 1.0 and moves[take, 8] == 0.0 and moves[take, 2] == pytest.approx(0.2)
    for a in legal:
        assert moves[a, 9] == pytest.approx(max(-5, min(5, values[a] / 4)), abs=1e-6)
        assert moves[a, 4] == pytest.approx(terms[a].threat / 4, abs=1e-6)
    # the seat not on turn sees no move features, and a version-1 buffer gets the state slots alone
    assert not encode(state, 1)[BASE_SIZE:].any()
    short = np.zeros(SIZES[1], np.float32)
    assert np.array_equal(encode_into(short, state, 0), v[:BASE_SIZE])


def test_a_reused_buffer_drops_the_last_turns_move_features():
    state = game_states(1)[0]
    buf = np.zeros(OBS_SIZE, np.float32)
    encode_into(buf, state, state.turn)
    assert buf[BASE_SIZE:].any()
    encode_into(buf, state, 1 - state.turn)
    assert not buf[BASE_SIZE:].any()


def test_where_every_card_is_known_version_3_reads_each_moves_outcome_in_the_one_true_world():
    # The last deal of 1 v 1: the stock is empty, so the other hand is what the seat has not seen. Version 3's
    # move feature 9 is the search bot's outcome of each move in that world (experts play it out); version 2
    # keeps the expert's one-reply estimate; everything else is the same in both.
    from cuarenta_tutor.agents.known import known_means
    from cuarenta_tutor.agents.search import SearchPolicy

    rng, seen = random.Random(3), 0
    for state in game_states(400, seed=11):
        if state.stock or len(legal_actions(state)) < 2:
            continue
        seen += 1
        v2, v3 = encode(state, state.turn, 2), encode(state, state.turn, 3)
        means, values = known_means(state), move_values(state)
        assert means == pytest.approx(SearchPolicy(4, rng=rng).move_means(state))
        for a in legal_actions(state):
            assert v3[BASE_SIZE + a * MOVE_FEATURES + 9] == pytest.approx(max(-5, min(5, means[a] / 4)), abs=1e-6)
            assert v2[BASE_SIZE + a * MOVE_FEATURES + 9] == pytest.approx(max(-5, min(5, values[a] / 4)), abs=1e-6)
        nine = [BASE_SIZE + a * MOVE_FEATURES + 9 for a in range(N_ACTIONS)]
        assert np.array_equal(np.delete(v2, nine), np.delete(v3, nine))
        assert np.array_equal(encode(state, 1 - state.turn, 2), encode(state, 1 - state.turn, 3))
    assert seen > 30
    # with cards still in the stock the versions agree everywhere, as in 2 v 2
    for players in (2, 4):
        for state in game_states(60, players, seed=2)[::5]:
            if state.stock:
                assert np.array_equal(encode(state, state.turn, 2), encode(state, state.turn, 3))


NINE = [BASE_SIZE + a * MOVE_FEATURES + 9 for a in range(N_ACTIONS)]


def test_late_in_the_last_deal_of_2v2_version_4_reads_each_moves_outcome_over_worlds_the_seat_may_hold():
    # 2 v 2, the stock empty, 3 cards or fewer in hand: version 4's move feature 9 is each move's outcome averaged
    # over sampled worlds (experts play them out); with more cards in hand, or in 1 v 1, it is version 3's vector.
    from cuarenta_tutor.agents.known import SAMPLED_HAND, sampled_means

    rng, seen, earlier = random.Random(4), 0, 0
    for state in game_states(100, 4, seed=5):  # five deals: 17 late positions, 16 earlier ones
        if state.stock or len(legal_actions(state)) < 2:
            continue
        v3, v4 = encode(state, state.turn, 3), encode(state, state.turn, 4)
        assert np.array_equal(np.delete(v3, NINE), np.delete(v4, NINE))
        if len(state.hands[state.turn]) > SAMPLED_HAND:
            earlier += 1
            assert np.array_equal(v3, v4)
            continue
        seen += 1
        means, values = sampled_means(state), move_values(state)
        assert set(means) == set(legal_actions(state))
        for a in legal_actions(state):
            assert v4[BASE_SIZE + a * MOVE_FEATURES + 9] == pytest.approx(max(-5, min(5, means[a] / 4)), abs=1e-6)
            assert v3[BASE_SIZE + a * MOVE_FEATURES + 9] == pytest.approx(max(-5, min(5, values[a] / 4)), abs=1e-6)
        # drawn from what the seat knows only: the same worlds, so the same numbers, whatever the hidden cards
        assert sampled_means(reshuffled(state, state.turn, rng)) == means
    assert seen > 12 and earlier > 12
    for state in game_states(200, 2, seed=6)[::3]:
        assert np.array_equal(encode(state, state.turn, 3), encode(state, state.turn, 4))


def test_version_4s_worlds_are_the_same_in_every_process():
    # The draws are seeded by what the seat knows, not by Python's per-process string hashing: a model's play
    # (and an arena's result) is the same in every run.
    import json
    import os
    import subprocess
    import sys

    from cuarenta_tutor.agents.known import SAMPLED_HAND, sampled_means

    state = next(s for s in game_states(400, 4, seed=5)
                 if not s.stock and len(s.hands[s.turn]) == SAMPLED_HAND and len(legal_actions(s)) > 2)
    code = ("import json, sys; from test_encoding import game_states; from cuarenta_tutor.agents.known import "
            f"sampled_means; s = game_states(400, 4, seed=5)[{game_states(400, 4, seed=5).index(state)}]; "
            "print(json.dumps(sorted(sampled_means(s).items())))")
    here = os.path.dirname(__file__)
    for hashseed in ("1", "2"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=here,
                             env={**os.environ, "PYTHONHASHSEED": hashseed, "PYTHONPATH": here})
        assert [tuple(x) for x in json.loads(out.stdout)] == pytest.approx(sorted(sampled_means(state).items()))


def test_the_encoder_takes_the_move_features_and_never_computes_them():
    from cuarenta_tutor import encoding
    from cuarenta_tutor.agents.features import move_features

    state = next(s for s in game_states(1) if s.winner < 0)
    with pytest.raises(ValueError, match="move features"):
        encoding.encode(state, state.turn)
    given = encoding.encode(state, state.turn, moves=move_features(state))
    assert np.array_equal(given, encode(state, state.turn))
    assert np.array_equal(encoding.encode(state, 1 - state.turn), encode(state, 1 - state.turn))  # not on turn
