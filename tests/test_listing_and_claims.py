"""Issue 65, items 6 and 8: the saved-games list and the progress figures replay each record (a record whose moves do
not replay is skipped with a message, the check kept by file identity), and the level is claimed only over enough
games, counting only the moves chosen without a hint shown."""

import json
import os

import pytest

from cuarenta_tutor import records
from cuarenta_tutor.app.session import HUMAN, GameSession
from cuarenta_tutor.coach import stats
from cuarenta_tutor.engine import N_ACTIONS, legal_actions
from cuarenta_tutor.records import store as record_store


def _play(folder, seed: int, with_hints: bool) -> records.GameRecord:
    """A whole game of the person (seat 0) against the agent, saved in `folder` after every move; the person plays
    the network's favourite move, with the hints shown first where `with_hints`."""
    session = GameSession.new(seed=seed, dealer=1, folder=folder)
    while not session.over:
        if session.human_turn:
            if with_hints:
                action = session.quick_hints()[0].action  # the hints, as the play screen shows them
            else:
                action = session.coach_decision().action
            session.play_human(action)
        else:
            session.play_agent()
    return session.record


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """(a game played with the hints shown, one played without), each saved in a folder of its own."""
    root = tmp_path_factory.mktemp("played")
    return _play(root / "hinted", 11, True), _play(root / "plain", 12, False)


def _copies(record, folder, n: int, tag: str = "c") -> list:
    """`n` copies of `record` saved in `folder` under game ids of their own, a day apart."""
    out = []
    for i in range(n):
        data = json.loads(json.dumps(records.to_json(record)))
        data["game_id"], data["created"] = f"{record.game_id}-{tag}{i}", f"2026-02-{i + 1:02d}T10:00:00+00:00"
        out.append(records.save(records.from_json(data), folder))
    return out


def _break(path) -> int:
    """Edit a saved game by hand so that one of its moves is an action not legal at its ply (the file is still a
    well-formed record, with the same update time); returns the move's number."""
    data = json.loads(path.read_text())
    record = records.from_json(data)
    states = records.replay(record)
    ply = 3
    data["moves"][ply]["action"] = next(a for a in range(N_ACTIONS) if a not in legal_actions(states[ply]))
    path.write_text(json.dumps(data))
    return ply + 1


# ---- item 6: the list replays each record, once per version of its file ---------------------------------------
def test_a_record_whose_moves_do_not_replay_is_not_listed(games, tmp_path):
    good, bad = _copies(games[1], tmp_path, 2)
    n = _break(bad)
    found, skipped = records.list_games(tmp_path)
    assert [s.path for s in found] == [good]
    assert len(skipped) == 1 and bad.name in skipped[0] and "skipped" in skipped[0]
    assert f"move {n} " in skipped[0] and "does not fit the game" in skipped[0] and "\n" not in skipped[0]
    assert records.latest_unfinished(tmp_path) is None  # the good one is finished, the bad one is not offered


def test_the_progress_figures_leave_a_record_that_does_not_replay_out(games, tmp_path):
    good, bad = _copies(games[1], tmp_path, 2)
    assert len(stats.load(tmp_path)[0]) == 2  # both counted, and cached by their update time
    _break(bad)  # the same update time: the cache alone would still count it
    counted, problems = stats.load(tmp_path)
    assert [g.game_id for g in counted] == [records.load(good).game_id]
    assert len(problems) == 1 and bad.name in problems[0] and "does not fit the game" in problems[0]


def test_the_replay_is_kept_by_file_identity(games, tmp_path, monkeypatch):
    (path,) = _copies(games[1], tmp_path, 1)
    real, calls = record_store.replay, []

    def counted(record):
        calls.append(record.game_id)
        return real(record)

    monkeypatch.setattr(record_store, "replay", counted)
    assert len(records.list_games(tmp_path)[0]) == 1
    assert len(records.list_games(tmp_path)[0]) == 1 and len(calls) == 1  # listed twice, replayed once
    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns + 1_000_000_000))  # changed on disk: checked again
    assert len(records.list_games(tmp_path)[0]) == 1 and len(calls) == 2
    _break(path)
    found, skipped = records.list_games(tmp_path)
    assert found == [] and len(skipped) == 1 and path.name in skipped[0] and len(calls) == 3
    found, skipped = records.list_games(tmp_path)  # a refusal is not kept: checked again, still refused
    assert found == [] and len(skipped) == 1 and path.name in skipped[0] and len(calls) == 4


