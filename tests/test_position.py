"""The one-line position notation: round trips on positions of real games, and refusals that name the field."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuarenta_tutor.engine import PRESETS, Dealer, legal_actions, preset
from cuarenta_tutor.position import Position, PositionError, from_json, from_state, parse, to_json, to_line, to_state

EXAMPLE = "standard 2p d1 s0 | 26-30 c5-6 | hand 3 5 K | table 2 4 7 | last 7 | stock 20 | gone A A 6 Q"


def game_states(name: str, players: int, seed: int):
    """Every state of a game of random legal moves where a seat is to move."""
    rng = random.Random(seed)
    dealer = Dealer(seed)
    state, _ = dealer.start(preset(name, players=players))
    while not state.is_over:
        yield state
        state, _ = dealer.play(state, rng.choice(legal_actions(state)))


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("name", list(PRESETS))
def test_positions_of_real_games_round_trip(name, players):
    count = 0
    for seed in range(3):
        for state in game_states(name, players, seed):
            for known in (True, False):
                position = from_state(state, known=known)
                line = to_line(position)
                assert parse(line) == position, line
                assert to_line(parse(line)) == line
                assert from_json(json.loads(json.dumps(to_json(position)))) == position
                world = to_state(position, random.Random(count))
                assert legal_actions(world) == legal_actions(state), line
                if known:  # every captured card named: the world's view is the position again
                    assert from_state(world) == position, line
                count += 1
    assert count > 100


def test_the_example_line_reads():
    position = parse(EXAMPLE)
    assert position.hand == (2, 4, 9) and position.table == (1, 3, 6) and position.last == 6
    assert position.score == (26, 30) and position.carton == (5, 6) and position.stock == 20
    assert to_line(position) == EXAMPLE
    assert parse("standard 2p d1 s0 | 26-30 c5-6 | hand K 3h 5 | table 2 4 7 | last 7 | stock 20 | gone Q 6 A A") \
        == position  # suits dropped, hand and gone in any order


def test_leaving_out_what_is_not_known():
    position = parse("pagat 4p d3 s0 | 0-0 c0-0 | hand A 2 3 4 5 | stock 20")
    assert position.table == () and position.last is None and position.gone == ()
    assert to_line(position) == "pagat 4p d3 s0 | 0-0 c0-0 | hand A 2 3 4 5 | table - | stock 20"
    world = to_state(position, random.Random(1))
    assert [len(h) for h in world.hands] == [5, 5, 5, 5] and len(world.stock) == 20


REFUSALS = [
    ("standard 2p d1 s0 | 0-0 c3-3 | hand 7 7 7 | table 7 7 | stock 30", "table", "fifth 7"),
    ("standard 2p d1 s0 | 0-0 c3-3 | hand 7 7 | table 7 | stock 30 | gone 7 7", "gone", "fifth 7"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 4 5 6 | stock 30", "hand", "1 to 5 cards"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 | table 4 5 6 7 J Q | stock 30", "hand", "more than the 10 dealt"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 | stock 25", "stock", "30 20 10 0"),
    ("standard 4p d1 s2 | 0-0 c0-0 | hand A 2 3 | stock 30", "stock", "20 0"),
    ("standard 2p d1 s0 | 40-30 c0-0 | hand A 2 3 4 5 | stock 30", "score", "0 to 39"),
    ("standard 2p d1 s0 | 0-0 c8-12 | hand A 2 3 | table 4 | stock 30", "carton", "add up to 3"),
    ("standard 2p d1 s1 | 0-0 c0-0 | hand A 2 3 4 | table 5 6 7 | last 6 | stock 30", "last", "newest card"),
    ("standard 2p d1 s1 | 0-0 c0-0 | hand A 2 3 4 | table 5 6 7 | last 5 | stock 30", "last", "newest card"),
    ("standard 2p d1 s0 | 0-0 c4-5 | hand A 2 3 4 5 | table 6 | last 6 | stock 20", "last", "nobody has played"),
    ("standard 2p d1 s1 | 0-0 c2-0 | hand A 2 3 4 | table 5 | stock 30 | gone 6 6 6", "gone", "only 2"),
    ("blitz 2p d1 s0 | 0-0 c0-0 | hand A 2 3 4 5 | stock 30", "preset", "quito_todo_dos"),
    ("standard 3p d1 s0 | 0-0 c0-0 | hand A 2 3 4 5 | stock 30", "players", "2p or 4p"),
    ("standard 2p d2 s0 | 0-0 c0-0 | hand A 2 3 4 5 | stock 30", "dealer", "0 to 1"),
    ("standard 4p d1 s7 | 0-0 c0-0 | hand A 2 3 4 5 | stock 20", "seat", "0 to 3"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 9 | stock 30", "hand", "not a card"),
    ("standard 2p d1 s0 | 0-0 c0-0 | stock 30", "hand", "missing"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A | hand 2 | stock 30", "hand", "twice"),
    ("standard 2p d1 s0 | 0-0 | hand A 2 3 4 5 | stock 30", "carton", "26-30 c8-12"),
    ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 4 5 | stock 30 | deck 3", "line", "not a part"),
]


@pytest.mark.parametrize(("line", "field", "words"), REFUSALS)
def test_impossible_positions_are_refused_naming_the_field(line, field, words):
    with pytest.raises(PositionError) as refused:
        parse(line)
    assert refused.value.field == field
    assert str(refused.value).startswith(field + ":") and words in str(refused.value)


def test_refusals_speak_spanish(spanish):
    with pytest.raises(PositionError) as refused:
        parse("standard 2p d1 s0 | 0-0 c3-3 | hand 7 7 7 | table 7 7 | stock 30")
    assert refused.value.field == "table" and "quinto 7" in str(refused.value)
    with pytest.raises(PositionError, match="no hay ningún reparto"):
        parse("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 | stock 25")


def test_json_refusals_name_the_key():
    good = to_json(parse(EXAMPLE))
    for key, value in (("players", "2"), ("score", [26]), ("hand", "3 5 K"), ("last", 7), ("stock", None),
                       ("preset", 1)):
        with pytest.raises(PositionError) as refused:
            from_json({**good, key: value})
        assert refused.value.field == key
    with pytest.raises(PositionError):
        from_json([good])


def test_the_other_hands_follow_from_the_dealer_and_the_seat():
    position = parse("standard 4p d0 s3 | 0-0 c3-4 | hand 2 3 4 | table 5 6 7 | last 7 | stock 20")
    assert position.hand_sizes() == (3, 2, 2, 3)  # seats 1 and 2 have played this round, 3 and 0 not yet
    world = to_state(position, random.Random(0))
    assert [len(h) for h in world.hands] == [3, 2, 2, 3] and world.deal_no == 0 and world.trailed == 6


def test_a_state_is_seen_by_the_seat_to_move():
    state, _ = Dealer(0).start(preset("standard"))
    with pytest.raises(PositionError) as refused:
        from_state(state, seat=1 - state.turn)
    assert refused.value.field == "seat"


def test_a_position_value_is_checked_when_built():
    with pytest.raises(PositionError):
        Position("standard", 2, 1, 0, (0, 0), (0, 0), (0,) * 5, (), None, 30, ())


FIELDS = {"preset", "players", "dealer", "seat", "score", "carton", "hand", "table", "last", "stock", "gone"}
WORDS = ["standard", "pagat", "2p", "4p", "d0", "d1", "s0", "s3", "|", "hand", "table", "last", "stock", "gone",
         "26-30", "c8-12", "c0-0", "A", "7", "K", "Q", "7h", "8", "-", "20", "30", "x", "", "99999999"]


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(st.sampled_from(WORDS), max_size=25).map(" ".join),
                 st.tuples(st.integers(0, 90), st.integers(0, 90), st.text(max_size=4)).map(
                     lambda t: EXAMPLE[:t[0]] + t[2] + EXAMPLE[t[1]:])))
def test_random_and_mangled_lines_give_a_position_or_a_position_error(line):
    try:
        position = parse(line)
    except PositionError as refusal:
        assert refusal.field and str(refusal) and "\n" not in str(refusal)
    else:
        assert parse(to_line(position)) == position
        world = to_state(position, random.Random(0))
        assert from_state(world, known=False) == from_json({**to_json(position), "gone": []})


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["preset", "players", "dealer", "seat", "score", "carton", "hand", "table", "last", "stock",
                        "gone", "other"]),
       st.one_of(st.none(), st.booleans(), st.integers(-5, 50), st.text(max_size=3),
                 st.lists(st.one_of(st.integers(-1, 40), st.text(max_size=2)), max_size=7)))
def test_mangled_json_gives_a_position_or_a_position_error(key, value):
    try:
        from_json({**to_json(parse(EXAMPLE)), key: value})
    except PositionError as refusal:  # a changed count may show in the field it no longer adds up with
        assert refusal.field == key or refusal.field in FIELDS


def test_the_documented_examples_read_and_print_back():
    from pathlib import Path

    doc = (Path(__file__).parents[1] / "docs" / "POSITION.md").read_text(encoding="utf-8")
    lines = [line for line in doc.splitlines() if line.split(" ", 1)[0] in PRESETS and "|" in line]
    assert len(lines) >= 4
    for line in lines:
        assert to_line(parse(line)) == line
    data = json.loads(doc.split("```json", 1)[1].split("```", 1)[0])
    assert from_json(data) == parse(EXAMPLE) and to_json(parse(EXAMPLE)) == data
    shown = [line for line in doc.split("## Refusals", 1)[1].split("```")[1].splitlines() if line]
    refused = []
    for line in ("standard 2p d1 s0 | 0-0 c0-0 | hand A 2 3 | stock 25", EXAMPLE.replace("c5-6", "c8-12")):
        with pytest.raises(PositionError) as refusal:
            parse(line)
        refused.append(str(refusal.value))
    assert shown == refused
