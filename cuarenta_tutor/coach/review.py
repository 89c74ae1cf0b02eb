"""Provides the review of a saved game on the possible-worlds analysis: every decision of the reviewed seats
analysed again, annotations with intervals and provenance, what changed since the last review, and the
annotated game as text.

The functions that read a game's positions take it as a records.ReplayedGame (a review replays its record once
and passes that on) or as a GameRecord, which they replay."""

from __future__ import annotations

from dataclasses import replace

from ..analysis import analyse_game
from ..analysis.analyse import Settings, standard
from ..analysis.calibrate import settings_for
from ..analysis.classes import ERRORS, Class
from ..engine import Rules
from ..i18n import _, ngettext, number, pgettext
from ..i18n import percent as _percent
from ..narrator import Narrator, move_name, stable_move_name, why_better
from ..records import GameRecord, ReplayedGame, result_text
from .advice import measured_error
from .annotate import Annotation, accuracy_by_group, from_analysis, game_accuracy

REVIEW = standard()
"""A review's settings: the one analysis of a position (analysis.STANDARD), the hints' and the tutor's, so a move
annotated in play from its analysis is not analysed again, and nothing but the deeper pass changes its verdict."""


def review_settings(record: GameRecord, model=None, worlds: int | None = None) -> Settings:
    """The one analysis of a position (analysis.STANDARD) with the model's measured errors; with `worlds`, the deeper
    pass: exactly that many worlds, no time cap (the one thing that changes a verdict)."""
    base = None if worlds is None else replace(standard(), worlds=worlds, min_worlds=worlds, budget_s=0.0)
    return settings_for(model, base, Rules().with_options(**record.rules))


def reviewed_seats(record: GameRecord, seat: int | None = None) -> list[int]:
    """The seats a review annotates: `seat`, else the person's, else every seat."""
    if seat is not None:
        if not 0 <= seat < len(record.seats):
            raise ValueError(_("seat {seat} is not at this table (seats 0..{last})").format(
                seat=seat, last=len(record.seats) - 1))
        return [seat]
    return [record.human_seat] if record.human_seat is not None else list(range(len(record.seats)))


def decisions(game: GameRecord | ReplayedGame, seats) -> list[int]:
    """The plies where one of `seats` had a choice (more than one legal move)."""
    return ReplayedGame.of(game).decisions(seats)


def read(annotation: dict | None) -> Annotation | None:
    """A stored annotation, or None when there is none or it cannot be read (edited, NaN): a review then
    makes it again instead of failing."""
    try:
        return Annotation.from_dict(annotation) if annotation else None
    except ValueError:
        return None


DEPTH = ("worlds", "round_worlds", "min_worlds")
"""The settings a deeper pass changes."""


def is_current(annotation: dict | None, model_id: str, settings: Settings) -> bool:
    """Whether a stored annotation is readable and came from the analysis with this model and these settings (their
    identity: the time cap aside), in all its worlds (not cut by the cap), or from a deeper pass of it (more worlds,
    the rest the same: the deeper verdict stays)."""
    note = read(annotation)
    if note is None or note.method != "analysis" or note.model_id != model_id or note.provenance.cut:
        return False
    stored, wanted = dict(note.provenance.settings or {}), settings.identity()
    stored.pop("budget_s", None)
    if stored == wanted:
        return True
    same = all(stored.get(k) == v for k, v in wanted.items() if k not in DEPTH) and set(stored) == set(wanted)
    return same and isinstance(stored.get("worlds"), int) and stored["worlds"] > wanted["worlds"]


