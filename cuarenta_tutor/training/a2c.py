"""Provides A2C-LSTM self-play training, CleanRL style: one file that reads top to bottom.

Config -> environments (vectorised games, an opponent per game from the pool) -> rollout (every
seat's LSTM steps on every play it observes) -> GAE -> loss (policy gradient on the learner's own
moves, BCE value loss toward the win/lose outcome, entropy bonus, and a decaying imitation term
toward the expert's choice that warm-starts the policy) -> update -> periodic arena evaluation,
metrics (JSONL), checkpoints. `update_epochs > 1` with `clip_coef` turns A2C into PPO-clip with the
same network. Reward: 1 to the winning team's seats at the end of a game, 0 otherwise, gamma 1,
so the critic estimates the probability of winning the game.
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..agents import make_policy
from ..encoding import N_ACTIONS, OBS_SIZE, encode_into
from ..engine import apply, legal_actions, preset, start_game
from .model import ActorCritic


@dataclass
class Config:
    """Every training setting; stored in each checkpoint and in the model card."""

    seed: int = 1
    """Seeds Python, numpy, torch and every game."""
    total_steps: int = 20_000_000
    """Environment steps (plays, summed over all games) to train for."""
    num_envs: int = 64
    """Games played side by side."""
    rollout_len: int = 32
    """Plays per game between two updates."""
    lr: float = 3e-4
    """Adam learning rate (annealed linearly to 10% of it)."""
    gamma: float = 1.0
    """Discount; 1 keeps the critic a win probability."""
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    update_epochs: int = 1
    """1 is A2C; more, with clip_coef, is PPO."""
    num_minibatches: int = 1
    """Minibatches per epoch, split by stream (whole sequences, never single steps)."""
    clip_coef: float | None = None
    """PPO ratio clip (None: plain policy gradient)."""
    bc_coef: float = 1.0
    """Weight of the imitation term toward the expert's move at the start of training."""
    bc_fraction: float = 0.15
    """Share of training over which the imitation weight decays to zero."""
    pool: dict = field(default_factory=lambda: {"self": 0.35, "past": 0.15, "expert": 0.4, "greedy": 0.05,
                                                 "random": 0.05})
    """Chance of each opponent kind for a new game: itself, a past snapshot, or a bot."""
    snapshot_every: int = 100
    """Updates between refreshes of the past-self opponent."""
    eval_every: int = 200
    """Updates between arena evaluations against the expert (0: never)."""
    eval_games: int = 200
    rules: str = "standard"
    feature: int = 256
    strategy: int = 128
    hidden: int = 128
    threads: int = 1
    """torch threads; 1 avoids stalls on a 2-core machine."""

    @classmethod
    def from_dict(cls, data: dict) -> Config:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown config field(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        return cls(**data)


LEARNER, PAST, BOT = 0, 1, 2


class Games:
    """`num_envs` two-player games, each with who controls each seat, reset with a new deal on game end."""

    def __init__(self, cfg: Config, rng: random.Random):
        self.cfg, self.rng = cfg, rng
        self.rules = preset(cfg.rules)
        kinds = list(cfg.pool)
        self.kinds, self.weights = kinds, [cfg.pool[k] for k in kinds]
        self.states, self.control, self.bots = [], [], []
        self.game_no = 0
        for _ in range(cfg.num_envs):
            self.states.append(None), self.control.append(None), self.bots.append(None)
        for g in range(cfg.num_envs):
            self.reset(g)

    def reset(self, g: int) -> None:
        kind = self.rng.choices(self.kinds, self.weights)[0]
        learner_seat = self.rng.randrange(2)
        control = [LEARNER, LEARNER]
        bot = None
        if kind == "past":
            control[1 - learner_seat] = PAST
        elif kind != "self":
            control[1 - learner_seat] = BOT
            bot = make_policy(kind, seed=self.rng.randrange(1 << 30))
            bot.reset(1 - learner_seat)
        state = None
        while state is None or state.winner >= 0:  # a deal can end the game (four of a kind): skip it
            self.game_no += 1
            state = start_game(self.rules, seed=self.cfg.seed * 10_000_019 + self.game_no)[0]
        self.states[g] = state
        self.control[g], self.bots[g] = control, bot


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def gae(rewards, values, ended, next_value, gamma: float, lam: float):
    """Generalised advantage estimates over [T, B] arrays (reference loop; tested by hand).

    `ended[t]` is 1 where the play at step t ended the game; `next_value` bootstraps past the end."""
    T = rewards.shape[0]
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    for t in reversed(range(T)):
        nonterminal = 1.0 - ended[t]
        following = next_value if t == T - 1 else values[t + 1]
        delta = rewards[t] + gamma * following * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + values


def save_checkpoint(path: Path, net, optimizer, cfg: Config, progress: dict) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({"model": net.state_dict(), "optimizer": optimizer.state_dict(), "config": asdict(cfg),
                "progress": progress}, tmp)
    tmp.replace(path)


def load_checkpoint(path) -> dict:
    """A checkpoint as saved by training (tensors and plain values only: weights_only=True)."""
    return torch.load(path, map_location="cpu", weights_only=True)


def build_net(cfg: Config) -> ActorCritic:
    return ActorCritic(OBS_SIZE, N_ACTIONS, cfg.feature, cfg.strategy, cfg.hidden)


def train(cfg: Config, out: Path, resume: bool = False, log=sys.stderr) -> Path:
    """Train; writes checkpoint.pt (latest), best.pt (best evaluation) and metrics.jsonl into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    set_seed(cfg.seed)
    net = build_net(cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    progress = {"steps": 0, "updates": 0, "seconds": 0.0, "best_win_rate": -1.0}
    ckpt_path = out / "checkpoint.pt"
    if resume and ckpt_path.exists():
        ckpt = load_checkpoint(ckpt_path)
        net.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        progress = ckpt["progress"]
        set_seed(cfg.seed + progress["updates"])
        print(f"resumed from {ckpt_path} at {progress['steps']:,} steps", file=log)
    past = build_net(cfg)
    past.load_state_dict(net.state_dict())
    rng = random.Random(cfg.seed + progress["updates"])
    games = Games(cfg, rng)
    expert = make_policy("expert")
    E, T, S = cfg.num_envs, cfg.rollout_len, 2 * cfg.num_envs
    H = cfg.hidden
    obs = torch.zeros(T, S, OBS_SIZE)
    masks = torch.zeros(T, S, N_ACTIONS, dtype=torch.bool)
    actions = torch.zeros(T, S, dtype=torch.long)
    acting = torch.zeros(T, S)
    learner = torch.zeros(T, S)
    expert_actions = torch.full((T, S), -1, dtype=torch.long)
    rewards = torch.zeros(T, S)
    ended = torch.zeros(T, S)
    starts = torch.zeros(T, S)
    values = torch.zeros(T, S)
    old_logp = torch.zeros(T, S)
    h, c = torch.zeros(1, S, H), torch.zeros(1, S, H)
    ph, pc = torch.zeros(1, S, H), torch.zeros(1, S, H)
    next_start = torch.ones(S)
    # The Python loop writes through numpy views of the same memory (torch item writes are slow).
    obs_np, masks_np, learner_np, acting_np = obs.numpy(), masks.numpy(), learner.numpy(), acting.numpy()
    actions_np, expert_np = actions.numpy(), expert_actions.numpy()
    rewards_np, ended_np = rewards.numpy(), ended.numpy()
    metrics = (out / "metrics.jsonl").open("a", encoding="utf-8")
    total_updates = max(1, cfg.total_steps // (E * T))
    started = time.perf_counter() - progress["seconds"]
    window_start, window_steps = time.perf_counter(), 0
    wins, games_done = 0, 0

    while progress["steps"] < cfg.total_steps:
        frac = progress["updates"] / total_updates
        for group in optimizer.param_groups:
            group["lr"] = cfg.lr * max(0.1, 1.0 - frac)
        bc_weight = cfg.bc_coef * max(0.0, 1.0 - frac / cfg.bc_fraction) if cfg.bc_fraction > 0 else 0.0
        h0, c0 = h.clone(), c.clone()
        expert_actions.fill_(-1)
        acting.zero_(), rewards.zero_(), ended.zero_()

        # ---- rollout: T plays in every game; every seat observes every play ----
        for t in range(T):
            starts[t] = next_start
            masks_np[t] = True
            for g in range(E):
                state = games.states[g]
                control = games.control[g]
                for seat in (0, 1):
                    encode_into(obs_np[t, 2 * g + seat], state, seat)
                    learner_np[t, 2 * g + seat] = control[seat] == LEARNER
                row = masks_np[t, 2 * g + state.turn]
                row[:] = False
                row[list(legal_actions(state))] = True
            with torch.no_grad():
                probs, value, h, c = net.step(obs[t], masks[t], h, c)
                sampled_t = torch.multinomial(probs, 1)
                old_logp[t] = torch.log(probs.gather(1, sampled_t).squeeze(1) + 1e-12)
                sampled = sampled_t.squeeze(1).tolist()
                if any(PAST in ctl for ctl in games.control):
                    past_probs, _, ph, pc = past.step(obs[t], masks[t], ph, pc)
                    past_sampled = torch.multinomial(past_probs, 1).squeeze(1).tolist()
            values[t] = value
            next_start.zero_()
            for g in range(E):
                state = games.states[g]
                seat = state.turn
                i = 2 * g + seat
                who = games.control[g][seat]
                if who == LEARNER:
                    a = sampled[i]
                    actions_np[t, i], acting_np[t, i] = a, 1.0
                    if bc_weight > 0:
                        expert_np[t, i] = expert.decide(state).action
                elif who == PAST:
                    a = past_sampled[i]
                else:
                    a = games.bots[g].decide(state).action
                state, _ = apply(state, a)
                if state.winner >= 0:
                    for s in (0, 1):
                        rewards_np[t, 2 * g + s] = float(state.winner == s)
                        if games.control[g][s] == LEARNER and games.control[g][1 - s] != LEARNER:
                            wins += state.winner == s
                            games_done += 1
                    ended_np[t, 2 * g:2 * g + 2] = 1.0
                    next_start[2 * g:2 * g + 2] = 1.0
                    games.reset(g)
                else:
                    games.states[g] = state
            keep = (1.0 - next_start).view(1, -1, 1)
            h, c, ph, pc = h * keep, c * keep, ph * keep, pc * keep
        progress["steps"] += E * T
        window_steps += E * T

        # ---- bootstrap value of the positions the next rollout starts from ----
        boot_obs = torch.zeros(S, OBS_SIZE)
        boot_np = boot_obs.numpy()
        for g in range(E):
            for seat in (0, 1):
                encode_into(boot_np[2 * g + seat], games.states[g], seat)
        with torch.no_grad():
            _, next_value, _, _ = net.step(boot_obs, torch.ones(S, N_ACTIONS, dtype=torch.bool), h, c)
        next_value = next_value * (1.0 - next_start)  # a fresh game is not the same episode
        advantages, returns = gae(rewards, values, ended, next_value, cfg.gamma, cfg.gae_lambda)

        # ---- update (A2C: one pass; PPO: several epochs of clipped minibatches) ----
        act_adv = advantages[acting > 0]
        if act_adv.numel() > 1:
            advantages = (advantages - act_adv.mean()) / (act_adv.std() + 1e-8)
        order = torch.arange(S)
        for _ in range(cfg.update_epochs):
            if cfg.num_minibatches > 1:
                order = torch.randperm(S)
            for mb in order.chunk(cfg.num_minibatches):  # whole streams: the LSTM needs its sequence
                logits, value_logits = net.sequence(obs[:, mb], masks[:, mb], starts[:, mb], h0[:, mb], c0[:, mb])
                act, adv, lrn = acting[:, mb], advantages[:, mb], learner[:, mb]
                logp_all = torch.log_softmax(logits, dim=-1)
                logp = logp_all.gather(-1, actions[:, mb].unsqueeze(-1)).squeeze(-1)
                n_act = act.sum().clamp(min=1.0)
                if cfg.clip_coef is not None:
                    ratio = torch.exp(logp - old_logp[:, mb])
                    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef))
                else:
                    pg = -adv * logp
                pg_loss = (pg * act).sum() / n_act
                entropy = -(logp_all.exp() * logp_all.masked_fill(~masks[:, mb], 0.0)).sum(-1)
                ent = (entropy * act).sum() / n_act
                v_loss = (nn.functional.binary_cross_entropy_with_logits(
                    value_logits, returns[:, mb].clamp(0, 1), reduction="none") * lrn).sum() / lrn.sum().clamp(min=1.0)
                loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
                bc_loss = torch.tensor(0.0)
                labelled = expert_actions[:, mb] >= 0
                if bc_weight > 0 and labelled.any():
                    bc_loss = nn.functional.cross_entropy(logits[labelled], expert_actions[:, mb][labelled])
                    loss = loss + bc_weight * bc_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                optimizer.step()
        progress["updates"] += 1
        progress["seconds"] = time.perf_counter() - started

        if progress["updates"] % cfg.snapshot_every == 0:
            past.load_state_dict(net.state_dict())
        if progress["updates"] % 10 == 0:
            sps = window_steps / (time.perf_counter() - window_start)
            window_start, window_steps = time.perf_counter(), 0
            record = {"update": progress["updates"], "steps": progress["steps"],
                      "seconds": round(progress["seconds"], 1),
                      "sps": round(sps), "pg_loss": round(float(pg_loss), 5), "value_loss": round(float(v_loss), 5),
                      "entropy": round(float(ent), 4), "bc_loss": round(float(bc_loss), 4),
                      "bc_weight": round(bc_weight, 4), "win_rate_vs_bots": round(wins / max(1, games_done), 4)}
            metrics.write(json.dumps(record) + "\n")
            metrics.flush()
            done = progress["steps"] / cfg.total_steps
            bar = "#" * int(30 * done) + "." * (30 - int(30 * done))
            log.write(f"\r[{bar}] {progress['steps']:,}/{cfg.total_steps:,} steps  {sps:,.0f} steps/s  "
                      f"vs bots {record['win_rate_vs_bots']:.2f}  entropy {record['entropy']:.2f}   ")
            log.flush()
            wins, games_done = 0, 0
        last = progress["steps"] >= cfg.total_steps
        if cfg.eval_every and (progress["updates"] % cfg.eval_every == 0 or last):
            save_checkpoint(ckpt_path, net, optimizer, cfg, progress)
            result = evaluate(ckpt_path, out, cfg)
            record = {"update": progress["updates"], "steps": progress["steps"], "eval": result}
            metrics.write(json.dumps(record) + "\n")
            metrics.flush()
            log.write(f"\neval at {progress['steps']:,} steps: vs expert {result['win_rate']:.3f} "
                      f"[{result['ci_low']:.3f}, {result['ci_high']:.3f}]\n")
            if result["win_rate"] > progress["best_win_rate"]:
                progress["best_win_rate"] = result["win_rate"]
                save_checkpoint(out / "best.pt", net, optimizer, cfg, progress)
            save_checkpoint(ckpt_path, net, optimizer, cfg, progress)
        elif last or progress["updates"] % 50 == 0:
            save_checkpoint(ckpt_path, net, optimizer, cfg, progress)
    metrics.close()
    log.write("\n")
    return ckpt_path


def evaluate(ckpt_path: Path, out: Path, cfg: Config) -> dict:
    """Export the checkpoint to ONNX and play it (greedy) against the expert in the arena."""
    from ..arena import run_match, summarize
    from .export import export

    model = out / "eval.onnx"
    export(ckpt_path, model, check=False)
    results = run_match(f"onnx:{model}", "expert", cfg.eval_games, jobs=1, seed=12345, rules=cfg.rules)
    s = summarize("onnx", "expert", results)
    return {k: s[k] for k in ("games", "win_rate", "ci_low", "ci_high", "mean_point_diff")}
