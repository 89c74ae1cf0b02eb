"""The app's shell screens in Spanish (home, new game, settings, help, progress, lessons, drills): every word
through the catalog, nothing cut at 80x24, and a language chosen in the settings shown at once on every screen."""

import io
import re
from datetime import datetime, timezone

import pytest
from helpers import fixed, settle, worst_start
from rich.cells import cell_len
from rich.console import Console

from cuarenta_tutor import coach, i18n, records
from cuarenta_tutor.coach import drills
from cuarenta_tutor.i18n import N_
from cuarenta_tutor.tui import make_app

SIZE = (80, 24)
ENGLISH = re.compile(r"\b(the|you|your|You|Your|Back|Quit|Help|Settings|Lessons|Drills|game|New|Review|and|of|to|"
                     r"palette|due|Position|Table|hand|takes|trails)\b")
"""English a Spanish screen must not show (words of our screens, and the commonest English words)."""


def drawn(app) -> list[str]:
    """The screen as a person reads it: its lines of text, the dialogs over the screens they cover."""
    console = Console(width=SIZE[0], height=SIZE[1], file=io.StringIO(), record=True, color_system=None,
                      force_terminal=True, legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text().splitlines()


def spanish_only(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert not ENGLISH.findall(text), text


def footer_whole(lines: list[str]) -> str:
    """The footer line, checked to show every key to its last (the app's help key) and the palette's."""
    footer = lines[-1]
    assert "? Ayuda" in footer and footer.rstrip().endswith("^p comandos") and "…" not in footer, footer
    return footer


def whole_line(lines: list[str], sentence: str) -> None:
    assert any(sentence in line for line in lines), "\n".join(lines)


async def test_home_new_game_settings_and_help_in_spanish_fit_80x24(spanish):
    from textual.widgets import Select

    from cuarenta_tutor.tui.home import NewGame

    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "Aprende y juega al cuarenta del Ecuador contra un agente que te enseña.")
        for item in ("Nueva partida  (n)", "Revisar partidas guardadas  (r)", "Ejercicios de tus errores  (d)",
                     "Tu progreso  (s)", "Lecciones  (l)", "Ajustes  (o)", "Salir  (q)", "Modelo: cuarenta-a2c-lstm ("):
            whole_line(lines, item)
        footer = footer_whole(lines)
        assert "m Modelo" in footer and "o Ajustes" in footer and "^q Salir" in footer
        spanish_only(lines)
        home = app.screen  # a weak spot and many drills due, as the home screen tells them (es: "1.024")
        home.due, home.weak = 1024, {"kind": "missed caída", "count": 3, "games": 3, "lesson": "rules-05-caida"}
        home.refill([], [])
        home.show_weak()
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "Ejercicios de tus errores, 1.024 pendientes  (d)")
        weak = " ".join(line.strip() for line in lines if line.startswith("  ") and "▊" not in line)
        assert "Punto débil: caída perdida, 3 veces en tus últimas 3 partidas. Pulsa w para ver la lección que lo " \
               "enseña." in weak, lines
        spanish_only(lines)

        await pilot.press("n")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, NewGame)
        lines = drawn(app)
        for words in ("Nueva partida contra el agente", "Reglas", "Jugadores", "Nivel de juego",
                      "Quién reparte primero", "Semilla (repite las cartas)", "opcional, un número entero", "Empezar"):
            whole_line(lines, words)
        spanish_only(lines)
        box = dialog.query_one("#dialog")
        assert box.region.bottom <= SIZE[1] and box.max_scroll_y == 0  # the whole dialog fits, with no scrolling
        for select in dialog.query(Select):  # every choice of every list fits its box, in Spanish
            label = select.query_one("SelectCurrent #label")
            for prompt, value in select._options:
                select.value = value
                await pilot.pause()
                assert cell_len(str(prompt)) <= label.content_size.width, prompt
                spanish_only([str(prompt)])
                if select.id == "rules":  # the preset's note: Spanish, and whole
                    note = str(dialog.query_one("#rules-note").render())
                    spanish_only([note])
                    assert box.region.bottom <= SIZE[1] and box.max_scroll_y == 0, note

        await pilot.press("escape", "o")
        await settle(pilot)
        lines = drawn(app)
        for words in ("Ajustes", "Idioma", "Español", "Tutor", "Cada cambio se guarda al instante. Esc para volver."):
            whole_line(lines, words)
        spanish_only(lines)

        await pilot.press("escape", "question_mark")
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "Cuarenta Tutor — teclas")
        whole_line(lines, " tecla     dónde       qué hace")
        footer_whole(lines)
        spanish_only(lines)
        await pilot.press("end")
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, " botar     tirar una carta que no se lleva nada: se queda en la mesa")
        spanish_only(lines)


