"""The person's files that more than one process changes (two apps open at once: the drills screen in one, a review
adding drills in another; two windows changing settings): each change is made on the file as it is then, under its
lock (records.update_file), so none is lost. The writers race in real processes, started together."""

import json
import subprocess
import sys
import time
from dataclasses import asdict, replace
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import SMALL, a_record, worst_game

from cuarenta_tutor import coach, lessons, players, records
from cuarenta_tutor.coach import drills, stats
from cuarenta_tutor.records.lock import file_lock, lock_path

# one worker runs the files that share worst games: helpers keeps each game and its review per process
pytestmark = pytest.mark.xdist_group("worst-games")

WORKER = r'''
import json, sys, time
from pathlib import Path

mode, tag, shared, count = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])


def start():
    """Ready (imports done): wait for the others, so every writer writes at once."""
    (shared / f"ready-{mode}-{tag}").touch()
    while not (shared / "go").exists():
        time.sleep(0.002)


out = {}
if mode in ("add", "answer"):
    from dataclasses import replace
    from datetime import datetime, timezone

    from cuarenta_tutor.coach import drills

    base = drills.Drill.from_json(json.loads((shared / "drill.json").read_text()))
    start()
    if mode == "add":  # one by one, as reviews in other apps would
        for i in range(count):
            drills.add_drills([replace(base, id=f"{tag}:{i}", answers=[])])
    else:  # the drills screen: the drill on show answered again and again, each answer kept
        drill = next(d for d in drills.load_deck().drills if d.id == base.id)
        for i in range(count):
            drill.answer(drill.moves[i % len(drill.moves)]["action"], datetime.now(timezone.utc))
            deck = drills.save_answered(drill)
        out["drills"] = len(deck.drills)
elif mode == "settings":  # one field each; after every change, whether it is still there
    from cuarenta_tutor import records

    field = tag
    values = {"tutor": [False, True], "language": ["es", "en"], "level": ["strong", "beginner"]}[field]
    start()
    lost = 0
    for i in range(count):
        value = values[i % 2]
        records.update_settings(**{field: value})
        lost += getattr(records.load_settings()[0], field) != value  # no other writer changes this field
    out["lost"] = lost
elif mode == "others":  # a position solved, an adaptive game's result, a game saved and the progress figures opened
    from cuarenta_tutor import lessons, players, records
    from cuarenta_tutor.coach import stats

    record = records.from_json(json.loads((shared / "record.json").read_text()))
    start()
    lost = 0
    for i in range(count):
        lessons.mark_solved(f"lesson-{tag}", f"p{i}")
        lessons.mark_solved("shared", f"{tag}-{i}")
        players.record_result(f"{tag}-{i}", i % 3 != 0)
        records.save(records.from_json({**records.to_json(record), "game_id": f"{tag}-{i}"}))
        stats.load()
        cached = {g["game_id"] for g in json.loads(stats.stats_path().read_text())["games"]}
        lost += len({f"{tag}-{k}" for k in range(i + 1)} - cached)  # its own games, once cached, stay cached
    out["lost"] = lost
print(json.dumps(out))
'''


def race(tmp_path: Path, writers: list[tuple[str, str, int]], timeout: float = 60) -> list[dict]:
    """Run each writer (mode, tag, count) in its own process on the test's user data folder (CUARENTA_TUTOR_HOME,
    set by conftest), all let go at once; what each printed."""
    shared = tmp_path / "race"
    shared.mkdir(exist_ok=True)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, mode, tag, str(shared), str(count)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for mode, tag, count in writers]
    try:
        deadline = time.monotonic() + timeout
        while len(list(shared.glob("ready-*"))) < len(procs):
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs if p.poll() is not None]
            assert time.monotonic() < deadline, "the writers did not start"
            time.sleep(0.01)
        (shared / "go").touch()
        out = []
        for proc in procs:
            stdout, stderr = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            assert proc.returncode == 0, stderr
            out.append(json.loads(stdout.strip().splitlines()[-1]))
        return out
    finally:
        for proc in procs:  # none left behind by a failed test
            if proc.poll() is None:
                proc.kill()
                proc.wait()


