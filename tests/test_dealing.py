"""Chance as its own step (engine.play.deal, engine.dealing) and determinization (engine.knowledge).

Positions come from real games: a seeded Dealer deals, random legal moves are played with `apply`.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest
from helpers import reshuffled

from cuarenta_tutor.engine import (
    Dealer,
    Dealt,
    GameWon,
    HandEnded,
    IllegalMove,
    Rules,
    apply,
    check_deck,
    deal,
    determinize,
    first_dealer,
    legal_actions,
    make_position,
    preset,
    rank_of,
    seeded_deck,
    unseen_cards,
)


def walk(rules, seed):
    """Every state of a seeded game played with random legal moves; the deals come from Dealer(seed)."""
    rng = random.Random(seed)
    cards = Dealer(seed)
    state, _ = cards.start(rules)
    yield state
    while not state.is_over:
        if state.needs_deal:
            state, _ = cards.deal(state)
        else:
            state, _ = apply(state, rng.choice(legal_actions(state)))
        yield state


def first_needs_deal(rules, seed):
    return next(s for s in walk(rules, seed) if s.needs_deal)


def ronda_positions(rules, count):
    """Positions of real games in which some seat announced a ronda this deal (seeds searched until found)."""
    out, seed = [], 0
    while len(out) < count:
        found = [s for s in walk(rules, seed) if not s.is_over and max(s.rondas) >= 0]
        out += found[::4][:4]
        seed += 1
        assert seed < 500, "no ronda in 500 games"
    return out


def counts(cards):
    return Counter(rank_of(c) for c in cards)


# --------------------------------------------------------------------------------------------------
# The deal is a step of its own
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_apply_never_deals_and_leaves_needs_deal(players):
    rules = Rules(players=players)
    cards = Dealer(11)
    state, events = cards.start(rules, dealer=0)
    assert isinstance(events[0], Dealt) and not state.needs_deal
    for _ in range(5 * players):
        stock = state.stock
        state, events = apply(state, legal_actions(state)[0])
        assert not any(isinstance(e, Dealt) for e in events) and state.stock == stock
    assert state.needs_deal and not any(state.hands) and legal_actions(state) == ()
    assert state.turn == 1 and state.deal_no == 0
    for action in (0, 10, 52):
        with pytest.raises(IllegalMove) as err:
            apply(state, action)
        assert err.value.reason == "deal_first"
    dealt, events = deal(state, cards.next_cards(state))
    assert events[0] == Dealt(0, 1, 0) and not dealt.needs_deal
    assert dealt.played == ((),) * players and dealt.table == state.table and dealt.plays == state.plays
    assert [len(h) for h in dealt.hands] == [5] * players and len(dealt.stock) == 40 - 10 * players


def test_deal_refuses_a_deal_that_is_not_due():
    rules = Rules()
    cards = Dealer(3)
    state, _ = cards.start(rules)
    with pytest.raises(IllegalMove) as err:  # every seat still holds its cards
        deal(state, state.stock[:10])
    assert err.value.reason == "no_deal_due" and "no deal is due" in str(err.value)
    empty = make_position(rules, hands=[[], []], table=["5"])  # no stock left
    with pytest.raises(IllegalMove) as err:
        deal(empty, ())
    assert err.value.reason == "no_deal_due"
    won = make_position(rules, hands=[["5"], ["Q"]], table=["5", "K"], trailed="5", scores=(38, 0), stock=["A"] * 4)
    won, _ = apply(won, 10 + rank_of(won.hands[0][0]))
    assert won.winner == 0 and not won.needs_deal
    with pytest.raises(IllegalMove) as err:
        deal(won._replace(hands=((), ())), won.stock)
    assert err.value.reason == "no_deal_due"


BAD_DEALS = {  # id: the cards, from the stock (as a list) and a card the stock lacks
    "too-few": lambda stock, gone: stock[:9],
    "too-many": lambda stock, gone: stock[:11],
    "none": lambda stock, gone: [],
    "not-in-stock": lambda stock, gone: stock[:9] + [gone],
    "duplicate": lambda stock, gone: stock[:9] + stock[:1],
    "out-of-range": lambda stock, gone: stock[:9] + [40],
    "float": lambda stock, gone: stock[:9] + [float(stock[9])],
    "string": lambda stock, gone: stock[:9] + ["As"],
}


@pytest.mark.parametrize("kind", list(BAD_DEALS))
def test_deal_refuses_cards_that_are_not_the_stocks(kind):
    state = first_needs_deal(Rules(), 5)
    gone = next(c for c in range(40) if c not in state.stock)
    with pytest.raises(IllegalMove) as err:
        deal(state, BAD_DEALS[kind](list(state.stock), gone))
    assert err.value.reason == "bad_deal" and "a deal gives 10 distinct cards from the stock" in str(err.value)
    with pytest.raises(IllegalMove) as err:
        deal(state, None)
    assert err.value.reason == "bad_deal" and "sequence of cards" in str(err.value)


def test_stock_is_sorted_and_holds_no_future_order():
    first = seeded_deck(4, 0)
    later = list(first[10:])
    random.Random(1).shuffle(later)
    a, _ = Dealer(decks=[first]).start(Rules(), dealer=1)
    b, _ = Dealer(decks=[first[:10] + tuple(later)]).start(Rules(), dealer=1)
    assert a == b, "two decks that differ only in cards not yet dealt give the same state"
    assert a.stock == tuple(sorted(first[10:]))
    for state in walk(preset("pagat", players=4), 2):
        assert state.stock == tuple(sorted(state.stock))


# Recorded with the engine before chance became its own step (its hand_deck, first_dealer and apply).
OLD_DECKS = {(0, 0): (7, 22, 1, 37, 6, 13, 12, 16, 28, 0), (7, 3): (12, 35, 5, 3, 4, 26, 2, 9, 39, 7)}
OLD_FIRST_DEALERS = {2: [1, 0, 1, 1, 1, 0, 1, 0, 1, 1], 4: [3, 1, 2, 2, 2, 0, 3, 0, 3, 2]}
OLD_GAMES = [  # rules, seed, final scores, plays, last hand, sha256 of the events' reprs (first 16 digits)
    (Rules(), 1, (34, 40), 528, 13, "18e515a165da050a"),
    (Rules(), 3, (10, 40), 162, 4, "99a38ddfe9279e19"),
    (preset("quito_todo_dos", players=4), 2, (34, 40), 240, 5, "4905df5d7f291b9a"),
    (preset("quito_todo_dos", players=4), 3, (38, 40), 468, 11, "4e6dd99ea60c82c3"),
]


def test_dealer_reproduces_the_seeded_decks_and_first_dealer():
    for (seed, hand), start in OLD_DECKS.items():
        assert seeded_deck(seed, hand)[:10] == start == Dealer(seed).deck(hand)[:10]
        assert sorted(seeded_deck(seed, hand)) == list(range(40))
    for players, dealers in OLD_FIRST_DEALERS.items():
        assert [first_dealer(seed, players) for seed in range(10)] == dealers
        for seed in range(10):
            state, _ = Dealer(seed).start(Rules(players=players))
            deck = seeded_deck(seed, 0)
            assert state.dealer == dealers[seed]
            for i in range(players):
                assert state.hands[(state.dealer + 1 + i) % players] == tuple(sorted(deck[5 * i:5 * i + 5]))


@pytest.mark.parametrize("rules,seed,scores,plays,hand_no,digest", OLD_GAMES)
def test_same_seed_gives_the_same_game_as_before(rules, seed, scores, plays, hand_no, digest):
    cards = Dealer(seed)
    state, _ = cards.start(rules)
    log = []
    while not state.is_over:
        legal = legal_actions(state)
        state, events = cards.play(state, legal[(state.plays * 7) % len(legal)])
        log.append(repr(events))
    assert (state.scores, state.plays, state.hand_no) == (scores, plays, hand_no)
    assert hashlib.sha256("|".join(log).encode()).hexdigest()[:16] == digest


def test_explicit_decks_fix_every_card():
    # Suit-major decks: every 5 cards are of 5 ranks, so no ronda ends the game; trailing keeps both hands going.
    d0 = [4 * r + suit for suit in range(4) for r in range(10)]
    d1 = [4 * r + 3 - suit for suit in range(4) for r in range(10)]
    for decks in ([d0, d1], {0: d0, 1: d1}):
        cards = Dealer(9, decks)
        state, _ = cards.start(Rules(), dealer=0)
        dealt = {0: [], 1: [], 2: []}
        while not state.is_over and state.hand_no < 2:
            if len(state.hands[0]) == len(state.hands[1]) == 5:
                dealt[state.hand_no] += [state.hands[(state.dealer + 1 + i) % 2] for i in range(2)]
            if state.needs_deal:
                state, _ = cards.deal(state)
            else:
                state, _ = apply(state, legal_actions(state)[0])
        for hand, deck in ((0, d0), (1, d1)):
            assert dealt[hand] == [tuple(sorted(deck[i:i + 5])) for i in range(0, 40, 5)]
    only_second = Dealer(9, {1: d1})
    assert only_second.deck(0) == seeded_deck(9, 0) and only_second.deck(1) == tuple(d1)
    for bad in (d0[:39], d0[:39] + [0], d0 + [0]):
        with pytest.raises(ValueError):
            check_deck(bad)
    with pytest.raises(ValueError):
        Dealer(0, [d0[:39]])


@pytest.mark.parametrize("players", [2, 4])
def test_for_world_deals_a_given_stock_order(players):
    state = first_needs_deal(Rules(players=players), 6)
    order = list(state.stock)
    random.Random(players).shuffle(order)
    cards = Dealer.for_world(state, order, seed=5)
    size = 5 * players
    for start in range(0, len(order), size):
        assert state.needs_deal
        assert cards.next_cards(state) == tuple(order[start:start + size])
        state, events = cards.deal(state)
        assert isinstance(events[0], Dealt) and not state.is_over
        for i in range(players):
            seat = (state.dealer + 1 + i) % players
            assert state.hands[seat] == tuple(sorted(order[start + 5 * i:start + 5 * i + 5]))
        while any(state.hands):
            state, _ = apply(state, legal_actions(state)[0])
    assert cards.deck(state.hand_no) == seeded_deck(5, state.hand_no)  # later hands come from the seed


@pytest.mark.parametrize("players", [2, 4])
def test_last_play_of_a_hand_settles_it_and_the_next_hand_awaits_its_deal(players):
    state = next(s for s in walk(Rules(players=players), 21) if s.hand_no == 0 and not s.stock
                 and sum(map(len, s.hands)) == 1)
    before = state
    state, events = apply(state, legal_actions(state)[0])
    (ended,) = [e for e in events if isinstance(e, HandEnded)]
    assert ended.hand_no == 0 and not any(isinstance(e, GameWon) for e in events)
    assert sum(ended.captured) + len(ended.leftover) == 40
    # R-DEAL-5: the next hand, dealt by the next seat, awaits its first deal with every card in the stock.
    assert (state.hand_no, state.dealer, state.deal_no) == (1, (before.dealer + 1) % players, 0)
    assert state.needs_deal and state.stock == tuple(range(40)) and not any(state.hands)
    assert state.table == () and state.piles == ((), ()) and state.played == ((),) * players
    assert state.rondas == (-1,) * players and state.trailed == -1 and state.turn == (state.dealer + 1) % players
    assert tuple(a + c for a, c in zip(before.scores, ended.carton, strict=True)) == state.scores
    state, events = Dealer(21).deal(state)
    assert events[0] == Dealt(1, 0, (before.dealer + 1) % players)
    assert state.hands[(state.dealer + 1) % players] == tuple(sorted(seeded_deck(21, 1)[:5]))


def test_dealer_play_deals_within_a_hand_and_can_leave_the_next_hand_undealt():
    dealer = Dealer(21)
    state = dealer.start(Rules(), 0)[0]
    while state.hand_no == 0 and not state.is_over:
        state, events = dealer.play(state, legal_actions(state)[0], next_hand=False)
        assert state.hand_no == 1 or not state.needs_deal  # the deals of the hand itself still come
    assert not state.is_over and state.needs_deal and state.stock == tuple(range(40))
    assert not any(isinstance(e, Dealt) for e in events) and any(isinstance(e, HandEnded) for e in events)


# --------------------------------------------------------------------------------------------------
# Determinization: the cards a seat cannot see, redrawn consistently with what it knows
# --------------------------------------------------------------------------------------------------


def positions(rules, count=24):
    """Real positions: half with a ronda announced this deal, the rest taken along games (deals due included)."""
    plain = [s for s in walk(rules, 77) if not s.is_over][::7]
    return ronda_positions(rules, count // 2) + plain[:count - count // 2]


RULE_SETS = [Rules(), Rules(players=4), preset("quito_todo_dos"), preset("quito_todo_dos", players=4)]
IDS = ["standard-2p", "standard-4p", "quito-2p", "quito-4p"]


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_determinize_never_reads_a_hidden_card(rules):
    rng, moved = random.Random(0), 0
    for state in positions(rules):
        for seat in range(rules.players):
            world = determinize(state, seat, random.Random(seat))
            other = reshuffled(state, seat, rng)
            assert determinize(other, seat, random.Random(seat)) == world
            assert determinize(state, seat, random.Random(seat)) == world  # same rng seed, same world
            moved += world.state.hands != state.hands
    assert moved > 20


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_determinize_keeps_what_the_seat_knows(rules):
    for state in positions(rules):
        for seat in range(rules.players):
            world, order = determinize(state, seat, random.Random(seat + 10))
            assert world.hands[seat] == state.hands[seat]
            for field in ("table", "piles", "scores", "played", "dealer", "turn", "hand_no", "deal_no", "trailed"):
                assert getattr(world, field) == getattr(state, field), field
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert world.stock == tuple(sorted(order)) and len(order) == len(state.stock)
            assert world.needs_deal == state.needs_deal and world.rondas[seat] == state.rondas[seat]
            assert [r >= 0 for r in world.rondas] == [r >= 0 for r in state.rondas]
            hidden = [c for s in range(rules.players) if s != seat for c in world.hands[s]] + list(order)
            assert sorted(hidden) == unseen_cards(state, seat)  # every unseen card somewhere, once


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_determinize_respects_announced_rondas(rules):
    fours = checked = 0
    for state in ronda_positions(rules, 16):
        for seat in range(rules.players):
            for k in range(25):
                world = determinize(state, seat, random.Random(k)).state
                for s in range(rules.players):
                    if s == seat:
                        continue
                    held = counts(world.hands[s] + world.played[s])
                    if state.rondas[s] >= 0:
                        assert held[world.rondas[s]] >= 3, "the sampled ronda rank is one the seat holds 3 of"
                        fours += held[world.rondas[s]] == 4
                        checked += 1
                    else:
                        assert max(held.values(), default=0) < 3, "a seat that announced nothing has no ronda"
    assert checked > 300
    if rules.four_of_a_kind == "points":
        assert fours > 0, "a doble ronda is possible under four_of_a_kind = points"
    else:
        assert fours == 0, "four of a kind would have won the game at the deal"


def test_determinize_of_an_impossible_position_keeps_sizes_and_flags():
    # Seat 1 announced a ronda, but at most two cards of each rank are unseen: no world fits.
    rules = Rules()
    table = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
    state = make_position(rules, hands=[["A", "2", "3", "4", "5"], ["6", "7", "J", "Q", "K"]], table=table,
                          piles=(["6", "7", "J", "Q", "K"], []), rondas=[None, "K"])
    assert max(counts(unseen_cards(state, 0)).values()) == 2
    world, order = determinize(state, 0, random.Random(1))
    assert len(world.hands[1]) == 5 and world.rondas[1] >= 0 and world.hands[0] == state.hands[0]
    assert set(world.hands[1]) <= set(unseen_cards(state, 0)) and order == ()  # the position has no stock
