"""Provides the analysis of a saved game: its positions, replayed once (records.ReplayedGame), each analysed
from the mover's view with that seat's memory of the game so far (the agent watching every step, as at the
table)."""

from __future__ import annotations

from contextlib import closing

from ..agents.onnx_policy import OnnxPolicy
from ..core.observations import compiled_agent
from ..records import GameRecord, ReplayedGame
from .analyse import INTERACTIVE, Analysis, Settings
from .parallel import analyse_positions


def analyse_game(game: GameRecord | ReplayedGame, settings: Settings = INTERACTIVE, seats=None, plies=None,
                 model=None, progress=None, jobs: int = 1, waiting=None) -> list[tuple[int, Analysis]]:
    """(ply, analysis) for the moves of `seats` (default: the person's seat, or every seat when none is a
    person), or only for the moves in `plies`; positions with a single legal move are skipped unless asked
    for by ply. `progress(done, total)` after each analysed position; `jobs` processes analyse them (the same
    results with any number, parallel.py; `waiting` is called while they work, and may raise to stop them). A
    record is replayed first (RecordError names a move that does not fit); a ReplayedGame is used as it is."""
    game = ReplayedGame.of(game)
    record = game.record
    if seats is None:
        seats = [record.human_seat] if record.human_seat is not None else range(len(record.seats))
    if plies is None:
        wanted = game.decisions(seats)
    else:
        wanted = sorted(set(plies))
    watchers = {s: compiled_agent(OnnxPolicy(model)) for s in {record.moves[i].seat for i in wanted}}
    for seat, agent in watchers.items():  # each sees every step of its seat's view, as a watcher at the table
        agent.reset(seat)
        agent.observe(game.states[0], game.events[0])
    found, positions = [], []  # plies, and (state, the mover's memory there): all a position's analysis needs
    asked = set(wanted)
    for i, move in enumerate(record.moves[:max(asked, default=-1) + 1]):  # up to the last position asked for
        if i in asked:
            agent = watchers[move.seat]
            agent.observe(game.states[i])
            found.append(i)
            positions.append((game.states[i], agent.memory))
        for agent in watchers.values():
            agent.observe(game.states[i + 1], game.events[i + 1])
    out = []
    with closing(analyse_positions(positions, settings, model, jobs, waiting)) as results:  # a stop ends the workers
        for ply, analysis in zip(found, results, strict=True):
            out.append((ply, analysis))
            if progress:
                progress(len(out), len(found))
    return out
