"""Provides the benchmarks of `cuarenta-tutor bench` (cli/bench.py is the command): figures, never timed tests."""

from __future__ import annotations

import json
import random
import resource
import time
from pathlib import Path

from .i18n import _, number


def peak_rss_mb() -> float:
    """Peak resident memory of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _python_games(games: int, seed: int) -> tuple[int, float]:
    """The Python engine's random-vs-random games (game g dealt by Dealer(seed * 1_000_003 + g)): (plays, seconds)."""
    from .engine import Dealer, apply, legal_actions

    rng = random.Random(seed)
    plays = 0
    start = time.perf_counter()
    for g in range(games):
        dealer = Dealer(seed * 1_000_003 + g)
        state = dealer.start()[0]
        while not state.is_over:
            state, _ = apply(state, rng.choice(legal_actions(state)))
            if not state.hands[state.turn] and state.needs_deal:  # the cheap test first
                state, _ = dealer.deal(state)
            plays += 1
    return plays, time.perf_counter() - start


ENGINE_HANDS = 28
"""Deck orders made per game for the compiled games (random games of 2 players last 18 hands at most in 1000); a game
that needs more stops and is counted."""


def _compiled_games(games: int, seed: int) -> dict:
    """The compiled core's random-vs-random games, from the same decks as `_python_games` (made before the timing, a
    thousand games at a time); the first call is timed alone, on one game, as the process's first compiled call."""
    from .core.bench import game_decks, random_games
    from .core.layout import rules_array
    from .engine import Rules

    rules = rules_array(Rules())
    dealers, decks = game_decks([seed * 1_000_003], 2, 1)
    start = time.perf_counter()
    random_games(rules, dealers, decks, seed)
    cold = time.perf_counter() - start
    from_cache = sum(random_games.stats.cache_hits.values()) > 0
    plays = finished = stopped = 0
    seconds = 0.0
    for first in range(0, games, 1000):
        seeds = [seed * 1_000_003 + g for g in range(first, min(games, first + 1000))]
        dealers, decks = game_decks(seeds, 2, ENGINE_HANDS)
        start = time.perf_counter()
        counts = random_games(rules, dealers, decks, seed * 1_000_003 + first)
        seconds += time.perf_counter() - start
        plays, finished, stopped = plays + counts[0], finished + counts[1], stopped + counts[2]
    return {"plays": plays, "seconds": seconds, "stopped": stopped, "cold_first_call_s": round(cold, 3),
            "compiled_from_cache": from_cache}


def bench_engine(games: int, seed: int) -> dict:
    """Random-vs-random complete games to 40, 2 players, standard rules, one thread: the rules engine alone
    (plays and deals), without the table's policies. `plays_per_second` is the core's that serves (the compiled one
    unless CUARENTA_TUTOR_CORE=python), `python_plays_per_second` the Python engine's over the same games' decks in
    the same run; `cold_first_call_s` the first compiled call of the process (from numba's disk cache when
    `compiled_from_cache`, else compiling)."""
    from .core import fast

    compiled = _compiled_games(games, seed) if fast() else None
    python_plays, python_seconds = _python_games(games, seed)
    python_rate = python_plays / python_seconds
    plays, seconds = (compiled["plays"], compiled["seconds"]) if compiled else (python_plays, python_seconds)
    result = {"core": "fast" if compiled else "python",
              "games": games, "plays": plays, "seconds": round(seconds, 3),
              "plays_per_second": round(plays / seconds), "games_per_second": round(games / seconds, 1),
              "plays_per_game": round(plays / games, 1),
              "python_plays_per_second": round(python_rate), "python_seconds": round(python_seconds, 3)}
    if compiled:
        result.update(speedup=round(plays / seconds / python_rate, 1), cold_first_call_s=compiled["cold_first_call_s"],
                      compiled_from_cache=compiled["compiled_from_cache"], games_stopped=compiled["stopped"])
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    return result


def bench_core(positions: int, seed: int, on_row=None) -> dict:
    """The compiled rules against the Python engine: per preset x {2, 4} players, and the standard rules with each
    option, `positions` plies of random play compared (legal moves, next state, events; see core.bench.differential).
    Returns per combination the positions, games, mismatches (the first described) and seconds; `on_row` gets
    each combination's as it is done."""
    from .core.bench import COMBINATIONS, differential
    from .engine.rules import preset

    rows = []
    for i, (name, players, options) in enumerate(COMBINATIONS):
        start = time.perf_counter()
        found = differential(preset(name, players, **options), positions, seed=seed * 1000 + i)
        rows.append({"rules": name + "".join(f" {k}={v}" for k, v in options.items()), "players": players,
                     "positions": found.positions, "games": found.games, "mismatches": len(found.mismatches),
                     "seconds": round(time.perf_counter() - start, 1),
                     "first_mismatch": found.mismatches[0] if found.mismatches else None})
        if on_row:
            on_row(rows[-1])
    return {"positions": sum(r["positions"] for r in rows), "mismatches": sum(r["mismatches"] for r in rows),
            "seconds": round(sum(r["seconds"] for r in rows), 1), "combinations": rows}


