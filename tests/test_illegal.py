"""Illegal input: every illegal move raises IllegalMove (a ValueError) with a reason code and a message
that says why in plain words; arbitrary garbage as an action never raises anything else."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cuarenta_tutor.engine import (
    N_ACTIONS,
    RANKS,
    Dealer,
    IllegalMove,
    Rules,
    apply,
    check_action,
    choice_to_action,
    is_legal,
    legal_actions,
    make_position,
    preset,
    rank_of,
)

from .test_rules import R, names, ranks


def test_illegal_move_is_a_value_error_with_a_reason():
    err = IllegalMove("why", "some_reason")
    assert isinstance(err, ValueError)
    assert err.reason == "some_reason" and str(err) == "why" and err.rule is None


RULES_TEXT = (Path(__file__).parents[1] / "docs" / "RULES.md").read_text(encoding="utf-8")


def assert_names_its_rule(err: IllegalMove) -> None:
    """An illegal move's message ends with the id of the rule it breaks, one RULES.md defines."""
    assert err.rule and str(err).endswith(f"({err.rule})"), str(err)
    assert f"**{err.rule}" in RULES_TEXT, f"{err.rule} is not a rule of RULES.md"


# --------------------------------------------------------------------------------------------------
# Naming a move that the rules never allow: choice_to_action
# --------------------------------------------------------------------------------------------------

CHOICE_CASES = [
    # id, played, kind, base, reason, words in the message
    ("one-card-sum", "5", "sum", "4", "short_sum", "a sum needs two or more cards"),
    ("one-equal-card-sum", "5", "sum", "5", "short_sum", "a sum needs two or more cards"),
    ("empty-sum", "5", "sum", "", "short_sum", "a sum needs two or more cards"),
    ("face-card-played-as-sum", "J", "sum", "3 4", "face_sum", "J, Q and K have no value"),
    ("K-played-as-sum", "K", "sum", "A 2", "face_sum", "no value"),
    ("face-card-in-sum", "7", "sum", "J 3 4", "face_in_sum", "J, Q and K have no value"),
    ("Q-in-sum", "5", "sum", "Q 5", "face_in_sum", "no value"),
    ("match-plus-sum-as-match", "5", "match", "5 2 3", "one_capture", "one capture"),
    ("match-of-two-ranks", "5", "match", "5 4", "one_capture", "one capture"),
    ("match-plus-sum-as-sum", "5", "sum", "5 2 3", "bad_sum", "add up to 10, not 5"),
    ("two-disjoint-sums", "5", "sum", "A 4 2 3", "bad_sum", "add up to 10, not 5"),
    ("sum-plus-extra-card", "5", "sum", "2 3 A", "bad_sum", "add up to 6, not 5"),
    ("sum-too-small", "7", "sum", "2 3", "bad_sum", "add up to 5, not 7"),
    ("match-wrong-rank", "5", "match", "4", "bad_match", "a match takes a card of the same rank"),
    ("match-nothing", "5", "match", "", "bad_match", "a match takes a card of the same rank"),
    ("trail-that-takes", "5", "trail", "2 3", "trail_takes", "a trail takes nothing"),
    ("unknown-kind", "5", "steal", "5", "bad_kind", "not a kind of move"),
    ("five-aces", "6", "sum", "A A A A A A", "too_many", "only four cards of each rank"),
]


@pytest.mark.parametrize(
    "played,kind,base,reason,words",
    [c[1:] for c in CHOICE_CASES],
    ids=[c[0] for c in CHOICE_CASES],
)
def test_choice_to_action_refuses_with_reason(played, kind, base, reason, words):
    with pytest.raises(IllegalMove) as err:
        choice_to_action(R(played), kind, ranks(base))
    assert err.value.reason == reason
    assert words in str(err.value)
    assert_names_its_rule(err.value)


