"""The narrator: every event in words, and no sentence that contradicts the rules of the preset played.

Games of experts are narrated end to end under every preset, 2 and 4 players; each sentence that names a
cut-off, a cause or a number is checked against the engine's `Rules` and the scores before the step (the
facts come from the engine, not from the narrator)."""

import re

import pytest

from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.engine import (
    PRESETS,
    Caida,
    Dealer,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    Limpia,
    Played,
    Ronda,
    apply,
    below,
    make_position,
    match_action,
    parse_rank,
    preset,
)
from cuarenta_tutor.engine.cards import make_card
from cuarenta_tutor.narrator import Narrator, still_scoring
from cuarenta_tutor.table import Table

CONFIGS = [(name, players) for name in PRESETS for players in (2, 4)]


def narrated_games(rules, seeds):
    """(step, sentences) for every step of expert games under `rules`, and the first deals' sentences."""
    names = ["You", "The agent"] if rules.players == 2 else ["You", "West", "North", "East"]
    narrator = Narrator(rules, names, you=0)
    for seed in seeds:
        table = Table(rules, [make_policy("expert", seed)] * rules.players, Dealer(seed))
        events = table.start()
        yield None, events, narrator.callouts(events, table.state)
        while not table.over:
            step = table.step()
            said = narrator.callouts(step.events, step.after) + narrator.thresholds(step.before, step.after)
            said += narrator.effect(step.events) + narrator.notes(step.events)
            said += [narrator.play(e) for e in step.events if isinstance(e, Played)]
            yield step, step.events, said


def check_sentence(text, rules, before_scores, events):
    """Raise AssertionError if a sentence contradicts the rules or the scores before its step."""
    if "cartón" in text and ("stops counting" in text or "no longer score" in text):
        assert rules.carton_cutoff is not None, f"{text!r}: the cartón never stops under these rules"
        for number in re.findall(r"(?:at|reached) (\d+)", text):
            assert int(number) >= rules.carton_cutoff, f"{text!r}: cartón still counts at {number}"
    if "rondas stop scoring at" in text:
        assert f"at {rules.ronda_cutoff}" in text, f"{text!r} vs ronda_cutoff {rules.ronda_cutoff}"
    if "(the " in text and " rule)" in text:
        assert f"(the {rules.limpia_cutoff} rule)" in text, f"{text!r} vs limpia_cutoff {rules.limpia_cutoff}"
        limpia = next(e for e in events if isinstance(e, Limpia))
        assert not below(before_scores[limpia.team], rules.limpia_cutoff), f"{text!r}: the team was below the cut-off"
    if "todo dos" in text:
        assert not rules.caida_limpia_stack and any(isinstance(e, Caida) for e in events), text
    if "only a caída can finish" in text:
        score = int(re.search(r"reached (\d+)", text).group(1))
        assert not (rules.ronda_points and below(score, rules.ronda_cutoff)), text
        assert not below(score, rules.limpia_cutoff) and not below(score, rules.carton_cutoff), text


@pytest.mark.parametrize("name,players", CONFIGS, ids=[f"{n}-{p}p" for n, p in CONFIGS])
def test_games_narrated_end_to_end_never_contradict_the_preset(name, players):
    rules = preset(name, players=players)
    kinds = set()
    sentences = reached = 0
    for step, events, said in narrated_games(rules, range(6)):
        before = step.before.scores if step else (0, 0)
        assert all(isinstance(text, str) and text for text in said)
        for text in said:
            check_sentence(text, rules, before, events)
        sentences += len(said)
        reached += sum("reached" in text for text in said)
        kinds |= {type(e) for e in events}
    assert sentences > 100
    assert reached, "a team crossed a cut-off in these games"
    assert {Dealt, Played, Caida, Limpia, HandEnded, GameWon} <= kinds  # the common events all came up


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_event_has_words(name):
    rules = preset(name)
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    events = [Dealt(0, 1, 1), Ronda(1, 1, rules.ronda_points), Ronda(1, 1, 0), FourOfAKind(0, 0),
              Caida(0, 0, 2, 0), Caida(1, 1, 2, 10), Limpia(0, 0, 2), Limpia(1, 1, 0),
              HandEnded(0, (22, 18), (), (8, 0)), GameWon(0, (40, 12))]
    for e in events:
        assert narrator.event(e, (e,)), f"{e} has no words"
    assert narrator.event(Played(0, 5, 1, ())) is None  # plays are told by play(), not as callouts
    assert narrator.play(Played(0, 5, 1, ())) == "You trailed 2♥."
    assert narrator.event(Dealt(0, 1, 0)) == "Hand 1, deal 2 of 4: You deal."  # not "You deals"
    assert narrator.event(Dealt(0, 1, 1)) == "Hand 1, deal 2 of 4: The agent deals."


def crossing(rules, scores, table, played, trailed=None):
    """The state before and after a capture that scores for seat 0."""
    state = make_position(rules, hands=[[played, "K"], ["Q", "J"]], table=table, turn=0, trailed=trailed,
                          scores=scores)
    return state, apply(state, match_action(parse_rank(played)))[0]


