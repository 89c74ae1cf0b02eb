"""The game session of a person against the shipped agent: what it saves replays to what it shows, a resumed
game goes on as if never stopped, illegal moves are refused with the rule, and its words name what happened."""

import json
import random

import pytest

from cuarenta_tutor import records
from cuarenta_tutor.app.session import AGENT, HUMAN, GameSession
from cuarenta_tutor.engine import (
    ACTION_RANK,
    RANKS,
    Caida,
    IllegalMove,
    Limpia,
    Played,
    apply,
    capture_options,
    card_str,
    legal_actions,
    make_position,
    match_action,
    parse_rank,
    preset,
    rank_of,
    seeded_deck,
    trail_action,
)

MODEL = "models/cuarenta-a2c-lstm.onnx"  # the shipped model, from the repository root (missing: the tests fail)


@pytest.fixture
def model(request):
    path = request.config.rootpath / MODEL
    assert path.is_file(), f"the shipped model {MODEL} is missing"
    return path


def human_move(session, rng):
    """A person's move: a caída when one is there (to make the words of one), else a seeded pick among the legal
    moves; the card is the last of its rank in hand (not the engine's default)."""
    state = session.state
    legal = legal_actions(state)
    caida = match_action(state.trailed) if state.trailed >= 0 else None
    action = caida if caida in legal else rng.choice(legal)
    card = [c for c in state.hands[HUMAN] if rank_of(c) == ACTION_RANK[action]][-1]
    return action, card


def play(session, rng, moves=None, on_human_turn=None):
    """Play on (person: `human_move`; agent: its own move) until the game ends or `moves` more were made;
    returns the MoveReports."""
    reports = []
    while not session.over and (moves is None or len(reports) < moves):
        if session.human_turn:
            if on_human_turn:
                on_human_turn(session)
            reports.append(session.play_human(*human_move(session, rng)))
        else:
            reports.append(session.play_agent())
    return reports


@pytest.fixture(scope="module")
def finished(tmp_path_factory, request):
    """A seeded game played to the end, saved in a temporary folder; (session, reports, states after each move)."""
    folder = tmp_path_factory.mktemp("games")
    session = GameSession.new("standard", seed=2, model_path=request.config.rootpath / MODEL, folder=folder)
    rng = random.Random(2)
    states = [session.state]
    reports = []
    while not session.over:
        reports += play(session, rng, moves=1)
        states.append(session.state)
    return session, reports, states


def test_a_whole_game_is_saved_and_its_replay_ends_in_the_session_state(finished):
    session, reports, states = finished
    path = session.folder / f"{session.record.game_id}.json"
    loaded = records.load(path)
    assert loaded == session.record and len(loaded.moves) == len(reports) == session.state.plays
    replayed = records.replay(loaded)
    assert replayed[-1] == session.state and replayed == states
    assert session.over and loaded.result == records.Result(session.state.winner, session.state.scores)
    on_disk = json.loads(path.read_text())
    assert on_disk["result"] == {"winner": session.state.winner, "scores": list(session.state.scores)}
    assert [m.seat for m in loaded.moves] == [r.seat for r in reports]
    assert [m["card"] for m in on_disk["moves"]] == [card_str(r.card, ascii_only=True) for r in reports]
    hands = range(session.state.hand_no + 1)  # every hand played was dealt from the seed's deck, and recorded
    assert loaded.decks == [[card_str(c, ascii_only=True) for c in seeded_deck(2, h)] for h in hands]


def test_annotations_are_on_exactly_the_persons_moves(finished):
    session, reports, states = finished
    moves = session.record.moves
    human = [i for i, m in enumerate(moves) if m.seat == HUMAN]
    assert human and len(human) < len(moves)
    assert [i for i, m in enumerate(moves) if m.annotation is not None] == human
    for i in human:
        note = moves[i].annotation
        assert (note["ply"], note["seat"], note["action"]) == (i, HUMAN, moves[i].action)
        assert note["best_action"] in legal_actions(states[i])
    assert session.win_history == [moves[i].annotation["win_after"] for i in human]
    assert all(r.annotation is None and r.decision is not None for r in reports if r.seat == AGENT)


