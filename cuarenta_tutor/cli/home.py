"""Provides `cuarenta-tutor` with no subcommand: the home screen."""

from __future__ import annotations

from .app import games_folder_writable, model_loads, one_thread, open_app, preflight, refuse


def run(args) -> int:
    one_thread()
    problem = preflight(model_loads(), games_folder_writable)
    return refuse("home", problem) if problem else open_app("home")
