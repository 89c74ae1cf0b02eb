"""Shared fixtures: a temporary user data folder, and colour kept on for Textual snapshots; one thread per library
in each test process (the suite runs a process per core, and one more)."""

import os

# Before numpy or torch is imported: two processes with two threads each stall a 2-core machine (CI sets it too).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The tests read English unless they ask for Spanish (`--lang es`, LANGUAGE=es, i18n.set_language("es")): a
# developer's es_EC locale must not change what the suite reads. LANGUAGE is the first variable gettext reads.
os.environ["LANGUAGE"] = "en"

import pytest  # noqa: E402


def pytest_xdist_auto_num_workers(config):
    """`-n auto` (pyproject.toml): a worker per core. Part of the suite's time is spent waiting (for a terminal app
    in tmux, a browser, Ray's start, a key's pace), when a worker more could use the core, and an earlier suite ran
    faster so (2 quiet cores: 2 min 31-45 s with 3 workers, 3 min 7-9 s with 2); the suite since is busier, and a
    third worker now costs more than it fills: 2026-11-28, the same 2 cores, pytest's time with 2 workers 189-207 s
    over four runs (the machine's busy CPU 347-369 s), with 3 205-228 s over four (396-440 s), on a compiled core
    kept and on one compiled in the run alike."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


SLOW_FIRST = ("test_e2e_tmux.py", "test_tui_pace.py", "test_tui_lessons.py", "test_tui_2v2.py", "test_tui.py",
              "test_levels.py", "test_gate.py", "test_lessons.py", "test_cli.py", "test_snapshots.py")
"""The files whose tests take longest (`--durations`; the xdist groups are sent first anyway, the largest first):
their tests are handed out first, so no worker is left with a long test while the others are done."""


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest in their order


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


@pytest.fixture(autouse=True)
def english():
    """Each test starts in English (the language is a process's), and a test that switched to Spanish leaves the
    next one English."""
    from cuarenta_tutor import i18n

    i18n.set_language("en")
    yield
    i18n.set_language("en")


@pytest.fixture
def spanish():
    """The test reads Spanish."""
    from cuarenta_tutor import i18n

    i18n.set_language("es")
    yield
    i18n.set_language("en")


@pytest.fixture
def one_process(monkeypatch):
    """Reviews in the app analyse their moves in the test's own process: starting worker processes costs more than
    a test's small review takes, and the annotations are the same with any number (analysis/parallel.py;
    test_e2e_tmux reviews in worker processes)."""
    from cuarenta_tutor.app import review

    monkeypatch.setattr(review, "default_jobs", lambda: 1)


@pytest.fixture
def model_copy(tmp_path):
    """The shipped model and its sidecar in a folder of their own (their sidecar is then the test's to change)."""
    import shutil

    from cuarenta_tutor.agents.onnx_policy import default_model_path
    from cuarenta_tutor.analysis.values import forget, sidecar

    shipped = default_model_path()
    for path in (shipped, shipped.with_suffix(".json"), sidecar(shipped)):
        shutil.copyfile(path, tmp_path / path.name)
    forget()
    yield tmp_path / shipped.name
    forget()
