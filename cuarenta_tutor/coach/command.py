"""Provides the coach's commands that print: `review GAME --text`, `review GAME --json` (luck vs skill, how the
game ended and every analysed decision) and `stats [--json]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..i18n import _, ngettext
from ..progressbar import progress_bar


def review_text(args) -> int:
    """Print a saved game with the coach's annotations (--text), or as one JSON object (--json) its luck vs
    skill, how it ended and every seat's analysed decisions ("moves": coach.review.moves_json). Moves not yet
    analysed with this model and these settings are analysed first (a progress bar) and stored back in the
    file, what changed is listed, and the person's mistakes become drills."""
    from .. import records
    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import OnnxPolicy, default_model_path
    from ..analysis.parallel import default_jobs
    from ..analysis.values import sidecar_problem
    from . import drills, luck
    from .review import (
        decisions,
        ending,
        format_review,
        is_current,
        moves_json,
        read,
        review,
        review_settings,
        reviewed_seats,
        store,
    )

    if not args.game:
        games, problems = records.list_games()
        for g in games:
            print(f"{g.path}  {g.created[:16]}  {g.result}")
        for p in problems:
            print(_("skipped: {problem}").format(problem=p), file=sys.stderr)
        if not games:
            print(_("No saved games yet."))
        return 0
    say = (lambda text: print(text, file=sys.stderr)) if args.json else print
    try:
        record = records.load(args.game)
        game = records.ReplayedGame.of(record)  # the one replay of this review
        seats = reviewed_seats(record, args.seat)
        analysed = list(range(len(record.seats))) if args.json else seats  # luck vs skill judges every side
        settings = review_settings(record, args.model, args.worlds)
        model_id = OnnxPolicy(args.model).model_id
        uncalibrated = sidecar_problem(Path(args.model or default_model_path()), model_id)
        if uncalibrated:  # said before the work, as analyse says it: the numbers come from the critic
            print(f"cuarenta-tutor review: {uncalibrated}", file=sys.stderr)
        stale = [p for p in decisions(game, analysed)
                 if args.worlds or not is_current(record.moves[p].annotation, model_id, settings)]
        if stale:
            made: list = []
            with progress_bar(_("reviewing")) as advance:
                annotations = review(game, args.model, settings, analysed, progress=advance, plies=stale,
                                     drills=made, jobs=args.jobs or default_jobs())
            changes = store(game, annotations, analysed)
            records.save(record, path=args.game)
            say(ngettext("Reviewed {n} move on the analysis; saved in {path}",
                         "Reviewed {n} moves on the analysis; saved in {path}", len(annotations)).format(
                n=len(annotations), path=args.game))
            for line in changes:
                say("  " + _("changed: {line}").format(line=line))
            added, problems = drills.add_drills(made)
            for problem in problems:
                say("  " + _("drills: {problem}").format(problem=problem))
            if added:
                say("  " + ngettext("{n} new drill from your mistakes: {command}",
                                    "{n} new drills from your mistakes: {command}", added).format(
                    n=added, command="cuarenta-tutor drills"))
        if args.json:
            seat = seats[0] if args.seat is not None or record.human_seat is None else record.human_seat
            split = luck.split(game, seat % 2, args.model or default_model_path(), model_id)
            print(json.dumps({"game": record.game_id, "seat": seat, **split.to_json(),
                              "ending": ending(game) or None, "moves": moves_json(game)}))
            return 0
        annotations = [note for m in record.moves if m.seat in seats and (note := read(m.annotation))]
        print(format_review(game, annotations))
    except (records.RecordError, ModelError, OSError, ValueError) as err:
        print(f"cuarenta-tutor review: {err}", file=sys.stderr)
        return 2
    return 0


def stats(args) -> int:
    """Print your progress from the saved games (text, or one JSON object)."""
    from . import stats as progress

    try:
        games, problems = progress.load()
    except OSError as err:
        print(f"cuarenta-tutor stats: {err}", file=sys.stderr)
        return 2
    for problem in problems:
        print(_("skipped: {problem}").format(problem=problem), file=sys.stderr)
    print(json.dumps(progress.report(games)) if args.json else progress.report_text(games))
    return 0