def test_play_when_it_is_not_your_turn_is_refused(finished, model, tmp_path):
    session, _, _ = finished
    with pytest.raises(IllegalMove, match="the game is over") as over:
        session.play_human(0)
    assert over.value.reason == "not_your_turn"
    fresh = GameSession.new("standard", seed=7, model_path=model, folder=tmp_path)
    if fresh.human_turn:  # seed 7: who leads depends on the dealer; make it the agent's turn either way
        fresh.play_human(*human_move(fresh, random.Random(0)))
    assert fresh.state.turn == AGENT
    saved = (tmp_path / f"{fresh.record.game_id}.json").read_bytes()
    with pytest.raises(IllegalMove, match="not your turn") as err:
        fresh.play_human(trail_action(rank_of(fresh.state.hands[HUMAN][0])))
    assert err.value.reason == "not_your_turn"
    assert (tmp_path / f"{fresh.record.game_id}.json").read_bytes() == saved
    fresh.play_agent()
    with pytest.raises(IllegalMove) as agent:
        fresh.play_agent()
    assert agent.value.reason == "not_agent_turn"


def test_an_illegal_move_is_refused_with_the_rule_it_breaks(model, tmp_path):
    session = GameSession.new("standard", seed=3, model_path=model, folder=tmp_path)
    rng = random.Random(3)
    while not session.human_turn:
        play(session, rng, moves=1)
    state, moves = session.state, len(session.record.moves)
    table = {rank_of(c) for c in state.table}
    held = {rank_of(c) for c in state.hands[HUMAN]}
    no_match = next(r for r in sorted(held) if r not in table)  # seed 3: the person holds a rank the table lacks
    with pytest.raises(IllegalMove, match=f"{RANKS[no_match]} cannot match: there is no {RANKS[no_match]} on the table"
                       ) as err:
        session.play_human(match_action(no_match))
    assert err.value.reason == "no_match"
    missing = next(r for r in range(10) if r not in held)
    with pytest.raises(IllegalMove, match=f"has no {RANKS[missing]} in hand") as err:
        session.play_human(trail_action(missing))
    assert err.value.reason == "not_in_hand"
    other = next(c for c in range(40) if rank_of(c) in held and c not in state.hands[HUMAN])
    with pytest.raises(IllegalMove, match="not in seat 0's hand") as err:
        session.play_human(trail_action(rank_of(other)), other)
    assert err.value.reason == "not_in_hand"
    assert session.state is state and len(session.record.moves) == moves
    assert len(records.load(tmp_path / f"{session.record.game_id}.json").moves) == moves


def check_options(session):
    state = session.state
    for card in state.hands[HUMAN]:
        options = session.options_for(card)
        captures = capture_options([rank_of(c) for c in state.table], rank_of(card), state.rules)
        assert [o for o in options if o.kind != "trail"] == captures
        same_rank = sorted(a for a in legal_actions(state) if ACTION_RANK[a] == rank_of(card))
        assert sorted(o.action for o in options) == same_rank  # the engine's legal moves of that rank, no more
        trail = trail_action(rank_of(card))
        assert (options[-1].action == trail) == (trail in legal_actions(state))
        assert all(o.kind == "trail" for o in options if o.action == trail)


def test_options_for_a_card_are_its_captures_and_the_trail_when_legal(model, tmp_path):
    session = GameSession.new("standard", seed=11, model_path=model, folder=tmp_path)
    seen = []
    play(session, random.Random(11), moves=60, on_human_turn=lambda s: seen.append(check_options(s)))
    assert len(seen) >= 20
    # under forced capture a card that can take is never offered as a trail
    rules = preset("standard", forced_capture=True)
    record = records.new_record(rules, 11, 0, [("human", "You"), ("onnx", "Agent")], human_seat=HUMAN)
    forced = GameSession.resume(records.save(record, tmp_path), model, tmp_path)
    checked = []
    play(forced, random.Random(12), moves=60, on_human_turn=lambda s: checked.append(check_options(s)))
    assert len(checked) >= 20


