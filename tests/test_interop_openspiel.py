"""The OpenSpiel game `python_cuarenta`: OpenSpiel's own random simulation test for every preset and player
count, the same game as our engine, information states that hide what a seat cannot see, and OpenSpiel's
IS-MCTS playing in our arena."""

import json
import random

import pytest

pyspiel = pytest.importorskip("pyspiel")

from cuarenta_tutor.cli import main  # noqa: E402
from cuarenta_tutor.engine import PRESETS, Dealer, legal_actions, preset  # noqa: E402
from cuarenta_tutor.interop import openspiel  # noqa: E402
from cuarenta_tutor.players import make as make_policy  # noqa: E402


def late_state(game, seed: int = 10):
    """The first play of a seeded random game at which a team has 30 points or more (seed 10, 2 v 2: 38-26)."""
    rng, state = random.Random(seed), game.new_initial_state()
    while state.engine is None or max(state.engine.scores) < 30 or state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                                      else state.legal_actions()))
    return state


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rules", list(PRESETS))
def test_openspiels_random_simulation_test_passes_with_serialization(rules, players):
    # every state of the simulated games serialized and read back: under the standard rules to a won game (1 v 1 two
    # games from the first dealer; 2 v 2, whose games are long, from a team's 30 points on); the other presets, which
    # the adapter only hands to the engine, from the first dealer for two hands, then ended drawn
    hands = "" if rules == "standard" else ",max_hands=2"
    game = pyspiel.load_game(f"python_cuarenta(rules={rules},players={players}{hands})")
    assert game.num_players() == players and game.num_distinct_actions() == 53
    start = late_state(game) if rules == "standard" and players == 4 else None
    pyspiel.random_sim_test(game, num_sims=2 if players == 2 else 1, serialize=True, verbose=False,
                            specific_initial_state=start)


@pytest.mark.parametrize("players", [2, 4])
def test_the_game_is_our_engines_game_dealt_as_the_dealer_deals(players):
    rules = preset("standard", players=players)
    dealer = Dealer(7)
    engine, _ = dealer.start(rules, 1)
    state = pyspiel.load_game("python_cuarenta", {"players": players}).new_initial_state()
    state.apply_action(1)  # the first dealer
    rng = random.Random(7)
    while not state.is_terminal():
        if state.is_chance_node():  # the cards in the Dealer's deck order
            deck = dealer.deck(state.engine.hand_no)
            drawn = len(state.pending) + (40 - len(state.engine.stock))
            assert deck[drawn] in dict(state.chance_outcomes())
            state.apply_action(deck[drawn])
            continue
        assert state.engine == engine and state.current_player() == engine.turn
        assert state.legal_actions() == sorted(legal_actions(engine))
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        engine, _ = dealer.play(engine, action)
    winner = engine.winner
    assert state.returns() == [1.0 if seat % 2 == winner else -1.0 for seat in range(players)]
    assert sum(state.returns()) == 0


def test_information_states_show_the_own_hand_only_and_survive_a_resample():
    game = pyspiel.load_game("python_cuarenta")
    state, rng = game.new_initial_state(), random.Random(3)
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    me, other = state.current_player(), 1 - state.current_player()
    mine = state.information_state_string(me)
    theirs = [openspiel.card_str(c, ascii_only=True) for c in state.engine.hands[other]]
    assert all(card not in mine.split("|hand ")[1] for card in theirs)
    seen = set()
    for i in range(20):
        sample = state.resample_from_infostate(me, lambda i=i: i / 20)
        assert sample.information_state_string(me) == mine and sample.legal_actions() == state.legal_actions()
        assert sample.engine.hands[me] == state.engine.hands[me]
        seen.add(sample.engine.hands[other])
    assert len(seen) > 1  # the other hand is redrawn
    tensor = state.information_state_tensor(me)
    assert len(tensor) == game.information_state_tensor_size() and any(tensor)


def test_openspiels_ismcts_plays_in_our_arena(capsys):
    runs = []
    for _ in range(2):
        assert main(["arena", "openspiel:ismcts:2", "random", "--games", "2", "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out.strip().splitlines()[-1]))
    assert runs[0]["games"] == 2 and runs[0]["a"]["policy"] == "openspiel:ismcts:2"
    assert runs[0]["a"]["wins"] + runs[0]["b"]["wins"] == 2
    for run in runs:  # the same seeds, the same games (times aside)
        for side in ("a", "b"):
            run[side].pop("decision_ms")
    assert {k: v for k, v in runs[0].items() if "ms" not in k} == {k: v for k, v in runs[1].items() if "ms" not in k}
    with pytest.raises(ValueError, match="ismcts or ismcts:SIMS"):
        make_policy("openspiel:mcts")


@pytest.mark.parametrize("max_hands", [0, -1, 10**9])
def test_a_game_of_no_hands_or_without_end_is_refused(max_hands):
    with pytest.raises(ValueError, match=f"max_hands must be 1 to 10000, not {max_hands}"):
        pyspiel.load_game(openspiel.NAME, {"max_hands": max_hands})
    assert pyspiel.load_game(openspiel.NAME, {"max_hands": 1}).max_game_length() > 1
