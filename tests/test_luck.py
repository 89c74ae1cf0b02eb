"""Luck vs skill: per hand and for the game, the change in a team's win % split into what the cards did and
what the decisions did, from the review's annotations of every seat; and the review of a game a deal ends: how it
ended (text, JSON, the screen), its decisions in JSON, and its record replayed once per review."""

import json

import pytest
from helpers import fixed, settle, worst_game, worst_review

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.agents.onnx_policy import default_model_path, file_sha256
from cuarenta_tutor.cli import main
from cuarenta_tutor.coach import luck
from cuarenta_tutor.engine import ACTION_RANK, Dealer, FourOfAKind, GameWon, parse_rank, preset, seeded_deck
from cuarenta_tutor.records import record as record_module

# one worker runs the files that share worst games: helpers keeps each game and its review per process
pytestmark = pytest.mark.xdist_group("worst-games")

MODEL = default_model_path()
FEWER = fixed(2)
"""The agent's decisions in fewer worlds than the person's: luck vs skill reads each decision's own loss."""


@pytest.fixture(scope="module")
def game():
    """A finished game of two hands (the person's worst moves, seed 13) with every seat's decisions reviewed: the
    person's in SMALL (helpers.worst_review, made once per test run), the agent's in FEWER."""
    record = worst_game(seed=24).record
    coach.store(record, worst_review(13, record), [0])
    coach.store(record, coach.review(record, None, FEWER, seats=[1]), [1])
    return record


def test_luck_plus_skill_is_the_change_in_win_percent_for_every_hand_and_the_game(game):
    split = luck.split(game, 0, MODEL, file_sha256(MODEL))
    assert split.anchors == "table" and len(split.hands) >= 2
    assert split.hands[-1].end == (100.0 if game.result.winner == 0 else 0.0)
    for before, after in zip(split.hands, split.hands[1:], strict=False):
        assert after.start == before.end  # hands chain: one hand's end is the next one's start
    for h in split.hands:
        assert h.luck + h.skill == pytest.approx(h.win_change) and h.missing == 0 and h.moves > 0
        assert h.skill == pytest.approx(h.other_loss - h.own_loss)
    assert split.total("luck") + split.total("skill") == pytest.approx(split.win_change)
    # the person played the analysis's least liked move every time: their decisions cost them
    assert split.total("own_loss") > split.total("other_loss") and split.total("skill") < 0


def test_the_other_team_sees_the_same_game_with_every_sign_turned(game):
    mine = luck.split(game, 0, MODEL, file_sha256(MODEL)).to_json()
    theirs = luck.split(game, 1, MODEL, file_sha256(MODEL)).to_json()
    for a, b in zip(mine["hands"], theirs["hands"], strict=True):
        assert a["start"] == pytest.approx(100 - b["start"], abs=0.02)
        for key in ("win_change", "luck", "skill"):
            assert a[key] == pytest.approx(-b[key], abs=0.02)
        assert (a["own_loss"], a["other_loss"]) == (b["other_loss"], b["own_loss"])


def test_without_a_table_the_hands_run_from_first_decision_to_first_decision(game):
    split = luck.split(game, 0)  # no model: no hand-value table
    assert split.anchors == "first decision"
    first = coach.read(game.moves[0].annotation)
    assert split.hands[0].start == pytest.approx(first.win_before if first.seat == 0 else 100 - first.win_before)
    for h in split.hands:
        assert h.luck + h.skill == pytest.approx(h.win_change)


def test_an_unanalysed_side_is_counted_as_missing_not_as_skill(game):
    half = records.from_json(records.to_json(game))
    for ply, move in enumerate(half.moves):
        if move.seat == 1:
            half.annotate(ply, None)
    split = luck.split(half, 0, MODEL, file_sha256(MODEL))
    assert split.total("missing") == len(coach.decisions(half, [1])) and split.total("other_loss") == 0
    assert "not analysed yet" in luck.summary_line(split)


