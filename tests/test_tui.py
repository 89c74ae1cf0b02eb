"""The terminal app driven by key presses (Textual Pilot), with the shipped model and real records."""

import json

import pytest
from helpers import fixed, play_first_cards, settle, worst_start
from textual.widgets import ProgressBar

from cuarenta_tutor import coach, records
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.home import HomeScreen
from cuarenta_tutor.tui.play import CaptureChoice, Notice, PlayScreen
from cuarenta_tutor.tui.review import ReviewGame, ReviewList
from cuarenta_tutor.tui.widgets import AgentPanel, HintsPanel

SIZE = (80, 24)
TINY = fixed(2)
"""The fewest worlds an analysis takes (the CLI's floor): for hints and reviews a test needs made, not weighed."""
FEW = fixed(4)
"""Reviews of a short game in few worlds, enough to find the mistakes of worst_start."""


def saved_moves(app):
    files = list(records.games_dir().glob("*.json"))
    assert len(files) == 1
    return json.loads(files[0].read_text())["moves"], files[0]


@pytest.mark.usefixtures("one_process")
async def test_whole_game_by_key_presses_with_choice_hint_and_callouts():
    # seed 284 with the first card and the first capture every time: a game of 20 moves, with a capture choice and the
    # agent's caídas, that ends when you are dealt four of a kind (the end of a hand: the next test)
    app = make_app(start="play", seed=284, dealer=1, agent_delay=0, tutor=False, analysis=TINY,
                   review=TINY)  # tutor: test_tui_tutor
    seen = {"choice": 0, "hint": False, "caida": False, "notice": 0}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen)
        session = play.session
        for _ in range(400):
            screen = app.screen
            if isinstance(screen, CaptureChoice):
                seen["choice"] += 1
                await pilot.press("1")  # the first option is a capture
            elif isinstance(screen, Notice):
                seen["notice"] += 1
                if session.over:
                    break
                await pilot.press("enter")
            elif session.human_turn:
                if not seen["hint"]:
                    await pilot.press("h")
                    await pilot.pause()
                    hints = play.query_one(HintsPanel)
                    assert hints.display and "win" in str(hints.render())
                    seen["hint"] = True
                    await pilot.press("h")  # hints off again: kept on, every later turn is analysed
                    await settle(pilot)
                    assert not hints.display
                await pilot.press("1")
                await pilot.pause()
            await settle(pilot)
            moves, _ = saved_moves(app)  # the record on disk follows every move
            assert len(moves) == len(session.record.moves)
            seen["caida"] |= any("Caída" in note for note in (session.last.callouts if session.last else []))
        assert session.over, "the game reached its end"
        assert isinstance(app.screen, Notice) and seen["choice"] > 0 and seen["hint"] and seen["caida"]
        moves, path = saved_moves(app)
        assert len(moves) == len(session.record.moves)
        states = records.replay(records.load(path))
        assert states[-1] == session.state
        assert sum(1 for m in moves if m["annotation"]) == sum(1 for m in moves if m["seat"] == 0)
        await pilot.press("r")  # the game-over dialog offers the review
        await settle(pilot)
        assert isinstance(app.screen, ReviewGame) and app.screen.record.game_id == session.record.game_id