def test_resume_mid_game_goes_on_as_the_uninterrupted_game(model, tmp_path):
    whole = GameSession.new("standard", seed=2, model_path=model, folder=tmp_path)
    rng = random.Random(2)
    play(whole, rng, moves=82)  # into the third hand: its deck is the seed's, recorded as the hand began
    while not whole.state.turn == AGENT:
        play(whole, rng, moves=1)
    path = tmp_path / f"{whole.record.game_id}.json"
    resumed = GameSession.resume(path, model, tmp_path / "elsewhere")
    assert resumed.state == whole.state and resumed.record == whole.record and whole.state.hand_no >= 2
    assert resumed.win_history == whole.win_history
    # the agent's memory matters: one that forgot the game (a fresh LSTM state) judges this position otherwise
    blank = GameSession.resume(path, model, tmp_path / "blank")
    blank.agent.reset(AGENT)
    assert blank.agent.decide(blank.state).value != pytest.approx(whole.agent.decide(whole.state).value, abs=1e-3)
    agent_moves = 0
    while not whole.over:  # both go on to the end with the same moves; the agent must decide alike in each
        if whole.human_turn:
            move = human_move(whole, rng)
            a, b = whole.play_human(*move), resumed.play_human(*move)
            assert a.annotation == b.annotation
        else:
            a, b = whole.play_agent(), resumed.play_agent()
            assert a.action == b.action and a.decision.value == pytest.approx(b.decision.value, abs=1e-6)
            assert a.decision.probs.keys() == b.decision.probs.keys()
            assert list(a.decision.probs.values()) == pytest.approx(list(b.decision.probs.values()), abs=1e-6)
            agent_moves += 1
        assert resumed.state == whole.state
    assert agent_moves >= 10 and resumed.over and resumed.record.result == whole.record.result


def test_callouts_of_a_caida_say_caida_and_name_who(finished):
    _, reports, states = finished
    caidas = [(i, r, e) for i, r in enumerate(reports) for e in r.events if isinstance(e, Caida)]
    assert caidas  # the person plays every caída offered; seed 2 offers some
    for i, report, e in caidas:
        assert report.action == match_action(states[i].trailed)  # R-CAIDA: a match of the card just trailed
        who = "You" if e.seat == HUMAN else "The agent"
        assert any(text.startswith(f"¡Caída! {who}: +{e.points}") for text in report.callouts), report.callouts
    assert {e.seat for _, _, e in caidas} == {HUMAN, AGENT}
    quiet = [r for r in reports if len(r.events) == 1 and isinstance(r.events[0], Played)]
    assert quiet and all(r.callouts == [] for r in quiet)  # a plain play says nothing


def test_the_session_announces_a_team_crossing_30(finished):
    _, reports, states = finished
    crossings = [(i, team) for i in range(len(reports)) for team in (0, 1)
                 if states[i].scores[team] < 30 <= states[i + 1].scores[team] and not states[i + 1].is_over]
    assert crossings  # counted from the states: seed 2's game has one
    for i, team in crossings:
        who = ("You", "The agent")[team]
        assert any(text.startswith(f"{who} reached {states[i + 1].scores[team]}: rondas") for text in
                   reports[i].callouts), reports[i].callouts


def test_the_narrator_announces_crossing_30_and_38(model, tmp_path):
    session = GameSession.new("standard", seed=1, model_path=model, folder=tmp_path)
    state = make_position(hands=[["5", "K"], ["Q", "J"]], table=["5"], turn=0, trailed="5", scores=(26, 36))
    after, events = apply(state, match_action(parse_rank("5")))  # caída y limpia: 26 -> 30
    assert after.scores[0] == 30 and any(isinstance(e, Limpia) for e in events)
    assert session.narrator.callouts(events, after)[:2] == ["¡Caída! You: +2.", "¡Limpia! You: +2."]
    notes = session.narrator.thresholds(state, after)
    assert len(notes) == 1 and notes[0].startswith("You reached 30: rondas") and "the cartón" in notes[0]
    later = session.narrator.thresholds(after._replace(scores=(30, 36)), after._replace(scores=(30, 38)))
    assert len(later) == 1 and later[0].startswith("The agent reached 38: limpias no longer score")
    assert "only a caída can finish (38 que no juega)" in later[0]