def test_review_json_prints_luck_and_skill_that_add_up_to_the_change(capsys):
    session = worst_game(seed=7)  # a short game: one hand, 24 decisions
    path = records.games_dir() / f"{session.record.game_id}.json"
    assert main(["review", str(path), "--json", "--worlds", "8", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)  # one object, nothing else on stdout
    assert data["game"] == session.record.game_id and data["seat"] == 0 and data["anchors"] == "table"
    for hand in data["hands"]:
        assert abs(hand["luck"] + hand["skill"] - hand["win_change"]) <= 0.02  # rounding to 0.01 each
    total = data["total"]
    assert abs(total["luck"] + total["skill"] - total["win_change"]) <= 0.02 and total["missing"] == 0
    # the deal ends this game: the person is dealt four of a kind, and their side's win % ends at 100
    assert data["hands"][-1]["end"] == 100.0 and "four of a kind" in data["ending"]
    assert "Reviewed" in err and "new drill" in err
    saved = records.load(path)  # every seat's decisions are analysed and stored
    assert all(coach.read(saved.moves[p].annotation).method == "analysis" for p in coach.decisions(saved, [0, 1]))
    assert main(["review", str(path), "--json", "--seat", "1", "--worlds", "2", "--jobs", "1"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["team"] == 1 and other["total"]["win_change"] == pytest.approx(-total["win_change"], abs=0.02)


def test_the_table_of_another_model_is_not_used(game):
    assert luck.split(game, 0, MODEL, "not-this-model").anchors == "first decision"


def dealt_four_game():
    """A game a deal ends: the greedy bot on both seats plays out the hand's first deal, then the second deal gives
    seat 1 (the agent) the four 7s, which wins at once. Its decks are fixed: seat 0 is dealt first (seat 1 deals),
    so cards 0-9 of the deck are the first deal and 15-18 the agent's share of the second."""
    rules = preset("standard")
    sevens = [c for c in range(40) if c >> 2 == parse_rank("7")]
    rest = [c for c in seeded_deck(3, 0) if c not in sevens]
    deck = tuple(rest[:15] + sevens + rest[15:])
    record = records.new_record(rules, 3, 1, [("human", "You"), ("onnx", "Agent")], 0, decks=[deck])
    bots = [make_policy("greedy", seed=s) for s in (0, 1)]
    for seat, bot in enumerate(bots):
        bot.reset(seat)
    dealer = Dealer(3, [deck])
    state, events = dealer.start(rules, 1)
    while not state.is_over:
        for bot in bots:
            bot.observe(state, events)
        action = bots[state.turn].decide(state).action
        card = next(c for c in state.hands[state.turn] if c >> 2 == ACTION_RANK[action])
        seat = state.turn
        state, events = dealer.play(state, action, card=card)
        record.add_move(seat, action, card, after=state)
    assert FourOfAKind(1, 1) in events and isinstance(events[-1], GameWon) and len(record.moves) == 10
    return record


@pytest.fixture(scope="module")
def dealt_four():
    """dealt_four_game() with both seats' decisions reviewed in few worlds."""
    record = dealt_four_game()
    coach.store(record, coach.review(record, None, fixed(8), seats=[0, 1]), [0, 1])
    return record


@pytest.mark.parametrize("team", [0, 1])
def test_a_game_that_a_dealt_four_of_a_kind_ends_ends_at_0_or_100(dealt_four, team):
    assert dealt_four.result.winner == 1
    for split in (luck.split(dealt_four, team, MODEL, file_sha256(MODEL)), luck.split(dealt_four, team)):
        (hand,) = split.hands  # one hand: the deal that ends the game counts in it
        assert hand.end == (100.0 if team == 1 else 0.0), split.anchors
        assert hand.luck + hand.skill == pytest.approx(hand.win_change) and hand.missing == 0 and hand.moves > 0
        assert split.total("luck") + split.total("skill") == pytest.approx(split.win_change)
    # the four 7s were the cards, not the decisions: luck carries the agent's side up to 100
    assert luck.split(dealt_four, 1, MODEL, file_sha256(MODEL)).total("luck") > 20


def test_review_text_and_json_say_how_the_game_ended(capsys, tmp_path):
    path = records.save(dealt_four_game(), path=tmp_path / "dealt-four.json")
    assert main(["review", str(path), "--text", "--worlds", "2", "--jobs", "1"]) == 0
    text = capsys.readouterr().out
    assert "How it ended: Agent won 0-4 with four of a kind (7♠ 7♥ 7♦ 7♣) dealt to Agent: it wins at once." in text
    assert main(["review", str(path), "--json", "--worlds", "2", "--jobs", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ending"] == "Agent won 0-4 with four of a kind (7♠ 7♥ 7♦ 7♣) dealt to Agent: it wins at once."
    assert data["hands"][-1]["end"] == 0.0


def test_review_json_lists_every_analysed_decision_of_both_seats(capsys, tmp_path):
    path = records.save(dealt_four_game(), path=tmp_path / "dealt-four.json")
    assert main(["review", str(path), "--json", "--worlds", "2", "--jobs", "1"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    saved = records.load(path)
    # `ply` is the move's number, 1 for the first (as analyse --ply and analyse --json number it)
    assert [m["ply"] - 1 for m in moves] == coach.decisions(saved, [0, 1]) and {m["seat"] for m in moves} == {0, 1}
    for m in moves:
        played = saved.moves[m["ply"] - 1]
        note = coach.read(played.annotation)
        assert (m["seat"], m["action"], m["best_action"]) == (played.seat, played.action, note.best_action)
        assert m["win_pct"] == round(note.win_after, 2) and m["ci95"] == [round(x, 2) for x in note.ci95]
        assert m["ci95"][0] <= m["win_pct"] <= m["ci95"][1] and m["loss"] == round(note.loss, 2) >= 0
        assert m["class"] == note.klass == coach.classify(note.loss, loss_ci95=note.loss_ci95)
        assert m["action"] != m["best_action"] or m["loss"] == 0


def counting_replays(monkeypatch, record) -> list:
    """Every replay of `record` (its full length: a drill replays the game up to its move) from now on."""
    real, seen = record_module.replay_events, []

    def replay_events(game):
        if game.game_id == record.game_id and len(game.moves) == len(record.moves):
            seen.append(len(game.moves))
        return real(game)

    monkeypatch.setattr(record_module, "replay_events", replay_events)
    return seen


def test_a_review_replays_its_record_once(monkeypatch, capsys, tmp_path):
    record = dealt_four_game()
    path = records.save(record, path=tmp_path / "dealt-four.json")
    replays = counting_replays(monkeypatch, record)
    for how in ("--text", "--json"):
        replays.clear()
        assert main(["review", str(path), how, "--worlds", "2", "--jobs", "1"]) == 0
        assert len(replays) == 1, how
    capsys.readouterr()


@pytest.mark.usefixtures("one_process")
async def test_the_review_screen_says_how_the_game_ended_and_replays_the_game_once(monkeypatch):
    from cuarenta_tutor.tui import make_app
    from cuarenta_tutor.tui.review import ReviewGame

    record = dealt_four_game()
    path = records.save(record)
    app = make_app(start="review", agent_delay=0, review=fixed(2))
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        replays = counting_replays(monkeypatch, record)
        app.open_review(path)
        await settle(pilot)  # both sides' moves reviewed, drills made, luck vs skill shown
        screen = app.screen
        assert isinstance(screen, ReviewGame) and "other side's" in str(screen.query_one("#changes").render())
        assert len(replays) == 1
        said = "Agent won 0-4 with four of a kind (7♠ 7♥ 7♦ 7♣) dealt to Agent: it wins at once."
        assert said in str(screen.query_one("#summary").render())
        await pilot.press("end", "enter")  # the move list's last entry: the end of the game
        assert screen.ply == 10 and said in str(screen.query_one("#move").render())
        assert str(screen.query_one("#luck").render()).startswith("Win % ") and " → 0 (" in str(
            screen.query_one("#luck").render())  # your side's win % ends at 0