def test_choice_to_action_match_all_variant_still_refuses_other_ranks():
    rules = Rules(match_takes_all_same_rank=True)
    assert choice_to_action(R("6"), "match", ranks("6 6"), rules) == 10 + R("6")
    with pytest.raises(IllegalMove) as err:
        choice_to_action(R("6"), "match", ranks("6 6 2"), rules)
    assert err.value.reason == "one_capture"


# --------------------------------------------------------------------------------------------------
# Moves that name a real action but are illegal in the position: check_action / is_legal / apply
# --------------------------------------------------------------------------------------------------


def action(played: str, kind: str = "trail", base: str = "") -> int:
    return choice_to_action(R(played), kind, ranks(base))


POSITION_CASES = [
    # id, overrides, hand, table, move (played, kind, base), reason, words
    ("rank-not-in-hand-trail", {}, "2 3", "", ("5", "trail", ""), "not_in_hand", "has no 5 in hand"),
    ("rank-not-in-hand-match", {}, "2 3", "5", ("5", "match", "5"), "not_in_hand", "has no 5 in hand"),
    ("rank-not-in-hand-sum", {}, "2 3", "2 3", ("5", "sum", "2 3"), "not_in_hand", "has no 5 in hand"),
    ("match-with-nothing-to-match", {}, "5 K", "2 3", ("5", "match", "5"), "no_match", "there is no 5 on the table"),
    ("face-match-with-nothing", {}, "K", "Q", ("K", "match", "K"), "no_match", "there is no K on the table"),
    ("match-on-empty-table", {}, "5", "", ("5", "match", "5"), "no_match", "no 5 on the table"),
    ("sum-not-on-table", {}, "5", "2 4", ("5", "sum", "2 3"), "not_on_table", "the table does not hold"),
    ("sum-needs-two-aces", {}, "5", "A 3 2", ("5", "sum", "A A 3"), "not_on_table", "the table does not hold"),
    ("sum-on-empty-table", {}, "7", "", ("7", "sum", "3 4"), "not_on_table", "the table does not hold"),
    ("sum-too-long-max2", {"sum_max_cards": 2}, "5", "A A 3", ("5", "sum", "A A 3"), "sum_too_long",
     "at most 2 cards"),
    ("forced-capture-no-trail-sum", {"forced_capture": True}, "5 K", "2 3", ("5", "trail", ""), "forced_capture",
     "must capture"),
    ("forced-capture-no-trail-match", {"forced_capture": True}, "K 5", "K", ("K", "trail", ""), "forced_capture",
     "must capture"),
]


@pytest.mark.parametrize(
    "overrides,hand,table,move,reason,words",
    [c[1:] for c in POSITION_CASES],
    ids=[c[0] for c in POSITION_CASES],
)
def test_illegal_move_in_position(overrides, hand, table, move, reason, words):
    state = make_position(Rules().with_options(**overrides), hands=[names(hand), ["J"]], table=names(table))
    a = action(*move)
    assert a not in legal_actions(state)
    assert not is_legal(state, a)
    with pytest.raises(IllegalMove) as err:
        check_action(state, a)
    assert err.value.reason == reason and words in str(err.value)
    with pytest.raises(IllegalMove) as err:
        apply(state, a)
    assert err.value.reason == reason and words in str(err.value)
    assert_names_its_rule(err.value)


def test_forced_capture_still_lets_the_player_choose_the_card():
    state = make_position(Rules(forced_capture=True), hands=[["5", "K"], ["J"]], table=names("2 3"))
    assert is_legal(state, action("K"))
    assert is_legal(state, action("5", "sum", "2 3"))
    assert is_legal(make_position(Rules(), hands=[["5", "K"], ["J"]], table=names("2 3")), action("5"))


