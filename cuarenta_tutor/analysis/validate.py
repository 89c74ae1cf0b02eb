"""Provides the validation of the analysis: interactive settings against a deep reference on fixed positions.

Positions come from seeded games of the agent against the expert (the agent's seat, every decision with a
choice, thinned). The reference analyses each with many more worlds, played to the end of the game; the
interactive settings are judged by how far their win % is from it, whether their intervals hold it, and
whether the moves it says lose 10 or more points are flagged.
"""

from __future__ import annotations

import random
import time

import numpy as np

from ..agents import make_policy
from ..agents.onnx_policy import OnnxPolicy
from ..engine import Dealer, Rules, legal_actions
from ..play.table import Table
from .analyse import Settings, analyse
from .classes import MISTAKE_OR_WORSE, judge, move_accuracy

REFERENCE = Settings(worlds=1024, round_worlds=128, min_worlds=1 << 30, budget_s=0, horizon="game", seed=7919)
"""The deep reference: 1024 worlds per position, every playout to the end of the game."""


def sample_positions(count: int, seed: int, model=None) -> list[tuple]:
    """(state, seat memory) for `count` decisions of the agent against the expert (seats alternating by
    game), about one in three of those with more than one legal move."""
    agent = OnnxPolicy(model)
    rng = random.Random(seed)
    found, game = [], 0
    while len(found) < count:
        seat = game % 2
        seats = [None, None]
        seats[seat], seats[1 - seat] = agent, make_policy("expert", seed + game)
        table = Table(Rules(), seats, Dealer(seed * 7919 + game))
        table.start()
        while not table.over and len(found) < count:
            if table.state.turn == seat and len(legal_actions(table.state)) > 1 and rng.random() < 1 / 3:
                found.append((table.state, agent.memory))
            table.step()
        game += 1
    return found


def validate(positions: int = 40, seed: int = 1, settings: Settings | None = None,
             reference: Settings = REFERENCE, model=None, progress=None) -> dict:
    """The figures of `bench analysis` for `settings` (default: the interactive ones) against `reference`."""
    settings = settings or Settings()
    agent = OnnxPolicy(model)
    errors, covered, times = [], [], []
    big_losses = flagged_big = flagged = false_alarms = 0
    found = sample_positions(positions, seed, model)
    for i, (state, memory) in enumerate(found):
        start = time.perf_counter()
        quick = analyse(state, agent, settings, memory=memory)
        times.append(1000 * (time.perf_counter() - start))
        deep = analyse(state, agent, reference, memory=memory)
        for move in quick.moves:
            truth = deep.move(move.action)
            errors.append(move.win_pct - truth.win_pct)
            covered.append(move.ci95[0] <= truth.win_pct <= move.ci95[1])
            is_flagged = judge(move) in MISTAKE_OR_WORSE
            flagged += is_flagged
            false_alarms += is_flagged and truth.loss < 5
            if truth.loss >= 10:
                big_losses += 1
                flagged_big += is_flagged
        if progress:
            progress(i + 1, len(found))
    errors = np.array(errors)
    return {"positions": len(found), "moves": len(errors), "mae_win_pct": round(float(np.abs(errors).mean()), 2),
            "bias_win_pct": round(float(errors.mean()), 2), "ci_coverage": round(float(np.mean(covered)), 3),
            "reference_big_losses": big_losses,
            "mistake_recall": round(flagged_big / big_losses, 3) if big_losses else None,
            "flagged": flagged, "false_alarm_rate": round(false_alarms / flagged, 3) if flagged else None,
            "hint_ms_p50": round(float(np.percentile(times, 50)), 1),
            "hint_ms_p95": round(float(np.percentile(times, 95)), 1),
            "settings": settings.to_json(), "reference": reference.to_json()}


def accuracy_of(player: str, games: int, seed: int, settings: Settings, model=None) -> list[float]:
    """Per game, the mean move accuracy (classes.move_accuracy: how much of each decision's range the played
    move kept) of `player` (a policy name) against the agent, over its decisions where the moves differ."""
    agent, judge_seat = OnnxPolicy(model), OnnxPolicy(model)
    out = []
    for game in range(games):
        seat = game % 2
        seats = [None, None]
        seats[seat], seats[1 - seat] = make_policy(player, seed + game), agent
        table = Table(Rules(), seats, Dealer(seed * 104729 + game), watchers=[(seat, judge_seat)])
        table.start()
        accuracies = []
        while not table.over:
            if table.state.turn == seat and len(legal_actions(table.state)) > 1:
                result = analyse(table.state, judge_seat, settings)
                decision, seconds = table.decide()
                accuracy = move_accuracy(result, decision.action)
                if accuracy is not None:
                    accuracies.append(accuracy)
                table.play(decision.action, decision=decision, seconds=seconds)
            else:
                table.step()
        out.append(float(np.mean(accuracies)) if accuracies else 100.0)
    return out


def review_seconds(seed: int, settings: Settings, model=None) -> float:
    """Seconds to analyse every decision with a choice of one seat in a whole game (the agent against the
    expert), as a review does."""
    from .. import records
    from .game import analyse_game

    agent = OnnxPolicy(model)
    table = Table(Rules(), [agent, make_policy("expert", seed)], Dealer(seed))
    record = records.new_record(Rules(), seed, 0, [("onnx", "Agent"), ("expert", "Expert")], human_seat=0)
    table.start(0)
    while not table.over:
        step = table.step()
        record.add_move(step.seat, step.action, step.card, after=step.after)
    start = time.perf_counter()
    analyse_game(record, settings, model=model)
    return time.perf_counter() - start
