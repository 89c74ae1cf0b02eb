"""Game records: whole bot games replay state for state, atomic saves, and damaged files reported, never fatal."""

import dataclasses
import json
import os

import pytest

from cuarenta_tutor import records
from cuarenta_tutor.agents import make_policy
from cuarenta_tutor.engine import ACTION_RANK, RANKS, Dealer, apply, card_str, legal_actions, preset, seeded_deck
from cuarenta_tutor.engine import trail_action as trail
from cuarenta_tutor.records import (
    DATA_ENV,
    ModelRef,
    MoveEntry,
    RecordError,
    Result,
    SeatEntry,
    from_json,
    list_games,
    load,
    new_record,
    replay,
    save,
    to_json,
)
from cuarenta_tutor.records import store as record_store


def play_recorded(rules, seed, specs, human_seat=None, stop=None, decks=()):
    """Play bots against each other, recording every move; returns (record, every state seen)."""
    policies = [make_policy(spec, seed=seed * 8 + s) for s, spec in enumerate(specs)]
    for s, p in enumerate(policies):
        p.reset(s, seed=seed * 8 + s)
    dealer = seed % rules.players
    chance = Dealer(seed, decks)  # the cards come from the seed (or the decks given), as a record replays them
    state, events = chance.start(rules, dealer)
    record = new_record(rules, seed, dealer, [(spec, f"P{s}") for s, spec in enumerate(specs)], human_seat,
                        decks=decks)
    states = [state]
    while not state.is_over and (stop is None or len(record.moves) < stop):
        for p in policies:
            p.observe(state, events)
        seat = state.turn
        action = policies[seat].decide(state).action
        card = [c for c in state.hands[seat] if c >> 2 == ACTION_RANK[action]][-1]  # not the engine's default card
        state, events = chance.play(state, action, card=card)
        record.add_move(seat, action, card, after=state)
        states.append(state)
    return record, states


@pytest.fixture(scope="module")
def finished():
    return play_recorded(preset("standard"), 11, ["expert", "greedy"], human_seat=0)


def test_data_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "home"))
    assert records.data_dir() == tmp_path / "home"
    assert records.games_dir() == tmp_path / "home" / "games" and (tmp_path / "home" / "games").is_dir()
    monkeypatch.delenv(DATA_ENV)
    assert records.data_dir().name == "cuarenta-tutor"


def test_new_record_holds_the_setup():
    rules = preset("pagat", players=4)
    record = new_record(rules, 5, 3, [("human", "Ana"), ("expert", "E1"), ("onnx", "Bot"), ("expert", "E2")],
                        human_seat=0, model=ModelRef("ab" * 32, "m.onnx"))
    assert record.rules == rules.to_dict() and record.rules_preset == "pagat"
    assert record.seats[0] == SeatEntry(0, "human", "Ana") and record.seats[3].name == "E2"
    assert record.model == ModelRef("ab" * 32, "m.onnx")
    assert record.decks == [[card_str(c, ascii_only=True) for c in seeded_deck(5, 0)]]
    assert record.moves == [] and record.result is None and record.schema_version == 1
    assert from_json(json.loads(json.dumps(to_json(record)))) == record
    on_disk = json.loads(json.dumps(to_json(record)))  # the file format: plain JSON objects, as before
    assert on_disk["seats"][0] == {"seat": 0, "player": "human", "name": "Ana"}
    assert on_disk["model"] == {"id": "ab" * 32, "path": "m.onnx"} and on_disk["result"] is None
    two = new_record(preset("standard"), 5, 0, [("human", "Ana"), ("expert", "E")],
                     decks=(seeded_deck(8, 0), seeded_deck(9, 0)))
    assert two.decks == [[card_str(c, ascii_only=True) for c in seeded_deck(n, 0)] for n in (8, 9)]
    with pytest.raises(ValueError, match="4 players need 4 seats"):
        new_record(rules, 5, 3, [("human", "Ana")])


@pytest.mark.parametrize("rules_name,players,seed,specs", [
    ("standard", 2, 1, ["expert", "greedy"]),
    ("standard", 2, 2, ["greedy", "random"]),
    ("quito_todo_dos", 2, 3, ["random", "expert"]),
    ("pagat", 4, 4, ["expert", "greedy", "random", "expert"]),
])
def test_replay_reproduces_every_state_of_a_whole_game(tmp_path, rules_name, players, seed, specs):
    record, states = play_recorded(preset(rules_name, players=players), seed, specs)
    assert states[-1].is_over
    assert record.result == Result(states[-1].winner, tuple(states[-1].scores))
    assert len(record.decks) == states[-1].hand_no + 1
    path = save(record, tmp_path)
    assert json.loads(path.read_text())["result"] == {"winner": states[-1].winner, "scores": list(states[-1].scores)}
    loaded = load(path)
    assert loaded == record
    assert all(isinstance(m, MoveEntry) for m in loaded.moves) and len(loaded.moves) == states[-1].plays
    assert replay(loaded) == states


