"""Shared fixtures: a temporary user data folder, and colour kept on for Textual snapshots; one thread per library
in each test process (the suite runs one process per core)."""

import os

# Before numpy or torch is imported: two processes with two threads each stall a 2-core machine (CI sets it too).
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402


@pytest.fixture(autouse=True, scope="session")
def compiled_core():
    """The compiled core warmed once per test process, before any test: the app warms it in a thread and lets the
    Python core serve meanwhile (the same numbers, slower: a 5 s cap could then cut an analysis), so a test never
    races that thread."""
    from cuarenta_tutor import core

    core.warm()


@pytest.fixture(autouse=True)
def user_data(tmp_path, monkeypatch):
    """Every test gets its own empty user data folder (records, progress)."""
    home = tmp_path / "user-data"
    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture
def one_process(monkeypatch):
    """Reviews in the app analyse their moves in the test's own process: starting worker processes costs more than
    a test's small review takes, and the annotations are the same with any number (analysis/parallel.py;
    test_e2e_tmux reviews in worker processes)."""
    from cuarenta_tutor.app import review

    monkeypatch.setattr(review, "default_jobs", lambda: 1)
