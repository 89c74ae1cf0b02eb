"""Provides progress over time: per saved game your accuracy, result, opponent and mistakes by kind; the level
you play at; and the kind of mistake you repeat, with the lesson that teaches it.

The games folder is the source; `stats.json` in the user data folder caches each game's figures by the game's
last update, so a long history opens at once; it is written on the file as it is then (re-read under its lock),
so what another process cached meanwhile stays. A damaged cache is reported, kept aside and rebuilt from the
games; a damaged game is reported and skipped, as in the saved-games list.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from .. import records
from ..i18n import _, ngettext, percent, pgettext
from .annotate import game_accuracy
from .kinds import KINDS, LESSONS, kind, label
from .review import read

SCHEMA = 1
MAX_BYTES = 64 << 20
"""The cache holds a few hundred bytes a game; a larger file is not one (and is not read into memory)."""
BOTS = (("random", 49.1), ("greedy", 62.3), ("expert", 77.6))
"""The bots' game accuracy on the analysis (`cuarenta-tutor bench analysis`, README "Measured"): the yardstick
of the level estimate."""
RECENT = 10
"""Games the level estimate and the weak spots look back on."""
LEVEL_GAMES = 5
"""Games with moves of yours chosen without a hint before a level is claimed. One game's accuracy rests on a dozen or
two of your decisions and swings with the cards dealt, by more than the 13 to 15 points between two bots (BOTS):
after one good game "at or above the expert bot" says nothing. The mean of five games swings less than half as much
(1/sqrt(5)), enough to place you between two bots, and five games are an evening's play, not a chore."""
REPEATED = 3
"""Mistakes of one kind in the recent games that make it a weak spot."""


@dataclass
class GameStats:
    """One saved game from the person's side."""

    game_id: str
    updated: str
    created: str
    finished: bool
    won: bool | None
    opponent: str
    """Who played against the person: the seat's player (and model), e.g. "onnx 967dfd4d"."""
    accuracy: float | None
    reviewed: int
    """The person's moves with an annotation."""
    mistakes: dict = field(default_factory=dict)
    """Mistakes and blunders by kind (coach/kinds.py)."""
    hinted: int = 0
    """The person's moves chosen with a hint shown (records.MoveEntry.hinted)."""
    unaided: float | None = None
    """The accuracy over the moves chosen without a hint shown, the level's figure; None when no such move has an
    annotation. In a game with no hinted move it is `accuracy` (so figures cached before hints were recorded, and
    older records, read so)."""

    def __post_init__(self):
        if not self.hinted:
            self.unaided = self.accuracy


def game_stats(record) -> GameStats | None:
    """The person's figures in a game; None for a game with no person in it."""
    seat = record.human_seat
    if seat is None:
        return None
    notes = [(i, n) for i, m in enumerate(record.moves) if m.seat == seat and (n := read(m.annotation))]
    unaided = [n for i, n in notes if not record.moves[i].hinted]
    mistakes: dict = {}
    if any(n.klass.is_mistake_or_worse for _i, n in notes):
        states = records.replay(record)
        for i, n in notes:
            if n.klass.is_mistake_or_worse:
                k = kind(states[i], n.action, n.best_action, n.risks)
                mistakes[k] = mistakes.get(k, 0) + 1
    others = [s for s in record.seats if s.seat % 2 != seat % 2]
    model = f" {record.model.id[:8]}" if record.model and any(s.player == "onnx" for s in others) else ""
    won = None if record.result is None else record.result.winner == seat % 2
    opponent = f"level {record.level}" if record.level else (others[0].player if others else "?") + model
    return GameStats(record.game_id, record.updated, record.created, record.result is not None, won,
                     opponent, game_accuracy([n for _i, n in notes]),
                     len(notes), mistakes, sum(m.hinted for m in record.moves if m.seat == seat),
                     game_accuracy(unaided) if unaided else None)


def _cache(data) -> dict:
    """The cached figures by game id, each checked (a file of another shape or with other values raises)."""
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA or not isinstance(data.get("games"), list):
        raise ValueError(_("not a stats file of schema version {n}").format(n=SCHEMA))
    cache = {}
    for g in data["games"]:
        stats = GameStats(**g)
        if not (isinstance(stats.game_id, str) and isinstance(stats.updated, str) and isinstance(stats.mistakes, dict)
                and type(stats.hinted) is int and stats.hinted >= 0
                and all(x is None or (type(x) in (int, float) and 0 <= x <= 100)
                        for x in (stats.accuracy, stats.unaided))):
            raise ValueError(_("the figures of game {id!r} are not figures of a game").format(id=stats.game_id))
        cache[stats.game_id] = stats
    return cache


