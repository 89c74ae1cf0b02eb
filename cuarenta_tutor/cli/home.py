"""Provides `cuarenta-tutor` with no subcommand: the home screen."""

from __future__ import annotations

from .app import games_folder_writable, one_thread, open_app, preflight, refuse


def run(args) -> int:
    """The home screen, at once: the agent's model is loaded and checked by the app in a worker once the screen is
    drawn (onnxruntime takes a while to load), and a model that does not load is said there, and again when a game
    opens with it (`play` checks it before the app opens)."""
    one_thread()
    problem = preflight(games_folder_writable)
    return refuse("home", problem) if problem else open_app("home")
