"""Provides self-play rollouts: games side by side, every seat's LSTM stepped on every play, written
into the buffers an update reads.

A `Rollout` owns a contiguous share of the games (stream P*g + seat is seat `seat` of game g, P = 2, or 4
when the config's mix has 2 v 2 games; a 1 v 1 game then leaves its last two streams idle) with its
own copy of the network, a past snapshot, the bots and its random generators. `Rollouts` runs one
in the learner's process (`workers` 1) or one per worker process, each filling its columns of
buffers in shared memory while the learner waits; the learner then updates and publishes the new
weights. With the Ray backend each worker is a Ray actor holding a `Share` (a Rollout with buffers
of its own), which returns its columns for the learner to write into its buffers. Results depend
on the seed and the number of workers, never on timing or the backend.
"""

from __future__ import annotations

import pickle
import random
import traceback

import numpy as np
import torch

from .. import core
from ..agents import make_policy
from ..core.observations import encode_games
from ..encoding import N_ACTIONS, SIZES
from ..engine import Dealer, preset
from ..table import Table
from .config import seats_per_game, variants
from .model import build_net

LEARNER, PAST, BOT = 0, 1, 2


def buffer_shapes(cfg, envs: int | None = None) -> dict:
    """Name -> (shape, dtype) of every buffer a rollout fills, over the S = P * envs streams (default num_envs)."""
    T, S, H = cfg.rollout_len, seats_per_game(cfg) * (envs or cfg.num_envs), cfg.hidden
    f32 = torch.float32
    return {"obs": ((T, S, SIZES[cfg.encoding]), f32), "masks": ((T, S, N_ACTIONS), torch.bool),
            "actions": ((T, S), torch.long), "expert_actions": ((T, S), torch.long),
            "acting": ((T, S), f32), "learner": ((T, S), f32), "rewards": ((T, S), f32),
            "ended": ((T, S), f32), "starts": ((T, S), f32), "values": ((T, S), f32),
            "old_logp": ((T, S), f32), "h0": ((1, S, H), f32), "c0": ((1, S, H), f32),
            "next_value": ((S,), f32)}


def columns(buffers: dict, first: int, count: int, per: int = 2) -> dict:
    """The columns of games [first, first + count), `per` streams each, in every buffer (views, not copies)."""
    cols = slice(per * first, per * (first + count))
    return {name: (t[cols] if name == "next_value" else t[:, cols]) for name, t in buffers.items()}


class Games:
    """Some games at their tables, each with who controls each seat: the networks' seats are driven from
    outside (the batched step), a bot's seat decides at the table. A finished game is replaced by a new one,
    of a kind drawn from the config's mix. The learner plays one team; the opponent kind the other."""

    def __init__(self, cfg, count: int, rng: random.Random):
        self.rng = rng
        mix = variants(cfg)
        self.rules = [preset(name, players=players) for name, players, _ in mix]
        self.rule_weights = [w for _, _, w in mix]
        self.kinds = list(cfg.pool)
        self.weights = [cfg.pool[k] for k in self.kinds]
        self.tables, self.control = [None] * count, [None] * count
        for g in range(count):
            self.reset(g)

    @property
    def states(self) -> list:
        return [t.state for t in self.tables]

    def reset(self, g: int) -> None:
        rules = self.rules[0] if len(self.rules) == 1 else self.rng.choices(self.rules, self.rule_weights)[0]
        kind = self.rng.choices(self.kinds, self.weights)[0]
        other_team = 1 - self.rng.randrange(2)
        control = [LEARNER] * rules.players
        seats = [None] * rules.players
        for s in range(other_team, rules.players, 2):
            if kind == "past":
                control[s] = PAST
            elif kind != "self":
                control[s] = BOT
                seats[s] = make_policy(kind, seed=self.rng.randrange(1 << 30))
        table = None
        while table is None or table.over:  # a deal can end the game (four of a kind): skip it
            table = Table(rules, seats, Dealer(self.rng.randrange(1 << 62)))
            table.start()
        self.tables[g], self.control[g] = table, control


