"""Provides the options that several subcommands share (where Ray runs their work) and their one check."""

from __future__ import annotations

import argparse

RAY_EXTRA = "the ray backend needs the distributed extra: pip install -e '.[distributed]'"


def add_backend_options(parser: argparse.ArgumentParser, work: str) -> None:
    """--backend and --address, for a command whose `work` Ray can spread over a cluster."""
    from ..interop import BACKENDS

    parser.add_argument("--backend", choices=BACKENDS, default="local",
                        help=f"where {work}: local processes (default), or Ray tasks and actors (distributed extra)")
    parser.add_argument("--address", help="with --backend ray: join the Ray cluster at this address (HOST:PORT, or "
                                          "auto); default: start a local Ray instance")


def backend_problem(args) -> str | None:
    """Why the backend options cannot be followed (--address without Ray, Ray not installed), or None."""
    import importlib.util

    if getattr(args, "address", None) and args.backend != "ray":
        return "--address needs --backend ray"
    if getattr(args, "backend", "local") == "ray" and importlib.util.find_spec("ray") is None:
        return RAY_EXTRA
    return None
