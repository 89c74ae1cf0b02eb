"""Table-driven unit tests for every rule of RULES.md (sections 2-11 and Appendix A).

Every expected value here is derived by hand from RULES.md, not from running the engine. Cards are
written as rank strings ("A", "2".."7", "J", "Q", "K"); suits never matter (R-DECK-1).
"""

from __future__ import annotations

from collections import Counter

import pytest

from cuarenta_tutor.engine import (
    ACTION_BASE,
    ACTION_KIND,
    ACTION_RANK,
    MATCH,
    N_ACTIONS,
    RANKS,
    SUM,
    TRAIL,
    VALUE,
    Caida,
    Dealer,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    IllegalMove,
    Limpia,
    Played,
    Ronda,
    Rules,
    action_to_string,
    announcements,
    apply,
    capture_options,
    carton_points,
    carton_value,
    check_action,
    choice_to_action,
    deal,
    is_legal,
    legal_actions,
    make_position,
    new_game,
    parse_card,
    parse_rank,
    preset,
    rank_of,
    seeded_deck,
    settle_hand,
)

# --------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------


def R(name: str) -> int:
    """A rank index from its name."""
    return parse_rank(name)


def ranks(text: str) -> list[int]:
    """Rank indexes from a space-separated string of rank names ("" is empty)."""
    return [parse_rank(t) for t in text.split()]


def names(text: str) -> list[str]:
    return text.split()


def card_ranks(cards) -> list[str]:
    """The rank names of card ids, as a sorted multiset (sequence order)."""
    return [RANKS[r] for r in sorted(rank_of(c) for c in cards)]


def sorted_names(text: str) -> list[str]:
    return [RANKS[r] for r in sorted(ranks(text))]


def act(played: str, kind: str = "trail", base: str = "", rules: Rules | None = None) -> int:
    return choice_to_action(R(played), kind, ranks(base), rules)


def play(state, played: str, kind: str = "trail", base: str = ""):
    """Apply a move described as (played rank, kind, base ranks)."""
    return apply(state, act(played, kind, base, state.rules))


def of_type(events, kind):
    return [e for e in events if isinstance(e, kind)]


def option_set(options):
    """Capture options as a set of (kind, base names, sequence names)."""
    return {
        (o.kind, tuple(RANKS[r] for r in sorted(o.base)), tuple(RANKS[r] for r in o.sequence))
        for o in options
    }


def stacked(state, text: str) -> list[int]:
    """Cards of `state`'s stock with the given ranks, in that order: a deal stacked by hand."""
    free, out = list(state.stock), []
    for r in ranks(text):
        card = next(c for c in free if rank_of(c) == r)
        free.remove(card)
        out.append(card)
    return out


def opt(kind: str, base: str, seq: str = ""):
    return (kind, tuple(sorted_names(base)), tuple(names(seq)))


def suit_major_deck() -> list[str]:
    """A deck in which every 5-card batch holds 5 different ranks, so no deal has a ronda."""
    return [f"{rank}{suit}" for suit in "shdc" for rank in RANKS]


def deck_starting_with(prefix: list[str]) -> list[str]:
    """A full 40-card deck (card strings) whose first cards have the given ranks."""
    free = {rank: list("shdc") for rank in RANKS}
    deck = []
    for rank in prefix:
        deck.append(rank + free[rank].pop(0))
    for suit in "shdc":
        for rank in RANKS:
            if suit in free[rank]:
                deck.append(rank + suit)
    assert len(deck) == 40 and len(set(deck)) == 40
    return deck


# --------------------------------------------------------------------------------------------------
# §2 Cards (R-DECK-1..4)
# --------------------------------------------------------------------------------------------------


def test_deck_has_40_cards_four_of_each_of_ten_ranks():
    deck = seeded_deck(seed=123, hand_no=0)
    assert len(deck) == 40 and len(set(deck)) == 40
    counts = Counter(RANKS[rank_of(c)] for c in deck)
    assert counts == {r: 4 for r in "A 2 3 4 5 6 7 J Q K".split()}


def test_ranks_in_sequence_order_without_8_9_10():
    assert list(RANKS) == ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
    for bad in ("8", "9", "10"):
        with pytest.raises(ValueError):
            parse_rank(bad)


@pytest.mark.parametrize(
    "rank,value",
    [("A", 1), ("2", 2), ("3", 3), ("4", 4), ("5", 5), ("6", 6), ("7", 7), ("J", 0), ("Q", 0), ("K", 0)],
    ids=lambda x: str(x),
)
def test_numeric_values(rank, value):
    # R-DECK-2: J, Q, K have no numeric value (the engine writes it as 0).
    assert VALUE[R(rank)] == value


@pytest.mark.parametrize(
    "played,table,expected_run",
    [
        ("A", "2 3 4 5 6 7 J Q K A", "2 3 4 5 6 7 J Q K"),  # the whole ladder, 7 -> J
        ("6", "6 7 J Q K", "7 J Q K"),
        ("7", "7 J", "J"),  # J comes directly after 7
        ("J", "J Q K A 2", "Q K"),  # nothing follows K, no wrap to A
        ("Q", "Q K A", "K"),
        ("K", "K A 2", ""),  # nothing follows K
    ],
    ids=["A-full-ladder", "6-to-K", "7-then-J", "J-no-wrap", "Q-K", "K-top"],
)
def test_sequence_order_and_no_wrap_after_K(played, table, expected_run):
    # R-DECK-3 through the escalera of a match.
    (option,) = [o for o in capture_options(ranks(table), R(played)) if o.kind == "match"]
    assert [RANKS[r] for r in option.sequence] == names(expected_run)


# --------------------------------------------------------------------------------------------------
# §3 Seats, teams, turn order (R-SEAT-1)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players,teams",
    [(2, [0, 1]), (4, [0, 1, 0, 1])],
    ids=["2-players", "4-players"],
)
def test_teams_are_seat_mod_2_and_previous_player_is_an_opponent(players, teams):
    state = make_position(Rules(players=players), hands=[[] for _ in range(players)])
    assert [state.team_of(s) for s in range(players)] == teams
    for s in range(players):
        assert state.team_of(s) != state.team_of((s - 1) % players)


@pytest.mark.parametrize("players", [2, 4], ids=["2-players", "4-players"])
def test_turn_passes_to_next_seat(players):
    hands = [["A", "2"], ["3", "4"], ["5", "6"], ["7", "J"]][:players]
    state = make_position(Rules(players=players), hands=hands, turn=0)
    seats = []
    for _ in range(2 * players):
        seats.append(state.turn)
        state, events = apply(state, rank_of(state.hands[state.turn][0]))
        assert of_type(events, Played)[0].seat == seats[-1]
    assert seats == [s % players for s in range(2 * players)]


# --------------------------------------------------------------------------------------------------
# §4 Dealing and structure (R-DEAL-1..5, R-TURN-1)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "players,deals",
    [(2, 4), (4, 2)],
    ids=["2-players-4-deals", "4-players-2-deals"],
)
def test_deals_per_hand(players, deals):
    assert Rules(players=players).deals_per_hand == deals


