"""Provides the `train` and `export` commands: torch is imported only once the train extra is known to be there."""

from __future__ import annotations

import sys

from ..i18n import N_, _

TRAIN_EXTRA = N_('pip install -e ".[train]" (PyTorch and onnx; on a machine without an NVIDIA GPU add '
               '--extra-index-url https://download.pytorch.org/whl/cpu for the small CPU build)')


def recalibrate_command(args) -> int:
    """`export MODEL.onnx --calibrate GAMES`: an exported model's value scaling fitted again; `--encoding N`: the
    same weights reading another encoding version of the same size (recalibrate.py)."""
    import json
    from pathlib import Path

    from .. import records
    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import load_session
    from .recalibrate import recalibrate, reencode

    model = Path(args.checkpoint)
    try:  # a damaged model or card is said before any work
        load_session(model)
        records.read_card(model.with_suffix(".json"))
    except (ModelError, records.FileError) as err:
        print(f"cuarenta-tutor export: {err}", file=sys.stderr)
        return 2
    if args.encoding is not None:
        out = Path(args.out) if args.out else records.models_dir() / f"{model.stem}-encoding{args.encoding}.onnx"
        try:
            change = reencode(model, out, args.encoding)
        except (ModelError, OSError, ValueError) as err:
            print(f"cuarenta-tutor export: {err}", file=sys.stderr)
            return 1
        print(f"wrote {out} (the same weights, reading encoding version {change['to']} instead of {change['from']}); "
              f"play it with --model {out}")
        say_sidecar(out)
        if not args.calibrate:
            return 0
        model = out
    if not args.calibrate:
        print("cuarenta-tutor export: " + _("an .onnx model is already exported; add --calibrate GAMES to fit its "
                                            "value's scaling again, or --encoding N to read another encoding of its "
                                            "size, or give a training checkpoint (best.pt) to export"),
              file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else records.models_dir() / f"{model.stem}-recalibrated.onnx"
    try:
        fit = recalibrate(model, out, args.calibrate, args.calibrate_seed)
    except (ModelError, OSError, ValueError) as err:
        print(f"cuarenta-tutor export: {err}", file=sys.stderr)
        return 1
    print(f"value calibration: {json.dumps(fit)}")
    print(f"wrote {out} (the same policy, its value rescaled); play it with --model {out}")
    say_sidecar(out)
    return 0


def say_sidecar(model) -> None:
    """Say when a model written has no analysis sidecar it can use (the original had none to carry), and so what."""
    from ..agents.onnx_policy import file_sha256
    from ..analysis.values import sidecar_problem

    problem = sidecar_problem(model, file_sha256(model))
    if problem:
        print(problem)


def train_extra_missing(command: str) -> bool:
    """Whether the train extra (torch, onnx) is missing, saying how to install it; imports neither."""
    import importlib.util

    if importlib.util.find_spec("torch") is None or importlib.util.find_spec("onnx") is None:
        print(_("cuarenta-tutor {command} needs the train extra, which is not installed: {how}").format(
            command=command, how=_(TRAIN_EXTRA)), file=sys.stderr)
        return True
    return False


def run_export(args) -> int:
    """`export CHECKPOINT`: the checkpoint as an ONNX model with its card (an .onnx model: recalibrate_command)."""
    import json
    from pathlib import Path

    from .. import records
    from ..agents.onnx_contract import ModelError
    from ..analysis.values import uncalibrated_words
    from .card import build_card
    from .config import CheckpointError, load_checkpoint
    from .export import ExportError, calibrate, export

    if Path(args.checkpoint).suffix == ".onnx":
        return recalibrate_command(args)
    if args.encoding is not None:
        print("cuarenta-tutor export: " + _("--encoding applies to an exported .onnx model; a checkpoint is exported "
                                            "in the encoding its training config names"), file=sys.stderr)
        return 2
    if args.out is None:  # never the shipped model unless asked: the person's models folder
        ckpt = Path(args.checkpoint)
        args.out = str(records.models_dir() / f"{ckpt.resolve().parent.name}-{ckpt.stem}.onnx")

    try:
        load_checkpoint(args.checkpoint)
    except CheckpointError as err:
        print(f"cuarenta-tutor export: {err}", file=sys.stderr)
        return 2
    try:
        if args.calibrate:
            fit = calibrate(args.checkpoint, args.out, args.calibrate, args.calibrate_seed)
            print(f"value calibration: {json.dumps(fit)}")
            out = Path(args.out)
        else:
            out = export(args.checkpoint, args.out)
    except (ExportError, ModelError, KeyError, RuntimeError) as err:
        print(f"cuarenta-tutor export: {err}", file=sys.stderr)
        return 1
    card = records.write_card(Path(out).with_suffix(".json"), build_card(
        args.checkpoint, out, [], note="written by cuarenta-tutor export; no arena runs yet "
                                       "(python -m cuarenta_tutor.training.card adds them)"))
    print(f"exported {out} (parity with PyTorch checked), its card {card}; play it with --model {out} or "
          f"choose it with m on the home screen")
    print(f"it has no analysis sidecar yet: {uncalibrated_words(out)}")
    return 0


def run_train(args) -> int:
    """`train`: a run from its config and flags, resumable; gated and promoted when asked (run_gate)."""
    from pathlib import Path

    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import load_session
    from .a2c import Config, train
    from .config import CheckpointError, load_checkpoint, read_config

    data = {}
    if args.config:
        try:
            data = read_config(args.config)
        except ValueError as err:  # records.FileError: the file, what is wrong, what to do
            print(f"cuarenta-tutor train: {err}", file=sys.stderr)
            return 2
    if args.steps is not None:
        data["total_steps"] = args.steps
    if args.seed is not None:
        data["seed"] = args.seed
    if args.workers is not None:
        data["workers"] = args.workers
    try:
        cfg = Config.from_dict(data)
        if args.resume:
            load_checkpoint(Path(args.out) / "checkpoint.pt")  # resuming what is not there starts nothing
    except CheckpointError as err:
        print("cuarenta-tutor train: " + _("--resume: {error}; drop --resume to start a new run").format(error=err),
              file=sys.stderr)
        return 2
    except (TypeError, ValueError) as err:
        print(f"cuarenta-tutor train: {err}", file=sys.stderr)
        return 2
    if (args.gate_against or args.promote) and not args.gate:
        print("cuarenta-tutor train: " + _("--gate-against and --promote need --gate GAMES"), file=sys.stderr)
        return 2
    try:
        if args.gate:  # the model the run must beat loads, before the hours of training
            load_session(gate_opponent(args))
        if args.init_from:
            from .warm import sizes_from_onnx

            sizes = sizes_from_onnx(args.init_from)
            if any(getattr(cfg, k) != v for k, v in sizes.items()):
                raise ValueError(_("--init-from {model} has the sizes {sizes}; set them in the config").format(
                    model=args.init_from, sizes=sizes))
    except (ValueError, ModelError) as err:
        print(f"cuarenta-tutor train: {err}", file=sys.stderr)
        return 2
    try:
        ckpt = train(cfg, Path(args.out), resume=args.resume, backend=args.backend, address=args.address,
                     init=args.init_from)
    except KeyboardInterrupt:
        print("\ncuarenta-tutor train: " + _("stopped; continue with --resume --out {out}").format(out=args.out),
              file=sys.stderr)
        return 130
    except RuntimeError as err:  # a rollout worker died, or no Ray cluster there: say so, without a traceback
        print(f"\ncuarenta-tutor train: {err}", file=sys.stderr)
        return 1
    print(f"checkpoint: {ckpt}")
    return run_gate(args) if args.gate else 0


def gate_opponent(args):
    """The model a gated run must beat: --gate-against, else --init-from, else the shipped one."""
    from ..agents.onnx_policy import default_model_path

    return args.gate_against or args.init_from or default_model_path()


def train_command(args) -> str:
    """The `train` command line that made this run (for its card), without --resume."""
    words = ["cuarenta-tutor train"]
    for flag, value in (("--config", args.config), ("--steps", args.steps), ("--out", args.out),
                        ("--seed", args.seed), ("--workers", args.workers), ("--init-from", args.init_from),
                        ("--gate", args.gate), ("--gate-against", args.gate_against), ("--promote", args.promote)):
        if value is not None:
            words.append(f"{flag} {value}")
    return " ".join(words)


def run_gate(args) -> int:
    """Export the run's best checkpoint and gate it (training/gate.py); promote it only if it passed."""
    from pathlib import Path

    from ..progressbar import progress_bar
    from ..records import write_card
    from .card import build_card
    from .export import export
    from .gate import gate, promote, record

    best = Path(args.out) / "best.pt"
    if not best.exists():  # no evaluation ran (eval_every 0): the last checkpoint
        best = Path(args.out) / "checkpoint.pt"
    candidate = export(best, Path(args.out) / "best.onnx")
    card = write_card(candidate.with_suffix(".json"), build_card(
        best, candidate, [], note="a generation gated by cuarenta-tutor train --gate", command=train_command(args),
        export_command=f"cuarenta-tutor export {best} --out {candidate}"))
    previous = gate_opponent(args)
    from .config import Config, load_checkpoint
    from .evaluate import kinds_of

    kinds = kinds_of(Config(**load_checkpoint(best)["config"]))
    with progress_bar("gate") as advance:
        result = gate(candidate, previous, args.gate, progress=advance, kinds=kinds)
    record(card, result)
    verdict = "accepted" if result["accepted"] else "rejected"
    print(f"gate: {verdict}, {result['win_rate']:.3f} [{result['ci95'][0]:.3f}, {result['ci95'][1]:.3f}] against "
          f"{previous} over {result['games']} games ({result['command']})")
    if args.promote:
        if promote(candidate, args.promote):
            print(f"promoted: {candidate} replaces {args.promote}")
        else:
            print(f"not promoted: {args.promote} stays as it was")
    return 0 if result["accepted"] else 3


def run_search_games(args) -> int:
    """Play and save the search's games (search_games.py), with a progress bar; resumable."""
    from pathlib import Path

    from ..agents.onnx_contract import ModelError
    from ..agents.onnx_policy import default_model_path, load_session
    from ..progressbar import progress_bar
    from .config import Config, read_config, variants
    from .search_games import SearchSettings, collect

    model = Path(args.model) if args.model else default_model_path()
    try:
        settings = SearchSettings(args.teacher, args.worlds, args.share, args.temperature, args.known_only)
        cfg = Config.from_dict(read_config(args.config)) if args.config else Config()
        load_session(model)
    except (OSError, ValueError, ModelError) as err:
        print(f"cuarenta-tutor search-games: {err}", file=sys.stderr)
        return 2
    try:
        with progress_bar("search games") as advance:
            paths = collect(model, args.out, args.games, args.seed, variants(cfg), settings, args.jobs,
                            progress=advance)
    except KeyboardInterrupt:
        print("\ncuarenta-tutor search-games: " + _("stopped; the same command continues into {out}").format(
            out=args.out), file=sys.stderr)
        return 130
    print(f"{len(paths)} shards in {args.out}; train on them with \"distill_data\": \"{args.out}\" and "
          f"\"distill_coef\" above 0 in the config")
    return 0
