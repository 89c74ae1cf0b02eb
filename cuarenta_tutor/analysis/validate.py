"""Provides the validation of the analysis: interactive settings against a deep reference on fixed positions.

Positions come from seeded games of the agent against the expert (the agent's seat, every decision with a
choice, thinned to about one in sixteen, so that 40 positions come from a dozen games). The reference analyses
each with many more worlds, played to the end of the game; the interactive settings are judged by how far their
win % is from it, whether their intervals hold it, and whether the moves it says lose 10 or more points are
flagged.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from contextlib import closing
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from ..agents import make_policy, parse_agent
from ..agents.onnx_policy import OnnxPolicy
from ..core.observations import compiled_agent
from ..engine import Dealer, Rules, knows_every_card, legal_actions
from ..i18n import _
from ..records import FileError, read_json
from ..records.reader import loads
from ..table import Table
from .analyse import MoveEval, Settings, analyse
from .classes import classify, move_accuracy
from .parallel import analyse_positions
from .values import policy_for
from .workers import agent_for

REFERENCE = Settings(worlds=4096, round_worlds=256, min_worlds=1 << 30, budget_s=0, horizon="game", seed=7919,
                     playout="network")
"""The deep reference: 4096 worlds per position, every playout the network's to the end of the game. (With 1024, its own
noise was about as large as the interactive analysis's error: two 2048-world runs of the same positions put
moves it said lose 11-14 points at 8-10.)"""


SPREAD = 1 / 16
"""The share of the agent's decisions with a choice that become positions: about three a game. (At one in three,
the 40 positions of `bench analysis` came from three games and the 60 of the fit from four: a game's score and deals
shape every error in it, so the fit and the bench measured different errors, 1.29 and 0.87 points, and the fit's
intervals held 98.7% on the bench instead of 95%.)"""


AGENT = "agent"
"""The name of the agent's own seat where a seat player is asked for (`--seat-player`, `--seat-players`)."""


def seat_player(name: str) -> str | None:
    """A seat player's name as sample_positions takes it: None for AGENT, else the bot's name, checked (ValueError
    names the choices)."""
    if name == AGENT:
        return None
    parse_agent(name)
    return name


def sample_positions(count: int, seed: int, model=None, rules: Rules | None = None,
                     seat_player: str | None = None) -> list[tuple]:
    """(state, seat memory) for `count` decisions of the agent against the expert (seats alternating by
    game), about one in sixteen of those with more than one legal move (SPREAD). In 2 v 2 (`rules`) the agent's
    partner and opponents are experts. With `seat_player` (a bot's name: "expert", "greedy", "onnx@eps=0.5"), the
    positions are a learner's instead, as the app analyses them: that bot plays the seat against the agent at every
    other seat, and the seat's memory is the network's watching it."""
    agent = compiled_agent(OnnxPolicy(model))
    rules = rules or Rules()
    watcher = compiled_agent(OnnxPolicy(model)) if seat_player else agent
    agents = [agent] + [compiled_agent(OnnxPolicy(model)) for _ in range(rules.players - 2)] if seat_player else []
    rng = random.Random(seed)
    found, game = [], 0
    while len(found) < count:
        seat = game % rules.players
        if seat_player:  # the agents reset per game, so the same ones serve every game
            others = iter(agents)
            seats = [make_policy(seat_player, seed + game) if s == seat else next(others) for s in range(rules.players)]
        else:
            seats = against(agent, "expert", seat, rules.players, seed + game)
        table = Table(rules, seats, Dealer(seed * 7919 + game), watchers=[(seat, watcher)] if seat_player else ())
        table.start()
        while not table.over and len(found) < count:
            if table.state.turn == seat and len(legal_actions(table.state)) > 1 and rng.random() < SPREAD:
                found.append((table.state, watcher.memory))
            table.step()
        game += 1
    return found


def against(player, other: str, seat: int, players: int, seed: int) -> list:
    """Seats with `player` at `seat` and the policy `other` at every other seat, the k-th of them seeded `seed`
    + 1000 k (in 1 v 1: `seed`, as the positions were always drawn)."""
    others = iter(range(players))
    return [player if s == seat else make_policy(other, seed + 1000 * next(others)) for s in range(players)]