def review(game: GameRecord | ReplayedGame, model=None, settings: Settings | None = None, seats=None,
           preset: str = "standard", progress=None, plies=None, drills: list | None = None,
           jobs: int = 1, waiting=None) -> list[Annotation]:
    """Annotate every decision of `seats` (default: reviewed_seats), or only those in `plies`, from the
    analysis in `jobs` processes (the same annotations with any number); `progress(done, total)` after each;
    the person's mistakes and blunders are appended to `drills` as drills (coach/drills.py); `waiting` as
    analyse_game has it. RecordError names a move that does not fit."""
    game = ReplayedGame.of(game)
    record = game.record
    settings = settings or review_settings(record, model)
    seats = reviewed_seats(record) if seats is None else list(seats)
    if plies is None:
        plies = game.decisions(seats)
    found = analyse_game(game, settings, plies=plies, model=model, progress=progress, jobs=jobs, waiting=waiting)
    if drills is not None:
        from .drills import make

        drills += make(game, found, preset)
    return [from_analysis(analysis, record.moves[ply].action, ply, preset) for ply, analysis in found]


def store(game: GameRecord | ReplayedGame, annotations, seats) -> list[str]:
    """Put a review's annotations into the record, keeping those of other decisions (the reviewed seats'
    moves without a choice lose any old one); returns what changed: a line per move that was or now is an
    inaccuracy, a mistake or a blunder and changed class ("was a mistake, now good")."""
    game = ReplayedGame.of(game)
    record = game.record
    new = {a.ply: a for a in annotations}
    chosen = set(game.decisions(seats))
    names = {s.seat: seat_name(s.name) for s in record.seats}
    lines = []
    for ply, move in enumerate(record.moves):
        if move.seat not in seats or (ply in chosen and ply not in new):
            continue
        before = read(move.annotation)
        note = new.get(ply)
        if before and note:
            no_verdict = before.method == "network" and before.klass == Class.UNCLEAR  # the network's: no class
            if before.klass != note.klass and (before.klass.is_error or note.klass.is_error) and not no_verdict:
                lines.append(_("move {n} ({name}, {move}): was {before}{why}, now {now}").format(
                    n=ply + 1, name=names.get(move.seat, move.seat), move=move_name(game.states[ply], note.action),
                    before=before.klass.with_article, why=_why(before, note), now=note.klass.label))
        record.annotate(ply, note)
    return lines


def narrator_for(record: GameRecord) -> Narrator:
    """The narrator of a saved game: its rules, its seats' names, the person's seat."""
    return Narrator(Rules().with_options(**record.rules), [s.name for s in record.seats], record.human_seat)


def _why(before: Annotation, note: Annotation) -> str:
    """Why a verdict changed, for store's line: the network's numbers before any analysis, an analysis the time cap
    cut short, or the deeper pass."""
    if before.method != note.method:
        return " " + (_("(network)") if before.method == "network" else _("(analysis)"))
    if before.provenance.cut:
        return " " + ngettext("(in only {n} world: the time cap cut it)", "(in only {n} worlds: the time cap cut it)",
                              before.worlds).format(n=number(before.worlds))
    worlds = note.provenance.worlds
    if worlds > before.provenance.worlds:
        return " " + ngettext("(deeper review: {n} world)", "(deeper review: {n} worlds)", worlds).format(
            n=number(worlds))
    return ""


SEATS = ("You", "The agent", "Agent", "East", "Partner", "West")
"""The seat names the app gives its games (app/session.py) and records keep, in English: shown in the language in
use (`seat_name`); any other name (a person's, a bot's) as it is."""


def seat_name(name: str) -> str:
    """A seat's name from a record as a person reads it: the app's own names in the language in use ("East" /
    "Rival derecho"), any other as it is."""
    if name not in SEATS:
        return name
    return {"You": pgettext("seat", "You"), "The agent": pgettext("seat", "The agent"),
            "Agent": pgettext("seat", "Agent"), "East": pgettext("seat", "East"),
            "Partner": pgettext("seat", "Partner"), "West": pgettext("seat", "West")}[name]



def reasons(state, note: Annotation) -> list[str]:
    """Why the best move beats the played one, in the narrator's words (the tutor's "show the better move":
    why_better), from the position before the move and the annotation's risks; [] for the best move or an
    annotation without risks (the network's)."""
    if note.action == note.best_action or note.risks is None:
        return []
    return why_better(state, note.action, note.best_action, note.risks.by_action(note.action, note.best_action))


