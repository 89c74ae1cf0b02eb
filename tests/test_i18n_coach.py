"""The coach, the app service layer, the analysis, the levels, the agents' refusals and the arena's summary in
Spanish: the words come from coach.po, the numbers in es_EC's formats ("62 %", "41,2"), and the English stays as it
was (with its plurals right: "1 mistake", "0 inaccuracies")."""

import errno
import re

import pytest

from cuarenta_tutor import i18n, records
from cuarenta_tutor.agents.onnx_contract import ModelError
from cuarenta_tutor.agents.onnx_policy import load_session
from cuarenta_tutor.analysis.classes import Class
from cuarenta_tutor.analysis.values import forget, sidecar_problem
from cuarenta_tutor.app.coaching import hint_win
from cuarenta_tutor.app.session import SaveError
from cuarenta_tutor.arena.summary import MatchSummary, SideSummary, format_summary
from cuarenta_tutor.coach import Annotation, Provenance, format_review, luck, reviewed_seats, stats, win_text
from cuarenta_tutor.coach.advice import Hint
from cuarenta_tutor.coach.drills import feedback
from cuarenta_tutor.coach.kinds import KINDS, label, with_article
from cuarenta_tutor.engine import ACTION_RANK, Dealer, legal_actions, make_position, match_action, parse_rank, preset
from cuarenta_tutor.engine.actions import trail_action
from cuarenta_tutor.narrator import move_name
from cuarenta_tutor.players import Level, level_description, level_name, rung_name

ENGLISH = re.compile(r"\b(the|you|your|win|over|moves?|hand|best|loss|level|games?|mistakes?|accuracy|luck|skill)\b")
"""English words that must not be left in a Spanish line of ours."""


def english_words(text: str) -> list[str]:
    return ENGLISH.findall(text)


def _game(seed: int = 5, stop: int = 6) -> records.GameRecord:
    """A few moves of a 1 v 1 game with the app's names: "Agent" deals from seat 0, "You" in seat 1 plays first; each
    seat plays its first legal move."""
    rules = preset("standard")
    dealer = Dealer(seed)
    state, _events = dealer.start(rules, 0)
    record = records.new_record(rules, seed, 0, [("onnx", "Agent"), ("human", "You")], 1)
    while not state.is_over and len(record.moves) < stop:
        seat, action = state.turn, legal_actions(state)[0]
        card = next(c for c in state.hands[seat] if c >> 2 == ACTION_RANK[action])
        state, _events = dealer.play(state, action, card=card)
        record.add_move(seat, action, card, None, after=state)
    return record


def _notes(record) -> list[Annotation]:
    first = record.moves[0].seat
    prov = Provenance("analysis", "0123456789abcdef", {"worlds": 256}, "table", "9.9")
    return [Annotation(0, first, 0, "A trails", 60.0, 45.0, 16, "7 takes 7", 60.0, 15.0, "blunder", 50.0, prov,
                       (42.0, 48.0), (12.5, 18.0), 256),
            Annotation(2, first, 0, "A trails", 40.0, 40.0, 0, "A trails", 40.0, 0.0, "best", 100.0, prov,
                       (38.0, 42.0), (0.0, 0.0), 256)]


# ---- classes, kinds, levels -------------------------------------------------------------------------------------
def test_the_classes_read_in_spanish_and_keep_their_values(spanish):
    assert [c.label for c in Class] == ["mejor jugada", "buena", "imprecisión", "error", "error grave", "dudoso"]
    assert Class.MISTAKE.with_article == "un error" and Class.INACCURACY.with_article == "una imprecisión"
    assert Class.BLUNDER.counted(1) == "1 error grave" and Class.BLUNDER.counted(3) == "3 errores graves"
    assert Class.MISTAKE.value == "mistake" and f"{Class.MISTAKE}" == "mistake"  # records and JSON keep the word


def test_the_classes_are_counted_with_their_english_plurals():
    assert Class.MISTAKE.counted(1) == "1 mistake" and Class.INACCURACY.counted(0) == "0 inaccuracies"
    assert Class.MISTAKE.label == "mistake" and Class.BLUNDER.with_article == "a blunder"


def test_the_kinds_of_mistakes_read_in_spanish_and_stay_ids(spanish):
    assert [label(k) for k in KINDS] == ["caída perdida", "limpia perdida", "suma perdida", "caída regalada",
                                         "limpia regalada", "cartón cedido", "otro"]
    assert with_article("left a caída") == "una caída regalada" and with_article("gave up the cartón") == \
        "un cartón cedido"


def test_the_levels_read_in_spanish_and_their_ids_stay(spanish):
    assert [level_name(x) for x in ("beginner", "club", "strong", "adaptive")] == \
        ["principiante", "club", "fuerte", "adaptable"]
    assert str(Level.of("adaptive:onnx@eps=0.35")) == "adaptable, ahora la red con 35 % de jugadas al azar"
    assert rung_name("onnx@eps=1") == "juego al azar" and rung_name("strong") == "fuerte"
    assert level_description("beginner") == "principiante: el agente, con la mitad de sus jugadas al azar"
    assert Level.of("strong").spec == "strong"


