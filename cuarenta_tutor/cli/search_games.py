"""Provides `cuarenta-tutor search-games`: self-play games labelled by a search, for expert iteration (the train
extra)."""

from __future__ import annotations

from ..i18n import N_, _
from .options import JOBS, MAX_GAMES, SEED, folder_to_write, number, settings_file, whole, worlds

NAME = "search-games"
HELP = N_("self-play games labelled by a search, for expert iteration (needs the train extra)")
DESCRIPTION = N_("Games of a model against itself in which a share of the moves are chosen by a search; training with "
                 "\"distill_data\": \"OUT\" in its config moves the network toward the search's choices. "
                 "Resumable: shards already in OUT are kept.")


def add_arguments(parser) -> None:
    from ..training.search_games import TEACHERS

    parser.add_argument("--out", required=True, type=folder_to_write,
                        help=_("folder for the games (shard-NNNNN.npz)"))
    parser.add_argument("--games", type=whole(1, MAX_GAMES), required=True,
                        help=_("games to play (in shards of 10)"))
    parser.add_argument("--model", help=_("ONNX model that plays them (default: the shipped one)"))
    parser.add_argument("--config", type=settings_file,
                        help=_("a training config: its mix of rules and player counts (default standard 1 v 1)"))
    parser.add_argument("--seed", type=SEED, default=0, help=_("seed of the games (default 0)"))
    parser.add_argument("--teacher", choices=TEACHERS, default="search",
                        help=_("search: the search bot, expert playouts (default); analysis: the model's own "
                               "analysis; strong: the strong level, the search steered by the model's prior (expert "
                               "iteration)"))
    parser.add_argument("--worlds", type=worlds(1), default=48, help=_("worlds per labelled move (default 48)"))
    parser.add_argument("--share", type=number(0, 1), default=0.5,
                        help=_("share of the decisions labelled, 0 to 1 (default 0.5)"))
    parser.add_argument("--known-only", action="store_true",
                        help=_("label only positions where the mover knows every card (1 v 1, stock empty): the "
                               "search plays the one true world there, so the labels are exact and quick"))
    parser.add_argument("--temperature", type=number(0, 100), default=0.5,
                        help=_("softmax temperature over the moves' values: points (search, strong), win %% "
                               "(analysis)"))
    parser.add_argument("--jobs", type=JOBS, default=1, help=_("processes (default 1)"))


def run(args) -> int:
    from ..training.command import run_search_games, train_extra_missing

    return 2 if train_extra_missing(NAME) else run_search_games(args)
