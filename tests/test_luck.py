"""Luck vs skill: per hand and for the game, the change in a team's win % split into what the cards did and
what the decisions did, from the review's annotations of every seat."""

import json

import pytest
from helpers import fixed, worst_game, worst_review

from cuarenta_tutor import coach, records
from cuarenta_tutor.agents.onnx_policy import default_model_path, file_sha256
from cuarenta_tutor.cli import main
from cuarenta_tutor.coach import luck

# one worker runs the files that share worst games: helpers keeps each game and its review per process
pytestmark = pytest.mark.xdist_group("worst-games")

MODEL = default_model_path()
FEWER = fixed(2)
"""The agent's decisions in fewer worlds than the person's: luck vs skill reads each decision's own loss."""


@pytest.fixture(scope="module")
def game():
    """A finished game of two hands (the person's worst moves, seed 13) with every seat's decisions reviewed: the
    person's in SMALL (helpers.worst_review, made once per test run), the agent's in FEWER."""
    record = worst_game(seed=13).record
    coach.store(record, worst_review(13, record), [0])
    coach.store(record, coach.review(record, None, FEWER, seats=[1]), [1])
    return record


def test_luck_plus_skill_is_the_change_in_win_percent_for_every_hand_and_the_game(game):
    split = luck.split(game, 0, MODEL, file_sha256(MODEL))
    assert split.anchors == "table" and len(split.hands) >= 2
    assert split.hands[-1].end == (100.0 if game.result.winner == 0 else 0.0)
    for before, after in zip(split.hands, split.hands[1:], strict=False):
        assert after.start == before.end  # hands chain: one hand's end is the next one's start
    for h in split.hands:
        assert h.luck + h.skill == pytest.approx(h.win_change) and h.missing == 0 and h.moves > 0
        assert h.skill == pytest.approx(h.other_loss - h.own_loss)
    assert split.total("luck") + split.total("skill") == pytest.approx(split.win_change)
    # the person played the analysis's least liked move every time: their decisions cost them
    assert split.total("own_loss") > split.total("other_loss") and split.total("skill") < 0


def test_the_other_team_sees_the_same_game_with_every_sign_turned(game):
    mine = luck.split(game, 0, MODEL, file_sha256(MODEL)).to_json()
    theirs = luck.split(game, 1, MODEL, file_sha256(MODEL)).to_json()
    for a, b in zip(mine["hands"], theirs["hands"], strict=True):
        assert a["start"] == pytest.approx(100 - b["start"], abs=0.02)
        for key in ("win_change", "luck", "skill"):
            assert a[key] == pytest.approx(-b[key], abs=0.02)
        assert (a["own_loss"], a["other_loss"]) == (b["other_loss"], b["own_loss"])


def test_without_a_table_the_hands_run_from_first_decision_to_first_decision(game):
    split = luck.split(game, 0)  # no model: no hand-value table
    assert split.anchors == "first decision"
    first = coach.read(game.moves[0].annotation)
    assert split.hands[0].start == pytest.approx(first.win_before if first.seat == 0 else 100 - first.win_before)
    for h in split.hands:
        assert h.luck + h.skill == pytest.approx(h.win_change)


def test_an_unanalysed_side_is_counted_as_missing_not_as_skill(game):
    half = records.from_json(records.to_json(game))
    for ply, move in enumerate(half.moves):
        if move.seat == 1:
            half.annotate(ply, None)
    split = luck.split(half, 0, MODEL, file_sha256(MODEL))
    assert split.total("missing") == len(coach.decisions(half, [1])) and split.total("other_loss") == 0
    assert "not analysed yet" in luck.summary_line(split)


def test_review_json_prints_luck_and_skill_that_add_up_to_the_change(capsys):
    session = worst_game(seed=7)  # a short game: one hand, 24 decisions
    path = records.games_dir() / f"{session.record.game_id}.json"
    assert main(["review", str(path), "--json", "--worlds", "2", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)  # one object, nothing else on stdout
    assert data["game"] == session.record.game_id and data["seat"] == 0 and data["anchors"] == "table"
    for hand in data["hands"]:
        assert abs(hand["luck"] + hand["skill"] - hand["win_change"]) <= 0.02  # rounding to 0.01 each
    total = data["total"]
    assert abs(total["luck"] + total["skill"] - total["win_change"]) <= 0.02 and total["missing"] == 0
    assert "Reviewed" in err and "new drill" in err
    saved = records.load(path)  # every seat's decisions are analysed and stored
    assert all(coach.read(saved.moves[p].annotation).method == "analysis" for p in coach.decisions(saved, [0, 1]))
    assert main(["review", str(path), "--json", "--seat", "1", "--worlds", "2", "--jobs", "1"]) == 0
    other = json.loads(capsys.readouterr().out)
    assert other["team"] == 1 and other["total"]["win_change"] == pytest.approx(-total["win_change"], abs=0.02)


def test_the_table_of_another_model_is_not_used(game):
    assert luck.split(game, 0, MODEL, "not-this-model").anchors == "first decision"
