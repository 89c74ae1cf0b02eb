"""Seeded random-playout invariants over 2,000 complete games, both player counts, every preset."""

import random
from collections import Counter

import pytest

from cuarenta_tutor.engine import PRESETS, GameWon, apply, legal_actions, new_game, preset
from cuarenta_tutor.engine.actions import pack
from cuarenta_tutor.engine.cards import rank_of

CONFIGS = [(name, players) for name in PRESETS for players in (2, 4)]
GAMES_PER_CONFIG = 250  # 8 configs x 250 = 2,000 games


def all_cards(state):
    cards = [c for h in state.hands for c in h] + list(state.table) + list(state.stock) + list(state.discarded)
    return cards + [c for p in state.piles for c in p]


def play_out(rules, seed, check=None):
    """Play a random game; returns (actions, states) and runs `check(before, after, events)` per play."""
    rng = random.Random(seed)
    state = new_game(rules, seed=seed)
    actions, states = [], [state]
    while state.winner < 0:
        legal = legal_actions(state)
        assert legal, f"seat {state.turn} has no legal move in a game that is not over"
        action = rng.choice(legal)
        after, events = apply(state, action)
        if check:
            check(state, after, events)
        actions.append(action)
        states.append(after)
        state = after
        assert len(actions) < 5000, "game does not end"
    return actions, states


@pytest.mark.parametrize("name,players", CONFIGS, ids=[f"{n}-{p}p" for n, p in CONFIGS])
def test_random_games_keep_every_invariant(name, players):
    rules = preset(name, players=players)
    winners = Counter()
    for g in range(GAMES_PER_CONFIG):
        seed = 10_000 * players + g

        def check(before, after, events):
            assert len(all_cards(after)) == 40
            assert after.table_packed == pack(rank_of(c) for c in after.table)
            for t in (0, 1):
                assert after.scores[t] % 2 == 0, "scores are always even"
                assert after.scores[t] >= before.scores[t], "scores never decrease"
            if after.winner < 0:
                assert max(after.scores) < 40, "a team at 40 has won"
                assert after.turn == (before.turn + 1) % players or any(
                    type(e).__name__ == "Dealt" for e in events)
            else:
                assert after.scores[after.winner] >= 40 or any(
                    type(e).__name__ == "FourOfAKind" for e in events)
                assert isinstance(events[-1], GameWon)

        actions, states = play_out(rules, seed, check)
        final = states[-1]
        assert sorted(all_cards(final)) == list(range(40)), "all 40 cards accounted for at the end"
        for s in states[:: max(1, len(states) // 8)]:
            assert sorted(all_cards(s)) == list(range(40))
        winners[final.winner] += 1
        if g % 25 == 0:  # replaying the same seed gives the same game, state for state
            again_actions, again_states = play_out(rules, seed)
            assert again_actions == actions and again_states == states
    assert set(winners) <= {0, 1} and sum(winners.values()) == GAMES_PER_CONFIG


def test_different_seeds_give_different_deals():
    hands = {new_game(seed=s).hands for s in range(50)}
    assert len(hands) == 50


def test_explicit_deck_fixes_every_card():
    deck = list(range(39, -1, -1))
    state = new_game(decks=[deck], dealer=0)
    assert state.hands[1] == tuple(sorted(deck[:5])) and state.hands[0] == tuple(sorted(deck[5:10]))
    assert state.stock == tuple(deck[10:])