def test_card_argument_must_be_in_hand_and_of_the_rank():
    state = make_position(Rules(), hands=[["5", "K"], ["J"]], table=names("2 3"))
    five, king = state.hands[0]
    assert rank_of(five) == R("5") and rank_of(king) == R("K")
    other = state.hands[1][0]
    with pytest.raises(IllegalMove) as err:
        apply(state, action("5"), card=other)
    assert err.value.reason == "not_in_hand" and "not in seat 0's hand" in str(err.value)
    with pytest.raises(IllegalMove) as err:
        apply(state, action("5"), card=king)
    assert err.value.reason == "wrong_card" and "is not a 5" in str(err.value)
    after, _ = apply(state, action("5"), card=five)
    assert rank_of(after.table[-1]) == R("5")


def test_wrong_seat_cards_cannot_be_played():
    # Seat 1 holds the 5; seat 0 is on turn.
    state = make_position(Rules(), hands=[["2"], ["5"]], table=names("5"))
    with pytest.raises(IllegalMove) as err:
        apply(state, action("5", "match", "5"))
    assert err.value.reason == "not_in_hand" and "seat 0 has no 5 in hand" in str(err.value)


def _won_state():
    state = make_position(Rules(), hands=[["5", "6"], ["2", "3"]], table=names("5 K"), trailed="5",
                          scores=(38, 0))
    state, _ = apply(state, action("5", "match", "5"))
    assert state.is_over and state.winner == 0
    return state


@pytest.mark.parametrize(
    "move",
    [("2", "trail", ""), ("3", "trail", ""), ("5", "match", "5"), ("K", "match", "K")],
    ids=["seat1-trail-2", "seat1-trail-3", "match-5", "match-K"],
)
def test_any_move_after_the_game_is_over(move):
    state = _won_state()
    assert legal_actions(state) == ()
    a = action(*move)
    assert not is_legal(state, a)
    with pytest.raises(IllegalMove) as err:
        apply(state, a)
    assert err.value.reason == "game_over"
    assert "the game is over" in str(err.value) and "team 0 has won" in str(err.value)
    assert_names_its_rule(err.value)


@pytest.mark.parametrize("garbage", [-1, 53, None, "5", 2.0], ids=["neg", "53", "None", "str", "float"])
def test_garbage_after_game_over_is_game_over(garbage):
    with pytest.raises(IllegalMove) as err:
        apply(_won_state(), garbage)
    assert err.value.reason == "game_over"


# --------------------------------------------------------------------------------------------------
# Values that are not actions at all
# --------------------------------------------------------------------------------------------------


def _state_holding_every_low_rank():
    # Seat 0 holds A and 2 (trail ids 0 and 1 are legal), so bool/float look-alikes of legal ids are tested.
    return make_position(Rules(), hands=[["A", "2", "3", "5", "K"], ["J"]], table=names("4"))


NOT_ACTIONS = [
    ("minus-1", -1),
    ("53", 53),
    ("huge", 10**30),
    ("huge-negative", -(10**30)),
    ("None", None),
    ("str-digit", "1"),
    ("str-name", "A trails"),
    ("empty-str", ""),
    ("float-integral-legal", 0.0),
    ("float-integral-legal-1", 1.0),
    ("float-fraction", 1.5),
    ("nan", math.nan),
    ("inf", math.inf),
    ("true", True),
    ("false", False),
    ("tuple", (0,)),
    ("list", [1]),
    ("dict", {0: 0}),
    ("bytes", b"\x00"),
    ("complex", 1 + 0j),
]


@pytest.mark.parametrize("value", [c[1] for c in NOT_ACTIONS], ids=[c[0] for c in NOT_ACTIONS])
def test_non_actions_raise_illegal_move(value):
    state = _state_holding_every_low_rank()
    assert 0 in legal_actions(state) and 1 in legal_actions(state)
    assert not is_legal(state, value)
    with pytest.raises(IllegalMove) as err:
        check_action(state, value)
    assert err.value.reason == "no_such_action"
    assert f"0..{N_ACTIONS - 1}" in str(err.value) and "is not a move" in str(err.value)
    with pytest.raises(IllegalMove) as err:
        apply(state, value)
    assert err.value.reason == "no_such_action"


# --------------------------------------------------------------------------------------------------
# Property: arbitrary values as actions on random game states
# --------------------------------------------------------------------------------------------------

