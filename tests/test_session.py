"""The game session's announcements: caída, limpia, ronda, the 30 and 38 rules, the end of a hand."""

from cuarenta_tutor.engine import (
    Caida,
    GameWon,
    HandEnded,
    Limpia,
    Ronda,
    apply,
    make_position,
    match_action,
    parse_rank,
)
from cuarenta_tutor.session import callouts, threshold_notes


def test_callouts_name_what_happened_and_who():
    notes = callouts((Caida(0, 0, 2, 0), Limpia(0, 0, 2), Ronda(1, 1, 2), HandEnded(0, (22, 18), (), (8, 0)),
                      GameWon(0, (40, 12))))
    assert notes[0] == "¡Caída! You: 2 points"
    assert notes[1] == "¡Limpia! You: 2 points"
    assert notes[2].startswith("Ronda! The agent")
    assert "you 22 cards (8 pts)" in notes[3]
    assert notes[4] == "You win the game!"
    assert "38 rule" in callouts((Limpia(1, 1, 0),))[0]
    assert "ronda bonus" in callouts((Caida(1, 1, 2, 10),))[0]


def test_crossing_30_and_38_is_announced():
    state = make_position(hands=[["5", "K"], ["Q", "J"]], table=["5"], turn=0, trailed="5", scores=(26, 36))
    after, _ = apply(state, match_action(parse_rank("5")))  # caída y limpia: 26 -> 30
    assert after.scores[0] == 30
    assert threshold_notes(state, after) == ["You reached 30: rondas and the cartón no longer score."]
    later = after._replace(scores=(30, 38))
    assert threshold_notes(after._replace(scores=(30, 36)), later) == [
        "The agent reached 38: only a caída can finish (38 que no juega)."]
