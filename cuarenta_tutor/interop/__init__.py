"""Provides Cuarenta where researchers already work: an OpenSpiel game (openspiel.py, `openspiel` extra), a
PettingZoo AEC environment and a Gymnasium single-agent wrapper (pettingzoo.py, gymnasium_env.py,
`pettingzoo` extra), and Ray backends for the arena and training (distributed.py, `distributed` extra).

Each module imports its extra when it is imported; nothing in the app imports this package."""

BACKENDS = ("local", "ray")
"""Where an arena's games and training's rollouts run: local processes, or Ray tasks and actors (distributed.py)."""
