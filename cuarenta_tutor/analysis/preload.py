"""What the analysis's worker processes' server loads before it forks them (workers.worker_pool): the analysis's
modules (numpy, onnxruntime, the engine) and the compiled core, loaded once there, so a worker starts with them in
place instead of importing and loading them itself. Nothing here starts a thread: the server forks."""

from .. import core
from . import parallel, values  # noqa: F401 - imported for the workers

core.preload()
