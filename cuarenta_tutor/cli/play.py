"""Provides `cuarenta-tutor play`: a game against the agent, in the app."""

from __future__ import annotations

from .app import games_folder_writable, model_loads, one_thread, open_app, preflight, refuse
from .options import SEED

NAME = "play"
HELP = "play a game against the agent"


def add_arguments(parser) -> None:
    from ..engine import PLAYER_COUNTS, PRESETS
    from ..records.settings import LEVELS

    parser.add_argument("--seed", type=SEED, help="deal the cards of this seed (default: a new random game)")
    parser.add_argument("--rules", default="standard", help=f"rules preset ({', '.join(PRESETS)})")
    parser.add_argument("--dealer", type=int, choices=range(max(PLAYER_COUNTS)),
                        help="0: you deal first, 1: the agent (East in 2 v 2), 2: your partner, 3: West")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS, default=2,
                        help="2: you against the agent (default); 4: you and an agent partner against two agents")
    parser.add_argument("--level", choices=LEVELS,
                        help="how strong the agent plays: beginner (half its moves random), club (the network), "
                             "strong (with its search), adaptive (follows your results; default: your last choice)")


def options_problem(args) -> str | None:
    """The flags that make no game, in their words (records.NewGame checks the value again)."""
    from ..engine import PRESETS

    if args.rules not in PRESETS:
        return f"unknown rules preset {args.rules!r}; choose one of: {', '.join(PRESETS)}"
    if args.dealer is not None and args.dealer >= args.players:
        return f"--dealer {args.dealer} is not a seat of a {args.players}-player game (0..{args.players - 1})"
    if args.players == 4 and args.level == "adaptive":
        return "the adaptive level follows your own results: it is for 1 v 1 games (choose another --level)"
    return None


def run(args) -> int:
    one_thread()
    problem = preflight(lambda: options_problem(args), model_loads(args.model), games_folder_writable)
    if problem:
        return refuse(NAME, problem)
    from ..records import NewGame

    return open_app(NAME, lambda: dict(model_path=args.model, new_game=NewGame(
        rules=args.rules, players=args.players, level=args.level, dealer=args.dealer, seed=args.seed)))