@pytest.fixture
def a_drill(tmp_path) -> drills.Drill:
    """A real drill (a blunder of a worst game, reviewed as test_drills does), in the deck, and written where the
    writers read it."""
    session = worst_game(seed=7)
    found: list = []
    coach.review(session.record, None, SMALL, drills=found)
    drill = found[0]
    assert drills.add_drills([drill]) == (1, [])
    (tmp_path / "race").mkdir()
    (tmp_path / "race" / "drill.json").write_text(json.dumps(drill.to_json()))
    return drill


def test_drills_added_by_four_processes_and_answers_kept_by_a_fifth_are_all_in_the_deck(a_drill, tmp_path):
    each, answers = 10, 12  # four reviews adding drills one by one, and the drills screen answering, all at once
    out = race(tmp_path, [("add", f"w{k}", each) for k in range(4)] + [("answer", "screen", answers)])
    deck = drills.load_deck()
    assert not deck.problems
    ids, total = [d.id for d in deck.drills], 4 * each + 1
    assert len(ids) == len(set(ids)) == total, f"{total - len(set(ids))} of {total} drills lost"
    assert set(ids) == {a_drill.id} | {f"w{k}:{i}" for k in range(4) for i in range(each)}
    answered = next(d for d in deck.drills if d.id == a_drill.id)
    assert len(answered.answers) == answers  # every answer, none dropped by an add
    assert all(not d.answers for d in deck.drills if d.id != a_drill.id)
    assert 1 <= out[-1]["drills"] <= total  # the screen got the deck as written, with the others' drills


def test_the_answered_drill_replaces_its_stored_self_and_keeps_what_the_deck_holds_besides(a_drill):
    other = replace(a_drill, id="other:1", answers=[])
    drills.add_drills([other])
    stored = json.loads(drills.deck_path().read_text())
    stored["drills"].append({"id": "unreadable"})  # a drill this version cannot read: written back untouched
    drills.deck_path().write_text(json.dumps(stored))
    screen = drills.load_deck()  # the screen's copy, read before another app adds a drill
    drills.add_drills([replace(a_drill, id="later:1", answers=[])])
    mine = next(d for d in screen.drills if d.id == a_drill.id)
    mine.answer(mine.played, datetime.now(timezone.utc))
    written = drills.save_answered(mine)
    assert [d.id for d in written.drills] == [a_drill.id, "other:1", "later:1"]
    assert written.kept == [{"id": "unreadable"}]
    again = drills.load_deck()
    assert [d.to_json() for d in again.drills] == [d.to_json() for d in written.drills]
    assert again.kept == [{"id": "unreadable"}] and len(again.drills[0].answers) == 1


def test_a_damaged_deck_is_still_kept_aside_and_told_when_a_drill_is_added_or_answered(a_drill):
    path = drills.deck_path()
    path.write_text("{not json", encoding="utf-8")
    added, problems = drills.add_drills([replace(a_drill, id="new:1")])
    assert added == 1 and "damaged" in problems[0]
    assert [p.read_text() for p in path.parent.glob("drills.damaged-*.json")] == ["{not json"]
    path.write_text("[1, 2]", encoding="utf-8")
    written = drills.save_answered(a_drill)
    assert [d.id for d in written.drills] == [a_drill.id] and "not a drill deck" in written.problems[0]
    assert sorted(p.read_text() for p in path.parent.glob("drills.damaged-*.json")) == ["[1, 2]", "{not json"]


def test_two_processes_changing_different_settings_keep_both(tmp_path):
    records.save_settings(records.Settings(tutor=True, level="club", language="en"))
    out = race(tmp_path, [("settings", "tutor", 41), ("settings", "language", 41)])
    assert [o["lost"] for o in out] == [0, 0]  # neither writer ever undid the other's change
    settings, problems = records.load_settings()
    assert (settings.tutor, settings.language, settings.level) == (False, "es", "club") and not problems