def test_crossing_thirty_names_what_stops_under_each_preset():
    standard = Narrator(preset("standard"), ["You", "The agent"], you=0)
    before, after = crossing(preset("standard"), (26, 20), ["5"], "5", trailed="5")  # caída y limpia: 26 -> 30
    assert standard.thresholds(before, after) == [
        "You reached 30: rondas, the ronda-caída bonus and the cartón no longer score."]
    pagat = Narrator(preset("pagat"), ["You", "The agent"], you=0)
    before, after = crossing(preset("pagat"), (26, 20), ["5"], "5", trailed="5")
    notes = pagat.thresholds(before, after)
    assert notes == ["You reached 30: rondas and the ronda-caída bonus no longer score."]
    assert "cartón" not in notes[0]  # pagat has no cartón cut-off (RULES.md §11)
    dory = Narrator(preset("agent_dory"), ["You", "The agent"], you=0)
    before, after = crossing(preset("agent_dory"), (26, 20), ["5"], "5", trailed="5")
    assert dory.thresholds(before, after) == ["You reached 30: the cartón no longer scores."]


def test_crossing_thirty_eight_says_only_a_caida_finishes_where_that_is_true():
    for name, only_caida in (("standard", True), ("pagat", False), ("agent_dory", True)):
        rules = preset(name)
        narrator = Narrator(rules, ["You", "The agent"], you=0)
        before, after = crossing(rules, (34, 20), ["5"], "5", trailed="5")  # 34 -> 38
        notes = narrator.thresholds(before, after)
        assert len(notes) == 1 and "limpias" in notes[0]
        assert ("only a caída can finish" in notes[0]) == only_caida, (name, notes)
        assert still_scoring(rules, 38) == ([] if only_caida else ["the cartón"])


def test_a_limpia_that_scores_nothing_says_why():
    todo_dos = preset("quito_todo_dos")
    before, after = crossing(todo_dos, (10, 10), ["5"], "5", trailed="5")
    events = apply(before, match_action(parse_rank("5")))[1]
    said = Narrator(todo_dos, ["You", "The agent"], you=0).callouts(events, after)
    assert any("todo dos" in s and "2" in s for s in said) and not any("38" in s for s in said)
    standard = preset("standard")
    state = make_position(standard, hands=[["5", "K"], ["Q", "J"]], table=["5"], turn=0, scores=(38, 10))
    events = apply(state, match_action(parse_rank("5")))[1]  # a limpia at 38, no caída
    said = Narrator(standard, ["You", "The agent"], you=0).callouts(events)
    assert said == ["Limpia, but you score nothing for it at 38 or more (the 38 rule)."]


def test_four_of_a_kind_shows_the_four_cards_and_the_win():
    deck = [make_card(parse_rank("7"), s) for s in range(4)] + [c for c in range(40) if c >> 2 != 6]
    rules = preset("standard")
    state, events = Dealer(0, [deck]).start(rules, dealer=1)  # seat 0 is dealt first: the four sevens
    assert state.winner == 0
    said = Narrator(rules, ["You", "The agent"], you=0).callouts(events, state)
    assert "7♠ 7♥ 7♦ 7♣" in said[0] and "four of a kind" in said[0]
    assert said[-1] == "You win the game with four of a kind, 0-0!"


def test_the_end_of_a_game_says_who_won_the_score_and_what_ended_it():
    rules = preset("standard")
    narrator = Narrator(rules, ["You", "The agent"], you=0)
    before, after = crossing(rules, (36, 20), ["5"], "5", trailed="5")  # a caída and a limpia from 36
    events = apply(before, match_action(parse_rank("5")))[1]
    assert narrator.ending(events, after) == "You won 40-20, reaching 40 with a caída and a limpia by you (+4)."
    before, after = crossing(rules, (38, 20), ["5"], "5", trailed="5")  # from 38 the limpia scores nothing
    events = apply(before, match_action(parse_rank("5")))[1]
    assert narrator.ending(events, after) == "You won 40-20, reaching 40 with a caída by you (+2)."
    pile = [rank for rank in "A34567QJ" for _ in range(4)][:25]  # the agent's 25 cards: a cartón of 12 from 28
    last = make_position(rules, hands=[["K"], []], table=["K", "2"], turn=0, scores=(20, 28), piles=([], pile))
    ended, events = apply(last, match_action(parse_rank("K")))  # the hand's last play
    assert ended.winner == 1 and any(isinstance(e, HandEnded) for e in events)
    assert narrator.ending(events, ended) == "The agent won 40-20, reaching 40 with the cartón of hand 1 (+12)."
    deck = [make_card(parse_rank("7"), s) for s in range(4)] + [c for c in range(40) if c >> 2 != 6]
    state, events = Dealer(0, [deck]).start(rules, dealer=1)  # seat 0 is dealt the four sevens
    assert narrator.ending(events, state) == "You won 0-0 with four of a kind (7♠ 7♥ 7♦ 7♣) dealt to you: it wins " \
                                             "at once."
    assert narrator.ending(events[:1], before) == ""  # the game goes on
