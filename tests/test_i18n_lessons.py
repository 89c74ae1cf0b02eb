"""The lessons in Spanish: a position solved by its Spanish move name (as the narrator says it, or as a player types
it: accents, articles and "y"/"+" optional), a wrong Spanish move refused with Spanish feedback, every lesson's
title, text, prompts, why and feedback translated and fitting the screen, and the lessons package's own words
(seats, problems of a lesson file, the check command) in Spanish with es_EC numbers."""

import re
import textwrap
import tomllib
from types import SimpleNamespace

import pytest

from cuarenta_tutor import i18n
from cuarenta_tutor import lessons as L
from cuarenta_tutor.i18n import _
from cuarenta_tutor.lessons.__main__ import main as check_lessons
from cuarenta_tutor.lessons.feedback import doubts
from cuarenta_tutor.narrator import move_name
from cuarenta_tutor.resources import data_dir

ENGLISH = re.compile(r"\b(the|you|your|takes|trails|captures|points|cards|another|move|this|could|answer)\b", re.I)
"""English words that must not be left in what a Spanish screen shows (move names aside: the narrator's)."""


def by_id(lesson_id):
    return next(lesson for lesson in L.load_lessons() if lesson.id == lesson_id)


def position(lesson_id, position_id):
    return next(p for p in by_id(lesson_id).positions if p.id == position_id)


def english_left(text, position=None):
    """The English words of `text` outside the names of moves (the narrator's words: the position's moves, and
    the reply quoted “...”)."""
    if position is not None:
        for name in sorted(position.moves(), key=len, reverse=True):
            text = text.replace(name, "")
    return ENGLISH.findall(re.sub(r"“[^”]*”", "", text))


def in_catalog(msgid):
    """Whether the compiled Spanish catalogs hold `msgid` (a translation may equal its English: "Caída")."""
    translations = i18n.catalog("es")
    while translations is not None:
        if msgid in getattr(translations, "_catalog", {}):
            return True
        translations = getattr(translations, "_fallback", None)
    return False


# Answers by Spanish move names

@pytest.mark.parametrize("typed", ["el 5 se lleva el 5", "El 5 se lleva el 5", "5 lleva 5", "el 5 coge el 5",
                                   "5 levanta 5", "con el 5 coges el 5", "caída con el 5", "5 takes 5"])
def test_a_spanish_move_name_solves_a_lesson_position(spanish, typed):
    caida = position("rules-05-caida", "catch-it")  # your opponent trailed a 5; you hold 5 2 K
    assert caida.find(typed) == caida.answer
    right, text = L.feedback(caida, typed)
    assert right and text == "Llevarte por igualdad la carta que tu rival acaba de botar es caída: 2 tantos."


def test_the_narrators_spanish_name_of_every_answer_solves_its_position(spanish):
    for lesson in L.load_lessons():
        for p in lesson.positions:
            name = move_name(p.state, p.answer)
            assert p.find(name) == p.answer, (lesson.id, p.id, name)
            right, text = L.feedback(p, name)
            assert right and text == _(p.why) and text != p.why, (lesson.id, p.id)


@pytest.mark.parametrize("typed", ["el 7 se lleva el 3 y el 4, y escalera J Q K", "el 7 se llevá el 3 y el 4",
                                   "7 coge 3+4", "7 LLEVA 3 + 4, ESCALERA j q k", "te llevas el 3 y el 4 con el 7",
                                   "7 takes 3+4, then J Q K"])
def test_a_sum_with_its_escalera_in_spanish(spanish, typed):
    run = position("rules-04-escalera", "after-seven")  # 7 takes 3+4, then J Q K
    assert run.find(typed) == run.answer


@pytest.mark.parametrize("typed", ["botas el J", "bota el J", "tira J", "tiras la J", "J trails"])
def test_a_trail_in_spanish(spanish, typed):
    lead = position("strategy-01-empty-table", "lead-a-dead-rank")  # the answer: J trails
    assert lead.find(typed) == lead.answer


@pytest.mark.parametrize("typed", ["el 7 se lleva el 3 y el 4, y escalera J Q", "el 7 se lleva el 4",
                                   "botas el 8", "el 7", "se lleva", ""])
def test_a_name_of_no_legal_move_finds_none(typed):
    assert position("rules-04-escalera", "after-seven").find(typed) is None


def test_a_wrong_spanish_move_is_refused_with_spanish_feedback(spanish):
    caida = position("rules-05-caida", "catch-it")
    right, text = L.feedback(caida, "botas el K")
    assert not right
    assert ": no se lleva nada. Tu rival podría responder “" in text
    assert "con cualquier K (sin ver: 2)" in text and "Esta vez no tiene ninguno." in text
    assert text.endswith("Otra jugada hace 2 tantos ahora.")
    assert not english_left(text, caida), text
    right, text = L.feedback(caida, "el 5 se lleva el 3")  # no such move here
    assert not right and text.startswith("“el 5 se lleva el 3” no es una jugada aquí. Tus jugadas: ")


def test_a_wrong_capture_says_what_it_takes_in_spanish(spanish):
    limpia = position("rules-06-limpia", "with-a-run")  # the 5 taking 2+3 instead of a caída y limpia
    right, text = L.feedback(limpia, "el 5 se lleva el 2 y el 3")
    assert not right and "se lleva 2" in text and "de la mesa y no hace tantos." in text
    assert "Otra jugada hace 4 tantos ahora." in text