def references(found: list, reference: Settings, model=None, jobs: int = 1, progress=None, keep=None) -> list[dict]:
    """Per position, {action: MoveEval} by `reference`, in `jobs` processes. With `keep` (a file), each position's
    reference is appended there as it is done and read back from there by a later run: a stopped run goes on."""
    model_id = agent_for(model).model_id
    keys = [_key(state, memory, reference, model_id) for state, memory in found]
    known = _read_kept(keep) if keep else {}
    if keep:
        Path(keep).parent.mkdir(parents=True, exist_ok=True)
        _end_line(Path(keep))
    out: list = [known.get(k) for k in keys]
    todo = [i for i, r in enumerate(out) if r is None]
    done = len(found) - len(todo)
    if progress and done:
        progress(done, len(found))
    with closing(analyse_positions([found[i] for i in todo], reference, model, jobs)) as results:
        for i, deep in zip(todo, results, strict=True):
            out[i] = result = {m.action: m for m in deep.moves}
            if keep:
                with open(keep, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"key": keys[i], "moves": [asdict(m) for m in result.values()]}) + "\n")
            done += 1
            if progress:
                progress(done, len(found))
    return out


def reference_file() -> Path:
    """Where the references of `bench analysis` and of the sidecar's fit are kept between runs: in the user data
    folder, one file for every model and setting (each row keyed by them)."""
    from ..records.store import data_dir

    return data_dir() / "cache" / "references.jsonl"


def _key(state, memory, reference: Settings, model_id: str) -> str:
    """What identifies one position's reference: the position, the seat's memory, the settings and the model."""
    digest = hashlib.sha256(repr(state).encode())
    if memory is not None:
        digest.update(np.asarray(memory, dtype=np.float32).tobytes())
    digest.update(json.dumps(reference.to_json(), sort_keys=True).encode() + model_id.encode())
    if knows_every_card(state):  # kept apart from the references of one world that reached past the hand (2026-11-25)
        digest.update(b"worlds past the hand")
    return digest.hexdigest()


def _end_line(path: Path) -> None:
    """End the last line of `path` if a stop cut it short, so that the next row starts a line of its own."""
    if path.is_file() and path.stat().st_size:
        with open(path, "rb+") as fh:
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                fh.write(b"\n")


CACHE_BYTES = 256 << 20
"""The reference cache holds a kilobyte or two a position; a larger file is not one (and is not read into memory)."""


def _read_kept(path) -> dict:
    """The references kept in `path` by key (none if it does not exist; a line cut short by a stop, or any other
    that is not a reference, is skipped). A file that is not one (records.read_json: a folder, a FIFO, not text) is
    kept aside, said on stderr, and the references are computed again."""
    try:
        return read_json(path, _("the reference cache"), _rows, max_bytes=CACHE_BYTES, decode=str, missing={},
                         then="the references are computed again")
    except FileError as err:
        print(f"cuarenta-tutor: {err}", file=sys.stderr)
        return {}


def _rows(text: str) -> dict:
    kept = {}
    for line in text.splitlines():
        try:
            row = loads(line)
            moves = [MoveEval(**{**m, "ci95": tuple(m["ci95"]), "loss_ci95": tuple(m["loss_ci95"])})
                     for m in row["moves"]]
            kept[str(row["key"])] = {m.action: m for m in moves}
        except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue
    return kept


def playout_of(settings: Settings, path, model_id: str) -> str:
    """Who plays the playouts of an analysis by `settings` with the model at `path` where its table values the hands'
    ends (Analysis.playout; the network still plays known positions, and near-win ones' first plies: played_by)."""
    return "policy" if settings.playout == "policy" and policy_for(path, model_id) is not None else "network"


def played_by(results) -> str:
    """Who played the playouts of analyses by one settings: "policy" where it played any (the network plays those
    of known positions), else "network"."""
    return "policy" if any(r.playout == "policy" for r in results) else "network"