@pytest.mark.parametrize(
    "players,dealer,order",
    [(2, 0, [1, 0]), (2, 1, [0, 1]), (4, 0, [1, 2, 3, 0]), (4, 2, [3, 0, 1, 2])],
    ids=["2p-dealer0", "2p-dealer1", "4p-dealer0", "4p-dealer2"],
)
def test_first_deal_five_cards_each_from_player_after_dealer(players, dealer, order):
    deck = suit_major_deck()
    state, events = Dealer(0, [deck]).start(Rules(players=players), dealer)
    # R-DEAL-1: table empty; R-DEAL-3: batches of 5, starting after the dealer and ending with him.
    assert state.table == ()
    for i, seat in enumerate(order):
        assert sorted(state.hands[seat]) == sorted(_ids(deck[5 * i:5 * i + 5]))
    assert len(state.stock) == 40 - 5 * players
    # R-TURN-1: the player after the dealer leads.
    assert state.turn == order[0]
    assert state.dealer == dealer
    assert of_type(events, Dealt) == [Dealt(0, 0, dealer)]


def _ids(card_strings, sort=True):
    """Card ids of card strings (sorted, as a hand holds them, unless sort=False)."""
    cards = tuple(parse_card(c) for c in card_strings)
    return tuple(sorted(cards)) if sort else cards


@pytest.mark.parametrize(
    "players,dealer",
    [(2, 1), (2, 0), (4, 3), (4, 1)],
    ids=["2p-dealer1", "2p-dealer0", "4p-dealer3", "4p-dealer1"],
)
def test_whole_hand_structure_dealer_plays_last_and_rotates(players, dealer):
    deck = suit_major_deck()
    rules = Rules(players=players)
    cards = Dealer(0, [deck, deck])
    state, events = cards.start(rules, dealer)
    deals = [e for e in events if isinstance(e, Dealt)]
    play_seats_per_deal: list[list[int]] = [[]]
    hand_end = None
    for _ in range(40):
        seat = state.turn
        state, events = cards.play(state, rank_of(state.hands[seat][0]))  # trail: always legal by default
        play_seats_per_deal[-1].append(seat)
        for e in events:
            if isinstance(e, HandEnded):
                hand_end = e
            if isinstance(e, Dealt):
                deals.append(e)
                play_seats_per_deal.append([])
    # The hand: deals_per_hand deals by the same dealer, then a new hand with the next dealer.
    n_deals = 40 // (5 * players)
    assert [(d.hand_no, d.deal_no, d.dealer) for d in deals] == (
        [(0, i, dealer) for i in range(n_deals)] + [(1, 0, (dealer + 1) % players)]
    )
    # R-TURN-1: each deal starts after the dealer, runs in seat order, the dealer plays last.
    expected_order = [(dealer + 1 + i) % players for i in range(players)] * 5
    for seats in play_seats_per_deal[:n_deals]:
        assert seats == expected_order
        assert seats[-1] == dealer
    # Every card was trailed: 40 cards on the table, nobody captured: 0-0 tie -> non-dealer 2 (R-CARTON-2).
    assert hand_end is not None and hand_end.captured == (0, 0) and len(hand_end.leftover) == 40
    non_dealer = 1 - dealer % 2
    expected = [0, 0]
    expected[non_dealer] = 2
    assert hand_end.carton == tuple(expected)
    # R-DEAL-5: next hand dealt by the next seat, led by the seat after it, fresh table and piles.
    assert state.dealer == (dealer + 1) % players
    assert state.turn == (dealer + 2) % players
    assert state.table == () and state.piles == ((), ())
    assert state.scores == tuple(expected)  # suit-major deck: no rondas in the new hand
    assert all(len(h) == 5 for h in state.hands)


def test_table_carries_over_between_deals_and_same_dealer_deals_again():
    # R-DEAL-3/R-DEAL-4: when hands are empty and stock remains, the same dealer deals; table stays.
    stock = names("A 2 4 6 7 J Q K A 2")
    state = make_position(Rules(), hands=[["3"], ["5"]], turn=0, dealer=1, stock=stock)
    order = stacked(state, " ".join(stock))
    state, _ = play(state, "3")
    state, events = play(state, "5")
    assert of_type(events, Dealt) == [] and state.needs_deal  # a play never deals
    state, events = deal(state, order)
    assert of_type(events, Dealt) == [Dealt(0, 1, 1)]
    assert card_ranks(state.table) == ["3", "5"]
    assert card_ranks(state.hands[0]) == sorted_names("A 2 4 6 7")
    assert card_ranks(state.hands[1]) == sorted_names("J Q K A 2")
    assert state.turn == 0 and state.dealer == 1 and state.stock == ()


@pytest.mark.parametrize("players", [2, 4], ids=["2-players", "4-players"])
def test_deal_deals_from_stock_after_dealer(players):
    stock = suit_major_deck()[: 5 * players]
    state = make_position(Rules(players=players), hands=[[] for _ in range(players)], turn=1 % players,
                          dealer=0, stock=stock)
    assert state.needs_deal
    dealt, events = deal(state, _ids(stock, sort=False))
    assert of_type(events, Dealt) == [Dealt(0, 0, 0)]
    for i in range(players):
        seat = (1 + i) % players
        assert sorted(dealt.hands[seat]) == sorted(_ids(stock[5 * i:5 * i + 5]))
    assert dealt.turn == 1 and dealt.stock == ()


def test_new_game_is_dealt_and_scores_start_at_zero():
    state = new_game(Rules(), seed=7, dealer=0, decks=[suit_major_deck()])
    assert state.scores == (0, 0)
    assert [len(h) for h in state.hands] == [5, 5]
    assert state.turn == 1 and state.table == ()


# --------------------------------------------------------------------------------------------------
# §6 Capture options (R-CAP-MATCH, R-CAP-SUM, R-CAP-SEQ, R-CAP-OPTIONS) - the §6.3 worked examples
# --------------------------------------------------------------------------------------------------

