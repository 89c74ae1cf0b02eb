"""Provides what the analysis measures of a model once and keeps beside it as JSON
(`<model>.analysis.json`, values.sidecar): its hand-value table (values.py) and its model error: the least
error that, added to the sampling error, makes 95% of the intervals hold the deep reference's values on the
fitting positions (the criterion `bench analysis` checks on positions of other seeds).

    python -m cuarenta_tutor.analysis.calibrate [--rules PRESET] [--players 2|4] [--all] [--hands N]
                                                [--positions N] [--seed S] [--model PATH] [--table-only]

builds the table of those rules (unless the sidecar already has one for this model and these hand counts), then
measures the error with it (apart before and from analyse.LATE_SCORE, where it is larger: `late`); the shipped
model's is models/cuarenta-a2c-lstm.analysis.json. Standard 1 v 1's table and errors are at the top of the sidecar;
every other preset's and 2 v 2's are in its "variants" (values.entries). The analysis values its playouts with the
table and adds the error to its sampling error, so its intervals hold the reference (`bench analysis` checks it on
positions from other seeds).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..agents.onnx_contract import ModelError
from ..agents.onnx_policy import OnnxPolicy, default_model_path, file_sha256
from ..core.observations import compiled_agent
from ..engine import PLAYER_COUNTS, Rules
from ..engine.rules import PRESETS, preset, preset_name
from ..i18n import _
from ..records import FileError, read_json, write_atomic
from .analyse import INTERACTIVE, LATE_SCORE, Settings, analyse, is_late, standard
from .classes import Z95, interval_sd
from .validate import (
    AGENT,
    REFERENCE,
    played_by,
    playout_of,
    reference_file,
    references,
    sample_positions,
    seat_player,
)
from .values import (
    SIDECAR_BYTES,
    HandValues,
    build,
    entry_for,
    for_model,
    forget,
    made_for,
    read_sidecar,
    sidecar,
)

FIT_SEED = 1001
"""Positions for fitting come from these games; `bench analysis` measures on others (seed 1)."""
HANDS = 1600
"""Hands simulated from each score for a new hand-value table, as every shipped table has (entry errors about 0.9
points median; 400 gave 1.8). A table there is rebuilt only when --hands names another count."""
TABLE_SEED = 5
"""The seed of those hands (the shipped table's)."""


KEPT_WITH_A_NEW_TABLE = ("one_pass", "carried_from", "variants")
"""What a sidecar keeps when its standard 1 v 1 table is built again: the one-pass fit (onepass.py; refit it after),
where it came from and the other rules' tables. Its errors go: they are measured again with the new table."""


def with_table(data: dict, model_id: str, values: HandValues) -> dict:
    """A sidecar with a new hand table for its rules: for standard 1 v 1 at the top, keeping what KEPT_WITH_A_NEW_TABLE
    names; for other rules in "variants", in place of the one for the same rules. Never that table's errors."""
    if values.rules == Rules():
        kept = {k: data[k] for k in KEPT_WITH_A_NEW_TABLE if k in data}
        return {"model_sha256": model_id, "hand_values": values.to_json(), **kept}
    variants = [v for v in data.get("variants", []) if not made_for(v, values.rules)]
    return {**data, "model_sha256": model_id, "variants": variants + [{"hand_values": values.to_json()}]}


def with_errors(data: dict, rules: Rules, errors: dict, command: str) -> dict:
    """A sidecar with the errors measured for `rules` (and the command that measured them) beside their table."""
    if rules == Rules():
        return {**data, "errors": errors, "command": command}
    variants = [dict(v, errors=errors, command=command) if made_for(v, rules) else v
                for v in data.get("variants", [])]
    return {**data, "variants": variants}


def _path(model) -> Path:
    return Path(model) if model else default_model_path()


def settings_for(model=None, base: Settings | None = None, rules: Rules | None = None) -> Settings:
    """`base` (default: analyse.STANDARD, the one analysis of a position) with the model's measured errors, when its
    sidecar was made for this very model, for the same horizon and leaf, measured for `rules` (default standard 1 v 1)
    with their table. Every consumer of a position's analysis (session, review, drills,
    `analyse`) takes its settings from here, with no `base`."""
    base = standard() if base is None else base
    path = _path(model)
    try:
        model_id = file_sha256(path)
    except OSError:
        return base
    errors = (entry_for(read_sidecar(path, model_id), rules or Rules()) or {}).get("errors")
    try:
        if errors["horizon"] != base.horizon or errors["leaf"] != base.leaf:
            return base
        if errors.get("playout", "network") != playout_of(base, path, model_id):
            return base
        if errors["leaf"] == "table" and for_model(path, model_id, rules or Rules()) is None:
            return base
        late = errors.get("late") or {}
        return replace(base, value_sd=float(errors["value_sd"]), loss_sd=float(errors["loss_sd"]),
                       late_value_sd=_number(late.get("value_sd")), late_loss_sd=_number(late.get("loss_sd")))
    except (KeyError, TypeError, ValueError):
        return base


def _number(value) -> float | None:
    return None if value is None else float(value)


def covering_sd(errors, variances, share: float = 0.95) -> float:
    """The least model error (sd) that, added in quadrature to each error's sampling variance, puts `share`
    of the errors inside their 95% interval. (A mean-square fit is not enough: the sampling variance is
    large on some moves and zero on others, where nothing is hidden, so the intervals of the latter miss.)"""
    errors, variances = np.abs(np.asarray(errors, float)), np.asarray(variances, float)

    def covered(sd: float) -> float:
        return float(np.mean(errors <= Z95 * np.sqrt(variances + sd * sd) + 1e-9))

    if covered(0.0) >= share:
        return 0.0
    low, high = 0.0, max(1.0, float(errors.max()))
    for _step in range(40):
        mid = (low + high) / 2
        low, high = (low, mid) if covered(mid) >= share else (mid, high)
    return high


APART = 40
"""Moves each side of LATE_SCORE needs for its own error; with fewer, both sides take the error of all the moves."""


def _covering_apart(errors: np.ndarray, variances: np.ndarray, late: np.ndarray) -> tuple[float, float]:
    """covering_sd of the moves before LATE_SCORE and of those from it, each its own, or both that of all the moves
    where either side has fewer than APART."""
    if min(late.sum(), (~late).sum()) < APART:
        both = round(covering_sd(errors, variances), 3)
        return both, both
    return (round(covering_sd(errors[~late], variances[~late]), 3),
            round(covering_sd(errors[late], variances[late]), 3))


FIT_REFERENCE = REFERENCE
"""The fit's reference: the bench's. (With 1024 worlds its own noise hid the model error: the intervals fitted
to it held only 67% of the 4096-world reference's values on the bench.)"""


def fit(positions: int = 60, seed: int = FIT_SEED, model=None, jobs: int = 1, progress=None,
        rules: Rules | None = None, seat_players: tuple = (None,)) -> dict:
    """Measure the error of the interactive settings (with the model's sidecar as it is) against the deep
    reference on `positions` of games under `rules` (default standard 1 v 1) for each of `seat_players` (None: the
    agent's own seat; a bot's name: a learner's, validate.sample_positions): the model error before LATE_SCORE
    (value_sd, loss_sd) and from it (late), each the least that holds 95% of its own moves (_covering_apart)."""
    agent = compiled_agent(OnnxPolicy(model))
    quick_settings = replace(INTERACTIVE, budget_s=0, min_worlds=INTERACTIVE.worlds)
    found = [p for player in seat_players for p in sample_positions(positions, seed, model, rules, player)]
    quick = [analyse(state, agent, quick_settings, memory=memory) for state, memory in found]
    truths = references(found, FIT_REFERENCE, model, jobs, progress, keep=reference_file())
    value_err, value_var, loss_err, loss_var = [], [], [], []
    value_late, loss_late = [], []
    for (state, _seat), result, truth in zip(found, quick, truths, strict=True):
        deep_best = max(truth.values(), key=lambda m: m.win_pct).action
        late = is_late(state)
        for move in result.moves:
            deep = truth[move.action]
            value_err.append(move.win_pct - deep.win_pct)
            value_var.append(interval_sd(*move.ci95) ** 2)
            value_late.append(late)
            if move.action != result.best.action and move.action != deep_best:
                loss_err.append(move.loss - deep.loss)
                loss_var.append(interval_sd(*move.loss_ci95) ** 2)
                loss_late.append(late)
    value_err, loss_err = np.array(value_err), np.array(loss_err)
    value_var, loss_var = np.array(value_var), np.array(loss_var)
    value_late, loss_late = np.array(value_late, bool), np.array(loss_late, bool)
    early_value, late_value = _covering_apart(value_err, value_var, value_late)
    early_loss, late_loss = _covering_apart(loss_err, loss_var, loss_late)
    return {"horizon": quick_settings.horizon, "leaf": quick[0].leaf if quick else None,
            "playout": played_by(quick),
            "value_sd": early_value, "loss_sd": early_loss,
            "late": {"from": LATE_SCORE, "value_sd": late_value, "loss_sd": late_loss,
                     "moves": int(value_late.sum())},
            "value_rms": round(math.sqrt(float(np.mean(value_err ** 2))), 3),
            "value_bias": round(float(value_err.mean()), 3),
            "value_mae": round(float(np.abs(value_err).mean()), 3), "positions": len(found),
            "moves": len(value_err), "seed": seed, "rules": (rules or Rules()).to_dict(),
            **({"seat_players": [p or AGENT for p in seat_players]} if seat_players != (None,) else {}),
            "interactive": quick_settings.to_json(),
            "reference": FIT_REFERENCE.to_json()}


def seat_players(text: str) -> tuple:
    """--seat-players as fit's seat_players (validate.seat_player of each name; ValueError names the choices)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError("--seat-players names no player")
    return tuple(seat_player(n) for n in names)


def write_sidecar(path: Path, data: dict) -> None:
    """Write the sidecar of the model at `path` (tables of numbers kept one line a row); one there that is not a
    sidecar (damaged, a folder) is first kept aside (records.read_json)."""
    try:
        read_json(sidecar(path), _("the analysis sidecar"), max_bytes=SIDECAR_BYTES, missing=None, then="")
    except FileError:
        pass
    text = json.dumps(data, indent=1)
    text = re.sub(r"\[\s+([^\[\]{}]*?)\s+\]", lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
                  text)  # a list of numbers on one line: the table is 80 lines, not 3,200
    write_atomic(sidecar(path), text + "\n")
    forget()


def table_checkpoint(model_id: str, rules: Rules, hands: int) -> Path:
    """Where a table's build keeps its hands so far (beside the references, in the user data folder)."""
    name = preset_name(rules)
    which = "" if rules == Rules() else f"-{name}-{rules.players}p"
    return reference_file().with_name(f"hand-table-{model_id[:16]}{which}-{hands}.json")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cuarenta_tutor.analysis.calibrate",
                                     description="Build the model's hand-value table and measure the analysis's "
                                                 "error, for one preset and player count (or every one), and keep "
                                                 "both beside the model.")
    parser.add_argument("--hands", type=int, help=f"hands per score for the table (default: the table's own count, "
                                                  f"or {HANDS} for a new one); another count builds it again")
    parser.add_argument("--positions", type=int, default=60, help="positions to measure the error on (default 60)")
    parser.add_argument("--seed", type=int, default=FIT_SEED, help=f"seed of their games (default {FIT_SEED})")
    parser.add_argument("--rules", default="standard", choices=list(PRESETS), help="the preset (default standard)")
    parser.add_argument("--players", type=int, default=2, choices=PLAYER_COUNTS,
                        help="2 (1 v 1) or 4 (2 v 2); default 2")
    parser.add_argument("--all", action="store_true",
                        help="every preset and player count in turn (a new generation's sidecar), skipping the "
                             "tables already built with these hands and the errors already measured")
    parser.add_argument("--model", help="ONNX model (default: the shipped one)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the table and the reference (default 1)")
    parser.add_argument("--table-only", action="store_true", help="build the table, and measure no error")
    parser.add_argument("--seat-players", default=AGENT, metavar="P,P",
                        help="whose seat the positions are, --positions of each: 'agent' (its own, against the "
                             "expert) or a bot playing a learner's seat against the agent, as 'expert', 'greedy' "
                             "(default agent)")
    args = parser.parse_args(argv)
    if args.positions < 2 or (args.hands is not None and args.hands < 1) or args.jobs < 1:
        print("--positions must be 2 or more, --hands and --jobs 1 or more", file=sys.stderr)
        return 2
    try:
        whose = seat_players(args.seat_players)
    except ValueError as err:
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return 2
    kinds = [(name, players) for players in PLAYER_COUNTS for name in PRESETS] if args.all else \
        [(args.rules, args.players)]
    try:
        for name, players in kinds:
            calibrate_rules(args, name, players, whose, again=not args.all)
    except (ModelError, FileError) as err:  # a model or a file beside it that cannot be used: one line
        print(f"{parser.prog}: {err}", file=sys.stderr)
        return 2
    print(f"wrote {sidecar(_path(args.model))}", file=sys.stderr)
    return 0


