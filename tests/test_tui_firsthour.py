"""The first hour at 80x24 (issue 37): what a new player meets, each checked on a position or a screen built for it."""

from helpers import settle

from cuarenta_tutor.tui import make_app

SIZE = (80, 24)


async def test_the_help_scrolls_by_keyboard_to_the_end_of_the_glossary():
    from textual.widgets import Static

    from cuarenta_tutor.tui.app import HELP, HelpScreen

    app = make_app(agent_delay=0)
    app.animation_level = "none"  # each scroll lands at once: a key press waits out an animation (up to a second)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one(Static).content.markup == HELP.read_text("utf-8")
        scroll = app.screen.query_one("#help")
        assert scroll.max_scroll_y > 0  # the help is longer than the screen
        await pilot.press("down")
        await settle(pilot)
        assert scroll.scroll_y == 1
        await pilot.press("pagedown")
        await settle(pilot)
        assert scroll.scroll_y > 1
        await pilot.press("end")
        await settle(pilot)
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("pageup")
        await settle(pilot)
        assert scroll.scroll_y < scroll.max_scroll_y
        await pilot.press("end", "escape", "question_mark")  # the help again (the same screen, kept): at its top
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen) and app.screen.query_one("#help") is scroll and scroll.scroll_y == 0
        await pilot.press("end", "home")
        await settle(pilot)
        assert scroll.scroll_y == 0


def hint(action, name, does, win, caida=0.0, limpia=0.0, key="1", measured=True, loss_ci95=None):
    from cuarenta_tutor.coach.advice import Hint

    return Hint(action, name, key, does, win, (win - 3, win + 3), caida, limpia, True, False, measured, loss_ci95)


class HintsApp:
    """A widget of the play screen alone on a screen, styled as in play (its id gives its style)."""

    @staticmethod
    def make(kind=None, id="hints"):
        from textual.app import App

        from cuarenta_tutor.tui import app as tui_app
        from cuarenta_tutor.tui.widgets import HintsPanel

        class One(App):
            CSS_PATH = tui_app.HELP.with_name(tui_app.CuarentaApp.CSS_PATH)

            def compose(self):
                yield (kind or HintsPanel)(id=id)
        return One()


async def test_hint_rows_fit_80_columns_and_never_run_one_column_into_the_next():
    from cuarenta_tutor.tui.widgets import HintsPanel

    hints = (hint(0, "7 takes A+2+4, then J Q", "takes A♥ 2♠ 4♥ J♠ Q♦, caída +2, limpia +2", 62, 0.31, 0.12),
             hint(1, "A takes A, then 2 3 4", "takes A♣ 2♥ 3♠ 4♦", 55, 0.05, 0.0, "2"),
             hint(2, "K trails", "trails", 40, 0.0, 0.4, "3"))
    app = HintsApp.make()
    async with app.run_test(size=SIZE) as pilot:
        panel = app.query_one(HintsPanel)
        panel.note = "best despite its caída risk (31%): +7 win % over A takes A, then 2 3 4"
        panel.hints = hints
        await pilot.pause()
        lines = str(panel.render()).splitlines()
        width = panel.content_size.width
        assert width == 78 and all(len(line) <= width for line in lines), lines
        rows = lines[1:4]
        for h, row in zip(hints, rows, strict=True):
            assert f"[{h.key}] {h.name}  " in row, row  # the whole name, then a gap: never cut into the next column
            assert f"{h.win_pct:.0f}% ±3" in row
        assert "caída 31%" in rows[0] and "limpia 40%" in rows[2]
        assert lines[4].startswith("★ best despite its caída risk (31%)")


def test_the_star_on_the_riskiest_move_says_why_it_is_still_best_in_the_narrators_words():
    from dataclasses import replace

    from cuarenta_tutor.app import coaching
    from cuarenta_tutor.engine import legal_actions, new_game
    from cuarenta_tutor.narrator import move_name, why_better

    state = new_game(seed=3, dealer=1)
    legal = list(legal_actions(state))
    assert len(legal) >= 2
    best, safe = legal[0], legal[1]
    hints = (hint(best, move_name(state, best), "trails", 60, 0.4),
             hint(safe, move_name(state, safe), "trails", 48, 0.1))
    note = coaching.star_note(state, hints)
    assert note.startswith("best despite its caída risk (40%): +12 win % over " + move_name(state, safe))
    risks = {best: (0.4, 0.0), safe: (0.1, 0.0)}
    for reason in why_better(state, safe, best, risks):  # the tutor's reasons, not new words
        assert reason in note
    calm = (hint(best, "a", "trails", 60, 0.1), hint(safe, "b", "trails", 48, 0.4))
    assert coaching.star_note(state, calm) == ""  # the star is not the riskiest move: nothing to explain
    sure = (hints[0], replace(hints[1], loss_ci95=(4.0, 20.0)))
    assert coaching.star_note(state, sure) == note  # the safest loses outside the noise: the note stands
    noise = (hints[0], replace(hints[1], loss_ci95=(-2.0, 26.0)))
    even = coaching.star_note(state, noise)  # either may be best: the note says they are even, and why it risks more
    assert even.startswith("even with ") and "inside the noise" in even, even


