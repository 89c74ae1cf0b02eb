"""The game's words in Spanish: the narrator's sentences (built whole per person), move names as players say them,
endings and scores, the rules presets, the engine's refusals and the messages about a person's damaged files, each
from real engine states and real files; English stays as it was (the stable action names above all)."""

import json
import random

import pytest

from cuarenta_tutor import records
from cuarenta_tutor.engine import (
    ACTION_KIND,
    ACTION_RANK,
    N_ACTIONS,
    PRESET_NOTES,
    PRESETS,
    Dealer,
    Dealt,
    GameWon,
    HandEnded,
    IllegalMove,
    Ronda,
    action_to_string,
    apply,
    capture_options,
    choice_to_action,
    legal_actions,
    make_position,
    match_action,
    parse_rank,
    preset,
    preset_label,
    preset_note,
    sum_action,
    trail_action,
)
from cuarenta_tutor.engine.cards import make_card
from cuarenta_tutor.narrator import Narrator, best_despite, move_name, spoken, why_better
from cuarenta_tutor.records import load_settings

ENGLISH_WORDS = (" the ", " you ", " your ", " and ", " of ", " with ", " won ", " takes ", " trails", "You ", "The ")


def no_english(text: str) -> None:
    padded = f" {text} "
    assert not [w for w in ENGLISH_WORDS if w in padded], text


def ronda_deal(seat: int, rules):
    """The first deal of a game where `seat` is dealt three sevens (a ronda), and its events."""
    sevens = [make_card(parse_rank("7"), s) for s in range(3)]
    rest = [c for c in range(40) if c not in sevens]
    random.Random(4).shuffle(rest)
    rest = [c for c in rest if c >> 2 != 6] + [c for c in rest if c >> 2 == 6]  # the fourth 7 dealt last
    deck = sevens + rest[:2] + rest[2:]  # the first five cards go to the seat after the dealer
    return Dealer(0, [deck]).start(rules, dealer=(seat - 1) % rules.players)


def capture(rules, scores, table, played, trailed=None):
    """The state before a capture by seat 0 (you), and (state after, events)."""
    state = make_position(rules, hands=[[played, "K"], ["Q", "J"]], table=table, turn=0, trailed=trailed,
                          scores=scores)
    return state, apply(state, match_action(parse_rank(played)))


def test_a_ronda_is_told_per_person_with_its_table_talk(spanish):
    rules = preset("standard")
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    state, events = ronda_deal(0, rules)
    assert any(isinstance(e, Ronda) and e.seat == 0 for e in events)
    assert "¡Ronda! Tienes tres iguales: +2. ¡Dos por guapo!" in narrator.callouts(events, state)
    state, events = ronda_deal(1, rules)
    said = narrator.callouts(events, state)
    assert "¡Ronda! El agente tiene tres iguales: +2. ¡Dos por guapo!" in said
    blocked = Narrator(rules, ["You", "The agent"], you=0).event(Ronda(1, 1, 0))
    assert blocked == "Ronda: el agente tiene tres iguales, sin tantos (las rondas no cuentan desde 30)."
    for text in said + [blocked]:
        no_english(text)


def test_a_ronda_in_english_says_hold_for_you_and_holds_for_the_agent():
    rules = preset("standard")
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    state, events = ronda_deal(0, rules)
    assert "Ronda! You hold three of a kind: +2." in narrator.callouts(events, state)  # no table talk in English
    state, events = ronda_deal(1, rules)
    assert "Ronda! The agent holds three of a kind: +2." in narrator.callouts(events, state)


