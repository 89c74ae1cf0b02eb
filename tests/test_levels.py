"""Levels of play: the names, the strong level's search, and the adaptive ladder following simulated players
(a weak one and a strong one) toward results near 50%."""

import json

import pytest

from cuarenta_tutor import players, records
from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.engine import Dealer, legal_actions, preset
from cuarenta_tutor.table import Table

FAST_RUNGS = ("random",) + players.RUNGS[1:-1] + ("strong:8",)
"""The ladder with its ends made quick for simulated games: random play by the random bot (the rung's network with
every move random plays as randomly, but runs the network at each move of long games), a strong rung of 8 worlds
(no time budget)."""


def person_wins(person: str, agent: str, seed: int) -> bool:
    """One game of a bot in the person's seat (0) against the agent at a level."""
    table = Table(preset("standard"), [make_policy(person, seed), players.make(agent, seed + 1)], Dealer(seed))
    table.start()
    table.run()
    return table.state.winner == 0


def simulate(person: str, games: int) -> tuple[players.Ladder, list]:
    ladder, results = players.Ladder(rungs=FAST_RUNGS), []
    for g in range(games):
        won = person_wins(person, ladder.spec, 100 + g)
        results.append(won)
        ladder.record(f"game-{g}", won)
    return ladder, results


@pytest.mark.parametrize("person, direction", [("random", -1), ("expert", 1)])
def test_the_adaptive_level_moves_toward_the_player_and_their_results_toward_half(person, direction):
    ladder, results = simulate(person, 24)
    start = players.START_RUNG
    assert (ladder.rung - start) * direction >= 2  # the random player brings it down, the expert up
    first, last = sum(results[:5]) / 5, sum(results[-12:]) / 12  # far from their level at first, then near
    assert abs(last - 0.5) < abs(first - 0.5) and 0.25 <= last <= 0.75
    assert [g["rung"] for g in ladder.games][:2] == [start, start + (1 if results[0] else -1)]


def test_a_game_counts_once_and_the_ladder_survives_a_restart_and_damage():
    ladder = players.load_ladder()
    assert ladder.rung == players.START_RUNG and ladder.problem is None
    ladder.record("g1", True)
    assert ladder.record("g1", True) == players.START_RUNG + 1  # the same game again: no second step
    players.save_ladder(ladder)
    again = players.load_ladder()
    assert again.rung == players.START_RUNG + 1 and again.games == ladder.games
    players.ladder_path().write_text('{"schema_version": 1, "rung": 99, "games": []}')
    broken = players.load_ladder()
    assert broken.rung == players.START_RUNG and "damaged" in broken.problem and "\n" not in broken.problem


def test_level_names_make_policies_and_refuse_what_they_cannot_be():
    assert players.make("club").name == "club" and players.make("beginner").blunder == players.BEGINNER_EPS
    strong = players.make("strong:16")
    assert strong.name == "strong:16" and strong.worlds == 16 and strong.search.infer
    assert players.make("strong").worlds is None  # the time budget
    with pytest.raises(ValueError, match="a person's games"):
        players.make("adaptive")
    with pytest.raises(ValueError, match="number of worlds"):
        players.make("strong:many")
    assert players.rung_name("onnx@eps=1") == "random play"
    assert players.rung_name("onnx@eps=0.35") == "the network with 35% random moves"


def test_a_players_name_is_parsed_once_into_a_value_that_builds_it_for_any_seed(monkeypatch):
    import pickle

    from cuarenta_tutor import agents
    from cuarenta_tutor.arena import run_match

    spec = players.parse("search:4@infer")
    assert spec.agent == agents.AgentSpec("search", "search:4@infer", samples=4, infer=True)
    assert pickle.loads(pickle.dumps(spec)) == spec  # an arena sends it to its worker processes
    assert spec.make(1).name == make_policy("search:4@infer", 1).name
    assert players.parse("strong:16").worlds == 16 and players.parse("club", model="m.onnx").model == "m.onnx"
    with pytest.raises(ValueError, match="unknown policy 'grandmaster'"):
        players.parse("grandmaster")
    calls = []
    real = players.parse_agent
    counted = lambda text: calls.append(text) or real(text)  # noqa: E731
    monkeypatch.setattr(players, "parse_agent", counted)
    monkeypatch.setattr(agents, "parse_agent", counted)  # what agents.make_policy parses with
    run_match("random", "greedy", 4, jobs=1, seed=3)
    assert calls == ["random", "greedy"]  # once a side, not once a game
    calls.clear()
    club = players.parse("beginner")
    assert club.make(1).blunder == players.BEGINNER_EPS and club.make(2).name == "beginner" and calls == []