class Rollout:
    """Plays `cfg.rollout_len` plays in games [first, first + count) and fills their columns of `buffers`."""

    def __init__(self, cfg, buffers: dict, first: int, count: int, worker: int, start_update: int):
        self.cfg = cfg
        seed = f"{cfg.seed}:{worker}:{start_update}"  # a resumed run draws new games, never the first ones again
        self.games = Games(cfg, count, random.Random(seed))
        self.gen = torch.Generator().manual_seed(random.Random(seed + ":torch").randrange(1 << 62))
        self.net, self.past = build_net(cfg), build_net(cfg)
        self.expert = make_policy("expert")
        self.per = seats_per_game(cfg)
        self.buf = columns(buffers, first, count, self.per)
        self.np = {name: t.numpy() for name, t in self.buf.items()}
        n, H = self.per * count, cfg.hidden
        self.h, self.c, self.ph, self.pc = (torch.zeros(1, n, H) for _ in range(4))
        self.next_start = torch.ones(n)
        self.wins = self.games_done = 0

    def load(self, weights: torch.Tensor, snapshot: bool) -> None:
        """Take the learner's weights (a flat vector); `snapshot` also makes them the past opponent."""
        torch.nn.utils.vector_to_parameters(weights, self.net.parameters())
        if snapshot:  # a copy: the parameters become views of the vector, which the learner overwrites in shared
            torch.nn.utils.vector_to_parameters(weights.clone(), self.past.parameters())  # memory every update

    def get_state(self) -> bytes:
        """Everything the next rollouts depend on but the learner's weights: the games at their tables (bots and
        dealers with their generators), the memories, the sampling generator and the past opponent's weights.
        Kept in the run's checkpoint, so a resumed run plays on exactly as an uninterrupted one."""
        return pickle.dumps({"games": self.games, "gen": self.gen.get_state(), "next_start": self.next_start,
                             "expert": self.expert,
                             "memory": (self.h, self.c, self.ph, self.pc),
                             "past": torch.nn.utils.parameters_to_vector(self.past.parameters()).detach()})

    def set_state(self, data: bytes) -> None:
        """Continue from `get_state`'s bytes (from this run's own checkpoint)."""
        state = pickle.loads(data)  # noqa: S301 - the run's own checkpoint, written by get_state
        self.games, self.next_start, self.expert = state["games"], state["next_start"], state["expert"]
        self.gen.set_state(state["gen"])
        self.h, self.c, self.ph, self.pc = state["memory"]
        torch.nn.utils.vector_to_parameters(state["past"], self.past.parameters())

    def run(self, bc_weight: float) -> tuple[int, int]:
        """One rollout; returns (wins, games) of the learner against other opponents in games that ended."""
        games, b = self.games, self.buf
        self.wins = self.games_done = 0
        b["h0"].copy_(self.h), b["c0"].copy_(self.c)
        b["expert_actions"].fill_(-1)
        for name in ("acting", "rewards", "ended"):
            b[name].zero_()
        for t in range(self.cfg.rollout_len):
            b["starts"][t] = self.next_start
            self._observe(t)
            with torch.no_grad():
                probs, value, self.h, self.c = self.net.step(b["obs"][t], b["masks"][t], self.h, self.c)
                sampled_t = torch.multinomial(probs, 1, generator=self.gen)
                b["old_logp"][t] = torch.log(probs.gather(1, sampled_t).squeeze(1) + 1e-12)
                sampled = sampled_t.squeeze(1).tolist()
                past_sampled = None
                if any(PAST in ctl for ctl in games.control):
                    past_probs, _, self.ph, self.pc = self.past.step(b["obs"][t], b["masks"][t], self.ph, self.pc)
                    past_sampled = torch.multinomial(past_probs, 1, generator=self.gen).squeeze(1).tolist()
            b["values"][t] = value
            self.next_start.zero_()
            for g, table in enumerate(games.tables):
                self._play(t, g, table, sampled, past_sampled, bc_weight)
            keep = (1.0 - self.next_start).view(1, -1, 1)
            self.h, self.c, self.ph, self.pc = self.h * keep, self.c * keep, self.ph * keep, self.pc * keep
        self._bootstrap()
        return self.wins, self.games_done

    def _observe(self, t: int) -> None:
        learner, per = self.np["learner"][t], self.per
        self.np["masks"][t] = True  # seats not on turn: every action "legal", never used for a loss
        learner[:] = 0.0  # idle streams (a 1 v 1 game's seats 2 and 3) are nobody's
        for g, control in enumerate(self.games.control):
            learner[per * g:per * g + len(control)] = [who == LEARNER for who in control]
        encode_games(self.games.states, per, self.cfg.encoding, self.np["obs"][t], self.np["masks"][t])

    def _play(self, t, g, table, sampled, past_sampled, bc_weight) -> None:
        games, v = self.games, self.np
        seat = table.state.turn
        i = self.per * g + seat
        who = games.control[g][seat]
        if who == LEARNER:
            v["actions"][t, i], v["acting"][t, i] = sampled[i], 1.0
            if bc_weight > 0:
                v["expert_actions"][t, i] = self.expert.decide(table.state).action
            table.play(sampled[i])
        elif who == PAST:
            table.play(past_sampled[i])
        else:
            table.step()
        state = table.state
        if not state.is_over:
            return
        control, per = games.control[g], self.per
        for s in range(len(control)):
            v["rewards"][t, per * g + s] = float(state.winner == s % 2)
        for s in (0, 1):  # one seat of each team: seat 1 - s is on the other team
            if control[s] == LEARNER and control[1 - s] != LEARNER:
                self.wins += state.winner == s
                self.games_done += 1
        v["ended"][t, per * g:per * g + per] = 1.0
        self.next_start[per * g:per * g + per] = 1.0
        games.reset(g)

    def _bootstrap(self) -> None:
        """The value of the positions the next rollout starts from (0 for a game not yet begun)."""
        n = self.h.shape[1]
        obs = np.zeros((n, self.net.obs_size), np.float32)
        encode_games(self.games.states, self.per, self.cfg.encoding, obs)
        with torch.no_grad():
            _, value, _, _ = self.net.step(torch.from_numpy(obs), torch.ones(n, N_ACTIONS, dtype=torch.bool),
                                           self.h, self.c)
        self.buf["next_value"].copy_(value * (1.0 - self.next_start))