async def test_progress_lessons_and_an_empty_drill_deck_in_spanish_fit_80x24(spanish):
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        lines = drawn(app)
        for words in ("Tu progreso", "Tu precisión por chica (%)",
                      "Revisa una partida (r en la pantalla de inicio) para ver aquí tu precisión."):
            whole_line(lines, words)
        footer_whole(lines)
        spanish_only(lines)

        await pilot.press("escape", "l")
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "Lecciones: las de reglas enseñan el juego; las de estrategia, a jugarlo bien.")
        rows = [line for line in lines if "Reglas " in line or "Estrategia " in line]
        assert len(rows) >= 10 and all("0 %" in line and "0%" not in line for line in rows), rows  # es: "0 %"
        assert len({line.index("0 %") for line in rows}) == 1, rows  # the progress column lines up
        footer = footer_whole(lines)
        assert "esc Volver" in footer and "g Jugar una partida" in footer
        spanish_only(lines)

        await pilot.press("enter")
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "↓ / AvPág sigue leyendo · m va a la posición y tus jugadas · 1-9 elige jugada")
        whole_line(lines, "La baraja y el reparto")
        footer = footer_whole(lines)
        assert "n Siguiente" in footer and "p Anterior" in footer and "esc Lecciones" in footer
        spanish_only(lines)
        await pilot.press("m")
        await settle(pilot)
        lines = drawn(app)
        for words in ("Posición 1/", "Mesa: ", "Tu mano: ", "Tu jugada (pulsa su número):"):
            whole_line(lines, words)
        spanish_only(lines)
        view = app.screen
        wrong = next(a for a in view.moves if a != view.lesson.positions[0].answer)
        await pilot.press(str(view.moves.index(wrong) + 1))
        await settle(pilot)
        assert str(view.query_one("#feedback").render()).startswith("✗ Esta no. ")

        await pilot.press("escape", "escape", "d")
        await settle(pilot)
        lines = drawn(app)
        whole_line(lines, "Ejercicios")
        whole_line(lines, "Aún no hay ejercicios. Revisa una partida (r en la pantalla de inicio): cada")
        footer = footer_whole(lines)
        assert "1-5 Jugar" in footer and "esc Volver" in footer
        spanish_only(lines)


async def test_the_unfinished_games_and_the_models_in_spanish(spanish):
    from cuarenta_tutor.app.session import GameSession
    from cuarenta_tutor.engine import legal_actions
    from cuarenta_tutor.tui.home import ContinueChoice, ModelChoice

    for seed in (3, 4):  # two unfinished games, one move each
        session = GameSession.new(seed=seed, dealer=1)
        session.play_human(legal_actions(session.state)[0])
    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        whole_line(drawn(app), "Continuar una de 2 partidas sin terminar  (c)")
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, ContinueChoice)
        lines = drawn(app)
        whole_line(lines, "2 partidas sin terminar, la más nueva arriba (enter continúa)")
        assert len([line for line in lines if " · 1 jugada · Estándar" in line and "del " in line]) == 2, lines
        spanish_only(lines)
        await pilot.press("escape", "m")
        await settle(pilot)
        assert isinstance(app.screen, ModelChoice)
        lines = drawn(app)
        whole_line(lines, "El agente juega con un modelo (los tuyos están en")
        whole_line(lines, "● cuarenta-a2c-lstm (")
        assert any("incluido)" in line for line in lines), lines
        spanish_only([line.split("/")[0] for line in lines])  # the folder's path aside


@pytest.mark.usefixtures("one_process")
async def test_a_drill_in_spanish_with_its_feedback_and_schedule(spanish):
    from cuarenta_tutor.tui.drills import DrillScreen, until

    session = worst_start(seed=24)  # two mistakes or worse in two worlds (test_tui_drills)
    found: list = []
    coach.review(session.record, None, fixed(2), drills=found)
    drills.add_drills(found)
    app = make_app(start="drills", agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen) and screen.drill is not None
        title = str(screen.query_one("#title").render())
        assert title.startswith("Ejercicio · 2 pendientes · caja 0 de 5 · ") and " de tu partida del " in title
        position = str(screen.query_one("#position").render())
        for words in ("Marcador: tú ", "rivales", "cartón: tú ", "Mesa: ", "Tu mano: ", "Jugadas en este reparto: ",
                      "¿Qué juegas? (pulsa 1-"):
            assert words in position, position
        spanish_only([title, position])
        screen.action_card(9)  # a key with no card: said in Spanish, with the keys there are
        await settle(pilot)
        assert app.messages[-1].startswith("Esta mano tiene ") and "cartas: pulsa 1-" in app.messages[-1]
        menu = screen.query_one("#drill-moves")
        menu.highlighted = 0
        await pilot.press("enter")
        await settle(pilot)
        feedback = str(screen.query_one("#feedback").render())
        assert feedback.startswith(("✓ Correcto. ", "✗ Esta no. ")) and "\nVuelve " in feedback, feedback
        assert "(caja " in feedback and "→ para el siguiente ejercicio." in feedback
        lines = drawn(app)
        footer_whole(lines)
    now = datetime(2026, 11, 21, 12, tzinfo=timezone.utc)
    assert until("2026-11-21T12:00:00+00:00", now) == "ahora"
    assert until("2026-11-21T13:00:00+00:00", now) == "en 1 hora"
    assert until("2026-11-22T12:00:00+00:00", now) == "en 24 horas"
    assert until("2026-11-24T12:00:00+00:00", now) == "en 3 días"


