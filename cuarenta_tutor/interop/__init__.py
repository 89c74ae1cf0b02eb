"""Provides Cuarenta where researchers already work: an OpenSpiel game (openspiel.py, `openspiel` extra), a
PettingZoo AEC environment and a Gymnasium single-agent wrapper (pettingzoo.py, gymnasium_env.py,
`pettingzoo` extra), and Ray backends for the arena and training (distributed.py, `distributed` extra).

Each module imports its extra when it is imported; nothing in the app imports this package."""

BACKENDS = ("local", "ray")
"""Where an arena's games and training's rollouts run: local processes, or Ray tasks and actors (distributed.py)."""

CONNECT_SECONDS = 5
"""How long joining a Ray cluster waits for its address to answer before it gives up."""


def address_problem(address: str) -> str | None:
    """Why no Ray cluster can be joined at `address` (HOST:PORT, ray://HOST:PORT or auto): not an address, or nothing
    answers there within CONNECT_SECONDS (Ray itself would wait for minutes); None when something does."""
    import socket

    if address == "auto":
        return None
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        return f"--address {address!r} is not HOST:PORT, as in 127.0.0.1:6379 (or auto)"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS):
            return None
    except OSError as err:
        why = "no answer" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        return (f"no Ray cluster answers at {address} (gave up after {CONNECT_SECONDS} s: {why}); start one there "
                f"with `ray start --head --port {port}`, or leave out --address for a local one")
