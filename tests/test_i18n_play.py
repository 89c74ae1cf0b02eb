"""The game screens in Spanish at 80x24, driven by key presses with the shipped model (Pilot): the play screen (its
scoreboard, seats, agent panel, hand, hints and win-% line), the end of a hand, the tutor's warning, the list of
saved games, a review and its luck table. Each shows Spanish words and Spanish numbers ("62 % ±3"), no English word
of the list below, and its known sentences whole on one line of the screen (never cut, never wrapped off it)."""

import re

import pytest
from helpers import continue_and_play_first_card, fixed, play_first_cards, settle, worst_start

from cuarenta_tutor import i18n
from cuarenta_tutor.analysis import Settings
from cuarenta_tutor.analysis.classes import classify
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.coach.advice import key_of
from cuarenta_tutor.engine import ACTION_RANK
from cuarenta_tutor.narrator import move_name
from cuarenta_tutor.tui import make_app
from cuarenta_tutor.tui.play import CaptureChoice, Notice, PlayScreen, final_line, next_dealer
from cuarenta_tutor.tui.review import LuckTable, ReviewGame, ReviewList
from cuarenta_tutor.tui.tutor import TutorWarning
from cuarenta_tutor.tui.widgets import taken

pytestmark = pytest.mark.xdist_group("worst-games")  # worst_start's moves are found once per worker

SIZE = (80, 24)
TINY = fixed(2)
ENGLISH = (" the ", " you ", " your ", "Hint", "Back", "Next", " win ", "Your ", "Table", "hand:", " played ",
           "waiting", "Review", "accuracy", "points")
"""Words that give English away; none is on a game screen in Spanish."""
PERCENT = re.compile(r"\d %")
"""A Spanish percentage: the sign after a space ("62 %"), never "62%"."""


