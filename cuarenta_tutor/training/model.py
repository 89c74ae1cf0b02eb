"""Provides the network: feature MLP -> strategy MLP -> LSTM -> actor over the action table + critic.

With encoding version 2 a move head adds to each action's logit what it makes of that move's features
(encoding.py, slots 106-635) beside the LSTM's output: one small MLP shared by every action, plus a linear
term that starts at MOVE_PRIOR x the expert's estimate, so a network warm-started from a version-1 model
begins as that model steered by the expert's judgement of each move.

The critic outputs a logit; its sigmoid is the probability that the seat's team wins the game.
`step` is exactly the single-step graph exported to ONNX (see onnx_contract.py).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..encoding import BASE_SIZE, N_ACTIONS, SIZES

MOVE_PRIOR = 15.0
"""Logits per point of the expert's estimate of a move, where a new move head starts: mixing the network's log
probabilities with 15 x the expert's points won the most of 0.3, 1, 3, 6, 15, 40 and 200 against the expert."""
MOVE_HIDDEN = 32
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
        self.feature = nn.Sequential(layer_init(nn.Linear(BASE_SIZE, feature)), nn.ReLU())
        self.strategy = nn.Sequential(layer_init(nn.Linear(feature, strategy)), nn.ReLU())
        self.lstm = nn.LSTM(strategy, hidden)
        for name, param in self.lstm.named_parameters():
            if "bias" in name:
                nn.init.constant_(param, 0)
            elif "weight" in name:
                nn.init.orthogonal_(param, 1.0)
        self.actor = layer_init(nn.Linear(hidden, n_actions), std=0.01)
        self.critic = layer_init(nn.Linear(hidden, 1), std=1.0)
        self.moves = (obs_size - BASE_SIZE) // n_actions
        """Move features per action (0: encoding version 1, no move head)."""
        if self.moves:
            self.move_in = layer_init(nn.Linear(self.moves, MOVE_HIDDEN))
            self.move_core = layer_init(nn.Linear(hidden, MOVE_HIDDEN), std=1.0)
            self.move_out = layer_init(nn.Linear(MOVE_HIDDEN, 1), std=0.0)
            self.move_linear = nn.Linear(self.moves, 1)  # its bias moves every logit alike: kept for the export
            nn.init.zeros_(self.move_linear.weight)
            nn.init.zeros_(self.move_linear.bias)
            with torch.no_grad():
                self.move_linear.weight[0, -1] = 4 * MOVE_PRIOR  # the last feature is the estimate / 4

    def encode(self, obs: torch.Tensor) -> torch.Tensor:
        return self.strategy(self.feature(obs[..., :BASE_SIZE]))

    def heads(self, core: torch.Tensor, mask: torch.Tensor, obs: torch.Tensor):
        """Masked logits and the value logit from LSTM outputs (and the move features in `obs`)."""
        logits = self.actor(core)
        if self.moves:
            # Linear layers on 2-D rows only: the exported graph then keeps their weights under their own names
            # (Gemm), which warm.py reads back; on more dimensions the exporter renames them (MatMul).
            f = obs[..., BASE_SIZE:].reshape(-1, self.moves)
            lead = core.shape[:-1]
            at_core = self.move_core(core.reshape(-1, core.shape[-1])).unsqueeze(1)
            hidden = torch.relu(self.move_in(f).reshape(-1, self.n_actions, MOVE_HIDDEN) + at_core)
            extra = self.move_out(hidden.reshape(-1, MOVE_HIDDEN)) + self.move_linear(f)
            logits = logits + extra.reshape(*lead, self.n_actions)
        return logits.masked_fill(~mask, MASKED), self.critic(core).squeeze(-1)

    def step(self, obs, mask, h, c):
        """One step for a batch: obs [B, O], mask [B, A] bool, h/c [1, B, H] ->
        probs [B, A] (0 on illegal), value [B] (win probability), h_out, c_out."""
        core, (h_out, c_out) = self.lstm(self.encode(obs).unsqueeze(0), (h, c))
        logits, value_logit = self.heads(core.squeeze(0), mask, obs)
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
        return self.heads(torch.cat(outputs), mask, obs)


def build_net(cfg) -> ActorCritic:
    """The network for a training config (its encoding version, feature, strategy and hidden sizes)."""
    return ActorCritic(SIZES[cfg.encoding], N_ACTIONS, cfg.feature, cfg.strategy, cfg.hidden)