def test_the_levels_in_english():
    assert str(Level.of("adaptive:onnx@eps=0.5")) == "adaptive, now the network with 50% random moves"
    assert str(Level.of("club")) == "club" and rung_name("onnx@eps=1") == "random play"


# ---- the numbers a person reads ---------------------------------------------------------------------------------
def test_win_percentages_are_written_as_ecuador_writes_them(spanish):
    assert win_text(62.4, (59.0, 66.0)) == "62 % ±4"
    assert win_text(62.4, None) == "62 %"
    assert win_text(62.4, (59.0, 66.0), measured=False) == "62 % (sin calibrar)"
    refined = Hint(0, "7", "1", "bota", 62.4, (59.0, 66.0), 0.1, 0.0, True)
    assert hint_win(refined) == " 62 % ±4" and hint_win(Hint(0, "7", "1", "bota", 5.0)) == "  5 %"


def test_win_percentages_in_english_are_as_they_were():
    assert win_text(62.4, (59.0, 66.0)) == "62% ±4" and win_text(62.4, (59.0, 66.0), False) == "62% (uncalibrated)"
    assert hint_win(Hint(0, "7", "1", "trails", 62.4, (59.0, 66.0), 0.1, 0.0, True)) == " 62% ±4"


# ---- the review --------------------------------------------------------------------------------------------------
def test_the_review_as_text_is_spanish(spanish):
    record = _game()
    text = format_review(record, _notes(record))
    lines = text.splitlines()
    assert lines[0].startswith("Chica ") and "reglas standard, 2 jugadores" in lines[0]
    assert lines[1] == "Asientos: 0 Agente (onnx), 1 Tú (human)"
    assert "Data 1 (marcador 0-0)" in lines
    assert "Anotaciones del modelo 0123456789ab: análisis en hasta 256 mundos por jugada, los finales valorados por " \
           "la tabla de valores (versión 9.9)" in lines
    first = next(line for line in lines if line.startswith("   1. "))
    assert first.startswith("   1. Tú ")  # the person's seat, "You (you)" in English
    best = move_name(records.replay(record)[0], 16)  # the narrator's words, in the language in use
    assert f"45 % ±3 de ganar  error grave (mejor: {best}, 60 %, pierde 15,0, 95 % 12,5-18,0" in first
    assert "  Tú: 75,0 % en 2 jugadas (0 imprecisiones, 0 errores, 1 error grave, 0 dudosos); data 1 75 %" in lines
    ours = [line for line in lines if not line[:5].strip().rstrip(".").isdigit()  # not the moves (the narrator's)
            and not line.startswith("Cómo terminó")]
    assert not english_words("\n".join(ours)), english_words("\n".join(ours))
    assert "  ninguna jugada fue anotada" in format_review(record, []).splitlines()


def test_the_review_refuses_a_seat_in_spanish(spanish):
    with pytest.raises(ValueError, match=r"el asiento 3 no está en esta mesa \(asientos 0..1\)"):
        reviewed_seats(_game(), 3)


# ---- luck vs skill, progress --------------------------------------------------------------------------------------
def test_luck_vs_skill_reads_in_spanish(spanish):
    hands = [luck.HandLuck(1, 50.0, 70.5, 20.5, 12.25, 8.25, 3.0, 11.25, 5, 0),
             luck.HandLuck(2, 70.5, 100.0, 29.5, 29.0, 0.5, 1.0, 1.5, 4, 2)]
    split = luck.GameLuck(0, "table", hands)
    line = luck.summary_line(split)
    assert line.startswith("% de ganar 50 → 100 (+50,0): suerte +41,2, habilidad +8,8 (pérdidas: propias 4,0, "
                           "rivales 12,8)") and line.endswith("; 2 decisiones sin analizar todavía")
    table = luck.table_lines(split)
    assert table[0].split() == ["data", "inicio", "fin", "cambio", "suerte", "habilidad"]
    assert table[1].split() == ["1", "50,0", "70,5", "+20,5", "+12,2", "+8,2"] and table[-1].split()[0] == "total"
    assert luck.summary_line(luck.GameLuck(0, "table", [])) == \
        "Suerte y habilidad: todavía no hay ninguna data analizada."


def _stats(n: int, accuracy: float = 55.0) -> list:
    return [stats.GameStats(f"g{i}", "2026-01-01T00:00:00+00:00", f"2026-01-0{i + 1}T10:00:00+00:00", True, i % 2 == 0,
                            "level strong", accuracy, 9, {"left a caída": 2}) for i in range(n)]


