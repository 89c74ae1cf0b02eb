"""Audit of the engine against RULES.md: focused unit tests for the rules no other test names (each test names its
rule ID); the audit's rule cases (§15 format, tests/rules/rules_cases_audit.json) run in tests/test_conformance.py."""

from __future__ import annotations

from dataclasses import fields

import pytest

from cuarenta_tutor.engine import (
    ACTION_KIND,
    MATCH,
    SUM,
    TRAIL,
    Caida,
    Dealer,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    IllegalMove,
    Ronda,
    Rules,
    announcements,
    apply,
    carton_points,
    check_action,
    choice_to_action,
    deal,
    initial_state,
    legal_actions,
    make_position,
    parse_card,
    parse_rank,
    rank_of,
    trail_action,
    unseen_cards,
)
from cuarenta_tutor.engine.state import cards_for


def cards(text: str) -> list[int]:
    """Card ids for ranks ("5 5 K"), suits taken in turn: a hand for announcements()."""
    return cards_for(text.split(), set())


def move(state, played: str, kind: str = "trail", base: str = ""):
    return apply(state, choice_to_action(parse_rank(played), kind, [parse_rank(b) for b in base.split()],
                                         state.rules))


# R-DECK-4: the rules work on multisets of ranks; suits are display only.
def test_r_deck_4_suits_never_change_an_outcome():
    outcomes = set()
    for hand, table in ((["5s", "Kc"], ["5h", "6h", "2c"]), (["5c", "Kh"], ["5d", "6s", "2h"])):
        state = make_position(Rules(), hands=[hand, ["Qd"]], table=table, trailed="5", rondas=[None, "5"],
                              scores=(10, 0), turn=0)
        after, events = move(state, "5", "match", "5")
        outcomes.add((tuple(sorted(rank_of(c) for c in after.table)), tuple(sorted(rank_of(c) for c in after.piles[0])),
                      after.scores, tuple(type(e).__name__ for e in events)))
    assert outcomes == {((parse_rank("2"),), tuple(sorted(map(parse_rank, "5 5 6".split()))), (22, 0),
                         ("Played", "Caida"))}


# R-SEAT-2: direction is display only: no rules option for it, and play follows seat order from the dealer's next.
def test_r_seat_2_direction_is_not_a_rule():
    assert not {f.name for f in fields(Rules)} & {"direction", "clockwise", "counter_clockwise"}
    for dealer in range(4):
        state, _ = Dealer(1).start(Rules(players=4), dealer)
        order = []
        for _ in range(8):
            order.append(state.turn)
            state, _ = apply(state, trail_action(rank_of(state.hands[state.turn][0])))
        assert order == [(dealer + 1 + i) % 4 for i in range(8)]


# R-SEAT-3: partners share one pile and one score, and neither sees the other's hand.
def test_r_seat_3_partners_share_pile_and_score_not_hands():
    state = make_position(Rules(players=4), hands=[["A"], ["K"], ["4", "J"], ["Q"]], table=["4", "5"], turn=2,
                          trailed="4", scores=(6, 0), piles=(["7", "7"], []))
    after, _ = move(state, "4", "match", "4")  # seat 2: caída 2 + limpia 2 for team 0, run 5
    assert after.scores == (10, 0)
    assert sorted(rank_of(c) for c in after.piles[0]) == sorted(map(parse_rank, "4 4 5 7 7".split()))
    hidden = unseen_cards(after, 0)
    assert set(after.hands[2]) <= set(hidden) and not set(after.hands[0]) & set(hidden)


# R-ANN-2: announcements are processed in turn order from the seat after the dealer.
@pytest.mark.parametrize("dealer", range(4))
def test_r_ann_2_order_starts_after_the_dealer(dealer):
    hands = [cards("2 2 2 A K"), cards("3 3 3 A K"), cards("4 4 4 A K"), cards("5 5 5 J Q")]
    events, scores, winner, rondas = announcements(hands, dealer, (0, 0), Rules(players=4))
    assert [e.seat for e in events] == [(dealer + i) % 4 for i in range(1, 5)]
    assert scores == (4, 4) and winner == -1 and rondas == tuple(map(parse_rank, "2 3 4 5".split()))


# R-ANN-3: of two four of a kinds in one deal, the first in R-ANN-2 order wins, whatever the scores.
@pytest.mark.parametrize("dealer", [0, 1])
def test_r_ann_3_first_four_of_a_kind_in_order_wins(dealer):
    hands = [cards("7 7 7 7 A"), cards("Q Q Q Q 2")]
    events, scores, winner, _ = announcements(hands, dealer, (2, 36), Rules())
    assert events == [FourOfAKind(1 - dealer, 1 - dealer)]
    assert winner == 1 - dealer and scores == (2, 36)


# R-ANN-3 variant: a doble ronda scores four_of_a_kind_points once (not also as a ronda), under ronda_cutoff.
def test_r_ann_3_doble_ronda_is_not_also_a_ronda():
    rules = Rules(four_of_a_kind="points", four_of_a_kind_points=8)
    events, scores, winner, _ = announcements([cards("7 7 7 7 A"), cards("2 3 4 5 6")], 1, (0, 0), rules)
    assert events == [Ronda(0, 0, 8, "doble_ronda")] and scores == (8, 0) and winner == -1
    events, scores, _, _ = announcements([cards("7 7 7 7 A"), cards("2 3 4 5 6")], 1, (30, 0), rules)
    assert events == [Ronda(0, 0, 0, "doble_ronda")] and scores == (30, 0)