def stats_path() -> Path:
    return records.data_dir() / "stats.json"


def load(folder=None, path=None) -> tuple[list[GameStats], list[str]]:
    """Every saved game with a person in it, oldest first, and what could not be read. Uses and refreshes the
    cache."""
    path = Path(path or stats_path())
    problems, cache = [], {}
    try:
        cache = records.read_json(path, _("the stats file"), _cache, max_bytes=MAX_BYTES, missing={},
                                  then=_("it is rebuilt from your saved games"))
    except records.FileError as err:
        problems.append(str(err))
    folder = Path(folder) if folder is not None else records.games_dir()
    out, changed = [], bool(problems)
    for file in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            record = records.load_replayed(file)  # moves that do not replay: skipped, as in the saved-games list
            stats = cache.get(record.game_id)
            if stats is None or stats.updated != record.updated:
                stats, changed = game_stats(record), True
        except records.RecordError as err:
            problems.append(_("{error} (it was skipped)").format(error=err))
            continue
        if stats is not None:
            out.append(stats)
    out.sort(key=lambda s: (s.created, s.game_id))
    if changed or len(out) != len(cache):
        try:
            _store(path, folder, out, problems)
        except OSError as err:
            problems.append(_("the stats file {path} could not be written ({error}); nothing else is affected").format(
                path=path, error=err))
    return out, problems


def _store(path: Path, folder: Path, games: list, problems: list) -> None:
    """Write the figures of `games` into the cache as it is now (records.update_file: re-read under its lock), so
    the figures another process cached meanwhile stay: a game only there while its file is in `folder`; a game in
    both with the figures of its later update (ours where they tie). A damaged cache read here is kept aside and
    said in `problems`, as `load` does."""
    mine = {g.game_id: g for g in games}

    def read(where: Path) -> dict:
        try:
            return records.read_json(where, _("the stats file"), _cache, max_bytes=MAX_BYTES, missing={},
                                     then=_("it is rebuilt from your saved games"))
        except records.FileError as err:
            problems.append(str(err))
            return {}

    def merge(cache: dict) -> list:
        merged = dict(mine)
        for game_id, theirs in cache.items():
            if game_id in mine:
                if _later(theirs.updated, mine[game_id].updated):
                    merged[game_id] = theirs
            elif (folder / f"{game_id}.json").exists():
                merged[game_id] = theirs
        return sorted(merged.values(), key=lambda g: (g.created, g.game_id))

    def write(cached: list, where: Path) -> None:
        records.write_atomic(where, json.dumps({"schema_version": SCHEMA, "games": [asdict(g) for g in cached]}))

    records.update_file(path, read, merge, write)


def _later(one: str, other: str) -> bool:
    """Whether the time `one` is after `other` (ISO 8601; False where either is not such a time)."""
    try:
        return datetime.fromisoformat(one) > datetime.fromisoformat(other)
    except (TypeError, ValueError):
        return False


def mistakes_by_kind(games) -> dict:
    """Mistakes and blunders by kind over `games`, every kind listed."""
    return {k: sum(g.mistakes.get(k, 0) for g in games) for k in KINDS}


def results_by_opponent(games) -> dict:
    """{opponent: {"played", "won", "lost"}} over the finished games."""
    out: dict = {}
    for g in games:
        if g.finished:
            row = out.setdefault(g.opponent, {"played": 0, "won": 0, "lost": 0})
            row["played"] += 1
            row["won" if g.won else "lost"] += 1
    return out


def level(games) -> dict | None:
    """Your level from the mean accuracy of your recent games over the moves you chose without a hint shown (a move
    played from a hint is the coach's, not yours), against the bots' accuracy: {"accuracy", "games", "text"}; None
    before LEVEL_GAMES such games (`level_needs` says how many more)."""
    recent = [g.unaided for g in games if g.unaided is not None][-RECENT:]
    if len(recent) < LEVEL_GAMES:
        return None
    acc = sum(recent) / len(recent)
    below = [name for name, a in BOTS if a <= acc]
    above = [name for name, a in BOTS if a > acc]
    if not below:
        text = _("below the random bot")
    elif not above:
        text = _("at or above the expert bot")
    else:
        text = _("between the {lower} bot and the {upper} bot").format(lower=bot_name(below[-1]),
                                                                        upper=bot_name(above[0]))
    return {"accuracy": round(acc, 1), "games": len(recent), "text": text}