def calibrate_rules(args, name: str, players: int, whose: tuple = (None,), again: bool = True) -> None:
    """The table of preset `name` for `players` (unless the sidecar has one, of args.hands hands per score if given),
    then its errors unless args.table_only (unless already measured and not `again`), written to the sidecar as each
    is done (a stopped build or fit goes on from its checkpoint or kept references); the errors on the positions of
    `whose` seats (fit's seat_players)."""
    path, rules = _path(args.model), preset(name, players)
    agent = compiled_agent(OnnxPolicy(path))
    data = dict(read_sidecar(path, agent.model_id))
    entry = entry_for(data, rules) or {}
    table = entry.get("hand_values")
    hands = args.hands or (table or {}).get("hands_per_score") or HANDS
    if not table or table.get("hands_per_score") != hands or "se" not in table:
        print(f"building the hand-value table of {name}, {players} players ({hands} hands per score)…",
              file=sys.stderr)
        keep = table_checkpoint(agent.model_id, rules, hands)
        values = build(agent, rules, hands=hands, seed=TABLE_SEED, keep=keep, jobs=args.jobs)  # goes on from `keep`
        data = with_table(data, agent.model_id, values)
        write_sidecar(path, data)
        entry = entry_for(data, rules)
    HandValues.from_json(entry["hand_values"])  # a damaged table stops here, before the long fit
    measured = "errors" in entry and entry["errors"].get("playout", "network") == playout_of(standard(), path,
                                                                                            agent.model_id)
    if args.table_only or (measured and not again):  # errors of the network's playouts are not the policy's
        return
    from ..progressbar import progress_bar

    with progress_bar(f"reference positions, {name} {players} players") as advance:
        errors = fit(args.positions, args.seed, args.model, args.jobs, progress=advance, rules=rules,
                     seat_players=whose)
    command = (f"python -m cuarenta_tutor.analysis.calibrate --hands {hands} --positions {args.positions} "
               f"--seed {args.seed}" + ("" if rules == Rules() else f" --rules {name} --players {players}")
               + (f" --seat-players {','.join(errors['seat_players'])}" if "seat_players" in errors else ""))
    data = with_errors(data, rules, errors, command)
    write_sidecar(path, data)
    print(json.dumps(errors))


if __name__ == "__main__":
    sys.exit(main())
