"""Progress over time: kinds of mistakes, per-game figures, the cache file, the level and the weak spot, and
`cuarenta-tutor stats`."""

import json

import pytest
from helpers import reviewed_worst_game, worst_game

from cuarenta_tutor import coach, records
from cuarenta_tutor.cli import main
from cuarenta_tutor.coach import Risks, stats
from cuarenta_tutor.coach.kinds import KINDS, LESSONS, kind
from cuarenta_tutor.engine import make_position, match_action, parse_rank, sum_action, trail_action
from cuarenta_tutor.lessons import load_lessons

# one worker runs the files that share worst games: helpers keeps each game and its review per process
pytestmark = pytest.mark.xdist_group("worst-games")

A = {r: parse_rank(r) for r in ("A", "2", "3", "5", "7", "K")}
NO_RISK = Risks((0.0, 0.0), (0.0, 0.0))


@pytest.mark.parametrize("hands, table, trailed, played, best, expected", [
    ([["5", "K"], ["Q"]], ["5"], "5", trail_action(A["K"]), match_action(A["5"]), "missed caída"),
    ([["5", "K"], ["Q"]], ["5"], None, trail_action(A["K"]), match_action(A["5"]), "missed limpia"),
    ([["5", "K"], ["Q"]], ["2", "3", "J"], None, trail_action(A["K"]), sum_action(A["5"], (A["2"], A["3"])),
     "missed sum"),
    ([["K", "7"], ["Q"]], ["K", "J"], None, trail_action(A["7"]), match_action(A["K"]), "gave up the cartón"),
])
def test_the_kind_of_a_mistake_comes_from_what_the_best_move_does_that_the_played_one_does_not(
        hands, table, trailed, played, best, expected):
    state = make_position(hands=hands, table=table, trailed=trailed, turn=0)
    assert kind(state, played, best, NO_RISK) == expected


def test_leaving_a_caida_or_a_limpia_is_read_from_the_risks():
    state = make_position(hands=[["7", "K"], ["Q"]], table=["J"], turn=0)
    played, best = trail_action(A["7"]), trail_action(A["K"])
    assert kind(state, played, best, Risks((0.6, 0.0), (0.1, 0.0))) == "left a caída"
    assert kind(state, played, best, Risks((0.0, 0.5), (0.0, 0.1))) == "left a limpia"
    assert kind(state, played, best, NO_RISK) == kind(state, played, best, None) == "other"


def test_every_lesson_a_weak_spot_points_to_exists():
    ids = {lesson.id for lesson in load_lessons()}
    assert set(LESSONS.values()) <= ids and set(LESSONS) <= set(KINDS)


@pytest.fixture(scope="module")
def reviewed():
    """Three games of the person's worst moves, the first two reviewed (five mistakes in the first, one kind of
    them three times), saved in the module's folder."""
    return [reviewed_worst_game(24).record, reviewed_worst_game(7).record, worst_game(6).record]


def test_a_games_figures_are_its_accuracy_result_opponent_and_mistakes_by_kind(reviewed):
    record = reviewed[0]
    g = stats.game_stats(record)
    notes = [coach.read(m.annotation) for m in record.moves if m.seat == 0 and m.annotation]
    assert g.accuracy == pytest.approx(coach.game_accuracy(notes)) and g.reviewed == len(notes)
    assert sum(g.mistakes.values()) == sum(n.klass.is_mistake_or_worse for n in notes) > 0
    assert g.won == (record.result.winner == 0) and g.opponent == "level club" == f"level {record.level}"
    before_levels = records.from_json({k: v for k, v in records.to_json(record).items() if k != "level"})
    assert stats.game_stats(before_levels).opponent == f"onnx {record.model.id[:8]}"
    assert stats.game_stats(records.from_json({**records.to_json(record), "human_seat": None})) is None


