"""Provides OnnxPolicy: the trained agent, run with onnxruntime (no torch needed to play).

It keeps one LSTM memory for its seat, stepped on every state it observes and reset each game, and
for every decision returns the probability of each legal move, the win probability of the position
and the win probability after each legal move (the critic on each after-move position, one LSTM step
from the current memory, batched into one call). A play never deals, so no after-move position holds
cards the player has not been given; one that ends the game is worth exactly 1 or 0.
"""

from __future__ import annotations

import hashlib
import stat
import threading
from pathlib import Path

import numpy as np

from ..encoding import N_ACTIONS, legal_mask
from ..engine import State, apply, legal_actions
from ..i18n import _, number
from ..resources import data_dir
from ..table import Decision
from .base import BasePolicy
from .features import encode_into
from .memory_graph import load_memory
from .onnx_contract import ModelError, check_metadata, one_thread_session, reexport

DEFAULT_MODEL = "cuarenta-a2c-lstm.onnx"
_ALL = np.ones((1, N_ACTIONS), dtype=bool)


def default_model_path() -> Path:
    return data_dir("models") / DEFAULT_MODEL


MAX_MODEL_BYTES = 1 << 30
"""The largest model file read (the shipped one is a few MB): past it, or what is not a plain file (a device such as
/dev/zero, a pipe), a path is refused before any byte is read, never read without end."""


def model_file_problem(path) -> str | None:
    """Why `path` cannot be a model file (missing, a folder, a device or pipe, too large), or None."""
    path = Path(path)
    try:
        found = path.stat()
    except OSError:
        return _("model file not found: {path}").format(path=path)
    if stat.S_ISDIR(found.st_mode):
        return _("{path} is a folder, not a model file").format(path=path)
    if not stat.S_ISREG(found.st_mode):
        return _("{path} is not a plain file (a device or a pipe?), so not a model file").format(path=path)
    if found.st_size > MAX_MODEL_BYTES:
        return _("{path} is {size} MB, larger than any model ({limit} MB at most)").format(
            path=path, size=number(found.st_size / 1e6), limit=number(MAX_MODEL_BYTES / 1e6))
    return None


def file_sha256(path) -> str:
    """The sha256 of a model file; a path that cannot be one (model_file_problem) raises ModelError."""
    problem = model_file_problem(path)
    if problem:
        raise ModelError(problem)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


_SESSIONS: dict = {}
"""The checked sessions, (session, hidden size) by the model file's sha256: a model is loaded and checked once per
process, and every agent and check on it shares that session (onnxruntime runs one session's calls from any thread;
each agent keeps its own memory). A file changed since is another key: loaded anew."""
_SESSIONS_LOCK = threading.Lock()
KEEP_SESSIONS = 4
"""The models kept loaded (the person's few, the shipped one); the one unused longest goes first."""


def load_session(path):
    """An onnxruntime session on one thread, with the model checked against this code: loaded once per process
    for each version of the file (`_SESSIONS`)."""
    session, hidden, _sha = _checked_session(path)
    return session, hidden


def _checked_session(path) -> tuple:
    """(session, hidden size, the file's sha256) of the model at `path`, the session shared (`_SESSIONS`)."""
    path = Path(path)
    what = model_file_problem(path)
    if what:
        raise ModelError(_("{what}. The shipped model is {shipped}; reinstall cuarenta-tutor, or {fix}").format(
            what=what, shipped=f"models/{DEFAULT_MODEL}", fix=reexport()))
    try:
        sha = file_sha256(path)
    except OSError as err:
        raise _unusable(path, err.strerror or err) from None
    with _SESSIONS_LOCK:
        found = _SESSIONS.pop(sha, None)
        if found is None:
            found = _load_checked(path)
        _SESSIONS[sha] = found  # the newest last
        while len(_SESSIONS) > KEEP_SESSIONS:
            del _SESSIONS[next(iter(_SESSIONS))]
    return (*found, sha)


def _unusable(path, error) -> ModelError:
    return ModelError(_("{path} is not a usable ONNX model (damaged or truncated?): {error}. Replace it with the "
                        "shipped one, or {fix}").format(path=path, error=str(error).splitlines()[0][:200],
                                                        fix=reexport()))


def _load_checked(path: Path) -> tuple:
    """(session, hidden size) of the model at `path`, loaded and checked against this code (ModelError if not)."""
    try:
        session = one_thread_session(path)
    except Exception as err:  # onnxruntime raises its own exception types for unreadable files
        raise _unusable(path, err) from None
    hidden, width = check_metadata(session.get_modelmeta().custom_metadata_map, str(path))
    inputs = session.get_inputs()
    names = [i.name for i in inputs]
    if names != ["obs", "mask", "h", "c"]:
        raise ModelError(_("{path} has inputs {names}, expected obs, mask, h, c; {fix}").format(
            path=path, names=names, fix=reexport()))
    graph_hidden = inputs[2].shape[-1]
    if not 0 < hidden <= MAX_HIDDEN or (isinstance(graph_hidden, int) and graph_hidden != hidden):
        raise ModelError(_("{path} says its hidden_size is {hidden}, but its graph takes {graph}; {fix}").format(
            path=path, hidden=hidden, graph=graph_hidden, fix=reexport()))
    check_outputs(session, hidden, width, path)
    return session, hidden


MAX_HIDDEN = 4096
"""The largest LSTM memory a model may ask for (the shipped one has 128)."""


def obs_width(session) -> int:
    """The observation size a (checked) model reads: that of its encoding version."""
    return check_metadata(session.get_modelmeta().custom_metadata_map, "")[1]


