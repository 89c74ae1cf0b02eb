"""Issue 65, items 7 and 12: one numbering of a game's moves in every output (`analyse --ply`, `analyse --json`,
`review --json`: 1 the first move), and counts and articles said in whole messages, in English and Spanish."""

import json
import re

import pytest

from cuarenta_tutor import records
from cuarenta_tutor.cli import main

LESSON = """\
id = "rules-05-caida"
track = "rules"
order = 5
title = "Caída"
text = "Matching the card just trailed scores 2."

[[positions]]
id = "caida-1"
prompt = "Your opponent just trailed a 5. What do you play?"
hand = ["5h", "2", "K"]
opponent = ["A", "4", "Q"]
table = ["3", "5d"]
trailed = "5"
stock = {stock}
scores = [38, 36]
answer = "K trails"
why = "Matching the card just trailed is a caída: 2 points."
"""

LESSON_2V2 = """\
id = "rules-11-two-v-two"
track = "rules"
order = 11
title = "2 v 2"
players = 4
text = "Partners share a score and a pile."

[[positions]]
id = "catch-theirs"
prompt = "Your previous opponent just trailed a 5. What do you play?"
hand = ["5h", "2", "K"]
next_opponent = {next_opponent}
partner = ["3", "6", "J"]
previous_opponent = ["7", "J"]
table = ["3", "5d"]
trailed = "5"
scores = [10, 12]
stock = 20
answer = "5 takes 5"
why = "Matching the card the previous opponent just trailed is a caída: 2 points for your side."
"""


def saved_game(moves=6):
    """A few moves of a real game against the agent, saved in the test's user data folder."""
    from cuarenta_tutor.app.session import GameSession

    session = GameSession.new(seed=4, dealer=1)
    while len(session.record.moves) < moves:
        if session.human_turn:
            session.play_human(session.hints()[-1].action)
        else:
            session.play_agent()
    return records.games_dir() / f"{session.record.game_id}.json"