async def test_a_language_chosen_in_the_settings_shows_at_once_on_every_screen_and_is_kept():
    from textual.widgets import OptionList

    from cuarenta_tutor.tui.app import HelpScreen
    from cuarenta_tutor.tui.home import HomeScreen
    from cuarenta_tutor.tui.settings import SettingsScreen

    app = make_app(agent_delay=0)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark", "escape")  # the help, made in English and kept
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(app.screen, SettingsScreen)
        whole_line(drawn(app), "Language")
        await pilot.press("enter", "down", "enter")  # the list of languages: English, Español
        await settle(pilot)
        assert i18n.language() == "es" and app.settings.language == "es"
        assert records.load_settings()[0].language == "es"  # kept for the next start
        lines = drawn(app)  # the dialog and the home screen around it, at once
        for words in ("Ajustes", "Idioma", "Español", "Cada cambio se guarda al instante. Esc para volver.",
                      "Aprende y juega al cuarenta del Ecuador contra un agente que te enseña."):
            whole_line(lines, words)
        assert app.screen.focused is app.screen.query_one("#language")
        home = app.screen_stack[-2]
        assert isinstance(home, HomeScreen)
        prompts = [str(o.prompt) for o in home.query_one(OptionList).options]
        assert prompts[0] == "Nueva partida  (n)" and "Ajustes  (o)" in prompts
        commands = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert commands["Nueva partida"] == "Juega una partida nueva contra el agente"
        assert "Ajustes" in commands and "Tema" in commands and "Teclas" in commands  # Textual's own, too
        await pilot.press("escape")
        await settle(pilot)
        lines = drawn(app)
        footer = footer_whole(lines)
        assert "m Modelo" in footer
        spanish_only(lines)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        whole_line(drawn(app), "Cuarenta Tutor — teclas")
        await pilot.press("escape", "o", "enter", "up", "enter")  # and back to English
        await settle(pilot)
        assert i18n.language() == "en" and records.load_settings()[0].language == "en"
        whole_line(drawn(app), "Each change is kept at once. Esc goes back.")
        await pilot.press("escape")
        await settle(pilot)
        assert "m Model" in drawn(app)[-1]


async def test_the_tutor_setting_is_kept_and_used_by_new_games():
    from textual.widgets import Switch

    app = make_app(agent_delay=0, tutor=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        switch = app.screen.query_one("#tutor", Switch)
        assert switch.value is False
        switch.value = True
        await settle(pilot)
        assert app.tutor is True and records.load_settings()[0].tutor is True


def test_keys_are_described_in_the_language_in_use_and_keep_their_keys(spanish):
    from textual.binding import ActiveBinding, Binding

    from cuarenta_tutor.tui.words import translated

    active = {"escape": ActiveBinding(None, Binding("escape", "app.pop_screen", N_("Back")), True),
              "ctrl+q": ActiveBinding(None, Binding("ctrl+q", "quit", N_("Quit"), tooltip=N_("Quit")), True, "")}
    shown = translated(active)
    assert shown["escape"].binding.description == "Volver" and shown["escape"].binding.key == "escape"
    assert shown["ctrl+q"].binding.description == "Salir" and shown["ctrl+q"].binding.tooltip == "Salir"
    assert shown["escape"].binding.action == "app.pop_screen" and shown["escape"].enabled
    i18n.set_language("en")
    assert translated(active)["escape"].binding.description == "Back"


def test_every_paragraph_of_the_help_has_its_spanish(spanish):
    from cuarenta_tutor.tui.app import HELP

    text = HELP.read_text(encoding="utf-8")
    english = [part for part in text.split("\n\n") if part.strip()]
    spanish_text = i18n.paragraphs(text)
    translated = [part for part in spanish_text.split("\n\n") if part.strip()]
    assert len(translated) == len(english)
    for source, shown in zip(english, translated, strict=True):
        assert shown != source, source[:60]
    assert "| botar |" in spanish_text and "**caída**" in spanish_text and "**limpia**" in spanish_text
    assert "trail" not in spanish_text and " the " not in spanish_text
