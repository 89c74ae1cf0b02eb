"""What the rollout workers' server process loads before it forks them (rollout.worker_context): the rollouts'
module and the compiled core, loaded once there, so each worker starts with both in place instead of loading the core
from numba's disk cache itself (about 0.8 s a worker, the training tests' worker starts 12 of them)."""

from .. import core
from . import rollout  # noqa: F401 - imported for the workers: torch and the rollouts' code

core.preload()
