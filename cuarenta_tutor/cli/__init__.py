"""Provides the `cuarenta-tutor` command: one module per subcommand (main.py builds the parser from them and
dispatches), each importing what it needs only when it runs."""

from .main import build_parser, main, run

__all__ = ["build_parser", "main", "run"]