def note_measured(note: Annotation) -> bool:
    """Whether an annotation's interval holds a measured model error (the network's has none to show)."""
    return note.method != "analysis" or measured_error(note.provenance.settings or {}, note.provenance.leaf)


def ending(game: GameRecord | ReplayedGame) -> str:
    """How a finished game ended, in a sentence: who won, the score, what ended it (Narrator.ending); "" for an
    unfinished one."""
    game = ReplayedGame.of(game)
    return narrator_for(game.record).ending(game.events[-1], game.end)


def moves_json(game: GameRecord | ReplayedGame, seats=None) -> list[dict]:
    """One object per annotated decision of `seats` (default: every seat), in the order played, for `review
    --json`: its ply (the move's number, 1 the first move: the numbering of `analyse --ply` and `analyse --json`),
    seat, action (id and name), the mover's win % after it with its 95% interval (None for the network's), the loss
    against the best move, its class and the best move."""
    game = ReplayedGame.of(game)
    out = []
    for ply in game.decisions(range(len(game.record.seats)) if seats is None else seats):
        note = read(game.moves[ply].annotation)
        if note is None:
            continue
        state = game.states[ply]
        out.append({"ply": ply + 1, "seat": note.seat, "action": note.action,
                    "move": stable_move_name(state, note.action),
                    "win_pct": round(note.win_after, 2),
                    "ci95": None if note.ci95 is None else [round(x, 2) for x in note.ci95],
                    "loss": round(note.loss, 2), "class": note.klass.value, "best_action": note.best_action,
                    "best_move": stable_move_name(state, note.best_action), "method": note.method})
    return out


def format_review(game: GameRecord | ReplayedGame, annotations) -> str:
    """The annotated game as plain text: how it ended, one line per move, then accuracy per player (for --text
    and screen readers)."""
    game = ReplayedGame.of(game)
    record, states, events = game.record, game.states, game.events
    by_ply = {a.ply: a for a in annotations}
    names = {s.seat: seat_name(s.name) for s in record.seats}
    if record.human_seat is not None:  # the person's seat marked: "Ana (you)"; the app's "You" as "You (you)" / "Tú"
        you = next(s.name for s in record.seats if s.seat == record.human_seat)
        names[record.human_seat] = (pgettext("seat", "You (you)") if you == "You"
                                    else _("{name} (you)").format(name=seat_name(you)))
    narrator = narrator_for(record)
    width = max(len(n) for n in names.values())
    lines = [ngettext("Game {id}: {rules} rules, {n} player, {result}",
                      "Game {id}: {rules} rules, {n} players, {result}", len(record.seats)).format(
                 id=record.game_id, rules=record.rules_preset or _("custom"), n=len(record.seats),
                 result=result_text(record)),
             _("Seats: {seats}").format(seats=", ".join(f"{s.seat} {seat_name(s.name)} ({s.player})"
                                                        for s in record.seats))]
    if game.is_over:
        lines.append(_("How it ended: {ending}").format(ending=narrator.ending(events[-1], game.end)))
    if record.takebacks:
        lines.append(ngettext("Moves were taken back {n} time in this game",
                              "Moves were taken back {n} times in this game", len(record.takebacks)).format(
            n=len(record.takebacks)))
    lines += provenance_lines(by_ply.values())
    hand = -1
    hand_of = {}
    for i, move in enumerate(record.moves):
        state = states[i]
        if state.hand_no != hand:
            hand = state.hand_no
            lines.append(_("Hand {n} (score {ours}-{theirs})").format(n=hand + 1, ours=state.scores[0],
                                                                      theirs=state.scores[1]))
        hand_of[i] = hand + 1
        text = f"{i + 1:4d}. {names[move.seat]:<{width}}  {move_name(state, move.action)}"
        a = by_ply.get(i)
        if a is not None:
            text += "  " + _("win {win}{margin}  {klass}").format(win=_percent(a.win_after), margin=margin_text(a),
                                                                  klass=a.klass.label)
            if a.action != a.best_action:
                why = reasons(state, a)
                best = _("best: {move}, {win}, loss {loss}{interval}").format(
                    move=move_name(state, a.best_action), win=_percent(a.win_best), loss=number(a.loss, 1),
                    interval=loss_text(a))
                if why:
                    best = _("{best}; it {reasons}").format(best=best, reasons=_("; it ").join(why))
                text += f" ({best})"
        notes = narrator.notes(events[i + 1])
        lines.append(text + (f" [{'; '.join(notes)}]" if notes else ""))
    lines.append(_("Accuracy (share of each decision's range kept: 100 the best move, 0 the worst)"))
    for seat in sorted({a.seat for a in by_ply.values()}):
        mine = [by_ply[p] for p in sorted(by_ply) if by_ply[p].seat == seat]
        per_hand = accuracy_by_group(mine, [hand_of.get(a.ply, 0) for a in mine])
        hands = ", ".join(_("hand {n} {accuracy}").format(n=h, accuracy=percent(acc)) for h, acc in per_hand.items())
        counts = ", ".join(k.counted(sum(a.klass == k for a in mine)) for k in (*ERRORS, Class.UNCLEAR))
        lines.append("  " + ngettext("{name}: {accuracy} over {n} move ({counts}); {hands}",
                                     "{name}: {accuracy} over {n} moves ({counts}); {hands}", len(mine)).format(
            name=names[seat], accuracy=percent(game_accuracy(mine), 1), n=len(mine), counts=counts, hands=hands))
    if not by_ply:
        lines.append("  " + _("no move was annotated"))
    return "\n".join(lines)


