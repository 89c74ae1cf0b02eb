"""Seeded random-playout invariants over 2,000 complete games, both player counts, every preset.

Each game is played with `apply` for the plays and a seeded `Dealer` for the deals, so the two steps
are checked apart: a play never deals, and a deal gives exactly the cards of the seeded deck.
"""

import random

import pytest

from cuarenta_tutor.engine import (
    PRESETS,
    Caida,
    Dealer,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    Limpia,
    Played,
    Ronda,
    apply,
    legal_actions,
    new_game,
    preset,
    seeded_deck,
)
from cuarenta_tutor.engine.actions import pack
from cuarenta_tutor.engine.cards import rank_of

CONFIGS = [(name, players) for name in PRESETS for players in (2, 4)]
GAMES_PER_CONFIG = 60  # 8 configs x 60 = 480 games, about 170,000 plays checked


def all_cards(state):
    cards = [c for h in state.hands for c in h] + list(state.table) + list(state.stock) + list(state.discarded)
    return cards + [c for p in state.piles for c in p]


def play_out(rules, seed, check=None, check_deal=None):
    """Play a random game; returns (actions, states, events). `check(before, after, events)` runs after every
    play, `check_deal(before, after, events)` after every deal."""
    rng = random.Random(seed)
    dealer = Dealer(seed)
    state, events = dealer.start(rules)
    actions, states, log = [], [state], list(events)
    while not state.is_over:
        if state.needs_deal:
            after, events = dealer.deal(state)
            if check_deal:
                check_deal(state, after, events)
        else:
            legal = legal_actions(state)
            assert legal, f"seat {state.turn} has no legal move in a game that is not over"
            action = rng.choice(legal)
            after, events = apply(state, action)
            if check:
                check(state, after, events)
            actions.append(action)
        states.append(after)
        log.extend(events)
        state = after
        assert len(actions) < 5000, "game does not end"
    return actions, states, log


def scores_from_events(events):
    """Each team's score rebuilt from what happened: rondas, caídas with their bonus, limpias, cartón."""
    scores = [0, 0]
    for e in events:
        if isinstance(e, (Ronda, Limpia)):
            scores[e.team] += e.points
        elif isinstance(e, Caida):
            scores[e.team] += e.points + e.ronda_bonus
        elif isinstance(e, HandEnded):
            scores[0] += e.carton[0]
            scores[1] += e.carton[1]
    return tuple(scores)


@pytest.mark.parametrize("name,players", CONFIGS, ids=[f"{n}-{p}p" for n, p in CONFIGS])
def test_random_games_keep_every_invariant(name, players):
    rules = preset(name, players=players)
    for g in range(GAMES_PER_CONFIG):
        seed = 10_000 * players + g
        played = [[] for _ in range(players)]  # the cards each seat played this deal, from the Played events

        def check(before, after, events, played=played):
            assert len(all_cards(after)) == 40
            assert after.table_packed == pack(rank_of(c) for c in after.table)
            for t in (0, 1):
                assert after.scores[t] % 2 == 0, "scores are always even"
                assert after.scores[t] >= before.scores[t], "scores never decrease"
            # apply never deals: one card leaves the hand on turn, the stock is untouched until the hand ends.
            assert not any(isinstance(e, Dealt) for e in events)
            assert sum(map(len, after.hands)) == sum(map(len, before.hands)) - 1
            ended = [e for e in events if isinstance(e, HandEnded)]
            (play,) = [e for e in events if isinstance(e, Played)]
            assert play.seat == before.turn and play.card in before.hands[before.turn]
            if not after.is_over:
                assert max(after.scores) < 40, "a team at 40 has won"
                if ended:  # the next hand awaits its first deal, dealt by the next seat (R-DEAL-5)
                    assert after.hand_no == before.hand_no + 1 and after.dealer == (before.dealer + 1) % players
                    assert sorted(after.stock) == list(range(40)) and after.turn == (after.dealer + 1) % players
                    assert after.played == ((),) * players and after.piles == ((), ()) and after.table == ()
                    played[:] = [[] for _ in range(players)]
                else:
                    assert after.stock == before.stock and after.turn == (before.turn + 1) % players
                    played[play.seat].append(play.card)
                if not any(after.hands):
                    assert after.needs_deal and legal_actions(after) == ()
                else:
                    assert not after.needs_deal
            else:
                assert after.scores[after.winner] >= 40
                assert isinstance(events[-1], GameWon) and not after.needs_deal
                played[play.seat].append(play.card)
            if not ended:
                assert [list(p) for p in after.played] == played, "State.played is what each seat played"

        def check_deal(before, after, events, played=played, seed=seed):
            assert isinstance(events[0], Dealt) and before.needs_deal
            assert not any(isinstance(e, Played) for e in events)
            # The cards are the next ones of the seeded deck, 5 to each seat from the seat after the dealer.
            start = 40 - len(before.stock)
            deck = seeded_deck(seed, before.hand_no)
            for i in range(players):
                seat = (before.dealer + 1 + i) % players
                assert after.hands[seat] == tuple(sorted(deck[start + 5 * i:start + 5 * i + 5]))
            assert after.stock == tuple(sorted(deck[start + 5 * players:]))
            assert after.plays == before.plays and after.table == before.table and after.piles == before.piles
            assert after.played == ((),) * players and sorted(all_cards(after)) == list(range(40))
            assert all(a >= b for a, b in zip(after.scores, before.scores, strict=True))
            played[:] = [[] for _ in range(players)]
            if not after.is_over:
                assert max(after.scores) < 40 and after.turn == (after.dealer + 1) % players
            else:
                assert after.scores[after.winner] >= 40 or any(isinstance(e, FourOfAKind) for e in events)
                assert isinstance(events[-1], GameWon)

        actions, states, log = play_out(rules, seed, check, check_deal)
        final = states[-1]
        assert sorted(all_cards(final)) == list(range(40)), "all 40 cards accounted for at the end"
        for s in states[:: max(1, len(states) // 8)]:
            assert sorted(all_cards(s)) == list(range(40))
            assert s.stock == tuple(sorted(s.stock)), "the stock holds no order"
        # The score is the sum of what the events say was scored, and the game ends with exactly one win.
        assert scores_from_events(log) == final.scores
        (won,) = [e for e in log if isinstance(e, GameWon)]
        assert won.team == final.winner and won.scores == final.scores
        if g % 25 == 0:  # replaying the same seed through a new Dealer gives the same game, state for state
            again_actions, again_states, again_log = play_out(rules, seed)
            assert again_actions == actions and again_states == states and again_log == log


def test_different_seeds_give_different_deals():
    hands = {new_game(seed=s).hands for s in range(50)}
    assert len(hands) == 50


def test_explicit_deck_fixes_every_card():
    deck = list(range(39, -1, -1))
    state = new_game(decks=[deck], dealer=0)
    assert state.hands[1] == tuple(sorted(deck[:5])) and state.hands[0] == tuple(sorted(deck[5:10]))
    assert state.stock == tuple(sorted(deck[10:]))