def test_a_files_feedback_is_shown_in_spanish(spanish):
    race = position("strategy-05-carton-race", "twenty-beats-caida")
    right, text = L.feedback(race, "el 5 se lleva el 5")
    assert not right and text.startswith("La caída hace 2, pero tu montón llega solo a 19")


def test_english_feedback_is_unchanged():
    caida = position("rules-05-caida", "catch-it")
    assert L.feedback(caida, "5 takes 5") == (True, caida.why)
    right, text = L.feedback(caida, "botas el K")  # Spanish typed, English read
    assert not right and text.startswith("K trails: it captures nothing.")


# Every lesson in Spanish

LESSON_FILES = sorted(data_dir("lessons").glob("*/*.toml"))


def texts(path):
    """Every text of a lesson file a person reads: (field, English)."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = [("title", data["title"]), ("text", data["text"])]
    for p in data["positions"]:
        out += [(f"{p['id']}.prompt", p["prompt"]), (f"{p['id']}.why", p["why"])]
        out += [(f"{p['id']}.feedback", text) for text in p.get("feedback", {}).values()]
    return out


@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: p.stem)
def test_every_text_of_the_lesson_is_in_spanish(spanish, path):
    for field, english in texts(path):
        spanish_text = _(english)
        assert in_catalog(english) and (spanish_text != english or field == "title"), \
            f"{path.name} {field}: not translated"
        words = ENGLISH.findall(spanish_text)
        assert not words, f"{path.name} {field}: English words {words}"


@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: p.stem)
def test_the_spanish_lesson_text_fits_two_screens(spanish, path):
    english = tomllib.loads(path.read_text(encoding="utf-8"))["text"]
    text = _(english)
    assert all(len(line) <= 76 for line in text.splitlines()), max(text.splitlines(), key=len)
    assert text.endswith("\n") == english.endswith("\n")
    # the lesson screen reflows paragraphs to its width (80 columns less the scroll bar and margins)
    shown = sum(len(textwrap.wrap(part, 74)) + 1 for part in text.split("\n\n"))
    assert shown <= 2 * 22, f"{shown} lines"


# The lessons package's own words

def test_seat_lines_in_spanish(spanish):
    assert L.seat_lines(position("rules-05-caida", "catch-it").state) == ["Marcador: tú 0, tu rival 0"]
    ronda = by_id("strategy-08-partner-ronda").positions[0].state
    assert L.seat_lines(ronda) == ["Marcador: tu equipo (tú y tu compañero) 14, los rivales 10",
                                   "Cartas en la mano: rival derecho 5, compañero 5, rival izquierdo 5",
                                   "Ronda cantada en este reparto por: tu compañero"]


def test_lessons_load_in_spanish_with_the_same_answers(spanish):
    """A file names its moves in English whatever the language (escalera answers included)."""
    answers = {(lesson.id, p.id): p.answer for lesson in L.load_lessons() for p in lesson.positions}
    i18n.set_language("en")
    assert answers == {(lesson.id, p.id): p.answer for lesson in L.load_lessons() for p in lesson.positions}


GOOD = (data_dir("lessons") / "rules" / "05-caida.toml").read_text(encoding="utf-8")


def test_a_bad_lesson_file_is_reported_in_spanish(spanish, tmp_path):
    path = tmp_path / "05-caida.toml"
    path.write_text(GOOD.replace('answer = "5 takes 5"', 'answer = "5 takes 4"', 1), encoding="utf-8")
    with pytest.raises(L.LessonError) as caught:
        L.load_lesson(path)
    assert str(caught.value).startswith(f"{path}, línea ")
    assert ": posición 'catch-it': la respuesta '5 takes 4' no es una jugada válida aquí (válidas: 2 trails, " \
           "5 trails, K trails, 5 takes 5)" in str(caught.value)


def test_the_check_command_in_spanish(spanish, capsys):
    assert check_lessons([]) == 0
    lessons = L.load_lessons()
    positions = sum(len(lesson.positions) for lesson in lessons)
    assert capsys.readouterr().out == f"{len(lessons)} lecciones, {positions} posiciones: todo bien\n"
    assert check_lessons(["--fast"]) == 2
    assert "opción desconocida --fast: las opciones son --search, --analysis" in capsys.readouterr().err


def test_the_analysis_doubt_in_spanish_with_es_ec_numbers(spanish):
    p = position("strategy-01-empty-table", "take-the-limpia")
    other = next(a for a in p.moves().values() if a != p.answer)
    answer = SimpleNamespace(action=p.answer, loss=12.25, loss_ci95=(9.5, 15.0))
    result = SimpleNamespace(moves=(SimpleNamespace(action=other, loss=0.0, loss_ci95=(0.0, 0.0)), answer),
                             best=SimpleNamespace(action=other), worlds=1024, leaf="table")
    text = doubts(p, result)
    assert text.startswith("el análisis (1.024 mundos, finales de data valorados por la tabla de datas) juega ")
    assert text.endswith(": pierde 12,2 puntos de % de ganar (de 9,5 a 15,0)") or \
        text.endswith(": pierde 12,3 puntos de % de ganar (de 9,5 a 15,0)")


def test_a_damaged_progress_file_is_told_in_spanish(spanish, user_data):
    user_data.mkdir(parents=True, exist_ok=True)
    (user_data / "lessons.json").write_text("[]")
    progress = L.load_progress()
    assert progress.solved == {}
    assert "el archivo de progreso de las lecciones" in progress.problem
    assert "empiezas sin ninguna lección resuelta" in progress.problem
