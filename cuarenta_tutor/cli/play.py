"""Provides `cuarenta-tutor play`: a game against the agent, in the app."""

from __future__ import annotations

from ..i18n import N_, _
from .app import games_folder_writable, model_loads, one_thread, open_app, preflight, refuse
from .options import SEED

NAME = "play"
HELP = N_("play a game against the agent")


def add_arguments(parser) -> None:
    from ..engine import PLAYER_COUNTS, PRESETS
    from ..records.settings import LEVELS

    parser.add_argument("--seed", type=SEED, help=_("deal the cards of this seed (default: a new random game)"))
    parser.add_argument("--rules", default="standard", help=_("rules preset ({presets})").format(
        presets=", ".join(PRESETS)))
    parser.add_argument("--dealer", type=int, choices=range(max(PLAYER_COUNTS)),
                        help=_("0: you deal first, 1: the agent (East in 2 v 2), 2: your partner, 3: West (default: "
                               "drawn at random, the same for the same --seed)"))
    parser.add_argument("--model", help=_("ONNX model (default: the shipped one)"))
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                        help=_("2: you against the agent (default); 4: you and an agent partner against two agents"))
    parser.add_argument("--level", choices=LEVELS,
                        help=_("how strong the agent plays: beginner (half its moves random), club (the network), "
                               "strong (with its search), adaptive (follows your results; default: your last "
                               "choice)"))


def options_problem(args) -> str | None:
    """The flags that make no game, in their words (records.NewGame checks the value again)."""
    from ..engine import PRESETS

    if args.rules not in PRESETS:
        return _("unknown rules preset {name}; choose one of: {presets}").format(name=repr(args.rules),
                                                                                  presets=", ".join(PRESETS))
    if args.dealer is not None and args.dealer >= args.players:
        return _("--dealer {dealer} is not a seat of a {players}-player game (0..{last})").format(
            dealer=args.dealer, players=args.players, last=args.players - 1)
    if args.players == 4 and args.level == "adaptive":
        return _("the adaptive level follows your own results: it is for 1 v 1 games (choose another --level)")
    return None


def run(args) -> int:
    one_thread()
    problem = preflight(lambda: options_problem(args), model_loads(args.model), games_folder_writable)
    if problem:
        return refuse(NAME, problem)
    from ..records import NewGame

    return open_app(NAME, lambda: dict(model_path=args.model, new_game=NewGame(
        rules=args.rules, players=args.players, level=args.level, dealer=args.dealer, seed=args.seed)))