def _worker(cfg, buffers, weights, first, count, worker, start_update, conn) -> None:
    """A worker process: a Rollout answering ("run", bc_weight, snapshot), ("state",) and ("restore", bytes) until
    told to stop (None)."""
    torch.set_num_threads(1)
    try:
        rollout = Rollout(cfg, buffers, first, count, worker, start_update)
        while (msg := conn.recv()) is not None:
            if msg[0] == "state":
                conn.send(("ok", rollout.get_state()))
                continue
            if msg[0] == "restore":
                rollout.set_state(msg[1])
                conn.send(("ok", None))
                continue
            _, bc_weight, snapshot = msg
            rollout.load(weights, snapshot)
            conn.send(("ok", rollout.run(bc_weight)))
    except Exception:  # reported to the learner, which raises it
        conn.send(("error", traceback.format_exc()))
    except KeyboardInterrupt:
        pass


class Share:
    """A Rollout over games [first, first + count) with buffers of its own, for a worker outside the learner's
    process (a Ray actor): called with the learner's weights, it plays one rollout and returns its columns (numpy
    arrays by buffer name) and (wins, games)."""

    def __init__(self, cfg, first: int, count: int, worker: int, start_update: int):
        torch.set_num_threads(1)
        self.worker = worker
        self.buffers = {name: torch.zeros(shape, dtype=dtype)
                        for name, (shape, dtype) in buffer_shapes(cfg, count).items()}
        self.rollout = Rollout(cfg, self.buffers, 0, count, worker, start_update)

    def __call__(self, weights, snapshot, bc_weight=None):
        if isinstance(weights, str):  # "state": its bytes; "restore": `snapshot` holds every worker's bytes
            if weights == "state":
                return self.rollout.get_state()
            return self.rollout.set_state(snapshot[self.worker])
        self.rollout.load(weights, snapshot)
        result = self.rollout.run(bc_weight)
        return {name: t.numpy() for name, t in self.buffers.items()}, result


def worker_context():
    """How rollout workers start: core.worker_context, its server importing torch and this module and loading the
    compiled core once (training/preload.py), so a worker starts in a fraction of a second. Never a fork of the
    learner: fork after torch has run is unsafe."""
    return core.worker_context(f"{__package__}.preload")