RULE_SETS = [
    Rules(),
    Rules(players=4),
    preset("pagat"),
    preset("agent_dory", players=4),
    preset("quito_todo_dos"),
    Rules(forced_capture=True),
    Rules(forced_capture=True, sum_max_cards=2, players=4),
    Rules(match_takes_all_same_rank=True, leftover_table_cards="last_capturer"),
]

ANY_VALUE = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-3, max_value=N_ACTIONS + 3),
    st.text(max_size=8),
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=0, max_value=N_ACTIONS - 1).map(float),
    st.tuples(st.integers(min_value=0, max_value=N_ACTIONS - 1)),
    st.tuples(st.integers(), st.text(max_size=3)),
    st.lists(st.integers(min_value=0, max_value=N_ACTIONS - 1), max_size=3),
)


@st.composite
def game_states(draw):
    """A state of a seeded game after random legal plays: on turn, over, or (sometimes) awaiting a deal."""
    rules = draw(st.sampled_from(RULE_SETS))
    seed = draw(st.integers(min_value=0, max_value=10**6))
    dealer = draw(st.integers(min_value=0, max_value=rules.players - 1))
    cards = Dealer(seed)
    state, _ = cards.start(rules, dealer)
    for _ in range(draw(st.integers(min_value=0, max_value=90))):
        if state.needs_deal:
            if draw(st.booleans()):
                break  # stop before the deal: no move is legal until the cards are dealt
            state, _ = cards.deal(state)
        legal = legal_actions(state)
        if not legal:
            break
        pick = draw(st.integers(min_value=0, max_value=N_ACTIONS - 1))
        state, _ = apply(state, legal[pick % len(legal)])
    return state


def _is_proper_int(value) -> bool:
    return type(value) is int


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_states(), values=st.lists(ANY_VALUE, min_size=1, max_size=6))
def test_arbitrary_values_only_ever_raise_illegal_move(state, values):
    legal = legal_actions(state)
    for value in values:
        is_legal_int = _is_proper_int(value) and value in legal
        try:
            after, events = apply(state, value)
        except IllegalMove as err:
            assert not is_legal_int, f"legal action {value!r} raised {err!r}"
            assert isinstance(err.reason, str) and err.reason and str(err)
            assert not is_legal(state, value)
        except Exception as err:  # noqa: BLE001 - the point of the test
            pytest.fail(f"apply({value!r}) raised {type(err).__name__}: {err} (only IllegalMove is allowed)")
        else:
            # Only real int action ids that are legal may be accepted; a bool or float look-alike may not.
            assert is_legal_int, f"apply accepted {value!r} ({type(value).__name__}), which is not a legal action id"
            assert isinstance(events, tuple) and after.plays == state.plays + 1


@settings(max_examples=150, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=game_states())
def test_legal_actions_never_raise(state):
    legal = legal_actions(state)
    if state.is_over:
        assert legal == ()
        return
    if state.needs_deal:
        assert legal == () and not any(state.hands)
        for a in range(N_ACTIONS):
            with pytest.raises(IllegalMove) as err:
                apply(state, a)
            assert err.value.reason == "deal_first"
        return
    assert legal, "a player on turn always has a legal move (R-TURN-2: no passing)"
    for a in legal:
        assert type(a) is int and 0 <= a < N_ACTIONS
        check_action(state, a)
        assert is_legal(state, a)
        after, events = apply(state, a)
        # A play never deals: exactly one card leaves the hands.
        assert sum(len(h) for h in after.hands) == sum(len(h) for h in state.hands) - 1
    for a in set(range(N_ACTIONS)) - set(legal):
        assert not is_legal(state, a)
        with pytest.raises(IllegalMove):
            apply(state, a)
    # The hand on turn only ever plays its own ranks.
    held = {RANKS[rank_of(c)] for c in state.hands[state.turn]}
    assert {RANKS[a % 10] for a in legal if a < 20} <= held
