"""Provides `cuarenta-tutor review`: saved games with the coach's notes, in the app or as text or JSON."""

from __future__ import annotations

from ..i18n import N_, _, pgettext
from .app import model_loads, one_thread, open_app, preflight, refuse
from .options import JOBS, seat, worlds

NAME = "review"
HELP = N_("review saved games")


def add_arguments(parser) -> None:
    parser.add_argument("game", nargs="?", metavar=pgettext("metavar", "game"),
                        help=_("a saved game file (default: the list of saved games)"))
    parser.add_argument("--text", action="store_true",
                        help=_("print the annotated game as plain text (analysing the moves not yet analysed)"))
    parser.add_argument("--seat", type=seat(),
                        help=_("the seat whose moves to review (default: the person's, or all)"))
    parser.add_argument("--worlds", type=worlds(),
                        help=_("the deeper pass: every move again in this many worlds, with no time cap (default: "
                               "the one analysis of the hints and the tutor, 256 worlds, only for the moves not yet "
                               "analysed with this model and these settings)"))
    parser.add_argument("--model", help=_("ONNX model (default: the shipped one)"))
    parser.add_argument("--jobs", type=JOBS, help=_("processes that analyse the moves (default: one per core, up to "
                                                   "8; the same annotations with any number)"))
    parser.add_argument("--json", action="store_true",
                        help=_("print luck vs skill as one JSON object: per hand and for the game, the change in "
                               "the seat's team's win %% split into luck and skill (analyses every seat's moves "
                               "not yet analysed)"))


def game_seats(args):
    """A check: the game file reads, replays (a move that does not fit is said before the app opens) and has the
    seat asked for."""
    def check() -> None:
        if args.game:
            from .. import records
            from ..coach import reviewed_seats

            record = records.load(args.game)
            records.replay(record)
            reviewed_seats(record, args.seat)
    return check


def options(args) -> dict:
    found = {"game": args.game, "seat": args.seat, "model_path": args.model}
    if args.game and args.worlds is not None:  # the game's review in up to that many worlds a move
        from .. import records
        from ..coach import review_settings

        found["review"] = review_settings(records.load(args.game), args.model, args.worlds)
    return found


def run(args) -> int:
    one_thread()
    from ..coach.command import review_text

    if args.text or args.json:
        return review_text(args)
    problem = preflight(model_loads(args.model), game_seats(args))
    if problem:
        return refuse(NAME, problem)
    return open_app(NAME, lambda: options(args))