class Rollouts:
    """The learner's side: the buffers (as torch tensors), and one rollout per worker.

    `backend="ray"` makes each worker a Ray actor (the `distributed` extra) on the cluster at `address`, or on a
    local Ray instance. Use as a context manager; `publish(net, snapshot)` then `run(bc_weight)` once per update."""

    def __init__(self, cfg, start_update: int, backend: str = "local", address: str | None = None):
        self.cfg = cfg
        workers = max(1, min(cfg.workers, cfg.num_envs))
        self.buffers = {name: torch.zeros(shape, dtype=dtype) for name, (shape, dtype) in buffer_shapes(cfg).items()}
        share, extra = divmod(cfg.num_envs, workers)
        self.ranges = []
        first = 0
        for w in range(workers):
            count = share + (w < extra)
            self.ranges.append((first, count))
            first += count
        self.local, self.procs, self.conns, self.remote, self.snapshot = None, [], [], None, True
        if backend == "ray":
            from ..interop import distributed  # imports ray: only when asked for

            # The nets the local backend builds here (a Rollout's two, or one to size the shared weights) draw
            # from torch's global generator, which the learner's minibatch order continues from: draw the same.
            for _ in range(2 if workers == 1 else 1):
                build_net(cfg)
            shares = [(cfg, first, count, w, start_update) for w, (first, count) in enumerate(self.ranges)]
            self.remote = distributed.Actors(Share, shares, address, num_cpus=workers)
            return
        if workers == 1:
            self.local = Rollout(cfg, self.buffers, 0, cfg.num_envs, 0, start_update)
            return
        for t in self.buffers.values():
            t.share_memory_()
        # Sized from a fresh network; building it draws from torch's global generator, which the
        # learner's minibatch order then continues from, so removing it would change every run.
        self.weights = torch.zeros(sum(p.numel() for p in build_net(cfg).parameters())).share_memory_()
        ctx = worker_context()
        for w, (first, count) in enumerate(self.ranges):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_worker, daemon=True, name=f"rollout-{w}",
                               args=(cfg, self.buffers, self.weights, first, count, w, start_update, theirs))
            proc.start()
            self.procs.append(proc), self.conns.append(mine)

    def publish(self, net, snapshot: bool) -> None:
        """Hand the learner's current weights to every rollout before the next run."""
        self.snapshot = snapshot
        vector = torch.nn.utils.parameters_to_vector(net.parameters()).detach()
        if self.remote is not None:
            self.weights = vector.clone()
        elif self.local is not None:
            self.local.load(vector, snapshot)
        else:
            self.weights.copy_(vector)

    def run(self, bc_weight: float) -> tuple[int, int]:
        """Fill every buffer with one rollout; returns the learner's (wins, games) against other opponents."""
        if self.local is not None:
            return self.local.run(bc_weight)
        if self.remote is not None:
            wins = games = 0
            results = self.remote.call(self.weights, self.snapshot, bc_weight)
            for (first, count), (cols, (won, played)) in zip(self.ranges, results, strict=True):
                for name, target in columns(self.buffers, first, count, seats_per_game(self.cfg)).items():
                    target.numpy()[...] = cols[name]
                wins, games = wins + won, games + played
            return wins, games
        for w, conn in enumerate(self.conns):
            try:
                conn.send(("run", bc_weight, self.snapshot))
            except OSError:
                self._exited(w)
        wins = games = 0
        for w, conn in enumerate(self.conns):
            try:
                status, payload = conn.recv()
            except (EOFError, OSError):
                self._exited(w)
            if status == "error":
                raise RuntimeError(f"rollout worker {w} failed:\n{payload}")
            wins, games = wins + payload[0], games + payload[1]
        return wins, games

    def get_state(self) -> list[bytes]:
        """Every worker's Rollout.get_state, in worker order."""
        if self.local is not None:
            return [self.local.get_state()]
        if self.remote is not None:
            return self.remote.call("state", None)
        return [self._ask(w, ("state",)) for w in range(len(self.conns))]

    def set_state(self, states: list[bytes]) -> None:
        """Restore every worker from `get_state`'s list (the same number of workers)."""
        if self.local is not None:
            self.local.set_state(states[0])
        elif self.remote is not None:
            self.remote.call("restore", states)
        else:
            for w, data in enumerate(states):
                self._ask(w, ("restore", data))

    def _ask(self, w: int, msg: tuple):
        try:
            self.conns[w].send(msg)
            status, payload = self.conns[w].recv()
        except (EOFError, OSError):
            self._exited(w)
        if status == "error":
            raise RuntimeError(f"rollout worker {w} failed:\n{payload}")
        return payload

    def _exited(self, w: int):
        self.procs[w].join(timeout=5)
        raise RuntimeError(f"rollout worker {w} exited (exit code {self.procs[w].exitcode}); "
                           "rerun with --resume to continue from the last checkpoint")

    def close(self) -> None:
        if self.remote is not None:
            self.remote.close()
        for conn in self.conns:
            try:
                conn.send(None)
            except (BrokenPipeError, OSError):
                pass
        for proc in self.procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
        self.procs, self.conns = [], []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