def percent(value: float | None, digits: int = 0) -> str:
    """A figure in percent as the language writes it ("62%" / "62 %"), "-" for none."""
    return "-" if value is None else _percent(value, digits)


def margin_text(a: Annotation) -> str:
    """" ±3" for an analysed move's interval, "" for the network's, " (uncalibrated)" where the analysis had no
    measured error (note_measured)."""
    if a.ci95 is None:
        return ""
    return f" ±{number((a.ci95[1] - a.ci95[0]) / 2)}" if note_measured(a) else " " + _("(uncalibrated)")


def loss_text(a: Annotation) -> str:
    """", 95% 1.2-4.0": the interval of a move's loss (the analysis's)."""
    if a.loss_ci95 is None:
        return ""
    return f", {_percent(95)} {number(max(0.0, a.loss_ci95[0]), 1)}-{number(a.loss_ci95[1], 1)}"


def provenance_lines(annotations) -> list[str]:
    """Where the annotations come from: model, method, worlds, version."""
    seen = {}
    for a in annotations:
        p = a.provenance
        if a.method != "analysis":
            text = _("one forward pass of the network")
        else:
            leaf = {"table": pgettext("leaf", "table"), "critic": pgettext("leaf", "critic"),
                    "result": pgettext("leaf", "result")}.get(p.leaf, p.leaf or "?")
            text = ngettext("analysis in up to {n} sampled world per move, ends valued by the {leaf}",
                            "analysis in up to {n} sampled worlds per move, ends valued by the {leaf}",
                            p.worlds).format(n=number(p.worlds), leaf=leaf)
        key = _("Annotations by model {model}: {how} (version {version})").format(
            model=a.model_id[:12] or "?", how=text, version=p.version or "?")
        seen[key] = seen.get(key, 0) + 1
    return [ngettext("{line}: {n} move", "{line}: {n} moves", n).format(line=k, n=n) if len(seen) > 1 else k
            for k, n in seen.items()] + ([_("Win % is for the mover's team, ± its 95% interval")] if seen else [])