CAPTURE_CASES = [
    # (id, table, played, {options}, rules overrides)
    ("empty-table", "", "5", set(), {}),
    ("4-on-lone-5-no-run-without-capture", "5", "4", set(), {}),
    ("4-on-A234-match-or-sum", "A 2 3 4", "4", {opt("match", "4"), opt("sum", "A 3")}, {}),
    ("5-on-A234-two-sums", "A 2 3 4", "5", {opt("sum", "A 4"), opt("sum", "2 3")}, {}),
    ("5-on-2367JQ-sum-and-run", "2 3 6 7 J Q", "5", {opt("sum", "2 3", "6 7 J Q")}, {}),
    ("5-on-2356-match-or-sum-same-run", "2 3 5 6", "5", {opt("match", "5", "6"), opt("sum", "2 3", "6")}, {}),
    ("4-on-456J-run-stops-at-gap", "4 5 6 J", "4", {opt("match", "4", "5 6")}, {}),
    ("7-on-34JQK-run-J-Q-K", "3 4 J Q K", "7", {opt("sum", "3 4", "J Q K")}, {}),
    ("7-on-25J-run-J", "2 5 J", "7", {opt("sum", "2 5", "J")}, {}),
    ("5-on-AA23-duplicates", "A A 2 3", "5", {opt("sum", "2 3"), opt("sum", "A A 3")}, {}),
    ("7-on-A23456-four-sums", "A 2 3 4 5 6", "7",
     {opt("sum", "A 6"), opt("sum", "2 5"), opt("sum", "3 4"), opt("sum", "A 2 4")}, {}),
    ("J-on-QK-nothing", "Q K", "J", set(), {}),
    ("K-on-A2K-no-wrap", "A 2 K", "K", {opt("match", "K")}, {}),
    # match
    ("Q-matches-Q", "Q 3", "Q", {opt("match", "Q")}, {}),
    ("J-matches-J-then-QK", "J Q K", "J", {opt("match", "J", "Q K")}, {}),
    ("K-matches-K", "K 4", "K", {opt("match", "K")}, {}),
    ("match-takes-one-of-two", "6 6", "6", {opt("match", "6")}, {}),
    ("match-takes-all-variant", "6 6 7", "6", {opt("match", "6 6", "7")}, {"match_takes_all_same_rank": True}),
    # sum
    ("sum-AA3-and-2+3", "A A 3 2", "5", {opt("sum", "A A 3"), opt("sum", "2 3")}, {}),
    ("sum-two-aces-for-2", "A A", "2", {opt("sum", "A A")}, {}),
    ("sum-four-aces-for-4", "A A A A", "4", {opt("sum", "A A A A")}, {}),
    ("sum-AAAA+2-for-6", "A A A A 2", "6", {opt("sum", "A A A A 2")}, {}),
    ("6-on-AA23-only-A23", "A A 2 3", "6", {opt("sum", "A 2 3")}, {}),
    ("one-card-sum-is-nothing", "4", "5", set(), {}),
    ("one-equal-card-is-match-not-sum", "5", "5", {opt("match", "5")}, {}),
    ("no-face-cards-in-sum", "J 3 A", "5", set(), {}),
    ("face-played-never-sums", "3 4 A", "J", set(), {}),
    ("face-on-table-ignored-in-sum", "2 J 3", "5", {opt("sum", "2 3")}, {}),
    ("A-cannot-sum", "A", "A", {opt("match", "A")}, {}),
    ("sum-never-includes-played-rank", "2 3 5", "5", {opt("match", "5"), opt("sum", "2 3")}, {}),
    # sum_max_cards=2 variant (C1)
    ("max2-AA23-only-2+3", "A A 2 3", "5", {opt("sum", "2 3")}, {"sum_max_cards": 2}),
    ("max2-A23456-three-pairs", "A 2 3 4 5 6", "7",
     {opt("sum", "A 6"), opt("sum", "2 5"), opt("sum", "3 4")}, {"sum_max_cards": 2}),
    ("max2-AAA-nothing-for-3", "A A A", "3", set(), {"sum_max_cards": 2}),
    ("max2-AA-for-2", "A A", "2", {opt("sum", "A A")}, {"sum_max_cards": 2}),
    # escalera (R-CAP-SEQ, R-CAP-SEQ-2)
    ("run-starts-above-played-not-added", "2 3 4 6", "5", {opt("sum", "2 3", "6")}, {}),
    ("run-one-card-per-rank", "2 3 6 6 7 7", "5", {opt("sum", "2 3", "6 7")}, {}),
    ("run-needs-next-rank", "2 3 7 J", "5", {opt("sum", "2 3")}, {}),
    ("run-after-match-7-JQK", "7 J Q K", "7", {opt("match", "7", "J Q K")}, {}),
    ("run-after-A-match", "A 2 3 5", "A", {opt("match", "A", "2 3")}, {}),
    ("played-rank-left-not-in-run", "2 3 5 5 6", "5",
     {opt("match", "5", "6"), opt("sum", "2 3", "6")}, {}),
]


@pytest.mark.parametrize(
    "table,played,expected,overrides",
    [c[1:] for c in CAPTURE_CASES],
    ids=[c[0] for c in CAPTURE_CASES],
)
def test_capture_options(table, played, expected, overrides):
    options = capture_options(ranks(table), R(played), Rules().with_options(**overrides))
    assert option_set(options) == expected
    for o in options:
        # captured = base + sequence (R-CAP-OPTIONS 3)
        assert list(o.captured) == list(o.base) + list(o.sequence)


@pytest.mark.parametrize(
    "table,hand,expected_legal",
    [
        ("2 3", "5 K", {"5 trails", "K trails", "5 takes 2+3"}),
        ("", "5 K", {"5 trails", "K trails"}),
        ("5", "5", {"5 trails", "5 takes 5"}),
        ("A 2 3 4", "5", {"5 trails", "5 takes A+4", "5 takes 2+3"}),
    ],
    ids=["capture-optional", "empty-table-trails", "match-or-trail", "two-sums-or-trail"],
)
def test_capture_is_optional_trail_always_legal(table, hand, expected_legal):
    # R-CAP-OPT: standard forced_capture=false; R-CAP-TRAIL: onto an empty table is a trail.
    state = make_position(Rules(), hands=[names(hand), ["Q"]], table=names(table))
    assert {action_to_string(a) for a in legal_actions(state)} == expected_legal


@pytest.mark.parametrize(
    "table,hand,expected_legal",
    [
        ("2 3", "5 K", {"K trails", "5 takes 2+3"}),
        ("5 K", "5 K", {"5 takes 5", "K takes K"}),
        ("", "5 K", {"5 trails", "K trails"}),
        ("4", "5", {"5 trails"}),
        ("A A 3", "5", {"5 takes A+A+3"}),
    ],
    ids=["must-capture-5-may-trail-K", "both-must-capture", "empty-table", "no-capture-no-force",
         "three-card-sum-forced"],
)
def test_forced_capture_variant(table, hand, expected_legal):
    state = make_position(Rules(forced_capture=True), hands=[names(hand), ["Q"]], table=names(table))
    assert {action_to_string(a) for a in legal_actions(state)} == expected_legal


def test_sum_max_cards_2_masks_longer_sums_in_legal_actions():
    state = make_position(Rules(sum_max_cards=2), hands=[["5"], ["Q"]], table=names("A A 3 2"))
    assert {action_to_string(a) for a in legal_actions(state)} == {"5 trails", "5 takes 2+3"}
    assert not is_legal(state, act("5", "sum", "A A 3"))


# --------------------------------------------------------------------------------------------------
# One capture per play (R-CAP-ONE), captured cards, pile, table after (R-CAP-PILE, Played.captured)
# --------------------------------------------------------------------------------------------------

PLAY_CASES = [
    # (id, table, played, kind, base, captured ranks, table after)
    ("5-sum-A4-leaves-2-3", "A 2 3 4", "5", "sum", "A 4", "A 4", "2 3"),
    ("5-sum-23-leaves-A-4", "A 2 3 4", "5", "sum", "2 3", "2 3", "A 4"),
    ("4-match-leaves-A-2-3", "A 2 3 4", "4", "match", "4", "4", "A 2 3"),
    ("4-sum-A3-leaves-2-4", "A 2 3 4", "4", "sum", "A 3", "A 3", "2 4"),
    ("escalera-5-on-2367JQ", "2 3 6 7 J Q", "5", "sum", "2 3", "2 3 6 7 J Q", ""),
    ("escalera-match-5-on-2356", "2 3 5 6", "5", "match", "5", "5 6", "2 3"),
    ("escalera-sum-5-on-2356-5-stays", "2 3 5 6", "5", "sum", "2 3", "2 3 6", "5"),
    ("escalera-stops-at-gap", "4 5 6 J", "4", "match", "4", "4 5 6", "J"),
    ("escalera-7-JQK", "3 4 J Q K", "7", "sum", "3 4", "3 4 J Q K", ""),
    ("escalera-one-per-rank", "2 3 6 6 7 7", "5", "sum", "2 3", "2 3 6 7", "6 7"),
    ("match-one-of-two", "6 6 A", "6", "match", "6", "6", "6 A"),
    ("sum-AA3", "A A 2 3", "5", "sum", "A A 3", "A A 3", "2"),
    ("trail-4-on-5-takes-nothing", "5", "4", "trail", "", "", "5 4"),
    ("trail-on-empty-table", "", "5", "trail", "", "", "5"),
    ("trail-though-capture-possible", "2 3", "5", "trail", "", "", "2 3 5"),
    ("K-match-no-wrap", "A 2 K", "K", "match", "K", "K", "A 2"),
]