def sample_positions(count: int, seed: int, players: int = 2) -> list:
    """Positions from expert-vs-expert games (standard rules, `players` seats), every third play, for timing
    decisions."""
    from .engine import Dealer, Rules
    from .players import make as make_policy
    from .table import Table

    positions, game = [], 0
    while len(positions) < count:
        policy = make_policy("expert", seed)
        table = Table(Rules(players=players), [policy] * players, Dealer(seed * 7919 + game))
        table.start()
        while not table.over and len(positions) < count:
            if table.state.plays % 3 == 0:
                positions.append(table.state)
            table.step()
        game += 1
    return positions


def bench_bots(names: list[str], count: int, seed: int) -> dict:
    """Median and p95 decision time of each policy over the same sampled positions."""
    from .players import make as make_policy

    positions = sample_positions(count, seed)
    out = {}
    for name in names:
        policy = make_policy(name, seed)
        times = []
        for state in positions:
            policy.reset(state.turn, seed)
            start = time.perf_counter()
            policy.decide(state)
            times.append(time.perf_counter() - start)
        times.sort()
        out[name] = {"median_ms": round(1000 * times[len(times) // 2], 4),
                     "p95_ms": round(1000 * times[min(len(times) - 1, int(0.95 * len(times)))], 4),
                     "positions": len(times)}
    return out


def bench_train(steps: int, settings: dict | None = None, backend: str = "local", address: str | None = None) -> dict:
    """Environment steps per second of the training loop (rollout + update), no evaluation.

    `settings` are Config fields (a training config file's, or the defaults with 128 games, 2 rollout
    workers and the learner on 2 threads, as the shipped run; the command's options win). `backend` "ray"
    plays the rollouts on Ray actors (at `address`, or on a local Ray instance).
    `steps_per_second` is the steady rate, after the first metrics window (10 updates): what a long run
    sees. `steps_per_second_overall` also counts starting torch and the workers. `rollout_s` and
    `update_s` split the steady time between playing and learning."""
    import tempfile

    from .training.a2c import Config, load_checkpoint, train

    cfg = Config.from_dict({"num_envs": 128, "workers": 2, "threads": 2, **(settings or {}), "total_steps": steps,
                            "eval_every": 0})
    least = 2 * cfg.log_every * cfg.num_envs * cfg.rollout_len
    if steps < least:  # refused before any training
        raise ValueError(_("--steps {steps} is too few: at least {least} steps give two metrics windows").format(
            steps=steps, least=number(least)))
    with tempfile.TemporaryDirectory() as tmp, open("/dev/null", "w") as quiet:
        start = time.perf_counter()
        ckpt = train(cfg, Path(tmp), log=quiet, backend=backend, address=address)
        seconds = time.perf_counter() - start
        done = load_checkpoint(ckpt)["progress"]["steps"]  # whole rollouts: can pass `steps`
        records = [json.loads(line) for line in (Path(tmp) / "metrics.jsonl").read_text().splitlines()]
    # Each window's time from its own rate: the records' "seconds" are rounded to 0.1 s, too coarse (even zero)
    # for the windows of a small config.
    windows = [(r["steps"] - before["steps"], r["sps"]) for before, r in zip(records, records[1:], strict=False)]
    steady = sum(n for n, _ in windows) / sum(n / sps for n, sps in windows)
    return {"steps": done, "envs": cfg.num_envs, "backend": backend, "workers": cfg.workers,
            "learner_threads": cfg.threads,
            "update_epochs": cfg.update_epochs, "num_minibatches": cfg.num_minibatches,
            "seconds": round(seconds, 2), "steps_per_second": round(steady),
            "steps_per_second_overall": round(done / seconds),
            "rollout_s": round(sum(r["rollout_s"] for r in records[1:]), 4),
            "update_s": round(sum(r["update_s"] for r in records[1:]), 4), "peak_rss_mb": round(peak_rss_mb(), 1)}


def bench_agent(model, count: int, seed: int, players: int = 2, seconds: float = 1.0) -> dict:
    """One full decision of the ONNX agent (probabilities + value + value after every legal move) in positions of
    `players`-seat games, and raw batch throughput of the network (timed `seconds` at each batch size)."""
    import numpy as np

    from . import core
    from .agents.known import plays_out
    from .agents.onnx_policy import OnnxPolicy
    from .encoding import N_ACTIONS
    from .players import compiled

    policy = compiled(OnnxPolicy(model))  # as the app's
    positions = sample_positions(count, seed, players)
    core.fast()  # the compiled core loaded (or compiled) before the timing, as the app warms it at start
    times, known = [], []
    for state in positions:
        policy.reset(state.turn)
        start = time.perf_counter()
        policy.decide(state)
        times.append(time.perf_counter() - start)
        if plays_out(state, policy.encoding):
            known.append(times[-1])
    times.sort()
    known.sort()
    out = {"model": str(policy.path), "players": players, "decisions": len(times),
           "decision_median_ms": round(1000 * times[len(times) // 2], 4),
           "decision_p95_ms": round(1000 * times[int(0.95 * (len(times) - 1))], 4),
           "decision_mean_ms": round(1000 * sum(times) / len(times), 4),
           # where the model's encoding plays every move out (agents/known.py): the last deal of 1 v 1 in the one
           # true world (version 3 on), late in 2 v 2's last deal over sampled worlds (version 4)
           "played_out": len(known),
           "played_out_median_ms": round(1000 * known[len(known) // 2], 4) if known else None,
           "played_out_p95_ms": round(1000 * known[int(0.95 * (len(known) - 1))], 4) if known else None}
    for batch in (1, 256):
        obs = np.random.default_rng(0).random((batch, policy.width), dtype=np.float32)
        mask = np.ones((batch, N_ACTIONS), dtype=bool)
        h = np.zeros((1, batch, policy.hidden), np.float32)
        reps, start = 0, time.perf_counter()
        while reps == 0 or time.perf_counter() - start < seconds:
            policy.run(obs, mask, h, h)
            reps += 1
        out[f"batch{batch}_positions_per_second"] = round(reps * batch / (time.perf_counter() - start))
    return out


def first_hint(started: float) -> dict:
    """In this process, which must be a fresh one (`bench_tui` starts one at `started`, a time.time()): the app opened
    at home (headless, 80x24, the settings of CUARENTA_TUTOR_HOME: `bench_tui`'s are new), a new game started by its
    keys at once (n, then Start), and h pressed on the person's first turn (unless their settings show the hints).
    Seconds from `started` to the home screen (`home_s`), from n to the dialog (`new_game_dialog_s`), from Start to
    the play screen (`play_screen_s`), and from h to the refined hints (`first_hint_s`): the worst case of a cold
    start, a person who does not stop to read while the app loads what a game needs (CuarentaApp.warm)."""
    import asyncio

    async def run() -> dict:
        from .tui import make_app
        from .tui.home import HomeScreen, NewGame

        app = make_app()
        out = {}
        async with app.run_test(size=(80, 24)) as pilot:
            async def until(done) -> None:  # the caller's timeout stops a hang
                while not done():
                    await pilot.pause(0.005)

            await until(lambda: isinstance(app.screen, HomeScreen))
            out["home_s"] = time.time() - started
            start = time.perf_counter()
            await pilot.press("n")
            await until(lambda: isinstance(app.screen, NewGame))
            await pilot.pause()
            out["new_game_dialog_s"] = time.perf_counter() - start
            from .tui.play import PlayScreen
            from .tui.widgets import HintsPanel

            start = time.perf_counter()
            await pilot.click("#start")
            await until(lambda: isinstance(app.screen, PlayScreen))
            out["play_screen_s"] = time.perf_counter() - start
            play = app.screen
            await until(lambda: play.session.human_turn and play.agent_asked is None)
            start = time.perf_counter()
            if not play.show_hints:  # the settings may keep them on: then they come with the turn
                await pilot.press("h")
            hints = play.query_one(HintsPanel)
            await until(lambda: hints.display and bool(hints.hints) and hints.hints[0].refined)
            out["first_hint_s"] = time.perf_counter() - start
        return {key: round(value, 3) for key, value in out.items()}

    return asyncio.run(run())


def bench_tui(moves: int, seed: int, paints: int = 3) -> dict:
    """Time to first paint of the real command in a real terminal (tmux; the median of `paints` starts); a cold start
    in a fresh process to the first hint (`first_hint`); and the agent's move plus the hints for the person's next
    move, through the game session the app uses."""
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    from .app.session import GameSession

    out = {}
    with tempfile.TemporaryDirectory() as home:
        os.environ["CUARENTA_TUTOR_HOME"] = home
        if shutil.which("tmux"):
            script = shutil.which("cuarenta-tutor")
            cmd = script or f"{sys.executable} -m cuarenta_tutor.cli"
            painted = []
            for i in range(paints):
                socket = f"cuarenta-bench-{os.getpid()}-{i}"
                start = time.perf_counter()
                started = subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-s", "b", "-x", "80", "-y",
                                          "24", f"env CUARENTA_TUTOR_HOME={home} {cmd}"], capture_output=True)
                if started.returncode:
                    continue
                while time.perf_counter() - start < 20:
                    shown = subprocess.run(["tmux", "-L", socket, "capture-pane", "-t", "b", "-p"],
                                           capture_output=True, text=True).stdout
                    if "New game" in shown:
                        painted.append(time.perf_counter() - start)
                        break
                    time.sleep(0.01)
                subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True)
            out["first_paint_s"] = round(sorted(painted)[len(painted) // 2], 3) if painted else None
        else:
            out["first_paint_s"] = None  # tmux is needed to watch a real terminal
        code = f"import json; from cuarenta_tutor.bench import first_hint; print(json.dumps(first_hint({time.time()})))"
        try:
            cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
            out.update(json.loads(cold.stdout.strip().splitlines()[-1]) if cold.returncode == 0 else
                       {"first_hint_s": None, "first_hint_problem": (cold.stderr.strip() or "?").splitlines()[-1]})
        except subprocess.TimeoutExpired:
            out.update(first_hint_s=None, first_hint_problem="timeout 300 s")
        session = GameSession.new(seed=seed, dealer=1)
        times = []
        while not session.over and len(times) < moves:
            if session.human_turn:
                session.play_human(session.hints()[0].action)
                continue
            start = time.perf_counter()
            session.play_agent()
            if session.human_turn:
                session.hints()
            times.append(time.perf_counter() - start)
        times.sort()
        out.update(agent_move_and_hints_median_ms=round(1000 * times[len(times) // 2], 3),
                   agent_move_and_hints_p95_ms=round(1000 * times[int(0.95 * (len(times) - 1))], 3),
                   measured_moves=len(times))
    return out


def bench_analysis(positions: int, seed: int, accuracy_games: int, model=None, reference_worlds: int = 4096,
                   jobs: int = 1, rules=None, seat_player: str | None = None) -> dict:
    """The analysis at its interactive settings (with the model's measured errors) against the deep reference
    on `positions` positions (analysis/validate.py), a whole game's review time, and the accuracy it gives the
    random, greedy and expert bots in a player's seat over `accuracy_games` games each against the agent; all in games
    under `rules` (default standard 1 v 1); the positions the agent's own seat's, or `seat_player`'s (a bot playing a
    learner's seat against the agent: validate.sample_positions)."""
    from dataclasses import replace

    from .analysis.calibrate import settings_for
    from .analysis.validate import AGENT, REFERENCE, accuracy_of, review_seconds, validate
    from .arena.stats import win_rate_interval
    from .coach import REVIEW
    from .engine import Rules
    from .engine.rules import preset_name
    from .progressbar import progress_bar

    rules = rules or Rules()
    settings = settings_for(model, rules=rules)
    reference = replace(REFERENCE, worlds=reference_worlds, round_worlds=min(REFERENCE.round_worlds, reference_worlds))
    with progress_bar("reference") as advance:
        out = {"rules": preset_name(rules), "players": rules.players, "seat_player": seat_player or AGENT,
               **validate(positions, seed, settings, reference, model=model, jobs=jobs, progress=advance, rules=rules,
                          seat_player=seat_player)}
    review = settings_for(model, REVIEW, rules)
    out["review_s_per_game"] = round(review_seconds(seed, review, model, rules=rules), 1)
    if jobs > 1:
        out[f"review_s_per_game_{jobs}_processes"] = round(review_seconds(seed, review, model, jobs, rules), 1)
    for player in ("random", "greedy", "expert") if accuracy_games else ():
        per_game = accuracy_of(player, accuracy_games, seed, settings, model, rules)
        mean, low, high = win_rate_interval([a / 100 for a in per_game])
        out[f"accuracy_{player}"] = round(100 * mean, 1)
        out[f"accuracy_{player}_ci95"] = [round(100 * low, 1), round(100 * high, 1)]
    return out


def report(result: dict, as_json: bool) -> None:
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    if as_json:
        print(json.dumps(result))