def test_the_cache_is_used_refreshed_and_rebuilt_when_damaged(reviewed, tmp_path):
    folder = tmp_path / "games"
    for r in reviewed:
        records.save(r, folder)
    games, problems = stats.load(folder)
    oldest_first = sorted(reviewed, key=lambda r: (r.created, r.game_id))  # as stats.load sorts
    assert [g.game_id for g in games] == [r.game_id for r in oldest_first]
    assert not problems and stats.stats_path().exists()
    cached = json.loads(stats.stats_path().read_text())
    cached["games"][0]["accuracy"] = 12.5  # same update time: the cache's figure is used
    stats.stats_path().write_text(json.dumps(cached))
    assert stats.load(folder)[0][0].accuracy == 12.5
    oldest_first[0].updated = "2099-01-01T00:00:00+00:00"  # updated: worked out again
    records.save(oldest_first[0], folder)
    assert stats.load(folder)[0][0].accuracy != 12.5
    stats.stats_path().write_text("[1, 2")
    (folder / "broken.json").write_text('{"schema_version": 1')
    games, problems = stats.load(folder)
    assert len(games) == 3 and len(problems) == 2 and all("\n" not in p for p in problems)
    assert "stats file" in problems[0] and "rebuilt" in problems[0] and "broken.json" in problems[1]
    aside = list(stats.stats_path().parent.glob("stats.damaged-*.json"))
    assert [p.read_text() for p in aside] == ["[1, 2"]
    assert (folder / "broken.json").exists()  # a damaged game is skipped, never deleted


def test_level_and_weak_spot():
    def game(i, accuracy, **mistakes):
        return stats.GameStats(f"g{i}", "", f"2026-01-{i + 1:02d}", True, i % 2 == 0, "onnx", accuracy, 10, mistakes)

    assert stats.level([]) is None and stats.weak_spot([]) is None
    def games(*accuracies):
        return [game(i, a) for i, a in enumerate(accuracies)]

    assert "between the greedy bot and the expert bot" in stats.level(games(70.0, 66.0, 70.0, 66.0, 68.0))["text"]
    assert "below the random" in stats.level(games(*[20.0] * stats.LEVEL_GAMES))["text"]
    assert "at or above the expert" in stats.level(games(*[90.0] * stats.LEVEL_GAMES))["text"]
    assert stats.level(games(*[90.0] * (stats.LEVEL_GAMES - 1))) is None  # too few games to claim a level
    few = [game(i, 50.0, **{"missed caída": 1}) for i in range(2)]
    assert stats.weak_spot(few) is None  # twice is not yet a habit
    many = few + [game(2, 50.0, **{"missed caída": 1, "other": 9})]
    assert stats.weak_spot(many) == {"kind": "missed caída", "count": 3, "games": 3, "lesson": "rules-05-caida"}
    report = stats.report(many)
    assert report["results_by_opponent"] == {"onnx": {"played": 3, "won": 2, "lost": 1}}
    assert report["mistakes_by_kind"]["other"] == 9


def test_stats_command_prints_text_and_json(reviewed, capsys):
    for r in reviewed:
        records.save(r)
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [g["game_id"] for g in data["games"]] == [r.game_id for r in sorted(reviewed, key=lambda r: (r.created,
                                                                                                     r.game_id))]
    assert all(g["accuracy"] is not None for g in data["games"])  # the third from the network's notes in play
    assert data["level"] is None and data["level_needs_games"] == stats.LEVEL_GAMES - 3  # three games: no claim
    assert set(data["mistakes_by_kind"]) == set(KINDS)
    assert sum(data["mistakes_by_kind"].values()) == sum(sum(g["mistakes"].values()) for g in data["games"]) > 0
    assert main(["stats"]) == 0
    text = capsys.readouterr().out
    assert "3 games with you in them, 3 with an accuracy" in text and "Your level:" in text


def test_a_nan_in_the_stats_cache_is_refused_and_never_printed(reviewed, capsys):
    for r in reviewed:
        records.save(r)
    assert main(["stats", "--json"]) == 0
    capsys.readouterr()
    cache = json.loads(stats.stats_path().read_text())
    for g in cache["games"]:
        g["accuracy"] = float("nan")
    stats.stats_path().write_text(json.dumps(cache))  # NaN: Python's json writes it, JSON has no such number
    assert main(["stats", "--json"]) == 0
    data = json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(f"{name} printed"))
    assert all(0 <= g["accuracy"] <= 100 for g in data["games"])
    assert len(list(stats.stats_path().parent.glob("stats.damaged-*.json"))) == 1