def test_a_caida_a_limpia_and_their_cut_offs_in_spanish(spanish):
    rules = preset("standard")
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    _, (after, events) = capture(rules, (0, 0), ["5", "7"], "5", trailed="5")
    assert narrator.callouts(events, after) == ["¡Caída! Tú: +2. ¡Dos por shunsho!"]
    _, (after, events) = capture(rules, (0, 0), ["5"], "5")
    assert narrator.callouts(events, after) == ["¡Limpia! Tú: +2."]
    _, (after, events) = capture(rules, (38, 10), ["5"], "5")
    assert narrator.callouts(events, after) == ["Limpia, pero con 38 o más ya no te suma (la regla de 38)."]
    todo_dos = preset("quito_todo_dos")
    _, (after, events) = capture(todo_dos, (10, 10), ["5"], "5", trailed="5")
    said = Narrator(todo_dos, ["You", "The agent"], you=0).callouts(events, after)
    assert said[1] == ("También hay limpia, pero con estas reglas (todo dos) la caída y limpia vale solo los 2 de "
                       "la caída.")
    before, (after, events) = capture(rules, (26, 20), ["5"], "5", trailed="5")  # 26 -> 30
    assert narrator.thresholds(before, after) == [
        "Llegaste a 30: las rondas, el bono de caída en ronda y el cartón ya no cuentan."]
    later = narrator.thresholds(after._replace(scores=(30, 36)), after._replace(scores=(30, 38)))
    assert later == ["El agente llegó a 38: las limpias ya no cuentan; solo una caída cierra la chica (38 no juega)."]


def test_two_v_two_names_the_partner_and_the_rivals(spanish):
    rules = preset("standard", players=4)
    narrator = Narrator(rules, ["You", "East", "Partner", "West"], you=0)
    state = make_position(rules, hands=[["K"], ["5", "Q"], ["J"], ["Q"]], table=["5", "7"], turn=1, trailed="5")
    after, events = apply(state, match_action(parse_rank("5")))
    assert narrator.callouts(events, after) == ["¡Caída! El rival derecho (los rivales): +2. ¡Dos por shunsho!"]
    assert narrator.play(events[0]).startswith("El rival derecho tiró el 5")
    state = make_position(rules, hands=[["K"], ["Q"], ["5", "J"], ["Q"]], table=["5"], turn=2)
    after, events = apply(state, match_action(parse_rank("5")))
    assert narrator.callouts(events, after) == ["¡Limpia! Tu compañero (tu equipo): +2."]


def test_move_names_as_players_say_them(spanish):
    rules = preset("standard")
    state = make_position(rules, hands=[["7", "5", "K", "A"], ["Q"]], table=["3", "4", "J", "Q", "5", "A"], turn=0)
    assert move_name(state, trail_action(parse_rank("K"))) == "botas el K"
    assert move_name(state, match_action(parse_rank("5"))) == "el 5 se lleva el 5"
    assert move_name(state, match_action(parse_rank("A"))) == "el as se lleva el as"
    assert move_name(state, sum_action(parse_rank("7"), [parse_rank("3"), parse_rank("4")])) == \
        "el 7 se lleva el 3 y el 4, y escalera J Q"
    assert move_name(state, sum_action(parse_rank("5"), [0, 3])) == "el 5 se lleva el as y el 4"
    three = sum_action(parse_rank("7"), [0, 1, 3])  # A+2+4, named where no such table holds it
    assert move_name(state, three) == "el 7 se lleva el as, el 2 y el 4"
    # the stable English name of files never changes with the language
    assert action_to_string(sum_action(parse_rank("7"), [2, 3]), (7, 8)) == "7 takes 3+4, then J Q"
    assert action_to_string(trail_action(9)) == "K trails"


def test_english_move_names_are_the_stable_names():
    seen = set()
    for seed in range(40):
        dealer, rules = Dealer(seed), preset("standard")
        state, _events = dealer.start(rules)
        while not state.is_over and state.hand_no == 0:
            table = [c >> 2 for c in state.table]
            for action in legal_actions(state):
                runs = [o.sequence for o in capture_options(table, ACTION_RANK[action], rules) if o.action == action]
                name = move_name(state, action)
                assert name == action_to_string(action, runs[0] if runs else ())
                seen.add(ACTION_KIND[action] + 3 * bool(runs and runs[0]))
            state, _events = dealer.play(state, legal_actions(state)[-1])
    assert seen >= {0, 1, 2, 4, 5}  # trails, matches and sums, with and without an escalera
    state = make_position(preset("standard"), hands=[["7"], ["Q"]], table=["3", "4", "J", "Q"], turn=0)
    assert move_name(state, sum_action(6, [2, 3])) == "7 takes 3+4, then J Q"
    assert [spoken(a) for a in range(N_ACTIONS)] == [action_to_string(a) for a in range(N_ACTIONS)]