def test_refined_hints_carry_each_moves_paired_loss_from_the_analysis():
    from helpers import SMALL

    from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
    from cuarenta_tutor.analysis import analyse
    from cuarenta_tutor.coach.advice import refined_hints
    from cuarenta_tutor.engine import new_game

    state = new_game(seed=3, dealer=1)
    analysis = analyse(state, OnnxPolicy(), SMALL)
    assert len(analysis.moves) >= 2
    for h in refined_hints(state, analysis):
        assert h.loss_ci95 == analysis.move(h.action).loss_ci95


def test_an_analysis_with_no_measured_error_shows_its_interval_as_unknown_not_plus_minus_zero():
    from dataclasses import replace

    from helpers import fixed

    from cuarenta_tutor import coach
    from cuarenta_tutor.app import coaching
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=5, dealer=1)
    assert session.human_turn
    critic = replace(fixed(2), leaf="critic", value_sd=0.0)  # an exported model with no analysis sidecar
    for settings, measured in ((critic, False), (replace(critic, value_sd=2.5), True)):
        session.analysis_settings = settings
        analysis = session.analyse(session.position())
        assert analysis.leaf == "critic"
        move = analysis.best
        shown = coaching.analysis_win(analysis, move)
        hints = coaching.refined_hints(session.state, analysis)
        note = coach.from_analysis(analysis, move.action, 0)
        if measured:
            assert "±" in shown and "uncalibrated" not in shown and "±?" not in coaching.hint_win(hints[0])
            assert coaching.margin_text(note).startswith(" ±")
        else:
            assert shown == f"{move.win_pct:.0f}% (uncalibrated)"
            assert all(coaching.hint_win(h).endswith("±?") for h in hints)
            assert coaching.margin_text(note) == " (uncalibrated)"


async def test_the_level_and_the_model_stay_on_screen_after_the_agents_first_move():
    from cuarenta_tutor.tui.play import PlayScreen
    from cuarenta_tutor.tui.widgets import AgentPanel, Scoreboard

    app = make_app(start="play", seed=4, dealer=0, agent_delay=0, tutor=False, level="beginner")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen) and len(play.session.record.moves) == 1  # the agent led
        assert "Agent played" in str(play.query_one(AgentPanel).render())
        score = str(play.query_one(Scoreboard).render()).splitlines()[0]
        assert f"level beginner · model {play.session.model_path.stem}" in score, score
        assert len(score) <= 78


async def test_the_win_graph_has_a_0_50_100_axis_a_marker_and_a_fixed_scale():
    from cuarenta_tutor.tui.widgets import WinGraph

    app = HintsApp.make(WinGraph, "winline")
    async with app.run_test(size=SIZE) as pilot:
        graph = app.query_one(WinGraph)
        graph.data, graph.marker = (48.0, 52.0, 50.0, 49.0), 1
        await pilot.pause()
        rows = str(graph.render()).splitlines()
        assert [row[:4] for row in rows] == ["100┤", " 50┤", "  0┤"]
        bars = [row[4:8] for row in rows]
        assert bars[0] == " │  "  # the marker, and nothing near 100: 48% to 52% is not blown up to full height
        assert bars[2] == "████" and all(c in "▃▄▅" for c in bars[1]), bars
        graph.data, graph.marker = (90.0, 10.0, 30.0), 2
        await pilot.pause()
        rows = str(graph.render()).splitlines()
        assert [row[4:7] for row in rows] == ["▆ │", "█ │", "█▂▇"]  # the marker: a line above the move on show


