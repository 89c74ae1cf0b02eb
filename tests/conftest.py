"""Shared fixtures: a temporary user data folder, and colour kept on for Textual snapshots."""

import pytest


@pytest.fixture(autouse=True)
def user_data(tmp_path, monkeypatch):
    """Every test gets its own empty user data folder (records, progress)."""
    home = tmp_path / "user-data"
    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(home))
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home