def test_a_game_won_and_its_ending_in_spanish(spanish):
    rules = preset("standard")
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    _, (after, events) = capture(rules, (36, 20), ["5"], "5", trailed="5")  # caída y limpia from 36: 40
    assert any(isinstance(e, GameWon) for e in events)
    assert narrator.callouts(events, after)[-1] == "¡Ganaste la chica 40 a 20!"
    assert narrator.ending(events, after) == "Ganaste la chica 40 a 20: llegaste a 40 con una caída y una limpia (+4)."
    pile = [rank for rank in "A34567QJ" for _ in range(4)][:25]  # the agent's 25 cards: a cartón of 12 from 28
    last = make_position(rules, hands=[["K"], []], table=["K", "2"], turn=0, scores=(20, 28), piles=([], pile))
    ended, events = apply(last, match_action(parse_rank("K")))
    assert any(isinstance(e, HandEnded) for e in events)
    said = narrator.callouts(events, ended)
    assert said[0].startswith("Fin de la data 1. Cartón: tú, 2 cartas (+0); el agente, 25 cartas (+12). Se descarta "
                              "1 carta que quedó en la mesa.")
    assert said[0].endswith("¡25 de cartón son 12 tantos!")
    assert said[-1] == "¡El agente ganó la chica con el cartón, 40 a 20!"
    assert narrator.ending(events, ended) == "El agente ganó la chica 40 a 20: llegó a 40 con el cartón de la data 1 " \
                                             "(+12)."
    four = Narrator(preset("standard", players=4), ["You", "East", "Partner", "West"], you=0)
    assert four.event(GameWon(1, (20, 40))) == "¡Los rivales ganaron la chica 40 a 20!"
    for text in said + [narrator.ending(events, ended)]:
        no_english(text)


def test_the_result_of_a_saved_game_in_spanish(spanish):
    rules = preset("standard")
    record = records.new_record(rules, 1, 0, [("human", "You"), ("club", "The agent")], human_seat=0)
    record.result = records.Result(0, (41, 24))
    assert records.result_text(record) == "ganaste 41 a 24"
    record.result = records.Result(1, (30, 40))
    assert records.result_text(record) == "perdiste 30 a 40"
    record.result = None
    assert records.result_text(record) == "sin terminar"


def test_the_reasons_of_the_tutor_in_spanish(spanish):
    rules = preset("standard")
    state = make_position(rules, hands=[["5", "K"], ["Q", "J"]], table=["5", "7"], turn=0, trailed="5")
    caida, trail = match_action(parse_rank("5")), trail_action(parse_rank("K"))
    risks = {caida: (0.1, 0.0), trail: (0.6, 0.3)}
    reasons = why_better(state, trail, caida, risks)
    assert reasons == ["deja pasar la caída (+2 ya)", "se lleva 1 carta menos para el cartón",
                       "deja el K♠ para una caída (60 % de los mundos)",
                       "deja la mesa abierta a una limpia (30 % de los mundos)"]
    line = best_despite(state, caida, trail, {caida: (0.4, 0.0), trail: (0.1, 0.0)}, 12)
    assert line == "la mejor pese a su riesgo de caída (40 %): +12 puntos de % frente a botas el K, que deja pasar " \
                   "la caída (+2 ya); se lleva 1 carta menos para el cartón"


def test_presets_have_readable_names_and_notes(spanish):
    assert preset_label("quito_todo_dos") == "Quito, todo dos"
    assert preset_label("standard") == "Estándar"
    assert preset_note("quito_todo_dos").startswith("«todo dos»: caída y limpia vale 2")
    assert preset_note("pagat") == "la versión de pagat.com: ronda 4, y el cartón cuenta con cualquier marcador"
    assert all(preset_label(name) and preset_note(name) != PRESET_NOTES[name] for name in PRESETS)
    assert preset_label("no_such") == "no_such" and preset_note("no_such") == ""


