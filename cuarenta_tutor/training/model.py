"""Provides the network: feature MLP -> strategy MLP -> LSTM -> actor over the action table + critic.

The critic outputs a logit; its sigmoid is the probability that the seat's team wins the game.
`step` is exactly the single-step graph exported to ONNX (see onnx_contract.py).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..encoding import N_ACTIONS, OBS_SIZE

MASKED = -1e9
"""Logit given to illegal actions (finite, so an all-masked row never produces NaN in training)."""


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class ActorCritic(nn.Module):
    """The agent's network; sizes come from the training config and are stored with checkpoints."""

    value_scale = 1.0
    """Platt scaling of the critic, value = sigmoid(value_scale * logit + value_shift); set only at export
    (see export.calibrate), never during training; not part of the state dict."""
    value_shift = 0.0

    def __init__(self, obs_size: int, n_actions: int, feature: int = 256, strategy: int = 128, hidden: int = 128):
        super().__init__()
        self.obs_size, self.n_actions, self.hidden = obs_size, n_actions, hidden
        self.feature = nn.Sequential(layer_init(nn.Linear(obs_size, feature)), nn.ReLU())
        self.strategy = nn.Sequential(layer_init(nn.Linear(feature, strategy)), nn.ReLU())
        self.lstm = nn.LSTM(strategy, hidden)
        for name, param in self.lstm.named_parameters():
            if "bias" in name:
                nn.init.constant_(param, 0)
            elif "weight" in name:
                nn.init.orthogonal_(param, 1.0)
        self.actor = layer_init(nn.Linear(hidden, n_actions), std=0.01)
        self.critic = layer_init(nn.Linear(hidden, 1), std=1.0)

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        return self.strategy(self.feature(obs))

    def heads(self, core: torch.Tensor, mask: torch.Tensor):
        """Masked logits and the value logit from LSTM outputs."""
        logits = self.actor(core).masked_fill(~mask, MASKED)
        return logits, self.critic(core).squeeze(-1)

    def step(self, obs, mask, h, c):
        """One step for a batch: obs [B, O], mask [B, A] bool, h/c [1, B, H] ->
        probs [B, A] (0 on illegal), value [B] (win probability), h_out, c_out."""
        core, (h_out, c_out) = self.lstm(self.encode(obs).unsqueeze(0), (h, c))
        logits, value_logit = self.heads(core.squeeze(0), mask)
        probs = torch.softmax(logits, dim=-1) * mask.to(logits.dtype)
        return probs, torch.sigmoid(self.value_scale * value_logit + self.value_shift), h_out, c_out

    def sequence(self, obs, mask, starts, h, c):
        """Run T steps for B streams: obs [T, B, O], mask [T, B, A], starts [T, B] (1 where a new game
        begins, so memory is reset before that step), initial h/c [1, B, H].
        Returns logits [T, B, A] and value logits [T, B]."""
        x = self.encode(obs)
        # One LSTM call per stretch of steps where no stream starts a new game: far fewer calls than
        # one per step, and the same recurrence (memory is cut only where a game starts).
        T = obs.shape[0]
        cuts = [0, *(1 + (starts[1:] > 0).any(1).nonzero().flatten()).tolist(), T]
        outputs = []
        for a, b in zip(cuts, cuts[1:], strict=False):
            keep = (1.0 - starts[a]).view(1, -1, 1)
            core, (h, c) = self.lstm(x[a:b], (h * keep, c * keep))
            outputs.append(core)
        return self.heads(torch.cat(outputs), mask)


def build_net(cfg) -> ActorCritic:
    """The network for a training config (its feature, strategy and hidden sizes)."""
    return ActorCritic(OBS_SIZE, N_ACTIONS, cfg.feature, cfg.strategy, cfg.hidden)
