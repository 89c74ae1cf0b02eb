"""Provides the paths of the shipped data (models/, lessons/), in a checkout or an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder `models` or `lessons`: inside the wheel (_data/), else beside the package in a checkout."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the shipped folder {name!r} is missing; reinstall cuarenta-tutor")