def test_a_replayed_game_holds_the_states_events_and_decisions_of_one_replay():
    record, states = play_recorded(preset("standard"), 2, ["greedy", "random"])
    game = records.ReplayedGame.of(record)
    assert list(game.states) == states and list(game.events) == records.replay_events(record)[1]
    assert game.record is record and game.end == states[-1] and game.is_over
    assert records.ReplayedGame.of(game) is game  # already replayed: passed on as it is
    assert game.seats == tuple(m.seat for m in record.moves) and len(game.choices) == len(record.moves)
    for seats in ([0], [1], [0, 1]):
        assert game.decisions(seats) == [i for i, m in enumerate(record.moves)
                                         if m.seat in seats and len(legal_actions(states[i])) > 1]
    assert 0 < len(game.decisions([0, 1])) < len(record.moves)  # some moves were forced
    with pytest.raises(dataclasses.FrozenInstanceError):
        game.states = ()
    record.moves[3] = dataclasses.replace(record.moves[3], seat=1 - record.moves[3].seat)
    with pytest.raises(RecordError, match="move 4"):
        records.ReplayedGame.of(record)


def test_replay_of_a_game_dealt_from_explicit_decks(tmp_path):
    deck = seeded_deck(1234, 0)  # another seed's order: not what seed 6 deals
    record, states = play_recorded(preset("standard"), 6, ["expert", "expert"], decks=(deck,))
    assert record.decks[0] == [card_str(c, ascii_only=True) for c in deck]
    assert record.decks[1] == [card_str(c, ascii_only=True) for c in seeded_deck(6, 1)]
    assert replay(load(save(record, tmp_path))) == states


def test_replay_of_a_game_with_a_later_hand_dealt_from_an_explicit_deck(tmp_path):
    deck = seeded_deck(99, 5)
    record, states = play_recorded(preset("standard"), 6, ["expert", "expert"], decks={1: deck})
    assert states[-1].hand_no >= 1
    assert record.decks[0] == [card_str(c, ascii_only=True) for c in seeded_deck(6, 0)]
    assert record.decks[1] == [card_str(c, ascii_only=True) for c in deck]
    assert replay(load(save(record, tmp_path))) == states


def test_resume_gives_the_state_after_the_last_move(tmp_path):
    record, states = play_recorded(preset("standard"), 7, ["greedy", "expert"], human_seat=1, stop=23)
    loaded = load(save(record, tmp_path))
    assert loaded.result is None and len(loaded.moves) == 23
    state = replay(loaded)[-1]
    assert state == states[-1]
    state, _ = loaded.dealer.play(state, legal_actions(state)[0])  # and the game goes on from there
    assert state.plays == 24


OLD_DECK = ("7c Kd 5s Ad 2c Ks Qc 7s 6c 6h Jd 4d Qd 3c As 4s 3s Qh Ac Jc "
            "5c 3h 7d 2s Kh Kc 2d 4c 5d Js 3d 6s 7h 6d Ah Jh Qs 2h 5h 4h")
OLD_MOVES = [(0, 9, "Kd"), (1, 19, "Ks"), (0, 6, "7c"), (1, 16, "7s"), (0, 4, "5s"), (1, 8, "Qc"), (0, 1, "2c"),
             (1, 5, "6c"), (0, 0, "Ad"), (1, 37, "6h"), (0, 18, "Qd"), (1, 8, "Qh")]
OLD_NOTE = {"ply": 0, "seat": 0, "action": 9, "name": "K trails", "win_before": 50.0, "win_after": 48.5,
            "best_action": 9, "best_name": "K trails", "win_best": 48.5, "loss": 0.0, "klass": "best",
            "accuracy": 100.0, "prob": 0.5, "model_id": "ab" * 32}
