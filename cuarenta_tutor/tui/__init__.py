"""Provides the terminal app (Textual): home, play, review, help."""

from .app import CuarentaApp, make_app

__all__ = ["CuarentaApp", "make_app"]
