"""Provides the paths of the shipped data (models/, lessons/), in a checkout or an installed wheel, and the
installed version."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from .i18n import _

_PACKAGE = Path(__file__).resolve().parent
DATA_ENV = "CUARENTA_TUTOR_HOME"
"""The variable that moves the user data folder (tests give each test its own)."""


def data_dir(name: str) -> Path:
    """The folder `models` or `lessons`: inside the wheel (_data/), else beside the package in a checkout."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(_("the shipped folder {name} is missing; reinstall cuarenta-tutor").format(
        name=repr(name)))


@lru_cache(maxsize=1)
def version() -> str:
    """The installed version of cuarenta-tutor."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("cuarenta-tutor")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed)"


def user_data_dir() -> Path:
    """The person's data folder: $CUARENTA_TUTOR_HOME if set, else the platform's (platformdirs)."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_data_dir("cuarenta-tutor", appauthor=False))
