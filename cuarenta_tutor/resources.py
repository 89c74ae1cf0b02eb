"""Provides the paths of the shipped data (models/, lessons/), in a checkout or an installed wheel, and the
installed version."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder `models` or `lessons`: inside the wheel (_data/), else beside the package in a checkout."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the shipped folder {name!r} is missing; reinstall cuarenta-tutor")


@lru_cache(maxsize=1)
def version() -> str:
    """The installed version of cuarenta-tutor."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("cuarenta-tutor")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"