@pytest.mark.parametrize(
    "table,played,kind,base,captured,table_after",
    [c[1:] for c in PLAY_CASES],
    ids=[c[0] for c in PLAY_CASES],
)
def test_play_captures_exactly_one_option_plus_run(table, played, kind, base, captured, table_after):
    state = make_position(Rules(), hands=[[played, "Q"], ["Q"]], table=names(table))
    after, events = play(state, played, kind, base)
    (played_event,) = of_type(events, Played)
    assert played_event.seat == 0 and RANKS[rank_of(played_event.card)] == played
    # Played.captured holds base + escalera.
    assert card_ranks(played_event.captured) == sorted_names(captured)
    if kind != "trail":
        assert card_ranks(played_event.captured[: len(ranks(base))]) == sorted_names(base)
    assert card_ranks(after.table) == sorted_names(table_after)
    # R-CAP-PILE: played card + captured cards go to the acting team's pile; a trail adds nothing.
    expected_pile = 0 if kind == "trail" else 1 + len(ranks(captured))
    assert len(after.piles[0]) == expected_pile and after.piles[1] == ()
    assert after.turn == 1


def test_match_with_no_run_adds_two_cards_to_the_pile():
    state = make_position(Rules(), hands=[["J", "A"], ["Q"]], table=names("J 3"))
    after, _ = play(state, "J", "match", "J")
    assert card_ranks(after.piles[0]) == ["J", "J"]


def test_match_takes_all_same_rank_variant_in_play():
    state = make_position(Rules(match_takes_all_same_rank=True), hands=[["6", "A"], ["Q"]],
                          table=names("6 6 7 2"))
    after, events = play(state, "6", "match", "6 6")
    assert card_ranks(of_type(events, Played)[0].captured) == ["6", "6", "7"]
    assert card_ranks(after.table) == ["2"]


# --------------------------------------------------------------------------------------------------
# §7 Scoring during play: caída, limpia, caída y limpia, ronda-caída bonus, winning mid-deal
# --------------------------------------------------------------------------------------------------

# Acting seat 0 (team 0) plays; seat 1 is the previous player (it trailed `trailed`, its ronda rank is
# `prev_ronda`). Columns: id, overrides, table, played, kind, base, trailed, prev_ronda, before,
# expected caída points, ronda bonus, limpia points (None: no limpia event), total points, table after.
SCORING_CASES = [
    ("caida-table-not-cleared", {}, "5 K", "5", "match", "5", "5", None, 0, 2, 0, None, 2, "K"),
    ("caida-y-limpia-4", {}, "5", "5", "match", "5", "5", None, 0, 2, 0, 2, 4, ""),
    ("limpia-by-sum-36-to-38", {}, "2 3", "5", "sum", "2 3", None, None, 36, None, 0, 2, 2, ""),
    ("limpia-by-sum-at-38-blocked", {}, "2 3", "5", "sum", "2 3", None, None, 38, None, 0, 0, 0, ""),
    ("caida-y-limpia-at-38-is-2", {}, "5", "5", "match", "5", "5", None, 38, 2, 0, 0, 2, ""),
    ("caida-y-limpia-at-36-is-4", {}, "5", "5", "match", "5", "5", None, 36, 2, 0, 2, 4, ""),
    ("caida-no-cutoff-at-38", {}, "5 K", "5", "match", "5", "5", None, 38, 2, 0, None, 2, "K"),
    ("ronda-caida-20-to-32", {}, "5 K", "5", "match", "5", "5", "5", 20, 2, 10, None, 12, "K"),
    ("ronda-caida-limpia-10-to-24", {}, "5", "5", "match", "5", "5", "5", 10, 2, 10, 2, 14, ""),
    ("ronda-caida-at-30-no-bonus", {}, "5 K", "5", "match", "5", "5", "5", 30, 2, 0, None, 2, "K"),
    ("ronda-caida-at-28-passes-40", {}, "5", "5", "match", "5", "5", "5", 28, 2, 10, 2, 14, ""),
    ("ronda-other-rank-no-bonus", {}, "5 K", "5", "match", "5", "5", "7", 20, 2, 0, None, 2, "K"),
    ("ronda-caida-bonus-0-quito", {"ronda_caida_bonus": 0}, "5 K", "5", "match", "5", "5", "5", 20, 2, 0, None,
     2, "K"),
    ("ronda-caida-agent-dory-cutoff-38", {"ronda_caida_cutoff": 38}, "5 K", "5", "match", "5", "5", "5", 30, 2,
     10, None, 12, "K"),
    ("ronda-caida-cutoff-none-at-36", {"ronda_caida_cutoff": None}, "5 K", "5", "match", "5", "5", "5", 36, 2,
     10, None, 12, "K"),
    ("todo-dos-caida-y-limpia-is-2", {"caida_limpia_stack": False}, "5", "5", "match", "5", "5", None, 0, 2, 0,
     0, 2, ""),
    ("todo-dos-plain-limpia-still-2", {"caida_limpia_stack": False}, "2 3", "5", "sum", "2 3", None, None, 0,
     None, 0, 2, 2, ""),
    ("limpia-cutoff-none-at-38", {"limpia_cutoff": None}, "2 3", "5", "sum", "2 3", None, None, 38, None, 0, 2,
     2, ""),
    ("limpia-cutoff-none-caida-y-limpia-at-38", {"limpia_cutoff": None}, "5", "5", "match", "5", "5", None, 38,
     2, 0, 2, 4, ""),
    ("caida-with-run-and-limpia", {}, "5 6 7", "5", "match", "5", "5", None, 0, 2, 0, 2, 4, ""),
    ("sum-taking-trailed-card-no-caida", {}, "3 2", "5", "sum", "2 3", "2", None, 0, None, 0, 2, 2, ""),
    ("run-taking-trailed-card-no-caida", {}, "4 5", "4", "match", "4", "5", None, 0, None, 0, 2, 2, ""),
    ("older-card-previous-trailed-other-no-caida", {}, "5 3", "5", "match", "5", "3", None, 0, None, 0, None,
     0, "3"),
    ("previous-play-capture-no-caida", {}, "5", "5", "match", "5", None, None, 0, None, 0, 2, 2, ""),
    ("duplicates-caida-5-one-5-stays", {}, "5 5", "5", "match", "5", "5", None, 0, 2, 0, None, 2, "5"),
    ("caida-choice-sum-instead", {}, "2 3 5", "5", "sum", "2 3", "5", None, 0, None, 0, None, 0, "5"),
    ("match-all-variant-caida-y-limpia", {"match_takes_all_same_rank": True}, "5 5 6", "5", "match", "5 5", "5",
     None, 0, 2, 0, 2, 4, ""),
    ("caida-by-J", {}, "J", "J", "match", "J", "J", None, 0, 2, 0, 2, 4, ""),
    ("trail-never-limpia", {}, "", "5", "trail", "", None, None, 0, None, 0, None, 0, "5"),
    ("trail-after-trail-no-points", {}, "5", "4", "trail", "", "5", None, 0, None, 0, None, 0, "5 4"),
]