def lines(app) -> list[str]:
    """The screen as it is drawn, line by line (80 cells each)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def readable(app, *sentences: str) -> str:
    """The screen's text, after checking that no English word is on it, that every line fits the screen, that
    nothing is pushed off it (no scrolling), and that each of `sentences` is whole on one of its lines."""
    shown = lines(app)
    text = "\n".join(shown)
    assert len(shown) == SIZE[1] and all(len(line) <= SIZE[0] for line in shown)
    for word in ENGLISH:
        assert word not in text, f"{word!r} on the screen:\n{text}"
    for sentence in sentences:
        assert any(sentence in line for line in shown), f"{sentence!r} is not whole on the screen:\n{text}"
    assert app.screen.max_scroll_y == 0, f"the screen scrolls:\n{text}"
    return text


def test_the_end_of_a_game_and_the_next_dealer_are_whole_spanish_sentences(spanish):
    state = GameSession.new(seed=3, dealer=1).state
    assert final_line(state._replace(scores=(40, 24), winner=0)) == "Ganaste la chica 40 a 24."
    assert final_line(state._replace(scores=(12, 41), winner=1)) == "El agente ganó la chica 41 a 12."
    assert next_dealer(state._replace(dealer=0)) == "Próxima data: das tú."
    four = GameSession.new(seed=3, dealer=1, players=4).state
    assert final_line(four._replace(scores=(30, 42), winner=1)) == "Los rivales ganaron la chica 42 a 30."
    assert next_dealer(four._replace(dealer=3)) == "Próxima data: da el rival izquierdo."
    i18n.set_language("en")  # English stays English
    assert final_line(state._replace(scores=(40, 24), winner=0)) == "You won the game 40 to 24."


def test_a_hints_cards_column_reads_the_coach_words_in_spanish(spanish):
    assert taken("se lleva 3♥ 4♠, caída +2") == "caída +2, 3♥ 4♠"
    assert taken(i18n._("trails")) == ""
    assert taken(i18n._("trails") + ", limpia +2") == "limpia +2"


@pytest.mark.parametrize("template, values", [
    ("Cartón: you {ours} · agent {theirs} cards   Hand {hand} · deal {deal}/{deals} · stock {stock} · dealer {dealer}",
     {"deals": 4, "stock": 30, "dealer": ("seat word", "agent")}),
    ("Cartón: ours {ours} · theirs {theirs} cards   Hand {hand} · deal {deal}/{deals} · stock {stock} · "
     "dealer {dealer}", {"deals": 2, "stock": 20, "dealer": ("seat word", "West")}),
])
def test_the_scoreboards_longest_line_fits_80_columns_in_spanish(spanish, template, values):
    dealer = i18n.pgettext(*values["dealer"])
    line = i18n._(template).format(ours=22, theirs=18, hand=9, deal=values["deals"], deals=values["deals"],
                                   stock=values["stock"], dealer=dealer)
    assert line.startswith("Cartón: ") and "reparto" in line and len(line) <= SIZE[0] - 2, line


async def test_the_play_screen_speaks_spanish_at_80x24(spanish):
    app = make_app(start="play", seed=284, dealer=1, agent_delay=0, tutor=False, analysis=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, PlayScreen)
        readable(app, "Cartón: tú 0 · agente 0  Data 1 · reparto 1/4 · mazo 30 · da: agente", "Mesa: (vacía)",
                 "Tu mano: 1:[A♥] 2:[3♦] 3:[J♣] 4:[Q♦] 5:[Q♣]    tu turno: pulsa 1-5",
                 "Agente (nivel club · modelo ", "Aquí aparece tu % de ganar tras cada jugada tuya",
                 "1-5 Jugar  h Pistas  t Tutor  u Deshacer  esc Inicio  ? Ayuda")
        await pilot.press("h")
        await settle(pilot)
        text = readable(app, "Pistas (h oculta): jugada · % de ganar después · riesgo · se lleva [afinadas]")
        assert re.search(r"★ \[\d\] .+ +\d+ % ±\d+", text)
        await pilot.press("1")  # the A♥ has one move: the agent replies
        await settle(pilot)
        text = readable(app, "El agente: ", "Tu % de ganar tras cada jugada tuya: ")
        assert re.search(r"agente: \d+ % de ganar", text) and re.search(r"\(\d+ %\)", text)
        assert "tu turno: pulsa 1-4" in text and PERCENT.search(text) and not re.search(r"\d%", text)
        await pilot.press("2")  # the J♣ trails, the agent's J takes it...
        await settle(pilot)
        await pilot.press("5")  # ...and a key with no card is refused in Spanish, with the count of cards
        await pilot.pause()
        assert app.messages[-1] == "Tienes 3 cartas: pulsa 1-3."
        await pilot.press("t")
        assert app.messages[-1] == "Tutor activado: te pregunta antes de un error claro."
        readable(app, "Tu % de ganar tras cada jugada tuya: ")  # the graph below it, nothing pushed off


async def test_the_2v2_seats_teams_and_agents_speak_spanish_at_80x24(spanish):
    app = make_app(start="play", seed=284, dealer=1, agent_delay=0, tutor=False, analysis=TINY, players=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("h")
        await settle(pilot)
        text = readable(app, "Tu equipo ", "Los rivales ", "Cartón: nosotros ", "Tu compañero: ", "Rival derecho: ",
                        "Rival izquierdo: ", "Pistas (h oculta)")
        assert re.search(r"(Rival derecho|Tu compañero|Rival izquierdo): .+ \([2-7AJQK][♠♥♦♣]\)", text)
        assert re.search(r"p \d+ % · (rivales|tu equipo): \d+ % de ganar", text)
        for _ in range(2):
            await pilot.press("1")
            await settle(pilot)
            if isinstance(app.screen, CaptureChoice):
                await pilot.press("1")
                await settle(pilot)
        readable(app, "Tu compañero: ", "Tu % de ganar tras cada jugada tuya: ")


async def test_the_end_of_a_hand_is_told_in_spanish():
    session = GameSession.new(seed=4, dealer=1)  # to your last card of the first hand (as test_tui's)
    play_first_cards(session, lambda s: len(s.record.moves) >= 38)
    i18n.set_language("es")
    app = make_app(agent_delay=0, tutor=False)
    async with app.run_test(size=SIZE) as pilot:
        await continue_and_play_first_card(pilot)
        notice = app.screen
        state = notice.app.screen_stack[-2].session.state
        assert isinstance(notice, Notice) and notice.title_text == "Fin de la data 1"
        assert f"Marcador: tú {state.scores[0]}, agente {state.scores[1]}.\nPróxima data: das tú." in notice.body
        readable(app, "Fin de la data 1", f"Marcador: tú {state.scores[0]}, agente {state.scores[1]}.",
                 "Próxima data: das tú.")


async def test_the_tutors_warning_speaks_spanish(spanish):
    # test_tui_tutor's position: after two moves 6♦ takes 2♦ 4♠ (a limpia); another move is a clear mistake
    game = GameSession.new(seed=0, dealer=1)
    while len(game.record.moves) < 2:
        game.play_human(game.hints()[0].action) if game.human_turn else game.play_agent()
    app = make_app(agent_delay=0, analysis=Settings(worlds=64, budget_s=0))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        session = app.screen.session
        result = session.analyse(session.position())
        position = session.state
        bad = next(m for m in result.moves if classify(m.loss, loss_ci95=m.loss_ci95).is_mistake_or_worse)
        await pilot.press(key_of(session.state, bad.action))
        await settle(pilot)
        if isinstance(app.screen, CaptureChoice):
            card = next(c for c in session.state.hands[0] if c >> 2 == ACTION_RANK[bad.action])
            await pilot.press(str([o.action for o in session.options_for(card)].index(bad.action) + 1))
            await settle(pilot)
        warning = app.screen
        assert isinstance(warning, TutorWarning)
        said = str(warning.query_one("#warning").render())
        assert re.fullmatch(r"Tu % de ganar queda en \d+ % ±\d+, \d+ puntos de % por debajo de la mejor jugada "
                            r"\(en 64 mundos\)\.", said), said
        readable(app, f"Tutor: {move_name(position, bad.action)} parece un error",
                 "[p] jugarla igual   [t] deshacerla   [s] ver la mejor jugada",
                 "p Jugarla igual  t Deshacerla  s Ver la mejor jugada")
        await pilot.press("s")
        better = move_name(position, result.best.action)
        assert str(warning.query_one("#better").render()).startswith(f"Mejor: {better} (")
        readable(app, "Mejor: ")


@pytest.mark.usefixtures("one_process")
async def test_the_review_list_a_review_and_its_luck_table_speak_spanish():
    worst_start(seed=1)  # six moves; in TINY's worlds the person's third is a mistake
    i18n.set_language("es")
    app = make_app(start="review", agent_delay=0, review=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ReviewList)
        text = readable(app, "Partidas guardadas (enter para revisar)", "esc Volver")
        assert re.search(r"fecha +modo +resultado +tu precisión +reglas +modelo", text)
        assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d +1 v 1 .+ \d+ %", text)  # the date whole, the accuracy
        await pilot.press("enter")
        await settle(pilot)
        review = app.screen
        assert isinstance(review, ReviewGame)
        text = readable(app, "Tu precisión: ", "por data: 1: ", "Jugada 1/6 · marcador 0-0 · data 1 reparto 1",
                        "Mesa: (vacía)", "Tú: [", "fin de la partida", "(t: por data)",
                        "n Sig. error  N Error ant.")
        assert "3 jugadas revisadas con el análisis." in str(review.query_one("#changes").render())
        assert re.search(r"Revisión: \d{4}-\d\d-\d\d \d\d:\d\d · reglas ", text)
        await pilot.press("n")  # the next mistake
        await settle(pilot)
        shown = str(review.query_one("#move").render())
        assert re.search(r"^Tú: .+ \([2-7AJQK][♠♥♦♣]\)\n(error|error grave): \d+ % ±\d+ de ganar; "
                         r"la mejor era .+ \(\d+ %, pérdida \d+,\d", shown), shown
        assert "trails" not in shown and "takes" not in shown  # the moves named in Spanish, not as the record has them
        readable(app, "la mejor era ")
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, LuckTable)
        readable(app, "Suerte vs. habilidad", "Habilidad: lo que los rivales perdieron")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("end", "enter")  # the move list's last entry: the end of the moves
        assert review.ply == 6
        assert str(review.query_one("#move").render()) == "Fin de las jugadas: la partida no terminó."


async def test_a_game_screen_changes_language_while_it_is_open():
    app = make_app(start="play", seed=284, dealer=1, agent_delay=0, tutor=False, analysis=TINY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        play = app.screen
        assert "Your hand: " in "\n".join(lines(app))
        i18n.set_language("es")
        app.retranslate()  # what the settings screen does: every screen's words, every footer's keys
        await settle(pilot)
        assert app.screen is play
        readable(app, "Tu mano: ", "Cartón: tú 0 · agente 0", "Agente (nivel club · modelo ")
