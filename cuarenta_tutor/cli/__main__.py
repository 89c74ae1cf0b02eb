"""`python -m cuarenta_tutor.cli`: the `cuarenta-tutor` command."""

from .main import run

run()
