"""Provides `cuarenta-tutor train`: training the agent (the train extra; torch is imported only once it is there)."""

from __future__ import annotations

from ..i18n import N_, _
from .options import JOBS, MAX_GAMES, SEED, add_backend_options, file_to_write, folder_to_write, settings_file, whole

NAME = "train"
HELP = N_("train the agent (needs the train extra)")


def add_arguments(parser) -> None:
    from ..training import MAX_STEPS

    parser.add_argument("--config", type=settings_file,
                        help=_("JSON file of training settings, as those in artifacts/configs/ (a setting it leaves "
                               "out keeps its default)"))
    parser.add_argument("--steps", type=whole(1, MAX_STEPS), help=_("environment steps to train for"))
    parser.add_argument("--out", default="runs/agent", type=folder_to_write,
                        help=_("folder for checkpoints and metrics (default runs/agent)"))
    parser.add_argument("--seed", type=SEED, help=_("seed of the run (default: the config's)"))
    parser.add_argument("--workers", type=JOBS, help=_("rollout processes, one per core (default 2; 1: none)"))
    parser.add_argument("--resume", action="store_true", help=_("continue from OUT/checkpoint.pt"))
    add_backend_options(parser, _("where the rollout workers run (the same results either way): local processes "
                                  "(default), or Ray tasks and actors (distributed extra)"))
    parser.add_argument("--init-from", metavar="MODEL",
                        help=_("start a new run from the weights of this exported ONNX model (the shipped one: "
                               "models/cuarenta-a2c-lstm.onnx); the config's network sizes must be the model's"))
    parser.add_argument("--gate", type=whole(2, MAX_GAMES, even=True), metavar="GAMES",
                        help=_("after training, export OUT/best.pt and play it against --gate-against over GAMES "
                               "duplicate games; accepted only if the 95%% interval of its win rate is above 0.5; "
                               "the result goes in its card"))
    parser.add_argument("--gate-against", metavar="MODEL",
                        help=_("the model the new generation must beat (default: --init-from, else the shipped "
                               "one)"))
    parser.add_argument("--promote", metavar="MODEL", type=file_to_write,
                        help=_("with --gate: copy an accepted generation (and its card) over this ONNX file; a "
                               "rejected one never replaces it"))


def run(args) -> int:
    from ..training.command import run_train, train_extra_missing

    return 2 if train_extra_missing(NAME) else run_train(args)
