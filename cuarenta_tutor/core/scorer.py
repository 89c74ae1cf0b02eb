"""Provides the playout policy's choice, compiled: a small scorer distilled from the network's choices in the
analysis's playouts (training/distil.py fits it, analysis/policy.py reads it from the model's sidecar), run over
lanes with no network call.

A move's score is a one-layer network on its 10 move features (encoding version 2, core/encode.py move_slots),
plus a linear term on them and the action's own bias; the lane plays its highest-scoring legal move. `pick` is
written once, in float64 loops: compiled or run as Python (`pick.py_func`, the Python core's) it gives the same
numbers, bit for bit.
"""

from __future__ import annotations

import numpy as np

from .encode import MOVE_FEATURES, move_slots
from .expert import N_ACTIONS, N_TERMS, legal_terms
from .jit import njit
from .moves import legal

N_FEATURES = MOVE_FEATURES


def size(hidden: int) -> int:
    """The length of a scorer's parameters with `hidden` units: the hidden layer's weights [hidden, 10] and biases,
    the output weights and bias, the linear term's 10 weights and bias, and a bias per action."""
    return hidden * (N_FEATURES + 2) + 1 + N_FEATURES + 1 + N_ACTIONS


@njit
def pick(features, legal, n_legal, params, hidden):
    """The highest-scoring of the actions legal[:n_legal] (features[k]: the k-th's 10 move features; an earlier one
    keeps a tie), by the scorer `params` with `hidden` units (layout: `size`)."""
    b_hid = hidden * N_FEATURES
    w_out = b_hid + hidden
    b_out = w_out + hidden
    w_lin = b_out + 1
    b_lin = w_lin + N_FEATURES
    bias = b_lin + 1
    best, best_score = -1, 0.0
    for k in range(n_legal):
        f = features[k]
        s = params[b_out] + params[b_lin] + params[bias + legal[k]]
        for j in range(hidden):
            z = params[b_hid + j]
            for i in range(N_FEATURES):
                z += params[j * N_FEATURES + i] * f[i]
            if z > 0.0:
                s += params[w_out + j] * z
        for i in range(N_FEATURES):
            s += params[w_lin + i] * f[i]
        if best < 0 or s > best_score:
            best, best_score = legal[k], s
    return best


@njit
def policy_lanes(rows, idx, rules, params, hidden, out_actions):
    """The scorer's action for each lane rows[idx[k]] into out_actions[k] (-1 where no play is due)."""
    terms = np.empty((N_ACTIONS, N_TERMS), dtype=np.float64)
    actions = np.empty(N_ACTIONS, dtype=np.int32)
    features = np.empty((N_ACTIONS, N_FEATURES), dtype=np.float32)
    for k in range(len(idx)):
        row = rows[idx[k]]
        n_legal = legal(row, rules, actions)
        if n_legal <= 1:  # no choice: the features are not needed (most of the time goes to them)
            out_actions[k] = actions[0] if n_legal else -1
            continue
        legal_terms(row, rules, terms, actions)
        for j in range(n_legal):
            move_slots(terms[actions[j]], features[j], 0)
        out_actions[k] = pick(features, actions, n_legal, params, hidden)
