"""Provides `cuarenta-tutor export`: a training checkpoint as an ONNX model, or a model's value recalibrated (the
train extra)."""

from __future__ import annotations

from ..i18n import N_, _
from .options import MAX_GAMES, SEED, file_to_write, whole

NAME = "export"
HELP = N_("export a checkpoint to ONNX, or recalibrate a model's value (needs the train extra)")


def add_arguments(parser) -> None:
    from ..encoding import SIZES

    parser.add_argument("checkpoint", help=_("a training checkpoint (best.pt or checkpoint.pt), or an exported .onnx "
                                             "model with --calibrate: only its value's scaling is fitted again"))
    parser.add_argument("--out", type=file_to_write,
                        help=_("the ONNX file to write (default: RUN-CHECKPOINT.onnx in your models folder, where the "
                               "app finds it; the shipped model is replaced only when named here)"))
    parser.add_argument("--calibrate", type=whole(0, MAX_GAMES, even=True), metavar="GAMES", default=0,
                        help=_("Platt-scale the value on GAMES games (even) against the expert (seed "
                               "--calibrate-seed)"))
    parser.add_argument("--calibrate-seed", type=SEED, default=777,
                        help=_("seed of the calibration games (default 777)"))
    parser.add_argument("--encoding", type=int, choices=tuple(SIZES), metavar="N",
                        help=_("with an .onnx model: the same weights reading observation encoding version N (of the "
                               "same size) instead of their own"))


def run(args) -> int:
    from ..training.command import run_export, train_extra_missing

    return 2 if train_extra_missing(NAME) else run_export(args)