@pytest.mark.parametrize(
    "overrides,table,played,kind,base,trailed,prev_ronda,before,caida,bonus,limpia,points,table_after",
    [c[1:] for c in SCORING_CASES],
    ids=[c[0] for c in SCORING_CASES],
)
def test_play_scoring(overrides, table, played, kind, base, trailed, prev_ronda, before, caida, bonus, limpia,
                      points, table_after):
    rules = Rules().with_options(**overrides)
    # The previous player (seat 1) holds the rest of its ronda when it has one.
    prev_hand = ["Q"]
    if prev_ronda is not None:
        used = table.split().count(prev_ronda) + (played == prev_ronda)
        prev_hand = [prev_ronda] * min(2, 4 - used) + ["Q"]
    state = make_position(rules, hands=[[played, "A" if played != "A" else "2"], prev_hand],
                          table=names(table), trailed=trailed, rondas=[None, prev_ronda],
                          scores=(before, 6), turn=0, dealer=1)
    after, events = play(state, played, kind, base)
    caidas = of_type(events, Caida)
    limpias = of_type(events, Limpia)
    if caida is None:
        assert caidas == []
    else:
        assert caidas == [Caida(0, 0, caida, bonus)]
    if limpia is None:
        assert limpias == []
    else:
        assert limpias == [Limpia(0, 0, limpia)]
        assert after.table == ()
    assert card_ranks(after.table) == sorted_names(table_after)
    # All points go to the acting team; the opponent's score is untouched.
    assert after.scores == (before + points, 6)
    if before + points >= 40:
        assert after.is_over and after.winner == 0
        assert of_type(events, GameWon) == [GameWon(0, (before + points, 6))]
    else:
        assert not after.is_over and of_type(events, GameWon) == []


def test_caida_scores_through_a_real_sequence_of_plays():
    # R-CAIDA-1 derived from the plays themselves: seat 0 trails a 5, seat 1 matches it at once.
    state = make_position(Rules(), hands=[["5", "K"], ["5", "Q"]], table=names("3"))
    state, _ = play(state, "5")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(1, 1, 2, 0)]
    assert state.scores == (0, 2)
    assert card_ranks(state.table) == ["3"]


def test_caida_duplicate_takes_the_newer_card():
    # R-CAIDA-5: with an older 5 and a just-trailed 5 on the table the match is a caída.
    state = make_position(Rules(), hands=[["5", "K"], ["5", "Q"]], table=names("5 A"))
    state, events = play(state, "5")
    trailed_card = of_type(events, Played)[0].card
    older = [c for c in state.table if rank_of(c) == R("5") and c != trailed_card]
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(1, 1, 2, 0)]
    assert of_type(events, Played)[0].captured == (trailed_card,)
    assert older[0] in state.table
    assert card_ranks(state.table) == sorted_names("A 5")


def test_no_caida_on_card_trailed_two_plays_ago():
    # R-CAIDA-3: seat 0 trails 5, seat 1 trails 4, seat 0 takes its own 5 back: no caída.
    state = make_position(Rules(), hands=[["5", "5"], ["4", "Q"]], table=names("K"))
    state, _ = play(state, "5")
    state, _ = play(state, "4")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == []
    assert state.scores == (0, 0)


def test_no_caida_when_previous_play_was_a_capture():
    state = make_position(Rules(), hands=[["2", "K"], ["5", "Q"]], table=names("5 2 K"))
    state, _ = play(state, "2", "match", "2")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == []
    assert state.scores == (0, 0)


def test_four_players_caida_only_by_the_next_seat():
    rules = Rules(players=4)
    hands = [["5", "K"], ["4", "5"], ["5", "Q"], ["A", "J"]]
    # seat 0 trails 5, seat 1 trails 4, seat 2 (seat 0's partner) matches the 5: not a caída.
    state = make_position(rules, hands=hands, table=names("3"))
    state, _ = play(state, "5")
    state, _ = play(state, "4")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == []
    # seat 0 trails 5, seat 1 (next, an opponent) matches it: caída for team 1.
    state = make_position(rules, hands=hands, table=names("3"))
    state, _ = play(state, "5")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(1, 1, 2, 0)]
    assert state.scores == (0, 2)


@pytest.mark.parametrize(
    "ronda_seat,bonus",
    [(0, 10), (2, 0), (1, 0), (3, 0)],
    ids=["trailer-has-ronda-bonus", "trailers-partner-has-ronda-no-bonus", "acting-seat-own-ronda-no-bonus",
         "acting-seats-partner-no-bonus"],
)
def test_four_players_ronda_caida_bonus_only_for_the_trailers_ronda(ronda_seat, bonus):
    # Seat 1 acts; seat 0 is the previous player, who trailed the 5. R-BONUS-1: only its ronda counts.
    rondas = [None] * 4
    rondas[ronda_seat] = "5"
    state = make_position(Rules(players=4), hands=[["Q"], ["5", "K"], ["J"], ["A"]], table=names("5 3"),
                          trailed="5", rondas=rondas, turn=1, scores=(0, 20))
    after, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(1, 1, 2, bonus)]
    assert after.scores == (0, 22 + bonus)


def test_ronda_caida_owner_score_irrelevant():
    # R-BONUS-1: the ronda owner (team 1) is on 34 so its ronda never scored; the bonus still applies.
    state = make_position(Rules(), hands=[["5", "A"], ["5", "5"]], table=names("5 K"), trailed="5",
                          rondas=[None, "5"], scores=(20, 34))
    after, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(0, 0, 2, 10)]
    assert after.scores == (32, 34)


def test_first_play_of_a_new_deal_is_never_a_caida():
    # R-CAIDA-4: the dealer (seat 1) trails a 5 with the last card of a deal; seat 0 leads the next deal
    # by matching that 5: not a caída. The table carries over (R-DEAL-4).
    stock = names("5 A 2 4 6 7 J Q K A")
    state = make_position(Rules(), hands=[["3"], ["5"]], turn=0, dealer=1, stock=stock, table=names("K"))
    order = stacked(state, " ".join(stock))
    state, _ = play(state, "3")
    state, _ = play(state, "5")
    state, events = deal(state, order)
    assert of_type(events, Dealt) == [Dealt(0, 1, 1)]
    assert card_ranks(state.table) == sorted_names("K 3 5")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == []
    assert of_type(events, Limpia) == []
    assert state.scores == (0, 0)


def test_caida_within_same_deal_for_comparison():
    state = make_position(Rules(), hands=[["3", "5"], ["5", "A"]], turn=1, dealer=0, table=names("K"))
    state, _ = play(state, "5")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(0, 0, 2, 0)]


# --------------------------------------------------------------------------------------------------
# §10 Winning: immediately at 40, mid-deal, passing 40 allowed, later plays rejected
# --------------------------------------------------------------------------------------------------


def test_win_mid_deal_stops_the_game():
    state = make_position(Rules(), hands=[["5", "6", "7"], ["2", "3", "4"]], table=names("K 5"), trailed="5",
                          scores=(38, 12))
    after, events = play(state, "5", "match", "5")
    assert after.scores == (40, 12)
    assert after.is_over and after.winner == 0
    assert of_type(events, GameWon) == [GameWon(0, (40, 12))]
    assert legal_actions(after) == ()
    with pytest.raises(IllegalMove) as err:
        play(after, "2")
    assert err.value.reason == "game_over"
    with pytest.raises(IllegalMove) as err:
        check_action(after, act("3"))
    assert err.value.reason == "game_over"