async def test_the_four_of_a_kind_callout_is_shown_whole_at_80_columns():
    from cuarenta_tutor.engine import FourOfAKind, GameWon
    from cuarenta_tutor.tui.play import PlayScreen

    app = make_app(start="play", seed=4, dealer=1, agent_delay=0, tutor=False, players=4, level="beginner")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        assert isinstance(play, PlayScreen)
        state = play.session.state
        hands = list(state.hands)
        hands[1] = (28, 29, 30, 31, *hands[1][4:])  # East holds the four jacks
        notes = play.session.narrator.callouts([FourOfAKind(1, 1), GameWon(1, (12, 40))],
                                               state._replace(hands=tuple(hands)))
        text = "  ".join(notes)
        assert "four of a kind (J" in text and len(text) > 78
        play.show_notes(notes)
        await pilot.pause()
        callout = play.query_one("#callout")
        lines = -(-len(text) // callout.content_size.width)
        assert callout.content_size.height >= lines >= 2  # every line of it, none cut off
        assert callout.region.bottom <= play.query_one("#hand").region.y  # above the hand, not under it
    assert notes[0].startswith("East was dealt four of a kind")


def test_you_were_dealt_four_of_a_kind():
    from cuarenta_tutor.app.session import seat_names
    from cuarenta_tutor.engine import FourOfAKind, Rules
    from cuarenta_tutor.narrator import Narrator

    assert Narrator(Rules(), seat_names(2), you=0).event(FourOfAKind(0, 0)).startswith(
        "You were dealt four of a kind: You win at once!")


async def test_drills_take_number_keys_like_play():
    from datetime import datetime, timezone

    from helpers import fixed

    from cuarenta_tutor import records
    from cuarenta_tutor.analysis.classes import classify
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.coach import drills
    from cuarenta_tutor.coach.advice import key_of
    from cuarenta_tutor.engine import ACTION_RANK
    from cuarenta_tutor.tui.drills import DrillScreen

    session = GameSession.new(seed=5, dealer=1)  # your first move: a drill of it, built here
    session.analysis_settings = fixed(2)
    analysis = session.analyse(session.position())
    state = session.state
    moves = [{**m.to_json(), "class": classify(m.loss, "standard", m.loss_ci95).value} for m in analysis.moves]
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    drill = drills.Drill(f"{session.record.game_id}:0", records.to_json(session.record), 0, analysis.moves[-1].action,
                         moves, "other", now, 0, now)
    drills.save_deck(drills.Deck([drill]))
    rank_moves = {}
    for m in analysis.moves:
        rank_moves.setdefault(ACTION_RANK[m.action], []).append(m.action)
    action = next(a for a in (m.action for m in analysis.moves) if len(rank_moves[ACTION_RANK[a]]) == 1)
    app = make_app(start="drills", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen) and screen.drill is not None
        assert "another mistake from your game" in str(screen.query_one("#title").render())  # never "an other"
        await pilot.press(key_of(state, action))
        await settle(pilot)
        assert screen.answered and drills.load_deck().drills[0].answers[-1]["action"] == action
        assert analysis.move(action).name in str(screen.query_one("#feedback").render())


async def test_one_card_left_says_press_1_an_ace_trailed_says_an_A_and_analyse_help_says_win_percent(capsys):

    from cuarenta_tutor.cli.main import main
    from cuarenta_tutor.engine import new_game
    from cuarenta_tutor.tui.widgets import HandView, TableView

    state = new_game(seed=2, dealer=1)
    last = state._replace(hands=((0,), *state.hands[1:]), table=(1,), trailed=1)  # one card left; the A♥ trailed
    app = HintsApp.make(HandView, "hand")
    async with app.run_test(size=SIZE) as pilot:
        hand = app.query_one(HandView)
        hand.state, hand.status = last, "yours"
        await pilot.pause()
        assert "your turn: press 1" in str(hand.render()) and "1-1" not in str(hand.render())
    app = HintsApp.make(TableView, "table")
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(TableView)
        table.state = last
        await pilot.pause()
        assert "(an A was just trailed)" in str(table.render())
    assert main(["analyse", "--help"]) == 0
    out = capsys.readouterr().out
    assert "win % with a 95% interval" in " ".join(out.split()) and "%%" not in out


async def test_any_unfinished_game_can_be_continued_from_a_list_newest_first():
    from cuarenta_tutor import records
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.tui.home import ContinueChoice
    from cuarenta_tutor.tui.play import PlayScreen

    games = []
    for seed in (1, 2, 3):  # three games left after one move each, a day apart, the newest last
        session = GameSession.new(seed=seed, dealer=1)
        session.play_human(session.hints()[0].action)
        session.record.created = f"2026-11-2{seed}T12:00:00"
        records.save(session.record)
        games.append(session)
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [g.game_id for g in app.screen.unfinished] == [s.record.game_id for s in reversed(games)]
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ContinueChoice) and len(app.screen.games) == 3
        await pilot.press("down", "down", "enter")  # the oldest
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.session.record.game_id == games[0].record.game_id