OLD_FILE = {  # written by the code before the renovation (records.py of the previous release), 12 moves in
    "schema_version": 1, "game_id": "20240501-101500-abc123", "created": "2024-05-01T10:15:00+00:00",
    "updated": "2024-05-01T10:15:00+00:00", "rules": preset("standard").to_dict(), "rules_preset": "standard",
    "seed": 21, "first_dealer": 1, "decks": [OLD_DECK.split()],
    "seats": [{"seat": 0, "player": "human", "name": "Ana"}, {"seat": 1, "player": "expert", "name": "Bot"}],
    "human_seat": 0, "model": {"id": "ab" * 32, "path": "models/x.onnx"},
    "moves": [{"seat": s, "action": a, "card": c, "annotation": OLD_NOTE if i == 0 else None}
              for i, (s, a, c) in enumerate(OLD_MOVES)],
    "result": None,
}


def test_a_file_written_before_the_renovation_loads_replays_and_saves_unchanged(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps(OLD_FILE, indent=1))
    record = load(path)
    assert record.moves[0] == MoveEntry(0, 9, "Kd", OLD_NOTE) and record.moves[1].annotation is None
    assert record.seats[1] == SeatEntry(1, "expert", "Bot") and record.model == ModelRef("ab" * 32, "models/x.onnx")
    state = replay(record)[-1]
    # what the previous release's engine reached after these 12 moves
    hands = [" ".join(card_str(c, ascii_only=True) for c in h) for h in state.hands]
    assert hands == ["As 3c 4d Jd", "Ac 3s 4s Jc"]
    assert [card_str(c, ascii_only=True) for c in state.table] == ["2c", "6c", "Qh"]
    assert (state.scores, [len(p) for p in state.piles], state.turn, state.deal_no) == ((0, 8), [2, 7], 0, 1)
    assert to_json(record) == OLD_FILE
    assert json.loads(save(record, tmp_path / "again").read_text()) == OLD_FILE


def test_save_is_atomic(tmp_path, finished, monkeypatch):
    record, _ = finished
    path = save(record, tmp_path)
    assert path == tmp_path / f"{record.game_id}.json"
    assert sorted(os.listdir(tmp_path)) == [path.name]  # no temp file left behind
    before = path.read_bytes()
    changed = load(path)
    changed.moves.pop()

    def crash(*args):
        raise OSError("disk unplugged")

    monkeypatch.setattr(record_store.os, "replace", crash)
    with pytest.raises(OSError, match="disk unplugged"):
        save(changed, tmp_path)
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == [path.name]
    monkeypatch.undo()
    save(changed, tmp_path)
    assert load(path) == changed and sorted(os.listdir(tmp_path)) == [path.name]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_rewrite_keeps_the_files_permissions_and_a_new_file_gets_the_umasks(tmp_path):
    # a sidecar rebuilt beside a shared model stays readable by the others who use it (mkstemp's file is 0600)
    new = record_store.write_atomic(tmp_path / "new.json", "{}")
    umask = os.umask(0o022)
    os.umask(umask)
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask
    kept = tmp_path / "kept.json"
    kept.write_text("{}")
    kept.chmod(0o640)
    record_store.write_atomic(kept, '{"a": 1}')
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_text() == '{"a": 1}'


def test_save_without_a_folder_writes_to_the_games_folder(tmp_path, monkeypatch, finished):
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    path = save(finished[0])
    assert path.parent == tmp_path / "games"
    summaries, skipped = list_games()
    assert [s.game_id for s in summaries] == [finished[0].game_id] and skipped == []


def _good_json(record) -> dict:
    return json.loads(json.dumps(to_json(record)))