def test_a_move_that_cannot_be_saved_is_not_made_and_can_be_played_again(tmp_path):
    from cuarenta_tutor.app.session import GameSession, SaveError

    session = GameSession.new(seed=3, dealer=1, folder=tmp_path)
    path = tmp_path / f"{session.record.game_id}.json"
    state, moves = session.state, len(session.record.moves)
    path.unlink()
    path.mkdir()  # the save's final rename now fails, for real (as a full disk would fail it)
    action = legal_actions(state)[0]
    with pytest.raises(SaveError, match="The move was not made: the game could not be saved in .*then play it again"):
        session.play_human(action)
    assert session.state is state and len(session.record.moves) == moves and session.human_turn
    path.rmdir()
    session.play_human(action)  # fixed: the same move goes through, and the file has it
    assert len(records.load(path).moves) == moves + 1 == len(session.record.moves)
    assert records.replay(records.load(path))[-1] == session.state


def test_each_move_is_worked_out_once_and_that_step_is_saved_and_made(tmp_path, monkeypatch):
    from cuarenta_tutor.engine import Dealer

    worked_out = []
    play = Dealer.play

    def counted(dealer, state, action, *args, **kwargs):  # the real play, counted
        worked_out.append(action)
        return play(dealer, state, action, *args, **kwargs)

    session = GameSession.new(seed=3, dealer=1, folder=tmp_path)
    monkeypatch.setattr(Dealer, "play", counted)
    session.play_human(legal_actions(session.state)[0])
    session.play_agent()
    assert worked_out == [move.action for move in session.record.moves]  # once each, not once to save and again
    assert records.replay(records.load(tmp_path / f"{session.record.game_id}.json"))[-1] == session.state


def test_the_agents_decision_changes_nothing_and_a_request_knows_when_the_game_moved_on(tmp_path):
    session = GameSession.new(seed=3, dealer=0, folder=tmp_path)  # the agent leads
    request, memories = session.request(), (*session.helper.memory, *session.agent.memory)
    decision = session.agent_decision(request)  # what a worker thread asks
    assert session.at(request) and session.state is request.state and not session.record.moves
    assert all(now is kept for now, kept in zip((*session.helper.memory, *session.agent.memory), memories, strict=True))
    session.play_agent(decision)  # what the screen does with the answer, on its own thread
    assert not session.at(request) and [m.action for m in session.record.moves] == [decision.action]
    with pytest.raises(IllegalMove, match="your turn"):
        session.agent_decision(session.request())


def test_take_back_returns_to_before_your_last_move_and_the_record_keeps_it(tmp_path):
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=8, dealer=1, folder=tmp_path)
    with pytest.raises(IllegalMove, match="not played a move to take back"):
        session.take_back()
    session.play_human(legal_actions(session.state)[0])
    session.play_agent()
    before = session.state
    moves = len(session.record.moves)
    session.play_human(legal_actions(session.state)[-1])
    session.play_agent()
    back = session.take_back()
    assert back.state == before and back.human_turn and len(back.record.moves) == moves
    (taken,) = back.record.takebacks
    assert taken["ply"] == moves and len(taken["moves"]) == 2 and taken["moves"][0]["seat"] == 0
    saved = records.load(tmp_path / f"{back.record.game_id}.json")
    assert saved.takebacks == back.record.takebacks and records.replay(saved)[-1] == before
    back.play_human(legal_actions(back.state)[0])  # the game goes on from there
    assert records.replay(records.load(tmp_path / f"{back.record.game_id}.json"))[-1] == back.state
    from cuarenta_tutor.coach import format_review

    assert "Moves were taken back 1 time in this game" in format_review(saved, [])


def test_explore_starts_a_new_game_from_a_move_of_a_saved_one_without_touching_it(tmp_path):
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=9, dealer=0, folder=tmp_path)
    while len(session.record.moves) < 14:
        session.play_human(legal_actions(session.state)[0]) if session.human_turn else session.play_agent()
    path = tmp_path / f"{session.record.game_id}.json"
    original = path.read_bytes()
    states = records.replay(records.load(path))
    explored = GameSession.explore(records.load(path), 6, folder=tmp_path)
    assert explored.state == states[6] and explored.record.game_id != session.record.game_id
    assert path.read_bytes() == original and len(list(tmp_path.glob("*.json"))) == 2
    with pytest.raises(ValueError, match="explored from move 1 to 15"):
        GameSession.explore(records.load(path), 99, folder=tmp_path)