def test_a_settings_change_is_made_on_the_file_as_it_is_and_a_damaged_one_is_told():
    records.save_settings(records.Settings(level="strong"))
    settings, told = records.update_settings(language="es")
    assert (settings.level, settings.language) == ("strong", "es") and not told
    assert records.load_settings()[0] == settings
    with pytest.raises(ValueError):
        records.update_settings(level="grandmaster")  # not a level: nothing is written
    assert records.load_settings()[0] == settings
    records.settings_path().write_text("{damaged")
    settings, told = records.update_settings(tutor=False)
    assert not settings.tutor and settings.level == "club" and "damaged" in told[0] and "kept" in told[0]
    assert [p.read_text() for p in records.settings_path().parent.glob("settings.damaged-*.json")] == ["{damaged"]


def test_lesson_progress_ladder_and_stats_written_by_two_processes_at_once_keep_every_change(tmp_path):
    record = records.from_json({**records.to_json(a_record(6)), "human_seat": 0})
    shared = tmp_path / "race"
    shared.mkdir()
    (shared / "record.json").write_text(json.dumps(records.to_json(record)))
    out = race(tmp_path, [("others", "a", 12), ("others", "b", 12)])
    assert [o["lost"] for o in out] == [0, 0]  # no game's figures dropped from the stats cache by the other writer
    progress = lessons.load_progress()
    assert progress.problem is None
    assert progress.solved == {"lesson-a": {f"p{i}" for i in range(12)}, "lesson-b": {f"p{i}" for i in range(12)},
                               "shared": {f"{tag}-{i}" for tag in "ab" for i in range(12)}}
    ladder = players.load_ladder()
    assert sorted(g["game_id"] for g in ladder.games) == sorted(f"{tag}-{i}" for tag in "ab" for i in range(12))
    rung = players.START_RUNG  # each game moved the rung the one before it left
    for game in ladder.games:
        assert game["rung"] == rung
        rung = max(0, min(len(players.RUNGS) - 1, rung + (1 if game["won"] else -1)))
    assert ladder.rung == rung
    cached = json.loads(stats.stats_path().read_text())["games"]
    assert sorted(g["game_id"] for g in cached) == sorted(f"{tag}-{i}" for tag in "ab" for i in range(12))


def test_the_lock_is_exclusive_between_processes_and_taken_again_by_its_own_thread(tmp_path):
    path = lock_path(tmp_path / "some" / "file.json")
    assert path == tmp_path / "some" / ".file.json.lock"
    probe = ("import sys; from cuarenta_tutor.records.lock import file_lock\n"
             "with file_lock(sys.argv[1], wait=False) as lock: print(lock.held)")
    with file_lock(path) as outer:
        assert outer.held
        with file_lock(path) as inner:  # a reader that repairs its file inside an update does not wait on itself
            assert inner.held
        elsewhere = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True)
        assert elsewhere.stdout.strip() == "False", elsewhere.stderr
    free = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True)
    assert free.stdout.strip() == "True", free.stderr


def test_figures_another_process_cached_while_this_one_read_the_games_stay_in_the_stats_cache(monkeypatch):
    record = records.from_json({**records.to_json(a_record(6)), "human_seat": 0})
    mine, theirs = (records.from_json({**records.to_json(record), "game_id": name}) for name in ("mine", "theirs"))
    records.save(mine)
    real = stats.game_stats

    def elsewhere(game):  # while this process works out its figures, another saves a game and caches its figures
        if game.game_id == "mine":
            records.save(theirs)
            stats.stats_path().write_text(json.dumps({"schema_version": stats.SCHEMA,
                                                      "games": [asdict(real(theirs))]}))
        return real(game)

    monkeypatch.setattr(stats, "game_stats", elsewhere)
    games, problems = stats.load()
    assert [g.game_id for g in games] == ["mine"] and not problems  # the games as this process read them
    cached = json.loads(stats.stats_path().read_text())["games"]
    assert sorted(g["game_id"] for g in cached) == ["mine", "theirs"]  # the other's figures kept
    records.delete(records.games_dir() / "theirs.json")
    monkeypatch.setattr(stats, "game_stats", real)
    stats.load()
    assert [g["game_id"] for g in json.loads(stats.stats_path().read_text())["games"]] == ["mine"]  # deleted: gone