# ---- item 8: the level needs enough games, and the moves chosen without a hint ------------------------------------
def test_a_record_keeps_which_moves_were_chosen_with_a_hint_shown(games):
    hinted, plain = games
    mine = [m for m in hinted.moves if m.seat == HUMAN]
    assert mine and all(m.hinted for m in mine) and not any(m.hinted for m in hinted.moves if m.seat != HUMAN)
    assert not any(m.hinted for m in plain.moves)
    data = records.to_json(plain)
    assert all("hinted" not in m for m in data["moves"])  # a game with no hint is written as before
    again = records.from_json(json.loads(json.dumps(records.to_json(hinted))))
    assert [m.hinted for m in again.moves] == [m.hinted for m in hinted.moves]
    data["moves"][0]["hinted"] = 1  # true or false only
    with pytest.raises(records.RecordError, match="move 1 is not a"):
        records.from_json(data)


def test_a_move_made_again_after_a_takeback_is_chosen_with_help(tmp_path):
    session = GameSession.new(seed=13, dealer=1, folder=tmp_path)
    while not session.human_turn:
        session.play_agent()
    session.play_human(session.coach_decision().action)
    assert not session.record.moves[-1].hinted
    session = session.take_back()  # the coach's note on the move taken back has been seen
    session.play_human(session.coach_decision().action)
    again = records.load(tmp_path / f"{session.record.game_id}.json")
    assert again.moves[-1].hinted and "hinted" not in again.takebacks[0]["moves"][0]


def test_one_game_played_with_hints_claims_no_level(games, tmp_path):
    (path,) = _copies(games[0], tmp_path, 1)
    counted, problems = stats.load(tmp_path)
    assert len(counted) == 1 and not problems
    assert stats.level(counted) is None
    text = stats.report_text(counted)
    for claim in ("at or above", "between the", "below the"):
        assert claim not in text
    assert f"Your level: play {stats.LEVEL_GAMES} more games without hints to see it" in text
    assert stats.report(counted)["level"] is None


def test_enough_games_without_hints_make_the_claim(games, tmp_path):
    _copies(games[1], tmp_path, stats.LEVEL_GAMES - 1)
    few = stats.load(tmp_path)[0]
    assert stats.level(few) is None
    assert "Your level: play 1 more game without hints to see it" in stats.report_text(few)
    _copies(games[0], tmp_path, 1, "h")  # a game played with hints does not make up the number
    assert stats.level(stats.load(tmp_path)[0]) is None
    _copies(games[1], tmp_path, 1, "d")
    enough = stats.load(tmp_path)[0]
    claim = stats.level(enough)
    assert claim is not None and claim["games"] == stats.LEVEL_GAMES
    assert claim["accuracy"] == pytest.approx(stats.game_stats(games[1]).accuracy, abs=0.1)
    assert f"over your last {stats.LEVEL_GAMES} games" in stats.report_text(enough)


def test_the_level_counts_only_games_with_moves_chosen_without_a_hint():
    def game(i, accuracy, unaided, hinted):
        return stats.GameStats(f"g{i}", "", f"2026-01-{i + 1:02d}", True, True, "onnx", accuracy, 10, {},
                               hinted=hinted, unaided=unaided)

    aided = [game(i, 95.0, None, 10) for i in range(10)]
    assert stats.level(aided) is None
    mixed = aided + [game(10 + i, 80.0, 50.0, 4) for i in range(stats.LEVEL_GAMES)]
    assert stats.level(mixed) == {"accuracy": 50.0, "games": stats.LEVEL_GAMES,
                                  "text": "between the random bot and the greedy bot"}
    old = stats.GameStats("g", "", "2026-01-01", True, True, "onnx", 70.0, 10, {})
    assert old.unaided == 70.0  # a game with no hinted move: its accuracy is all unaided