def test_win_on_last_card_of_hand_counts_no_carton():
    # R-WIN-2: the winning play ends the game; no cartón is counted for the unfinished hand.
    pile1 = names("A A A A 2 2 2 2 3 3 3 3 4 4 4 4 6 6 6 6 7 7 7 7 J J J")  # 27 cards
    state = make_position(Rules(), hands=[[], ["5"]], table=names("5 K"), trailed="5", turn=1, dealer=1,
                          scores=(0, 38), piles=((), pile1))
    after, events = play(state, "5", "match", "5")
    assert after.scores == (0, 40) and after.winner == 1
    assert of_type(events, HandEnded) == [] and of_type(events, Dealt) == []


@pytest.mark.parametrize(
    "overrides,before,table,rondas,after_score",
    [
        ({}, 28, "5", [None, "5"], 42),  # ronda caída y limpia 14 from 28
        ({"limpia_cutoff": None}, 38, "5", [None, None], 42),  # caída y limpia 4 from 38
        ({"ronda_caida_cutoff": None}, 38, "5 K", [None, "5"], 50),
    ],
    ids=["28+14", "38+4-no-limpia-cutoff", "38+12-no-bonus-cutoff"],
)
def test_passing_40_is_a_win(overrides, before, table, rondas, after_score):
    state = make_position(Rules().with_options(**overrides), hands=[["5", "A"], ["5", "Q"]], table=names(table),
                          trailed="5", rondas=rondas, scores=(before, 0))
    after, events = play(state, "5", "match", "5")
    assert after.scores == (after_score, 0) and after.winner == 0
    assert of_type(events, GameWon) == [GameWon(0, (after_score, 0))]


def test_win_by_carton_at_end_of_hand():
    # R-WIN-1: 28 + 14 (28 cards) = 42; the game ends, no new hand is dealt.
    pile0 = names("A A A A 2 2 2 2 3 3 3 3 4 4 4 4 6 6 6 6 7 7 7 7 J J J J")  # 28 cards
    pile1 = names("Q Q Q K K K")
    state = make_position(Rules(), hands=[["5"], ["5"]], table=names("Q"), turn=0, dealer=1, scores=(28, 0),
                          piles=(pile0, pile1))
    state, _ = play(state, "5")
    after, events = play(state, "5", "match", "5")  # a caída for team 1: 2 points
    (ended,) = of_type(events, HandEnded)
    assert ended.captured == (28, 8)
    assert ended.carton == (14, 0)
    assert after.scores == (42, 2) and after.winner == 0
    assert of_type(events, GameWon) == [GameWon(0, (42, 2))]
    assert of_type(events, Dealt) == []


# --------------------------------------------------------------------------------------------------
# §5 Announcements: ronda, four of a kind (R-ANN-1..8)
# --------------------------------------------------------------------------------------------------


def _hands(rules, hands):
    return make_position(rules, hands=[names(h) for h in hands]).hands


ANNOUNCE_CASES = [
    # id, overrides, players, dealer, hands, scores, expected events, scores after, winner
    ("ronda-2", {}, 2, 1, ["5 5 5 A 2", "A 2 3 4 6"], (0, 0), [Ronda(0, 0, 2, "ronda")], (2, 0), -1),
    ("pair-nothing", {}, 2, 1, ["5 5 A 2 3", "A 2 3 4 6"], (0, 0), [], (0, 0), -1),
    ("two-pairs-nothing", {}, 2, 1, ["5 5 6 6 3", "A 2 3 4 7"], (0, 0), [], (0, 0), -1),
    ("ronda-28-to-30", {}, 2, 0, ["A 2 3 4 6", "K K K A 2"], (0, 28), [Ronda(1, 1, 2, "ronda")], (0, 30), -1),
    ("ronda-cutoff-at-30", {}, 2, 0, ["A 2 3 4 6", "K K K A 2"], (0, 30), [Ronda(1, 1, 0, "ronda")], (0, 30), -1),
    ("two-rondas-one-deal-2p", {}, 2, 1, ["5 5 5 A 2", "7 7 7 3 4"], (0, 0),
     [Ronda(0, 0, 2, "ronda"), Ronda(1, 1, 2, "ronda")], (2, 2), -1),
    ("two-rondas-order-after-dealer", {}, 2, 0, ["5 5 5 A 2", "7 7 7 3 4"], (0, 0),
     [Ronda(1, 1, 2, "ronda"), Ronda(0, 0, 2, "ronda")], (2, 2), -1),
    ("4p-partners-separately-28-to-32", {}, 4, 3, ["5 5 5 A 2", "A 2 3 4 6", "7 7 7 3 4", "J Q K 6 2"], (28, 0),
     [Ronda(0, 0, 2, "ronda"), Ronda(2, 0, 2, "ronda")], (32, 0), -1),
    ("4p-all-checked-at-start-of-deal", {}, 4, 3, ["5 5 5 A 2", "A 2 3 4 6", "7 7 7 3 4", "J Q K 6 2"], (30, 0),
     [Ronda(0, 0, 0, "ronda"), Ronda(2, 0, 0, "ronda")], (30, 0), -1),
    ("ronda-points-4-pagat", {"ronda_points": 4}, 2, 1, ["5 5 5 A 2", "A 2 3 4 6"], (0, 0),
     [Ronda(0, 0, 4, "ronda")], (4, 0), -1),
    ("ronda-agent-dory-at-30", {"ronda_cutoff": 38}, 2, 1, ["5 5 5 A 2", "A 2 3 4 6"], (30, 0),
     [Ronda(0, 0, 2, "ronda")], (32, 0), -1),
    ("four-of-a-kind-wins-at-any-score", {}, 2, 0, ["A 2 3 4 6", "K K K K 2"], (38, 0),
     [FourOfAKind(1, 1)], (38, 0), 1),
    ("four-of-a-kind-first-in-order-wins", {}, 2, 0, ["5 5 5 5 A", "K K K K A"], (0, 0),
     [FourOfAKind(1, 1)], (0, 0), 1),
    ("four-of-a-kind-4p-order", {}, 4, 3, ["A 2 3 4 6", "5 5 5 5 A", "K K K K A", "J Q 7 6 2"], (0, 0),
     [FourOfAKind(1, 1)], (0, 0), 1),
    ("ronda-before-four-of-a-kind", {}, 2, 1, ["7 7 7 A 2", "K K K K A"], (0, 0),
     [Ronda(0, 0, 2, "ronda"), FourOfAKind(1, 1)], (2, 0), 1),
    ("doble-ronda-points-variant", {"four_of_a_kind": "points"}, 2, 0, ["A 2 3 4 6", "K K K K 2"], (0, 0),
     [Ronda(1, 1, 4, "doble_ronda")], (0, 4), -1),
    ("doble-ronda-points-8", {"four_of_a_kind": "points", "four_of_a_kind_points": 8}, 2, 0,
     ["A 2 3 4 6", "K K K K 2"], (0, 0), [Ronda(1, 1, 8, "doble_ronda")], (0, 8), -1),
    ("doble-ronda-uses-ronda-cutoff", {"four_of_a_kind": "points"}, 2, 0, ["A 2 3 4 6", "K K K K 2"], (0, 30),
     [Ronda(1, 1, 0, "doble_ronda")], (0, 30), -1),
    ("ronda-win-stops-processing", {"ronda_cutoff": None}, 2, 1, ["5 5 5 A 2", "7 7 7 3 4"], (38, 0),
     [Ronda(0, 0, 2, "ronda")], (40, 0), 0),
]


