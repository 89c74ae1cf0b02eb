"""Provides the analysis of a saved game: its positions played again at a table, each analysed from the
mover's view with that seat's memory of the game so far."""

from __future__ import annotations

from contextlib import closing

from ..agents.onnx_policy import OnnxPolicy
from ..engine import Rules, legal_actions, parse_card
from ..records import GameRecord, replay
from ..table import Table
from .analyse import INTERACTIVE, Analysis, Settings
from .parallel import analyse_positions


def analyse_game(record: GameRecord, settings: Settings = INTERACTIVE, seats=None, plies=None, model=None,
                 progress=None, jobs: int = 1) -> list[tuple[int, Analysis]]:
    """(ply, analysis) for the moves of `seats` (default: the person's seat, or every seat when none is a
    person), or only for the moves in `plies`; positions with a single legal move are skipped unless asked
    for by ply. `progress(done, total)` after each analysed position; `jobs` processes analyse them (the same
    results with any number, parallel.py)."""
    states = replay(record)  # RecordError names a move that does not fit
    if seats is None:
        seats = [record.human_seat] if record.human_seat is not None else range(len(record.seats))
    if plies is None:
        wanted = [i for i, m in enumerate(record.moves) if m.seat in seats and len(legal_actions(states[i])) > 1]
    else:
        wanted = sorted(set(plies))
    watchers = {s: OnnxPolicy(model) for s in {record.moves[i].seat for i in wanted}}
    table = Table(Rules().with_options(**record.rules), [None] * len(record.seats), record.dealer,
                  watchers=list(watchers.items()))
    table.start(record.first_dealer)
    found, positions = [], []  # plies, and (state, the mover's memory there): all a position's analysis needs
    asked = set(wanted)
    for i, move in enumerate(record.moves):
        if i in asked:
            agent = watchers[move.seat]
            agent.observe(table.state)
            found.append(i)
            positions.append((table.state, agent.memory))
        table.play(move.action, parse_card(move.card))
    out = []
    with closing(analyse_positions(positions, settings, model, jobs)) as results:  # a stop ends the workers
        for ply, analysis in zip(found, results, strict=True):
            out.append((ply, analysis))
            if progress:
                progress(len(out), len(found))
    return out