def test_analyse_and_review_number_the_same_position_the_same(capsys):
    path = saved_game()
    assert main(["analyse", str(path), "--json", "--worlds", "4", "--jobs", "1"]) == 0
    analysed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["review", str(path), "--json", "--worlds", "4", "--jobs", "1"]) == 0
    reviewed = json.loads(capsys.readouterr().out)["moves"]
    moves = records.load(path).moves
    assert analysed and {m["seat"] for m in reviewed} == {0, 1}
    for m in reviewed:  # ply N: the N-th move of the record, 1 the first
        assert (moves[m["ply"] - 1].seat, moves[m["ply"] - 1].action) == (m["seat"], m["action"])
    for line in analysed:  # the position before the same move, the same number
        assert moves[line["ply"] - 1].seat == line["seat"] == 0
        assert moves[line["ply"] - 1].action in {x["action"] for x in line["moves"]}
    mine = {m["ply"]: m for m in reviewed if m["seat"] == 0}
    assert sorted(mine) == [line["ply"] for line in analysed]
    for line in analysed:
        assert mine[line["ply"]]["action"] in {x["action"] for x in line["moves"]}
    theirs = next(m for m in reviewed if m["seat"] == 1)  # `analyse --ply N` analyses the ply review calls N
    assert main(["analyse", str(path), "--ply", str(theirs["ply"]), "--json", "--worlds", "4", "--jobs", "1"]) == 0
    (one,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert (one["ply"], one["seat"]) == (theirs["ply"], 1)
    assert theirs["action"] in {x["action"] for x in one["moves"]}
    # the review's text numbers its lines the same way, and its counts read right in both languages
    for lang, wrong in (("en", r"\b1 (moves|cards|worlds|mistakes|blunders|inaccuracies|times)\b|\(s\)"),
                        ("es", r"\b1 (jugadas|cartas|mundos|errores|imprecisiones|veces)\b|\(s\)")):
        assert main(["--lang", lang, "review", str(path), "--text", "--worlds", "4", "--jobs", "1"]) == 0
        text = capsys.readouterr().out
        assert re.search(rf"^ *{theirs['ply']}\. ", text, re.M) and not re.search(wrong, text), text


@pytest.mark.parametrize("lang, known, sampled", [
    ("en", "the analysis (1 world, ends of hands valued by the table) plays 5 takes 5; the answer is a blunder",
     "the analysis (256 worlds, ends of hands valued by the table) plays 5 takes 5"),
    ("es", "el análisis (1 mundo, finales de data valorados por la tabla de datas) juega el 5 se lleva el 5; la "
           "respuesta es un error grave", "el análisis (256 mundos, finales de data")])
def test_a_lesson_s_doubt_counts_its_one_world(tmp_path, lang, known, sampled):
    from cuarenta_tutor import i18n
    from cuarenta_tutor import lessons as L

    i18n.set_language(lang)
    said = []
    for stock in (0, 20):  # the last deal: the one true world; else sampled worlds
        path = tmp_path / f"{stock}" / "05-caida.toml"
        path.parent.mkdir()
        path.write_text(LESSON.format(stock=stock), encoding="utf-8")
        said.append(L.analysis_doubts(L.load_lesson(path).positions[0]))
    assert said[0].startswith(known) and said[1].startswith(sampled), said
    assert not re.search(r"\b1 (worlds|mundos)\b", " ".join(said))


@pytest.mark.parametrize("lang, one, two", [
    ("en", "your next opponent holds 1 card, which fits no deal",
     "your next opponent holds 2 cards, which fits no deal"),
    ("es", "tu rival derecho tiene 1 carta, y eso no cuadra", "tu rival derecho tiene 2 cartas, y eso no cuadra")])
def test_a_hand_that_fits_no_deal_counts_its_cards(tmp_path, lang, one, two):
    from cuarenta_tutor import i18n
    from cuarenta_tutor import lessons as L

    i18n.set_language(lang)
    for cards, words in ((["A"], one), (["A", "4"], two)):
        path = tmp_path / f"{len(cards)}" / "11-two-v-two.toml"
        path.parent.mkdir()
        path.write_text(LESSON_2V2.format(next_opponent=json.dumps(cards)), encoding="utf-8")
        with pytest.raises(L.LessonError) as err:
            L.load_lesson(path)
        assert words in str(err.value)


@pytest.mark.parametrize("lang, one, two", [
    ("en", "2 games on 1 duplicate seed pair,", "4 games on 2 duplicate seed pairs,"),
    ("es", "2 chicas en 1 par de semillas duplicadas,", "4 chicas en 2 pares de semillas duplicadas,")])
def test_an_arena_of_one_seed_pair_says_one_pair(capsys, lang, one, two):
    for games, words in ((2, one), (4, two)):
        assert main(["--lang", lang, "arena", "random", "greedy", "--games", str(games), "--jobs", "1"]) == 0
        assert words in capsys.readouterr().out


@pytest.mark.parametrize("lang, words", [
    ("en", ("a model card is a JSON object, not a list", "a model card is a JSON object, not a number",
            "a model card is a JSON object, not a text")),
    ("es", ("la ficha de un modelo es un objeto JSON, no una lista", "la ficha de un modelo es un objeto JSON, no un "
            "número", "la ficha de un modelo es un objeto JSON, no un texto"))])
def test_a_model_card_that_is_not_an_object_says_what_it_is(tmp_path, lang, words):
    from cuarenta_tutor import i18n
    from cuarenta_tutor.records.store import read_card

    i18n.set_language(lang)
    for data, said in zip(([1, 2], 7, "card"), words, strict=True):
        path = tmp_path / "model.card.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        with pytest.raises(records.FileError) as err:
            read_card(path)
        assert said in str(err.value) and "{type}" not in str(err.value)


def test_a_conformance_case_names_one_unknown_field_or_several():
    from cuarenta_tutor.conformance.positions import CaseError, compare

    for expected, said in (({"points": 1}, "unknown expected field of the cartón table: 'points' (known: cards)"),
                           ({"points": 1, "seat": 0},
                            "unknown expected fields of the cartón table: 'points', 'seat' (known: cards)")):
        with pytest.raises(CaseError) as err:
            compare("the cartón table", {"cards": 3}, expected)
        assert str(err.value) == said


def test_a_training_config_that_is_not_an_object_says_what_it_is():
    pytest.importorskip("torch")
    from cuarenta_tutor.training.config import Config

    for data, said in (([1], "not a list"), (3, "not a number"), ("x", "not a text"), (None, "not null")):
        with pytest.raises(ValueError) as err:
            Config.from_dict(data)
        assert str(err.value) == f"a config is a JSON object of settings, {said}"
    with pytest.raises(ValueError, match="config field 'gamma' is 'high', not a float$"):
        Config.from_dict({"gamma": "high"})