def test_a_games_level_is_read_once_into_a_value():
    assert players.Level.of(None) == players.Level("club") and players.Level.of(None).spec == "club"
    strong = players.Level.of("strong")
    assert (strong.adaptive, strong.spec, str(strong)) == (False, "strong", "strong")
    rung = players.Level.of("adaptive:onnx@eps=0.5")
    assert rung.adaptive and rung.spec == "onnx@eps=0.5"
    assert str(rung) == "adaptive, now the network with 50% random moves"


def test_the_strong_level_plays_the_searchs_choice_with_the_networks_probabilities_and_values():
    strong, club = players.make("strong:16", 3), players.make("club", 3)
    table = Table(preset("standard"), [strong, make_policy("expert", 3)], Dealer(3), watchers=[(0, club)])
    table.start(seeds=[3, 4])
    chosen = []
    while len(chosen) < 12:
        state = table.state
        if state.turn != 0 or len(legal_actions(state)) < 2:
            table.step()
            continue
        network = club.decide(state)  # the same memory: it watched the same game from the same seat
        step = table.step()
        decision = step.decision
        assert decision.probs == network.probs and decision.action_values == network.action_values
        assert decision.value == network.value
        chosen.append(decision.action == max(network.probs, key=network.probs.get))
    assert not all(chosen) and any(chosen)  # the search overrides the network's first choice, not always


def test_the_strong_level_takes_the_caida_the_network_would_take_anyway():
    from cuarenta_tutor.engine import make_position, match_action, parse_rank

    state = make_position(hands=[["7", "2", "K", "4", "5"], ["3", "6", "J", "Q", "A"]], table=["7"], trailed="7")
    strong = players.make("strong:16", 1)
    strong.reset(0, 1)
    strong.observe(state, ())
    assert strong.decide(state).action == match_action(parse_rank("7"))


def test_a_record_keeps_its_level():
    record = records.new_record(preset("standard"), 1, 0, [("human", "You"), ("onnx", "Agent")], 0)
    record.level = "adaptive:onnx@eps=0.5"
    data = records.to_json(record)
    assert records.from_json(json.loads(json.dumps(data))).level == "adaptive:onnx@eps=0.5"
    record.level = None
    assert "level" not in records.to_json(record)  # a game without a level is written as before
    with pytest.raises(records.RecordError, match="level"):
        records.from_json({**data, "level": 7})


def finish(session):
    """Play a session to its end, the person always playing their first legal move."""
    from cuarenta_tutor.engine import legal_actions

    while not session.over:
        if session.human_turn:
            session.play_human(legal_actions(session.state)[0])
        else:
            session.play_agent()
    return session


def test_an_adaptive_game_refuses_takebacks_and_moves_the_ladder_once():
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.engine import IllegalMove, legal_actions

    session = GameSession.new(seed=5, dealer=1, level="adaptive")
    assert session.record.level == f"adaptive:{players.RUNGS[players.START_RUNG]}" and session.adaptive
    session.play_human(legal_actions(session.state)[0])
    session.play_agent()
    with pytest.raises(IllegalMove, match="no takebacks in an adaptive game") as caught:
        session.take_back()
    assert caught.value.reason == "adaptive_game"
    finish(session)
    won = session.state.winner == 0
    said = session.count_result()
    assert ("up" if won else "down") in said
    assert players.load_ladder().rung == players.START_RUNG + (1 if won else -1)
    session.count_result()  # the same game again (the dialog shown twice): no second step
    assert players.load_ladder().rung == players.START_RUNG + (1 if won else -1)
    resumed = GameSession.resume(records.games_dir() / f"{session.record.game_id}.json")
    assert resumed.record.level == session.record.level and resumed.agent.blunder == 0.5
    club = finish(GameSession.new(seed=6, dealer=1))
    assert club.record.level == "club" and club.count_result() is None


async def test_the_new_game_dialog_chooses_the_level_and_remembers_it():
    from helpers import settle
    from textual.widgets import Select

    from cuarenta_tutor.tui import make_app
    from cuarenta_tutor.tui.home import NewGame
    from cuarenta_tutor.tui.play import PlayScreen

    app = make_app(agent_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewGame) and dialog.query_one("#level", Select).value == "club"
        dialog.query_one("#level", Select).value = "beginner"
        dialog.query_one("#seed").value = "12"
        await pilot.click("#start")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.session.record.level == "beginner"
        assert "level beginner" in str(app.screen.query_one("#agent").render())
    assert records.load_settings()[0].level == "beginner"