@pytest.mark.parametrize("name,content,message", [
    ("truncated", lambda good: json.dumps(good)[:300], "is damaged: invalid JSON at line 1"),
    ("garbage", lambda good: b"\x89PNG\r\n\x1a\n\x00\xff\xfe", "not UTF-8"),
    ("foreign", lambda good: json.dumps({"name": "my notes", "items": [1, 2]}), "no schema_version"),
    ("list", lambda good: "[1, 2, 3]", "a JSON list, not an object"),
    ("deep", lambda good: "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("newer", lambda good: json.dumps({**good, "schema_version": 2}), "upgrade cuarenta-tutor"),
    ("zero", lambda good: json.dumps({**good, "schema_version": 0}), "schema_version 0 is not a positive"),
    ("seed", lambda good: json.dumps({**good, "seed": "eleven"}), "seed is not a whole number"),
    ("rules", lambda good: json.dumps({**good, "rules": {"players": 3}}), "rules are not valid"),
    ("option", lambda good: json.dumps({**good, "rules": {"jokers": True}}), "unknown rules option"),
    ("deck", lambda good: json.dumps({**good, "decks": [["7h"] * 40]}), "decks are not decks of 40 cards"),
    ("moves", lambda good: json.dumps({**good, "moves": [{"seat": 0, "action": 99, "card": "7h"}]}), "move 1 "),
    ("card", lambda good: json.dumps({**good, "moves": [{"seat": 0, "action": 6, "card": "9h"}]}), "move 1 "),
    ("missing", lambda good: json.dumps({k: v for k, v in good.items() if k != "seats"}), "missing seats"),
    ("id", lambda good: json.dumps({**good, "game_id": "../../etc/passwd"}), "game_id"),
    ("result", lambda good: json.dumps({**good, "result": {"winner": 2}}), "result is neither"),
    ("label", lambda good: json.dumps({**good, "rules_preset": "pagat"}), "rules_preset 'pagat' is not the name"),
    ("custom", lambda good: json.dumps({**good, "rules": {**good["rules"], "limpia_cutoff": 30}}),
     "a custom set, null"),
])
def test_load_reports_what_is_wrong_with_a_file(tmp_path, finished, name, content, message):
    data = content(_good_json(finished[0]))
    path = tmp_path / f"{name}.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(RecordError) as err:
        load(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_load_of_a_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read .*gone.json"):
        load(tmp_path / "gone.json")


def test_list_games_skips_damaged_and_foreign_files(tmp_path, finished):
    old, _ = play_recorded(preset("standard"), 8, ["greedy", "greedy"], human_seat=1, stop=9)
    old.created = "2024-01-01T10:00:00+00:00"
    done = from_json(_good_json(finished[0]))
    done.created = "2024-03-01T10:00:00"  # no zone: read as UTC, still sorts
    save(old, tmp_path), save(done, tmp_path)
    good_text = json.dumps(to_json(done))
    (tmp_path / "truncated.json").write_text(good_text[: len(good_text) // 2])
    (tmp_path / "garbage.json").write_bytes(os.urandom(64) + b"\xff")
    (tmp_path / "foreign.json").write_text('{"tool": "something else"}')
    (tmp_path / "notes.txt").write_text("not a .json file: ignored")
    summaries, skipped = list_games(tmp_path)
    assert [s.game_id for s in summaries] == [done.game_id, old.game_id]
    assert len(skipped) == 3 and all("skipped" in m for m in skipped)
    for bad in ("truncated.json", "garbage.json", "foreign.json"):
        assert sum(bad in m for m in skipped) == 1
    first, second = summaries
    team = 0
    scores = done.result.scores
    outcome = "won" if done.result.winner == team else "lost"
    assert first.finished and first.result == f"you {outcome} {scores[team]}-{scores[1 - team]}"
    assert not second.finished and second.result == "unfinished" and second.moves == 9
    assert records.latest_unfinished(tmp_path).game_id == old.game_id
    assert list_games(tmp_path / "nowhere") == ([], [])


def test_summary_accuracy_comes_from_the_human_annotations(tmp_path):
    rules = preset("standard")
    record = new_record(rules, 3, 0, [("expert", "E"), ("human", "Ana")], human_seat=1,
                        model=ModelRef("0123456789abcdef" * 4, "x.onnx"))
    state, _ = Dealer(3).start(rules, 0)
    for accuracy in (100.0, 5.0, 90.0, 5.0):  # dealer 0: seat 1 plays first and third
        seat, action = state.turn, legal_actions(state)[0]
        card = next(c for c in state.hands[seat] if c >> 2 == ACTION_RANK[action])
        state, _ = apply(state, action, card=card)
        record.add_move(seat, action, card, {"accuracy": accuracy}, after=state)
    (summary,), _ = list_games(folder=save(record, tmp_path).parent)
    assert summary.accuracy == pytest.approx(95.0)  # the bot's 5s do not count
    assert summary.model == "0123456789ab" and summary.rules_preset == "standard" and summary.moves == 4
    (custom,), _ = list_games(tmp_path, accuracy=lambda notes: len(notes))
    assert custom.accuracy == 2


def _mutated(record, index, **change):
    copy = from_json(_good_json(record))
    copy.moves[index] = dataclasses.replace(copy.moves[index], **change)
    return copy


def test_a_move_that_does_not_fit_names_the_move(finished):
    record, states = finished
    state = states[4]
    missing = next(r for r in range(10) if not any(c >> 2 == r for c in state.hands[state.turn]))
    bad = _mutated(record, 4, action=trail(missing))
    name = RANKS[missing]
    with pytest.raises(RecordError, match=rf'game {record.game_id}: move 5 \(seat {state.turn}, "{name} '
                                          rf'trails"\) does not fit the game: seat {state.turn} has no {name} in hand'):
        replay(bad)
    card = next(c for c in state.hands[state.turn] if not any(t >> 2 == c >> 2 for t in state.table))
    with pytest.raises(RecordError, match=rf"move 5 .* cannot match: there is no {RANKS[card >> 2]} on the table"):
        replay(_mutated(record, 4, action=10 + (card >> 2), card=card_str(card, True)))
    with pytest.raises(RecordError, match=rf"move 5 .* it was seat {state.turn}'s turn"):
        replay(_mutated(record, 4, seat=1 - state.turn))
    other = card_str(states[4].hands[1 - state.turn][0], True)
    with pytest.raises(RecordError, match="move 5 .*not in seat"):
        replay(_mutated(record, 4, card=other))
    longer = from_json(_good_json(record))
    longer.moves.append(longer.moves[-1])
    with pytest.raises(RecordError, match=rf"move {len(longer.moves)} .*already over"):
        replay(longer)


def test_delete_removes_a_saved_game(tmp_path, finished):
    path = save(finished[0], tmp_path)
    records.delete(path)
    records.delete(path)
    assert not path.exists()


def test_times_read_the_same_on_every_screen():
    assert records.when_text("2026-11-21T12:00:00") == "2026-11-21 12:00"  # as written, without a zone
    from datetime import datetime, timezone

    moment = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
    assert records.when_text(moment.isoformat()) == moment.astimezone().strftime("%Y-%m-%d %H:%M")
    assert records.when_text("yesterday") == "yesterday"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_or_a_folder_named_like_a_record_is_skipped_not_read(tmp_path, finished):
    finished, _ = finished
    records.save(finished, tmp_path)
    os.mkfifo(tmp_path / "pipe.json")  # reading it would wait for a writer forever
    (tmp_path / "folder.json").mkdir()
    games, problems = records.list_games(tmp_path)
    assert [g.game_id for g in games] == [finished.game_id]
    assert sorted(p.split(" is not a regular file")[0].split()[-1] for p in problems) == \
        sorted(str(tmp_path / n) for n in ("folder.json", "pipe.json"))
    with pytest.raises(records.RecordError, match="not a regular file"):
        records.load(tmp_path / "pipe.json")


@pytest.mark.parametrize("field", ["name", "level"])
def test_a_record_with_terminal_escape_codes_is_refused_in_one_line_that_shows_none(tmp_path, finished, field):
    record, _ = finished
    data = records.to_json(record)
    if field == "name":
        data["seats"][1]["name"] = "Bot\x1b[2J\x07\u202e"  # clear the screen, ring, reverse the text
    else:
        data["level"] = "club\x1b]0;owned\x07"
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    with pytest.raises(records.RecordError) as caught:
        records.load(path)
    message = str(caught.value)
    assert "control characters" in message and str(path) in message
    assert not any(c in message for c in "\x1b\x07\u202e\n") and path.exists()  # said, not shown; left in place
    from cuarenta_tutor.coach import format_review

    data["seats"][1]["name"], data["level"] = "Bot", "club"
    loaded = records.from_json({**data, "seats": [*data["seats"][:1], {**data["seats"][1], "name": "Bot\x1b[2J"}]})
    assert loaded.seats[1].name == "Bot[2J" and "\x1b" not in format_review(loaded, [])  # made in code: cleaned


def test_temp_files_of_saves_cut_short_are_cleaned_up_but_a_fresh_one_is_left(tmp_path, finished):
    record, _ = finished
    saved = records.save(record, tmp_path)
    old, fresh = tmp_path / f".{saved.stem}.abc123.tmp", tmp_path / f".{saved.stem}.def456.tmp"
    old.write_text('{"half": ')
    fresh.write_text('{"half": ')
    os.utime(old, (0, 0))  # left by a kill long ago
    assert records.clean_leftovers(tmp_path) == [old]
    assert not old.exists() and fresh.exists() and saved.exists()  # a save in progress is left alone


@pytest.mark.parametrize("ply, ok", [(0, True), ("all", True), ("past", False), (10 ** 9, False), (-1, False)])
def test_a_takeback_is_at_a_ply_of_the_game(tmp_path, finished, ply, ok):
    record, _ = finished
    data = records.to_json(record)
    played = len(data["moves"])
    ply = {"all": played, "past": played + 1}.get(ply, ply)
    data["takebacks"] = [{"ply": ply, "moves": []}]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data))
    if ok:
        assert records.load(path).takebacks[0]["ply"] == ply
    else:
        with pytest.raises(records.RecordError, match="takebacks is not a list of"):
            records.load(path)