def model_encoding(session) -> int:
    """The encoding version a (checked) model was trained on (encoding.py)."""
    return int(session.get_modelmeta().custom_metadata_map["encoding_version"])


def check_outputs(session, hidden: int, width: int, path) -> None:
    """One step on an empty observation: the outputs must have the contract's shapes and be finite numbers."""
    obs = np.zeros((2, width), np.float32)
    mask = np.ones((2, N_ACTIONS), dtype=bool)
    zero = np.zeros((1, 2, hidden), np.float32)
    try:
        probs, value, h, c = session.run(None, {"obs": obs, "mask": mask, "h": zero, "c": zero})
    except Exception as err:  # onnxruntime's own exception types
        raise ModelError(_("{path} does not run: {error}; {fix}").format(
            path=path, error=str(err).splitlines()[0][:200], fix=reexport())) from None
    if probs.shape != (2, N_ACTIONS) or value.shape != (2,) or h.shape != (1, 2, hidden):
        raise ModelError(_("{path} gives outputs of the wrong shape ({shapes}); {fix}").format(
            path=path, shapes=f"{probs.shape}, {value.shape}, {h.shape}", fix=reexport()))
    if not all(np.isfinite(x).all() for x in (probs, value, h, c)):
        raise ModelError(_("{path} gives non-finite numbers (NaN or infinity): its weights are damaged; {fix}").format(
            path=path, fix=reexport()))


class OnnxPolicy(BasePolicy):
    """The trained A2C-LSTM agent. temperature 0 plays the most likely move; above 0 it samples. `blunder`: the
    share of its moves that are a random legal move instead (weaker levels of play)."""

    def __init__(self, path=None, rng=None, temperature: float = 0.0, blunder: float = 0.0):
        super().__init__(rng)
        self.blunder = blunder
        self.path = Path(path) if path else default_model_path()
        self.session, self.hidden, self.model_id = _checked_session(self.path)  # shared with every agent on it
        self.temperature = temperature
        self.name = "onnx" if path is None else f"onnx:{self.path}"
        self.width = obs_width(self.session)
        """The observation size of the model's encoding version."""
        self.encoding = model_encoding(self.session)
        """The model's encoding version (encoding.py)."""
        self._obs = np.zeros((1, self.width), np.float32)
        self.encoder = encode_into
        """encode_into, or what gives the same numbers (core/observations.py encode_one, compiled, set by the layer
        above where it serves)."""
        self.reset(0)

    def reset(self, seat: int, seed: int | None = None) -> None:
        super().reset(seat, seed)
        self.h = np.zeros((1, 1, self.hidden), np.float32)
        self.c = np.zeros((1, 1, self.hidden), np.float32)
        self._seen = None  # (state, probs, value, h, c) of the last observed state

    @property
    def memory(self) -> tuple:
        """The LSTM memory (h, c), each [1, 1, H], after the last state observed."""
        return self.h, self.c

    def run(self, obs, mask, h, c):
        return self.session.run(None, {"obs": obs, "mask": mask, "h": h, "c": c})

    @property
    def remember(self):
        """The memory-only step (obs, h, c) -> (h_out, c_out) of the model's memory graph (memory_graph.py), or
        None where it has none made for this model."""
        return load_memory(str(self.path), self.model_id)

    def observe(self, state: State, events: tuple = ()) -> None:
        """Step the memory on a state this seat sees (every play, every deal); ModelError if the model gives
        a non-finite number."""
        if self._seen is not None and self._seen[0] is state:
            return
        self.encoder(self._obs[0], state, self.seat, self.encoding)
        mask = legal_mask(state)[None] if state.turn == self.seat and not state.is_over else _ALL
        probs, value, h, c = self.run(self._obs, mask, self.h, self.c)
        if not (np.isfinite(probs).all() and np.isfinite(value).all()):
            raise ModelError(_("{path} gave a non-finite number (NaN or infinity) for this position: its weights are "
                               "damaged; {fix}").format(path=self.path, fix=reexport()))
        self.h, self.c = h, c
        self._seen = (state, probs[0], float(value[0]), h, c)

    def decide(self, state: State) -> Decision:
        self.observe(state)
        _, probs, value, h, c = self._seen
        legal = legal_actions(state)
        p = {a: float(probs[a]) for a in legal}
        return Decision(self._choose(p), p, value, self.after_values(state, legal, h, c), self.model_id)

    def after_values(self, state: State, legal, h, c) -> dict[int, float]:
        """Win probability after each legal move, from this seat's side (one batched call)."""
        afters = [apply(state, a)[0] for a in legal]
        obs = np.zeros((len(legal), self.width), np.float32)
        for i, after in enumerate(afters):
            self.encoder(obs[i], after, self.seat, self.encoding)
        mask = np.ones((len(legal), N_ACTIONS), dtype=bool)
        hb, cb = np.repeat(h, len(legal), axis=1), np.repeat(c, len(legal), axis=1)
        _, values, _, _ = self.run(obs, mask, hb, cb)
        team = self.seat & 1
        out = {}
        for a, after, v in zip(legal, afters, values, strict=True):
            out[a] = float(after.winner == team) if after.is_over else float(v)
        return out

    def _choose(self, probs: dict[int, float]) -> int:
        if self.blunder > 0 and self.rng.random() < self.blunder:
            return self.rng.choice(sorted(probs))
        if self.temperature <= 0:
            return max(probs, key=lambda a: (probs[a], -a))
        actions = list(probs)
        weights = [max(probs[a], 1e-12) ** (1.0 / self.temperature) for a in actions]
        return self.rng.choices(actions, weights)[0]
