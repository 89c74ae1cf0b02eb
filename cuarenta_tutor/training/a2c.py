"""Provides A2C-LSTM self-play training, CleanRL style: one file that reads top to bottom.

Config -> environments (vectorised games of the config's mix of presets and player counts, an
opponent team per game from the pool) -> rollout (every seat's LSTM steps on every play it observes)
-> GAE -> loss (policy gradient on the learner's own moves, BCE value loss toward the win/lose
outcome, entropy bonus, a decaying imitation term toward the expert's choice that warm-starts the
policy, and with distill_data the expert-iteration term toward the search's move distribution in the
search's games, search_games.py) -> update -> periodic arena evaluation, metrics (JSONL),
checkpoints (with the games in play, so a resumed run goes on exactly as an uninterrupted one).
`update_epochs > 1` with `clip_coef` turns A2C into PPO-clip with the same network. Reward: 1 to
the winning team's seats at the end of a game, 0 otherwise, gamma 1, so the critic estimates the
probability of winning the game.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .config import Config, load_checkpoint, rollout_states, save_checkpoint
from .evaluate import evaluate
from .model import build_net
from .rollout import Rollouts

__all__ = ["Config", "load_checkpoint", "save_checkpoint", "evaluate", "gae", "set_seed", "train", "update"]


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


def distill_loss(net, batch: dict, cfg: Config) -> torch.Tensor:
    """Cross-entropy of the policy against the search's move distribution on the analysed moves, and the critic's
    BCE toward the game's outcome on every step, over a batch of the search's games (search_games.Batches)."""
    b = {k: torch.from_numpy(v) for k, v in batch.items()}
    H = net.hidden
    zeros = torch.zeros(1, b["obs"].shape[1], H)
    logits, value_logits = net.sequence(b["obs"], b["mask"], b["starts"], zeros, zeros)
    logp = torch.log_softmax(logits, dim=-1)
    labelled = b["labelled"]
    ce = -(b["target"][labelled] * logp[labelled]).sum(-1).mean() if labelled.any() else torch.tensor(0.0)
    valid = b["valid"]
    v = (nn.functional.binary_cross_entropy_with_logits(value_logits, b["outcome"], reduction="none") * valid).sum()
    return ce + cfg.vf_coef * v / valid.sum().clamp(min=1.0)


def update(net, optimizer, buf: dict, advantages, returns, cfg: Config, bc_weight: float, distill=None,
           key: int = 0) -> dict:
    """One update from a filled rollout: A2C is one pass; PPO several epochs of clipped minibatches. `distill`
    (search_games.Batches) adds the expert-iteration term to every minibatch, its batches drawn by (`key`, epoch,
    minibatch). Returns the last minibatch's losses."""
    obs, masks, actions, acting, learner = buf["obs"], buf["masks"], buf["actions"], buf["acting"], buf["learner"]
    expert_actions, starts, old_logp = buf["expert_actions"], buf["starts"], buf["old_logp"]
    h0, c0 = buf["h0"], buf["c0"]
    S = obs.shape[1]
    act_adv = advantages[acting > 0]
    if act_adv.numel() > 1:
        advantages = (advantages - act_adv.mean()) / (act_adv.std() + 1e-8)
    order = torch.arange(S)
    d_loss = torch.tensor(0.0)
    for epoch in range(cfg.update_epochs):
        if cfg.num_minibatches > 1:
            order = torch.randperm(S)
        for m, mb in enumerate(order.chunk(cfg.num_minibatches)):  # whole streams: the LSTM needs its sequence
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
            if distill is not None:
                d_loss = distill_loss(net, distill.sample(cfg.distill_batch, (key, epoch, m)), cfg)
                loss = loss + cfg.distill_coef * d_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
    return {"pg_loss": round(pg_loss.item(), 5), "value_loss": round(v_loss.item(), 5),
            "entropy": round(ent.item(), 4), "bc_loss": round(bc_loss.item(), 4),
            "distill_loss": round(d_loss.item(), 4)}