def test_presets_in_english_keep_their_notes():
    assert [preset_note(name) for name in PRESETS] == [PRESET_NOTES[name] for name in PRESETS]
    assert preset_label("agent_dory") == "Agent Dory" and preset_label("standard") == "Standard"


def test_an_illegal_move_says_why_in_spanish_and_keeps_its_code(spanish):
    state = make_position(preset("standard"), hands=[["5", "K"], ["Q", "J"]], table=["3"], turn=0)
    with pytest.raises(IllegalMove) as err:
        apply(state, match_action(parse_rank("A")))
    assert str(err.value) == "el asiento 0 no tiene ningún as en la mano (R-TURN-2)"
    assert err.value.reason == "not_in_hand"
    with pytest.raises(IllegalMove) as err:
        apply(state, match_action(parse_rank("5")))
    assert str(err.value) == "el 5 no puede llevarse uno igual: no hay ningún 5 en la mesa (R-CAP-MATCH)"
    with pytest.raises(IllegalMove) as err:
        choice_to_action(parse_rank("7"), "sum", [1, 2])
    assert str(err.value) == "el 7 no puede llevarse 2+3 por suma: suman 5, no 7 (R-CAP-SUM)"
    assert err.value.reason == "bad_sum"


def test_an_illegal_move_in_english_is_as_it_was():
    state = make_position(preset("standard"), hands=[["5", "K"], ["Q", "J"]], table=["3"], turn=0)
    with pytest.raises(IllegalMove, match=r"^seat 0 has no A in hand \(R-TURN-2\)$"):
        apply(state, match_action(parse_rank("A")))


def test_a_damaged_record_and_settings_file_say_what_is_wrong_in_spanish(spanish, user_data):
    games = records.games_dir()
    (games / "broken.json").write_text("{not json", encoding="utf-8")
    (games / "foreign.json").write_text(json.dumps([1, 2]), encoding="utf-8")
    found, skipped = records.list_games(games)
    assert not found and len(skipped) == 2
    broken = next(s for s in skipped if "broken.json" in s)
    assert broken.startswith("el registro de la partida ")
    assert "tiene errores: JSON no válido en la línea 1, columna 2" in broken
    assert "sácalo de la carpeta de partidas, o recupéralo de una copia de seguridad" in broken
    foreign = next(s for s in skipped if "foreign.json" in s)
    assert "no es el registro de una partida de cuarenta (JSON de tipo list, no un objeto)" in foreign
    settings = records.settings_path()
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"tutor": True, "model": "", "level": "grandmaster"}), encoding="utf-8")
    _, problems = load_settings()
    assert len(problems) == 1
    assert problems[0].startswith(f"el archivo de ajustes {settings} tiene valores que no se pueden usar: level "
                                  f"'grandmaster' no es un nivel de juego")
    assert "; se guardó aparte como settings.damaged-" in problems[0]
    assert problems[0].endswith(", esos valores vuelven a los de por defecto")
    settings.write_text(" " * 70000, encoding="utf-8")  # larger than a settings file can be
    _, problems = load_settings()
    assert "es demasiado grande (más de 65.536 bytes)" in problems[0]  # es_EC numbers


@pytest.mark.parametrize("players", [2, 4])
def test_whole_games_narrated_in_spanish_leave_no_english(spanish, players):
    from .test_narrator import narrated_games

    said_all = []
    for name in PRESETS:
        for _step, _events, said in narrated_games(preset(name, players=players), range(1)):
            said_all += said
    assert len(said_all) > 100
    for text in said_all:
        no_english(text)
    assert any(text.startswith("¡Caída! ") for text in said_all)
    assert any(text.startswith("Fin de la data 1. Cartón: ") for text in said_all)
    deal = Narrator(preset("standard"), ["You", "The agent"], you=0).event
    assert deal(Dealt(0, 1, 1)) == "Data 1, reparto 2 de 4: reparte el agente."
    assert deal(Dealt(2, 0, 0)) == "Data 3, reparto 1 de 4: repartes tú."