@pytest.mark.parametrize(
    "overrides,players,dealer,hands,scores,expected,scores_after,winner",
    [c[1:] for c in ANNOUNCE_CASES],
    ids=[c[0] for c in ANNOUNCE_CASES],
)
def test_announcements(overrides, players, dealer, hands, scores, expected, scores_after, winner):
    rules = Rules(players=players).with_options(**overrides)
    events, after, won, rondas = announcements(_hands(rules, hands), dealer, scores, rules)
    assert list(events) == expected
    assert tuple(after) == scores_after
    assert won == winner


def test_unscored_ronda_is_still_recorded_for_the_bonus():
    # R-ANN-5: a ronda not scored (team on 30) still counts for R-BONUS-1.
    rules = Rules()
    _, _, _, rondas = announcements(_hands(rules, ["A 2 3 4 6", "K K K A 2"]), 0, (0, 30), rules)
    assert [r if r < 0 else RANKS[r] for r in rondas] == [-1, "K"]


def test_ronda_announced_on_deal_then_ronda_caida_bonus():
    # Dealer seat 1 is dealt three 5s (ronda, +2), trails one; seat 0 takes it: caída + 10.
    deck = deck_starting_with(names("5 6 7 J Q") + names("5 5 5 A 2"))
    state, events = Dealer(0, [deck]).start(Rules(), dealer=1)
    assert of_type(events, Ronda) == [Ronda(1, 1, 2, "ronda")]
    assert state.scores == (0, 2)
    state, _ = play(state, "Q")
    state, _ = play(state, "5")
    state, events = play(state, "5", "match", "5")
    assert of_type(events, Caida) == [Caida(0, 0, 2, 10)]
    assert of_type(events, Limpia) == []  # the Q stays
    assert state.scores == (12, 2)


def test_four_of_a_kind_on_deal_ends_game_before_any_play():
    deck = deck_starting_with(names("K K K K A") + names("2 3 4 5 6"))
    state, events = Dealer(0, [deck]).start(Rules(), dealer=1)
    assert of_type(events, FourOfAKind) == [FourOfAKind(0, 0)]
    assert state.is_over and state.winner == 0
    assert of_type(events, GameWon) and of_type(events, GameWon)[0].team == 0
    assert legal_actions(state) == ()


# --------------------------------------------------------------------------------------------------
# §8 Cartón and end of hand (R-CARTON-1..4, R-END-2)
# --------------------------------------------------------------------------------------------------

CARTON_TABLE = {
    **{n: 0 for n in range(20)},
    20: 6, 21: 8, 22: 8, 23: 10, 24: 10, 25: 12, 26: 12, 27: 14, 28: 14, 29: 16, 30: 16,
    31: 18, 32: 18, 33: 20, 34: 20, 35: 22, 36: 22, 37: 24, 38: 24, 39: 26, 40: 26,
}


@pytest.mark.parametrize("n,points", sorted(CARTON_TABLE.items()), ids=[f"{n}-cards" for n in range(41)])
def test_carton_value_table(n, points):
    assert carton_value(n) == points


@pytest.mark.parametrize("n", range(41), ids=[f"{n}-cards" for n in range(41)])
@pytest.mark.parametrize("role", ["non_dealer", "dealer"])
def test_carton_table_by_role(n, role):
    # The team of `role` has n cards, the opponent the other 40 - n; scores 0-0.
    team = 0
    dealer_team = 1 if role == "non_dealer" else 0
    pts = carton_points((n, 40 - n), dealer_team, (0, 0), Rules())[team]
    if n == 20:
        expected = 6 if role == "non_dealer" else 0
    else:
        expected = CARTON_TABLE[n]
    assert pts == expected


CARTON_CASES = [
    # id, overrides, captured, dealer_team, scores, carton
    ("20-20-non-dealer-team1", {}, (20, 20), 0, (0, 0), (0, 6)),
    ("20-20-non-dealer-team0", {}, (20, 20), 1, (0, 0), (6, 0)),
    ("25-15", {}, (25, 15), 0, (0, 0), (12, 0)),
    ("15-25", {}, (15, 25), 1, (0, 0), (0, 12)),
    ("21-19", {}, (21, 19), 0, (0, 0), (8, 0)),
    ("40-0", {}, (40, 0), 0, (0, 0), (26, 0)),
    ("neither-20-more-cards-19-18", {}, (19, 18), 0, (0, 0), (2, 0)),
    ("neither-20-more-cards-10-12", {}, (10, 12), 1, (0, 0), (0, 2)),
    ("neither-20-tie-15-15-dealer0", {}, (15, 15), 0, (0, 0), (0, 2)),
    ("neither-20-tie-15-15-dealer1", {}, (15, 15), 1, (0, 0), (2, 0)),
    ("tie-0-0-non-dealer", {}, (0, 0), 0, (0, 0), (0, 2)),
    ("cutoff-30-no-carton", {}, (26, 14), 0, (30, 0), (0, 0)),
    ("cutoff-28-full-amount", {}, (26, 14), 0, (28, 0), (12, 0)),
    ("cutoff-not-passed-to-other-team", {}, (14, 26), 0, (0, 32), (0, 0)),
    ("cutoff-blocks-tie-points", {}, (15, 15), 0, (0, 30), (0, 0)),
    ("cutoff-blocks-20-20", {}, (20, 20), 0, (0, 30), (0, 0)),
    ("cutoff-blocks-more-cards-2", {}, (19, 10), 1, (36, 0), (0, 0)),
    ("carton-cutoff-none-at-30", {"carton_cutoff": None}, (26, 14), 0, (30, 0), (12, 0)),
    ("carton-cutoff-none-at-38", {"carton_cutoff": None}, (26, 14), 0, (38, 0), (12, 0)),
    ("carton-cutoff-38-at-36", {"carton_cutoff": 38}, (26, 14), 0, (36, 0), (12, 0)),
    ("carton-cutoff-38-at-38", {"carton_cutoff": 38}, (26, 14), 0, (38, 0), (0, 0)),
]


@pytest.mark.parametrize(
    "overrides,captured,dealer_team,scores,expected",
    [c[1:] for c in CARTON_CASES],
    ids=[c[0] for c in CARTON_CASES],
)
def test_carton_points(overrides, captured, dealer_team, scores, expected):
    assert tuple(carton_points(captured, dealer_team, scores, Rules().with_options(**overrides))) == expected


SETTLE_CASES = [
    # id, overrides, captured, leftover, last_capturer, dealer_team, scores,
    # final captured, carton, scores after, winner
    ("discard-leftovers", {}, (18, 17), 5, 0, 1, (0, 0), (18, 17), (2, 0), (2, 0), -1),
    ("discard-19-19-tie-non-dealer", {}, (19, 19), 2, 0, 0, (0, 0), (19, 19), (0, 2), (0, 2), -1),
    ("last-capturer-gets-leftovers", {"leftover_table_cards": "last_capturer"}, (18, 17), 5, 0, 1, (0, 0),
     (23, 17), (10, 0), (10, 0), -1),
    ("last-capturer-team1", {"leftover_table_cards": "last_capturer"}, (19, 19), 2, 1, 1, (0, 0),
     (19, 21), (0, 8), (0, 8), -1),
    ("last-capturer-none", {"leftover_table_cards": "last_capturer"}, (0, 0), 40, -1, 0, (0, 0),
     (0, 0), (0, 2), (0, 2), -1),
    ("win-by-carton-28+14", {}, (28, 12), 0, 0, 1, (28, 0), (28, 12), (14, 0), (42, 0), 0),
    ("win-by-carton-exact-40", {}, (26, 14), 0, 0, 1, (28, 10), (26, 14), (12, 0), (40, 10), 0),
    ("no-carton-at-30", {}, (28, 12), 0, 0, 1, (30, 0), (28, 12), (0, 0), (30, 0), -1),
    ("pagat-carton-at-38-wins", {"carton_cutoff": None}, (21, 19), 0, 0, 1, (38, 0), (21, 19), (8, 0), (46, 0), 0),
]