def test_progress_reads_in_spanish_with_its_plurals(spanish):
    text = stats.report_text(_stats(3))
    lines = text.splitlines()
    assert lines[0] == "3 chicas contigo, 3 con precisión (la revisión con el análisis da la más fiel)"
    assert "ganada" in lines[1] and "precisión 55 %" in lines[1] and lines[1].endswith("contra nivel fuerte")
    assert "Tu nivel: juega 2 chicas más sin pistas para verlo" in lines  # three games claim no level
    assert "Tu nivel: entre el bot aleatorio y el bot codicioso: precisión 55 % en tus 5 chicas más recientes " \
           "(aleatorio 49 %, codicioso 62 %, experto 78 %)" in stats.report_text(_stats(5)).splitlines()
    assert "Errores por tipo: caída perdida 0, limpia perdida 0, suma perdida 0, caída regalada 6" in text
    assert "Contra nivel fuerte: 2 a favor y 1 en contra, de 3" in lines
    assert "Punto débil: caída regalada, 6 veces en tus 3 chicas más recientes; lección strategy-03-safe-trails" \
        in lines
    one = stats.report_text(_stats(1)).splitlines()
    assert one[0].startswith("1 chica contigo, 1 con precisión")
    assert one[2] == "Tu nivel: juega 4 chicas más sin pistas para verlo"
    assert "Tu nivel: juega 1 chica más sin pistas para verlo" in stats.report_text(_stats(4)).splitlines()
    assert not english_words(text.replace("strategy-03-safe-trails", ""))
    assert stats.report(_stats(1))["games"][0]["opponent"] == "level strong"  # JSON keeps the id


def test_progress_in_english_counts_one_game_as_one():
    assert stats.report_text(_stats(1)).splitlines()[0].startswith("1 game with you in it, 1 with an accuracy")
    assert stats.report_text(_stats(3)).splitlines()[0].startswith("3 games with you in them")


# ---- drills ---------------------------------------------------------------------------------------------------------
def test_a_drills_feedback_is_spanish(spanish):
    state = make_position(hands=[["5", "K"], ["Q"]], table=["5"], trailed="5", turn=0)
    take, trail = match_action(parse_rank("5")), trail_action(parse_rank("K"))
    move = {"caida_risk": 0.0, "limpia_risk": 0.0}
    best = {**move, "action": take, "move": "5 takes 5 (stored)", "win_pct": 70.0, "ci95": [67.0, 73.0], "loss": 0.0,
            "class": "best"}
    worse = {**move, "action": trail, "move": "K trails (stored)", "win_pct": 52.5, "ci95": [50.0, 55.0], "loss": 17.5,
             "class": "blunder"}
    k, five = move_name(state, trail), move_name(state, take)  # the narrator's words, not the deck's stored names
    text = feedback(state, worse, best, worse)
    assert text.startswith(f"{k}: 52 % ±2 de ganar, 17,5 puntos menos que {five} (70 % ±3); error grave.")
    right = feedback(state, best, best, worse)
    assert right.startswith(f"{five}: 70 % ±3 de ganar, la mejor jugada. En la chica jugaste {k} (52 % ±2, "
                            "un error grave).")
    assert "(stored)" not in text + right


# ---- refusals and notices -----------------------------------------------------------------------------------------
def test_a_model_that_is_a_folder_is_refused_in_spanish_with_the_fix(spanish, tmp_path):
    with pytest.raises(ModelError) as err:
        load_session(tmp_path)
    text = str(err.value)
    assert "es una carpeta, no un archivo de modelo" in text and "vuelve a exportarlo desde su checkpoint con " \
           "`cuarenta-tutor export CHECKPOINT --out MODEL.onnx`" in text


def test_the_sidecar_problem_follows_the_language(tmp_path):
    model = tmp_path / "mine.onnx"
    model.write_bytes(b"not a model")
    forget()
    assert sidecar_problem(model, "abc").startswith(f"{model} has no analysis sidecar")
    i18n.set_language("es")
    assert sidecar_problem(model, "abc").startswith(f"{model} no tiene archivo de análisis")
    i18n.set_language("en")
    assert "measures them (it takes a while)" in sidecar_problem(model, "abc")


def test_a_move_that_could_not_be_saved_says_so_in_spanish(spanish):
    full = SaveError(OSError(errno.ENOSPC, "No space left on device"), "/games")
    assert str(full) == ("La jugada no se hizo: no se pudo guardar la chica en /games (No space left on device). "
                         "Libera espacio en el disco y vuelve a jugarla.")


def test_the_arena_summary_is_spanish(spanish):
    side = SideSummary("club", 3, 21.5, 1.25, 2.0, 1.0, 0.5)
    text = format_summary(MatchSummary(4, 2, 0.75, 0.5, 1.0, 6.5, side, SideSummary("greedy", 1, 15.0, 0.1, 1, 1, 0)),
                          "standard", 7)
    assert text.splitlines()[0] == ("arena: club (A) contra greedy (B), 4 chicas en 2 pares de semillas duplicadas, "
                                    "reglas standard, semilla 7")
    assert "A gana 0,750  IC 95 % [0,500, 1,000]   diferencia media de tantos +6,50" in text
    assert "caídas / chica" in text and "victorias" in text and "21,5" in text


def test_the_core_setting_is_refused_in_spanish(spanish, monkeypatch):
    from cuarenta_tutor import core

    monkeypatch.setenv("CUARENTA_TUTOR_CORE", "slow")
    assert core.problem() == "CUARENTA_TUTOR_CORE debe ser uno de estos: python, fast, no 'slow': se usa el núcleo " \
                             "rápido"