async def test_the_end_of_a_hand_is_told_and_enter_plays_on_in_the_next_hand():
    session = GameSession.new(seed=4, dealer=1)  # to your last card of the first hand, the first card every time
    play_first_cards(session, lambda s: len(s.record.moves) >= 38)
    app = make_app(agent_delay=0, tutor=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and play.session.state.hand_no == 0
        assert len(play.session.state.hands[0]) == 1 and play.session.human_turn
        await pilot.press("1")
        await settle(pilot)
        if isinstance(app.screen, CaptureChoice):
            await pilot.press("1")
            await settle(pilot)
        notice = app.screen  # the agent's reply was the hand's last card
        state = play.session.state
        assert isinstance(notice, Notice) and notice.title_text == "End of hand 1"
        assert f"Score: you {state.scores[0]}, agent {state.scores[1]}.\nNext hand: you deal." in notice.body
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is play and play.session.state.hand_no == 1 and len(saved_moves(app)[0]) == 41
        assert play.session.human_turn and len(play.session.state.hands[0]) == 5  # the agent led the new hand


async def test_resume_after_closing_mid_game():
    app = make_app(start="play", seed=4, dealer=1, agent_delay=0, tutor=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.screen.session
        for _ in range(3):
            await pilot.press("1")
            await settle(pilot)
            if isinstance(app.screen, CaptureChoice):
                await pilot.press("escape")  # backing out of a choice plays nothing
                await pilot.press("2" if len(session.state.hands[0]) > 1 else "1")
                await settle(pilot)
                if isinstance(app.screen, CaptureChoice):
                    await pilot.press("1")
                    await settle(pilot)
        played = len(session.record.moves)
        state = session.state
        assert played >= 3
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.session.state == state and len(app.screen.session.record.moves) == played
        agent = str(app.screen.query_one(AgentPanel).render())  # not "waiting for its first move"
        assert "Agent played" in agent and "before you left" in agent


@pytest.mark.usefixtures("one_process")
async def test_review_steps_and_jumps_to_mistakes_and_survives_a_damaged_file():
    session = worst_start(seed=1)  # in TINY's worlds: blunders at moves 1 and 3
    (records.games_dir() / "damaged.json").write_text('{"schema_version": 1, "moves": [')
    (records.games_dir() / "foreign.json").write_text('{"hello": "world"}')
    app = make_app(start="review", agent_delay=0, review=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = app.screen
        assert isinstance(listing, ReviewList)
        assert len(listing.games) == 1
        assert "Skipped" in str(listing.query_one("#problems").render())
        await pilot.press("enter")
        await settle(pilot)  # the game is analysed in a worker, with a progress bar
        review = app.screen
        assert isinstance(review, ReviewGame) and review.ply == 0
        decided, theirs = coach.decisions(review.record, [0]), coach.decisions(review.record, [1])
        bar = review.query_one(ProgressBar)  # the person's moves first, then the agent's (for luck vs skill)
        assert bar.total == bar.progress == len(theirs) and not bar.display
        assert "Reviewed" in str(review.query_one("#changes").render())
        assert f"analysis in up to {TINY.worlds} sampled worlds" in str(review.query_one("#summary").render())
        saved = records.load(records.games_dir() / f"{session.record.game_id}.json")
        assert all(saved.moves[p].annotation["provenance"]["method"] == "analysis" for p in decided + theirs)
        assert all(review.notes[p].ci95 is not None for p in decided)
        assert all(review.notes[p] is None for p in theirs)  # the move list marks the reviewed seat's only
        luck = str(review.query_one("#luck").render())
        assert "luck" in luck and "skill" in luck and "not analysed" not in luck
        await pilot.press("right", "right")
        assert review.ply == 2
        await pilot.press("left")
        assert review.ply == 1
        marked = [i for i, n in enumerate(review.notes) if n and n.klass in ("inaccuracy", "mistake", "blunder")
                  and i > review.ply]  # the mistakes after this move, the next of which n jumps to
        assert marked, "playing the analysis's least liked move makes mistakes"
        await pilot.press("n")
        first = review.ply
        assert first == marked[0]
        note = review.notes[first]
        shown = str(review.query_one("#move").render())
        assert f"{note.klass}: win {note.win_after:.0f}% ±" in shown and "best was" in shown
        assert any(suit in shown.split("played")[1].split(")")[0] for suit in "♠♥♦♣")  # 5♦, as in play
        await pilot.press("n")
        if len(marked) > 1:
            assert review.ply == marked[1]
            await pilot.press("N")
        else:
            assert app.messages[-1] == "No more mistakes that way."
        assert review.ply == first
        await pilot.press("f")
        assert review.face_up and "Agent:" in str(review.query_one("#position").render())
        assert len(review.states) == len(session.record.moves) + 1
        moves = review.query_one("#move-list")  # the move list: every move, marked, chosen with enter
        assert moves.option_count == len(session.record.moves) + 1 and moves.highlighted == first
        assert str(moves.get_option_at_index(first).prompt).rstrip().endswith(
            {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}[note.klass])
        moves.focus()
        moves.highlighted = 5
        await pilot.press("enter")
        assert review.ply == 5


async def test_an_unexpected_error_becomes_a_message_not_a_traceback(monkeypatch):
    app = make_app(start="play", seed=2, dealer=1, agent_delay=0, tutor=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen

        def broken(*args, **kwargs):
            raise RuntimeError("the coach tripped")

        monkeypatch.setattr(play.session, "play_human", broken)
        await pilot.press("1")
        await settle(pilot)
        if isinstance(app.screen, CaptureChoice):
            await pilot.press("1")
            await settle(pilot)
        assert app.is_running
        assert any("the coach tripped" in message for message in app.messages)


def test_a_bad_model_file_is_reported_on_the_home_screen(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")

    async def run():
        app = make_app(start="play", model_path=str(bad), agent_delay=0)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            assert any("damaged or truncated" in message for message in app.messages)

    import asyncio

    asyncio.run(run())


def test_review_text_prints_the_annotated_game(capsys):
    session = worst_start(seed=1)
    from cuarenta_tutor.cli import main

    path = records.games_dir() / f"{session.record.game_id}.json"
    few = ["--worlds", str(FEW.worlds), "--jobs", "1"]  # one process: test_e2e_tmux reviews in worker processes
    assert main(["review", str(path), "--text", *few]) == 0
    out = capsys.readouterr().out
    moves = [line for line in out.splitlines() if line[:5].strip().rstrip(".").isdigit()]
    assert len(moves) == len(session.record.moves)  # one numbered line per move of the record
    assert "Accuracy" in out and "You (you):" in out and any(" ±" in line for line in moves)  # with its interval
    decided = coach.decisions(session.record, [0])
    assert f"Reviewed {len(decided)} moves on the analysis; saved in {path}" in out
    assert "changed: move " not in out  # the network's annotations made in play had no class to change
    assert f"analysis in up to {FEW.worlds} sampled worlds per move" in out
    assert main(["review", str(path), "--text", "--seat", "1", *few]) == 0
    out = capsys.readouterr().out
    assert f"  {session.record.seats[1].name}: " in out and "You (you): " not in out
    assert main(["review", str(path), "--text", "--seat", "3"]) == 2
    assert "seat 3 is not at this table" in capsys.readouterr().err


async def test_the_new_game_dialog_labels_its_fields_and_says_what_each_preset_is():
    from textual.widgets import Label, Select

    from cuarenta_tutor.engine import PRESET_NOTES, PRESETS
    from cuarenta_tutor.tui.home import NewGame

    assert set(PRESET_NOTES) == set(PRESETS)
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewGame)
        labels = [str(label.render()) for label in dialog.query(Label)]
        assert "Rules" in labels and "Who deals first" in labels and any(x.startswith("Seed") for x in labels)
        for name in PRESETS:
            dialog.query_one("#rules", Select).value = name
            await pilot.pause()
            assert str(dialog.query_one("#rules-note").render()) == PRESET_NOTES[name]
        start = dialog.query_one("#start")
        assert start.region.bottom <= SIZE[1]  # the whole dialog fits at 80x24


def test_help_lists_the_keys_and_a_glossary_of_the_games_words():
    # the help screen shows this text: test_tui_firsthour opens it with ? and scrolls it to its end
    from cuarenta_tutor.tui.app import HELP
    from cuarenta_tutor.tui.widgets import perros

    text = HELP.read_text(encoding="utf-8")
    for word in ("caída", "limpia", "ronda", "escalera", "cartón", "perros", "chica", "todo dos", "unclear"):
        assert f"| {word}" in text or f"**{word}**" in text, word
    assert "▮" in text and "▯" in text and set(perros(32)) <= set("▮▯")  # the legend has the scoreboard's marks


async def test_the_home_screen_shows_the_model_and_a_choice_of_another_is_kept():
    import shutil

    from cuarenta_tutor.agents.onnx_policy import default_model_path
    from cuarenta_tutor.tui.home import ModelChoice

    mine = records.models_dir() / "mine.onnx"
    mine.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(default_model_path(), mine)  # as `export` leaves it
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Model: cuarenta-a2c-lstm (" in str(app.screen.query_one("#model").render())
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, ModelChoice)
        choice = app.screen.models.index(mine)
        await pilot.press(*["down"] * choice, "enter")
        await settle(pilot)
        assert app.model == mine and "mine (" in str(app.screen.query_one("#model").render())
    assert records.load_settings()[0].model == mine
    app = make_app(start="play", seed=3, dealer=1, agent_delay=0, tutor=False)  # the next start keeps it
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.session.model_path == mine


async def test_take_back_in_play_and_explore_from_a_reviewed_move():
    app = make_app(start="play", seed=4, dealer=1, agent_delay=0, tutor=False, review=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        before = play.session.state
        await pilot.press("u")
        assert "not played a move to take back" in app.messages[-1]
        await pilot.press("1")
        await settle(pilot)
        if isinstance(app.screen, CaptureChoice):
            await pilot.press("1")
            await settle(pilot)
        assert play.session.state != before and play.session.human_turn  # the agent has answered
        await pilot.press("u")
        await settle(pilot)
        assert play.session.state == before and play.session.record.takebacks
        assert "Taken back" in app.messages[-1]
        path = records.games_dir() / f"{play.session.record.game_id}.json"
        saved = path.read_bytes()
        app.open_review(path)
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewGame) and "takeback" in str(review.query_one("#summary").render())
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen) and app.screen.session.state == review.states[0]
        assert app.screen.session.record.game_id != play.session.record.game_id
        kept = records.load(path)  # the reviewed game keeps its moves and its takeback
        assert kept.moves == records.from_json(json.loads(saved)).moves and kept.takebacks