def train(cfg: Config, out: Path, resume: bool = False, log=sys.stderr, backend: str = "local",
          address: str | None = None, init=None) -> Path:
    """Train; writes checkpoint.pt (latest), best.pt (best evaluation) and metrics.jsonl into `out`. `backend`
    "ray" plays the rollouts on Ray actors (at `address`, or on a local Ray instance): the same results.
    `init`: an exported ONNX model whose weights a new run starts from (warm.py; a resumed run ignores it)."""
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(cfg.threads)
    set_seed(cfg.seed)
    net = build_net(cfg)
    if init is not None and not (resume and (out / "checkpoint.pt").exists()):
        from .warm import load_into

        load_into(net, init)
        print(f"started from the weights of {init}", file=log)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr, eps=1e-5)
    progress = {"steps": 0, "updates": 0, "seconds": 0.0, "best_win_rate": -1.0}
    ckpt_path = out / "checkpoint.pt"
    ckpt = None
    if resume and ckpt_path.exists():
        ckpt = load_checkpoint(ckpt_path)
        net.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        progress = ckpt["progress"]
        set_seed(cfg.seed + progress["updates"])
        print(f"resumed from {ckpt_path} at {progress['steps']:,} steps", file=log)
    metrics = (out / "metrics.jsonl").open("a", encoding="utf-8")
    total_updates = max(1, cfg.total_steps // (cfg.num_envs * cfg.rollout_len))
    started = time.perf_counter() - progress["seconds"]
    window_start, window_steps = time.perf_counter(), 0
    phase = {"rollout_s": 0.0, "update_s": 0.0}  # time spent in each, per metrics window
    wins, games_done = 0, 0
    distill = None
    if cfg.distill_coef > 0:
        from .search_games import Batches, load

        distill = Batches(load(cfg.distill_data), cfg.seed)
        if distill.width != net.obs_size:
            raise ValueError(f"the search's games in {cfg.distill_data} hold observations of size {distill.width}, "
                             f"but encoding version {cfg.encoding} has {net.obs_size}: play them again with "
                             "`cuarenta-tutor search-games` on a model of this encoding, or set \"encoding\" in "
                             "the config to theirs")
        print(f"expert iteration: {len(distill.streams):,} seat sequences from {cfg.distill_data}", file=log)
    rollouts = Rollouts(cfg, progress["updates"], backend, address)
    buf = rollouts.buffers
    snapshot = True  # the past opponent starts as the current network
    states = rollout_states(ckpt) if ckpt is not None else None
    if states is not None and len(states) == len(rollouts.ranges):  # on exactly where it stopped
        rollouts.set_state(states)
        torch.set_rng_state(ckpt["rng"])
        snapshot = progress["updates"] % cfg.snapshot_every == 0
    elif ckpt is not None:
        print("the checkpoint keeps no games in play (an older one, or other workers): new games start", file=log)

    def save(path=ckpt_path):
        save_checkpoint(path, net, optimizer, cfg, progress, rollouts.get_state() if path == ckpt_path else None)

    try:
        while progress["steps"] < cfg.total_steps:
            frac = progress["updates"] / total_updates
            for group in optimizer.param_groups:
                group["lr"] = cfg.lr * max(0.1, 1.0 - frac)
            bc_weight = cfg.bc_coef * max(0.0, 1.0 - frac / cfg.bc_fraction) if cfg.bc_fraction > 0 else 0.0

            # ---- rollout: T plays in every game, in this process, in the workers or on Ray actors ----
            rollouts.publish(net, snapshot)
            tick = time.perf_counter()
            won, ended_games = rollouts.run(bc_weight)
            phase["rollout_s"] += time.perf_counter() - tick
            wins, games_done = wins + won, games_done + ended_games
            progress["steps"] += cfg.num_envs * cfg.rollout_len
            window_steps += cfg.num_envs * cfg.rollout_len
            advantages, returns = gae(buf["rewards"], buf["values"], buf["ended"], buf["next_value"], cfg.gamma,
                                      cfg.gae_lambda)

            tick = time.perf_counter()
            losses = update(net, optimizer, buf, advantages, returns, cfg, bc_weight, distill, progress["updates"])
            phase["update_s"] += time.perf_counter() - tick
            progress["updates"] += 1
            progress["seconds"] = time.perf_counter() - started
            snapshot = progress["updates"] % cfg.snapshot_every == 0
            if progress["updates"] % cfg.log_every == 0:
                sps = window_steps / (time.perf_counter() - window_start)
                window_start, window_steps = time.perf_counter(), 0
                record = {"update": progress["updates"], "steps": progress["steps"],
                          "seconds": round(progress["seconds"], 1),
                          "sps": round(sps),
                          **{k: round(v, 4) for k, v in phase.items()}, **losses, "bc_weight": round(bc_weight, 4),
                          "win_rate_vs_bots": round(wins / max(1, games_done), 4)}
                metrics.write(json.dumps(record) + "\n")
                metrics.flush()
                done = progress["steps"] / cfg.total_steps
                bar = "#" * int(30 * done) + "." * (30 - int(30 * done))
                log.write(f"\r[{bar}] {progress['steps']:,}/{cfg.total_steps:,} steps  {sps:,.0f} steps/s  "
                          f"vs bots {record['win_rate_vs_bots']:.2f}  entropy {record['entropy']:.2f}   ")
                log.flush()
                wins, games_done = 0, 0
                phase = dict.fromkeys(phase, 0.0)
            last = progress["steps"] >= cfg.total_steps
            if cfg.eval_every and (progress["updates"] % cfg.eval_every == 0 or last):
                save()
                result = evaluate(ckpt_path, out, cfg)
                record = {"update": progress["updates"], "steps": progress["steps"], "eval": result}
                metrics.write(json.dumps(record) + "\n")
                metrics.flush()
                log.write(f"\neval at {progress['steps']:,} steps: vs expert {result['win_rate']:.3f} "
                          f"[{result['ci_low']:.3f}, {result['ci_high']:.3f}]\n")
                if result["win_rate"] > progress["best_win_rate"]:
                    progress["best_win_rate"] = result["win_rate"]
                    save(out / "best.pt")
                save()
            elif last or progress["updates"] % cfg.checkpoint_every == 0:
                save()
    finally:
        rollouts.close()
        metrics.close()
    log.write("\n")
    return ckpt_path

