"""Provides the progress bar of long commands (rich, on stderr, with the rate and the time left)."""

from __future__ import annotations

from .i18n import _, number


def progress_bar(description: str):
    """A rich progress bar on stderr with the rate and the time left: a context manager giving
    `advance(done, total)`. The bar appears at the first advance, so a refusal before any game shows none."""
    from contextlib import contextmanager

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    @contextmanager
    def bar():
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[rate]}"), TimeRemainingColumn())
        progress = Progress(*columns, console=Console(stderr=True), transient=False)
        task = None

        def advance(done: int, total: int) -> None:
            nonlocal task
            if task is None:
                progress.start()
                task = progress.add_task(description, total=total, completed=done, rate="")  # done before: no rate
            speed = progress.tasks[0].speed
            rate = _("{rate}/s").format(rate=number(speed, 1)) if speed else ""
            progress.update(task, completed=done, total=total, rate=rate)
        try:
            yield advance
        finally:
            if task is not None:
                progress.stop()
    return bar()
