"""Provides the gate a new generation must pass: a duplicate-deal arena against the model it would replace,
accepted only when the 95% interval of its win rate (by seed pair) lies above 0.5. The result, and the
command that reproduces it, go in the model card's `gates` list, accepted or not; a rejected generation is
never copied over the model it failed to beat.
"""

from __future__ import annotations

import shutil
from pathlib import Path

GATE_SEED = 31_000
"""Seed of the gate's deals: other seeds than the evaluations during training and the reported arenas."""


def gate(candidate, previous, games: int, seed: int = GATE_SEED, jobs: int = 1, progress=None,
         kinds=(("standard", 2),)) -> dict:
    """Play `candidate` (an ONNX file) against `previous` over `games` duplicate games, split evenly over `kinds`
    ((preset, players) pairs: the kinds of game it was trained on); the gate's record: {"candidate", "previous",
    "games", "seed", "win_rate", "ci95", "accepted", "command"}, and "by_kind" when there are several."""
    from .evaluate import match_over

    a, b = f"onnx:{Path(candidate)}", f"onnx:{Path(previous)}"
    s, by_kind = match_over(a, b, games, list(kinds), seed, jobs=jobs, progress=progress)
    each = s.games // len(by_kind)
    commands = [f"cuarenta-tutor arena {a} {b} --games {each} --seed {seed} --jobs {jobs}"
                + (f" --rules {rules}" if rules != "standard" else "")
                + (f" --players {players}" if players != 2 else "") for rules, players in kinds]
    result = {"candidate": str(candidate), "previous": str(previous), "games": s.games, "seed": seed,
              "win_rate": s.win_rate, "ci95": [s.ci_low, s.ci_high], "accepted": s.ci_low > 0.5,
              "command": " && ".join(commands)}
    if len(by_kind) > 1:
        result["by_kind"] = {k: {"win_rate": v.win_rate, "ci95": [v.ci_low, v.ci_high]} for k, v in by_kind.items()}
    return result


def record(card_path, result: dict) -> None:
    """Add a gate's result to a model card (JSON beside the model), keeping the gates before it."""
    from ..records import read_card, write_card

    path = Path(card_path)
    card = read_card(path) or {}
    card.setdefault("gates", []).append(result)
    write_card(path, card)


def promote(candidate, destination) -> bool:
    """Copy an accepted candidate (the ONNX file and its card) over `destination`; False (nothing copied) when
    the candidate's card says its last gate rejected it."""
    from ..agents.memory_graph import memory_path
    from ..records import read_card, write_card

    candidate, destination = Path(candidate), Path(destination)
    card = read_card(candidate.with_suffix(".json")) or {}
    gates = card.get("gates", [])
    if not gates or not isinstance(gates[-1], dict) or gates[-1].get("accepted") is not True:
        return False
    shutil.copyfile(candidate, destination)
    if memory_path(candidate).is_file():  # it names the candidate's sha256, which the copy has
        shutil.copyfile(memory_path(candidate), memory_path(destination))
    write_card(destination.with_suffix(".json"), card)
    return True