def validate(positions: int = 40, seed: int = 1, settings: Settings | None = None,
             reference: Settings = REFERENCE, model=None, jobs: int = 1, progress=None,
             rules: Rules | None = None, seat_player: str | None = None) -> dict:
    """The figures of `bench analysis` for `settings` (default: the interactive ones) against `reference`, on
    positions of games under `rules` (default standard 1 v 1), the agent's or `seat_player`'s (sample_positions).
    The interactive analyses are timed first, alone (where the playout policy plays them, each beside the same
    analysis with the network playing: the ratio in one run); then the reference runs in `jobs` processes."""
    settings = settings or Settings()
    agent = compiled_agent(OnnxPolicy(model))
    found = sample_positions(positions, seed, model, rules, seat_player)
    quick, times, network_times = [], [], []
    beside = playout_of(settings, agent.path, agent.model_id) == "policy"
    for state, memory in found:
        start = time.perf_counter()
        quick.append(analyse(state, agent, settings, memory=memory))
        times.append(1000 * (time.perf_counter() - start))
        if beside:
            start = time.perf_counter()
            analyse(state, agent, replace(settings, playout="network"), memory=memory)
            network_times.append(1000 * (time.perf_counter() - start))
    truths = references(found, reference, model, jobs, progress, keep=reference_file())
    errors, covered, where = [], [], []
    big_losses = flagged_big = flagged = false_alarms = 0
    for k, (result, truth) in enumerate(zip(quick, truths, strict=True)):
        for move in result.moves:
            win, loss = truth[move.action].win_pct, truth[move.action].loss
            errors.append(move.win_pct - win)
            covered.append(move.ci95[0] <= win <= move.ci95[1])
            where.append(k)
            is_flagged = classify(move.loss, loss_ci95=move.loss_ci95).is_mistake_or_worse
            flagged += is_flagged
            false_alarms += is_flagged and loss < 5
            if loss >= 10:
                big_losses += 1
                flagged_big += is_flagged
    errors = np.array(errors)
    return {"positions": len(found), "moves": len(errors), "mae_win_pct": round(float(np.abs(errors).mean()), 2),
            "bias_win_pct": round(float(errors.mean()), 2), "ci_coverage": round(float(np.mean(covered)), 3),
            "ci_coverage_ci95": coverage_interval(covered, where),
            "reference_big_losses": big_losses,
            "mistake_recall": round(flagged_big / big_losses, 3) if big_losses else None,
            "flagged": flagged, "false_alarm_rate": round(false_alarms / flagged, 3) if flagged else None,
            "hint_ms_p50": round(float(np.percentile(times, 50)), 1),
            "hint_ms_p95": round(float(np.percentile(times, 95)), 1),
            **({"network_hint_ms_p50": round(float(np.percentile(network_times, 50)), 1),
                "network_hint_ms_p95": round(float(np.percentile(network_times, 95)), 1)} if network_times else {}),
            "hint_worlds_min": min((r.worlds for r in quick if not r.known), default=None),
            "leaf": quick[0].leaf if quick else None, "playout": played_by(quick) if quick else None,
            "settings": settings.to_json(), "reference": reference.to_json()}


COVERAGE_DRAWS = 2000
"""Draws of the positions behind `ci_coverage_ci95`."""


def coverage_interval(covered, position_of, draws: int = COVERAGE_DRAWS, seed: int = 0) -> list[float]:
    """A 95% interval of the share of intervals that hold (`covered`, one per move; `position_of`, each move's
    position), by drawing the positions again with replacement: a position's moves miss or hold together (they share
    its worlds and its game's score), so the share over 40 positions is less certain than its 150-odd moves suggest."""
    covered, position_of = np.asarray(covered, float), np.asarray(position_of)
    if not len(covered):
        return [0.0, 0.0]
    _ranks, index = np.unique(position_of, return_inverse=True)
    held, moves = np.bincount(index, weights=covered), np.bincount(index)
    picks = np.random.default_rng(seed).integers(0, len(moves), size=(draws, len(moves)))
    shares = held[picks].sum(axis=1) / moves[picks].sum(axis=1)
    return [round(float(np.percentile(shares, 2.5)), 3), round(float(np.percentile(shares, 97.5)), 3)]


def accuracy_of(player: str, games: int, seed: int, settings: Settings, model=None,
                rules: Rules | None = None) -> list[float]:
    """Per game, the mean move accuracy (classes.move_accuracy: how much of each decision's range the played
    move kept) of `player` (a policy name) against the agent (every other seat), over its decisions where the moves
    differ."""
    rules = rules or Rules()
    judge_seat = compiled_agent(OnnxPolicy(model))
    agents = [compiled_agent(OnnxPolicy(model)) for _ in range(rules.players)]  # loaded once; games reset them
    out = []
    for game in range(games):
        seat = game % rules.players
        seats = [make_policy(player, seed + game) if s == seat else agents[s] for s in range(rules.players)]
        table = Table(rules, seats, Dealer(seed * 104729 + game), watchers=[(seat, judge_seat)])
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


def review_seconds(seed: int, settings: Settings, model=None, jobs: int = 1, rules: Rules | None = None) -> float:
    """Seconds to analyse every decision with a choice of one seat in a whole game (the agent against the
    expert), as a review does, in `jobs` processes."""
    from .. import records
    from .game import analyse_game

    rules = rules or Rules()
    agent = compiled_agent(OnnxPolicy(model))
    table = Table(rules, against(agent, "expert", 0, rules.players, seed), Dealer(seed))
    names = [("onnx", "Agent")] + [("expert", f"Expert {s}") for s in range(1, rules.players)]
    record = records.new_record(rules, seed, 0, names, human_seat=0)
    table.start(0)
    while not table.over:
        step = table.step()
        record.add_move(step.seat, step.action, step.card, after=step.after)
    start = time.perf_counter()
    analyse_game(record, settings, model=model, jobs=jobs)
    return time.perf_counter() - start