@pytest.mark.parametrize(
    "overrides,captured,leftover,last,dealer_team,scores,final,carton,after,winner",
    [c[1:] for c in SETTLE_CASES],
    ids=[c[0] for c in SETTLE_CASES],
)
def test_settle_hand(overrides, captured, leftover, last, dealer_team, scores, final, carton, after, winner):
    result = settle_hand(captured, leftover, last, dealer_team, scores, Rules().with_options(**overrides))
    assert tuple(result[0]) == final
    assert tuple(result[1]) == carton
    assert tuple(result[2]) == after
    assert result[3] == winner


@pytest.mark.parametrize(
    "overrides,carton,final_captured",
    [({}, (2, 0), (18, 17)), ({"leftover_table_cards": "last_capturer"}, (8, 0), (21, 17))],
    ids=["discard", "last_capturer"],
)
def test_end_of_hand_leftovers_in_play(overrides, carton, final_captured):
    # Last cards: both trail; the table (A, K, Q) is left over. Team 0 made the last capture.
    pile0 = names("2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6")  # 18
    pile1 = names("6 6 7 7 7 7 J J J J Q Q Q K K K A")  # 17
    state = make_position(Rules().with_options(**overrides), hands=[["K"], ["Q"]], table=names("A"), turn=0,
                          dealer=1, piles=(pile0, pile1), last_capturer=0)
    state, _ = play(state, "K")
    state, events = play(state, "Q")
    (ended,) = of_type(events, HandEnded)
    assert ended.captured == final_captured
    assert ended.carton == carton
    assert of_type(events, Limpia) == []  # leftovers never score a limpia
    if overrides:
        assert ended.leftover == ()
    else:
        assert card_ranks(ended.leftover) == sorted_names("A K Q")
    rondas = sum(e.points for e in events if isinstance(e, Ronda))
    assert sum(state.scores) == sum(carton) + rondas
    # Next hand: piles and table reset, dealer rotated (R-GAME-1, R-DEAL-5).
    assert state.hand_no == 1 and state.dealer == 0 and state.piles == ((), ()) and state.table == ()
    assert state.needs_deal and sorted(state.stock) == list(range(40))  # the next hand awaits its first deal


# --------------------------------------------------------------------------------------------------
# §11 Options and presets
# --------------------------------------------------------------------------------------------------

STANDARD = {
    "players": 2,
    "caida_limpia_stack": True,
    "ronda_points": 2,
    "ronda_cutoff": 30,
    "four_of_a_kind": "win",
    "four_of_a_kind_points": 4,
    "ronda_caida_bonus": 10,
    "ronda_caida_cutoff": 30,
    "carton_cutoff": 30,
    "limpia_cutoff": 38,
    "sum_max_cards": None,
    "match_takes_all_same_rank": False,
    "forced_capture": False,
    "leftover_table_cards": "discard",
}

PRESET_CASES = [
    ("standard", {}),
    ("pagat", {"ronda_points": 4, "carton_cutoff": None}),
    ("agent_dory", {"ronda_cutoff": 38, "ronda_caida_cutoff": 38}),
    ("quito_todo_dos", {"caida_limpia_stack": False, "ronda_caida_bonus": 0, "sum_max_cards": 2,
                        "four_of_a_kind": "points", "four_of_a_kind_points": 2}),
]


@pytest.mark.parametrize("name,changes", PRESET_CASES, ids=[c[0] for c in PRESET_CASES])
@pytest.mark.parametrize("players", [2, 4], ids=["2p", "4p"])
def test_presets(name, changes, players):
    expected = {**STANDARD, **changes, "players": players}
    rules = preset(name, players=players)
    for option, value in expected.items():
        assert getattr(rules, option) == value, option


def test_default_rules_are_standard():
    rules = Rules()
    for option, value in STANDARD.items():
        assert getattr(rules, option) == value, option
    assert rules == preset("standard")


def test_quito_todo_dos_preset_in_play():
    # caída y limpia = 2, ronda caída = 2, 2-card sums only.
    rules = preset("quito_todo_dos")
    state = make_position(rules, hands=[["5", "A"], ["5", "5"]], table=names("5"), trailed="5",
                          rondas=[None, "5"])
    after, events = play(state, "5", "match", "5")
    assert after.scores == (2, 0)
    assert of_type(events, Caida) == [Caida(0, 0, 2, 0)]
    assert option_set(capture_options(ranks("A A 2 3"), R("5"), rules)) == {opt("sum", "2 3")}


@pytest.mark.parametrize(
    "bad",
    [{"players": 3}, {"four_of_a_kind": "lose"}, {"leftover_table_cards": "dealer"}, {"sum_max_cards": 1}],
    ids=["3-players", "bad-four", "bad-leftover", "sum-max-1"],
)
def test_invalid_options_rejected(bad):
    with pytest.raises(ValueError):
        Rules(**bad)


# --------------------------------------------------------------------------------------------------
# The action table: 53 actions, unique names
# --------------------------------------------------------------------------------------------------


def test_action_table_has_53_actions():
    assert N_ACTIONS == 53
    kinds = Counter(ACTION_KIND)
    assert kinds[TRAIL] == 10 and kinds[MATCH] == 10 and kinds[SUM] == 33


@pytest.mark.parametrize(
    "played,count",
    [("A", 0), ("2", 1), ("3", 2), ("4", 4), ("5", 5), ("6", 9), ("7", 12), ("J", 0), ("Q", 0), ("K", 0)],
    ids=lambda x: str(x),
)
def test_sum_actions_per_played_rank(played, count):
    # Multisets of 2+ number cards (at most 4 of a rank) adding up to the played value.
    sums = [a for a in range(N_ACTIONS) if ACTION_KIND[a] == SUM and ACTION_RANK[a] == R(played)]
    assert len(sums) == count
    for a in sums:
        base = ACTION_BASE[a]
        assert len(base) >= 2 and sum(VALUE[r] for r in base) == VALUE[R(played)]
        assert max(Counter(base).values()) <= 4 and all(r < R(played) for r in base)


def test_action_names_unique_and_readable():
    strings = [action_to_string(a) for a in range(N_ACTIONS)]
    assert len(set(strings)) == N_ACTIONS
    assert action_to_string(act("7")) == "7 trails"
    assert action_to_string(act("5", "match", "5")) == "5 takes 5"
    assert action_to_string(act("7", "sum", "3 4"), escalera=ranks("J Q K")) == "7 takes 3+4, then J Q K"


@pytest.mark.parametrize("a", range(53), ids=lambda a: f"action-{a}")
def test_choice_to_action_round_trip(a):
    kind = {TRAIL: "trail", MATCH: "match", SUM: "sum"}[ACTION_KIND[a]]
    assert choice_to_action(ACTION_RANK[a], kind, list(ACTION_BASE[a])) == a
