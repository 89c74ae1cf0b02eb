"""`python -m cuarenta_tutor`: the same as the `cuarenta-tutor` command."""

from .cli import run

run()