# R-ANN-7: rondas score on the deal itself; no action claims them (every action trails, matches or adds).
def test_r_ann_7_rondas_score_without_a_claim():
    assert set(ACTION_KIND) == {TRAIL, MATCH, SUM}
    deck = [parse_card(c) for c in "5s 5h 5d 2s Ks As 3s 4s 6s 7s".split()]
    deck += [c for c in range(40) if c not in deck]
    state, events = Dealer(0, [deck]).start(Rules(), dealer=0)
    assert [e for e in events if isinstance(e, Ronda)] == [Ronda(1, 1, 2, "ronda")]
    assert state.scores == (0, 2) and state.plays == 0


# R-ANN-8: after each award the engine checks for a win; processing stops at the first.
def test_r_ann_8_processing_stops_at_the_first_win():
    rules = Rules(ronda_cutoff=None)
    events, scores, winner, _ = announcements([cards("3 3 3 A K"), cards("Q Q Q Q 2")], 1, (38, 0), rules)
    assert events == [Ronda(0, 0, 2, "ronda")] and scores == (40, 0) and winner == 0


# R-BONUS-2: the ronda-caída bonus is awarded at once, as part of the caída play, mid-deal.
def test_r_bonus_2_bonus_is_scored_in_the_caida_play():
    state = make_position(Rules(), hands=[["5", "A"], ["Q", "K"]], table=["5", "J"], trailed="5",
                          rondas=[None, "5"], scores=(4, 0))
    after, events = move(state, "5", "match", "5")
    assert [e for e in events if isinstance(e, Caida)] == [Caida(0, 0, 2, 10)]
    assert after.scores == (16, 0) and any(after.hands)


# R-CAIDA-6: a player able to make a caída may choose another option or trail; only the choice scores.
def test_r_caida_6_the_caida_may_be_declined():
    state = make_position(Rules(), hands=[["5", "A"], ["Q", "K"]], table=["2", "3", "5"], trailed="5",
                          rondas=[None, "5"])
    points = {}
    for kind, base in (("match", "5"), ("sum", "2 3"), ("trail", "")):
        after, _ = move(state, "5", kind, base)
        points[kind] = after.scores[0]
    assert points == {"match": 12, "sum": 0, "trail": 0}


# R-CARTON-4 / R-WIN-3: only one team can receive cartón points in a hand.
def test_r_carton_4_only_one_team_scores_carton():
    for dealer_team in (0, 1):
        for a in range(41):
            for b in range(41 - a):
                p = carton_points((a, b), dealer_team, (0, 0), Rules())
                assert min(p) == 0 and max(p) > 0, (a, b, dealer_team, p)


# R-CARTON-4 / R-DEAL-5: after the cartón (no win) the next hand starts, dealt by the next seat.
def test_r_carton_4_next_hand_starts_after_the_carton():
    state = make_position(Rules(), hands=[[], ["5"]], table=["5", "K"], turn=1, dealer=1, scores=(10, 20),
                          piles=(["A"] * 4 + ["2"] * 4 + ["3"] * 4 + ["4"] * 4 + ["6"] * 4 + ["7"] * 2, []))
    after, events = move(state, "5", "match", "5")  # team 1: 2 cards; team 0: 22 cards -> 8
    assert [e for e in events if isinstance(e, HandEnded)][0].carton == (8, 0)
    assert after.scores == (18, 20) and after.hand_no == 1 and after.dealer == 0 and after.turn == 1
    assert after.needs_deal and len(after.stock) == 40 and after.table == () and after.piles == ((), ())


# R-DEAL-6: the engine deals; an irregular deal is refused, never penalised.
def test_r_deal_6_irregular_deal_is_refused():
    assert not {f.name for f in fields(Rules)} & {"misdeal", "misdeal_penalty"}
    state = initial_state(Rules(), dealer=0)
    for bad in (state.stock[:9], state.stock[:9] + state.stock[:1]):
        with pytest.raises(IllegalMove) as err:
            deal(state, bad)
        assert err.value.reason == "bad_deal"


# R-END-1: a hand ends when the last card of its last deal has been played, and only then.
@pytest.mark.parametrize("players", [2, 4])
def test_r_end_1_hand_ends_after_the_last_card_of_the_last_deal(players):
    deck = [r * 4 + s for s in range(4) for r in range(10)]  # no deal holds a ronda
    dealer = Dealer(0, [deck, deck])
    state, events = dealer.start(Rules(players=players), dealer=0)
    ends, deals = [], 1
    for n in range(1, 41):
        state, events = dealer.play(state, trail_action(rank_of(state.hands[state.turn][0])), next_hand=False)
        ends += [n for e in events if isinstance(e, HandEnded)]
        deals += sum(isinstance(e, Dealt) for e in events)
    assert ends == [40] and deals == 40 // (5 * players)
    assert state.scores == (0, 2)  # 0-0 cards: the non-dealing team's 2


# R-WIN-4: after a win the engine reports the winner and the final scores, and refuses any later play.
def test_r_win_4_win_reports_winner_and_final_scores():
    state = make_position(Rules(), hands=[["K", "A"], ["Q", "J"]], table=["K"], trailed="K", scores=(36, 30))
    after, events = move(state, "K", "match", "K")
    assert events[-1] == GameWon(0, (40, 30)) and after.winner == 0 and after.scores == (40, 30)
    assert legal_actions(after) == ()
    with pytest.raises(IllegalMove) as err:
        check_action(after, trail_action(parse_rank("A")))
    assert err.value.reason == "game_over"