def level_needs(games) -> int:
    """How many more games with moves chosen without a hint `level` needs (0: it makes its claim)."""
    return max(0, LEVEL_GAMES - sum(g.unaided is not None for g in games))


def bot_name(name: str) -> str:
    """A bot of BOTS in the language in use ("greedy" / "codicioso")."""
    return {"random": pgettext("bot", "random"), "greedy": pgettext("bot", "greedy"),
            "expert": pgettext("bot", "expert")}.get(name, name)


def opponent_text(opponent: str) -> str:
    """A game's opponent as GameStats keeps it ("level club", "onnx 967dfd4d"), in the language in use."""
    if opponent.startswith("level "):
        from ..players import Level

        return _("level {level}").format(level=Level.of(opponent[len("level "):]))
    return opponent


def weak_spot(games) -> dict | None:
    """The kind of mistake you repeat most in your recent games, if it is at least REPEATED times and a lesson
    teaches it: {"kind", "count", "games", "lesson"}."""
    recent = [g for g in games if g.reviewed][-RECENT:]
    counts = {k: n for k, n in mistakes_by_kind(recent).items() if k in LESSONS and n >= REPEATED}
    if not counts:
        return None
    worst = max(counts, key=lambda k: (counts[k], -KINDS.index(k)))
    return {"kind": worst, "count": counts[worst], "games": len(recent), "lesson": LESSONS[worst]}


def report(games) -> dict:
    """What `cuarenta-tutor stats --json` prints."""
    return {"games": [{"game_id": g.game_id, "created": g.created, "accuracy": None if g.accuracy is None else
                       round(g.accuracy, 1), "won": g.won, "opponent": g.opponent, "mistakes": g.mistakes}
                      for g in games],
            "mistakes_by_kind": mistakes_by_kind(games), "results_by_opponent": results_by_opponent(games),
            "level": level(games), "level_needs_games": level_needs(games), "weak_spot": weak_spot(games)}


def report_text(games) -> str:
    """The same as plain text."""
    rated = sum(g.accuracy is not None for g in games)
    lines = [ngettext("{n} game with you in it, {rated} with an accuracy (a review on the analysis gives the truest "
                      "one)", "{n} games with you in them, {rated} with an accuracy (a review on the analysis gives "
                      "the truest one)", len(games)).format(n=len(games), rated=rated)]
    results = {None: _("unfinished"), True: _("won"), False: _("lost")}
    wide = max(10, *(len(r) for r in results.values()))
    for g in games[-RECENT:]:
        acc = "-" if g.accuracy is None else percent(g.accuracy)
        lines.append("  " + _("{when}  {result} accuracy {accuracy}  vs {opponent}").format(
            when=records.when_text(g.created), result=f"{results[g.won]:<{wide}}", accuracy=f"{acc:>4}",
            opponent=opponent_text(g.opponent)))
    lv = level(games)
    bots = ", ".join(f"{bot_name(name)} {percent(acc)}" for name, acc in BOTS)
    if lv:
        mine = ngettext("{level}: accuracy {accuracy} over your last {n} game ({bots})",
                        "{level}: accuracy {accuracy} over your last {n} games ({bots})", lv["games"]).format(
            level=lv["text"], accuracy=percent(lv["accuracy"]), n=lv["games"], bots=bots)
    elif not rated:
        mine = _("review a game to see it")
    else:
        mine = ngettext("play {n} more game without hints to see it", "play {n} more games without hints to see it",
                        level_needs(games)).format(n=level_needs(games))
    lines.append(_("Your level: {level}").format(level=mine))
    lines.append(_("Mistakes by kind: {kinds}").format(
        kinds=", ".join(f"{label(k)} {n}" for k, n in mistakes_by_kind(games).items())))
    for who, row in results_by_opponent(games).items():
        lines.append(_("Against {who}: {won} won, {lost} lost of {played}").format(
            who=opponent_text(who), won=row["won"], lost=row["lost"], played=row["played"]))
    spot = weak_spot(games)
    if spot:
        times = ngettext("{count} time", "{count} times", spot["count"]).format(count=spot["count"])
        lines.append(ngettext("Weak spot: {kind} {times} in your last {n} game; lesson {lesson}",
                              "Weak spot: {kind} {times} in your last {n} games; lesson {lesson}",
                              spot["games"]).format(kind=label(spot["kind"]), times=times, n=spot["games"],
                                                    lesson=spot["lesson"]))
    return "\n".join(lines)
