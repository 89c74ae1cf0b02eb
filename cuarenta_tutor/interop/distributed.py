"""Provides Ray backends for what outgrows one machine (`--backend ray`, the `distributed` extra): an arena's games
as Ray tasks and training's rollouts as Ray actors, on a local Ray instance or a cluster joined by its address.

Nothing here knows the game: the arena hands over its game function and every game's arguments, training its
rollout class and every worker's share. Results come back in the fixed order the local backend gives them, and
each is computed from the same arguments, so the numbers are the same as the local backend's.
"""

from __future__ import annotations

import ray


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Join the Ray cluster at `address` (RuntimeError when nothing answers there within CONNECT_SECONDS), or start
    a quiet local one with `num_cpus` CPUs (None: all cores). True when this call started Ray (the caller shuts it
    down when done); False when Ray was already running."""
    if ray.is_initialized():
        return False
    if address:
        from . import address_problem

        problem = address_problem(address)  # ray.init would wait for minutes on an address where nothing answers
        if problem:
            raise RuntimeError(problem)
        try:
            ray.init(address=address, log_to_driver=False, logging_level="warning")
        except ConnectionError as err:
            raise RuntimeError(f"cannot join the Ray cluster at {address}: {err} (a cluster with token "
                               "authentication, Ray's default, also needs RAY_AUTH_MODE=token and its token)") from None
    else:
        ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, logging_level="warning")
    return True


def map_in_order(fn, tasks: list[tuple], progress=None, address: str | None = None,
                 num_cpus: int | None = None) -> list:
    """`fn(*t)` for every `t` in `tasks`, each a Ray task of one CPU; the results in the order of `tasks`.
    `progress(done, total)` is called as tasks finish, in whatever order they do."""
    started = connect(address, num_cpus)
    try:
        remote = ray.remote(num_cpus=1)(fn)
        refs = [remote.remote(*t) for t in tasks]
        pending = refs
        while pending:  # whatever finished in the last fifth of a second
            _, still = ray.wait(pending, num_returns=len(pending), timeout=0.2)
            if progress and len(still) < len(pending):
                progress(len(refs) - len(still), len(refs))
            pending = still
        return ray.get(refs)
    finally:
        if started:
            ray.shutdown()


class Holder:
    """What a Ray actor holds: the object `make(*args)` built in the actor's process, called on request."""

    def __init__(self, make, *args):
        self.made = make(*args)

    def call(self, *args):
        return self.made(*args)


class Actors:
    """One Ray actor of one CPU per entry of `shares`, each holding `make(*share)` (a callable).

    `call(*args)` calls every one with the same arguments, each put in the object store once (every actor
    gets the same object refs), and returns their results in the order of `shares`. `close()` ends them."""

    def __init__(self, make, shares: list[tuple], address: str | None = None, num_cpus: int | None = None):
        self.started, self.actors = connect(address, num_cpus), []
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < len(shares):  # the actors that do not fit would wait for a CPU forever
            self.close()
            raise RuntimeError(f"the Ray cluster has {cpus:g} CPUs, too few for {len(shares)} actors of one "
                               "CPU each (one per rollout worker): use fewer workers, or a bigger cluster")
        actor = ray.remote(num_cpus=1)(Holder)
        self.actors = [actor.remote(make, *share) for share in shares]

    def call(self, *args) -> list:
        refs = [ray.put(a) for a in args]
        try:
            return ray.get([actor.call.remote(*refs) for actor in self.actors])
        except ray.exceptions.RayError as err:  # an actor that raised or died: the learner reports it
            raise RuntimeError(f"a Ray actor failed: {err}") from None

    def close(self) -> None:
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []
        if self.started:
            ray.shutdown()
            self.started = False
