"""Loose ends a newcomer and a prober found (issue 65): each a test that failed before its fix."""

import shutil
import subprocess
import sys

from helpers import HANG


def cli(*args) -> list[str]:
    script = shutil.which("cuarenta-tutor")
    return ([script] if script else [sys.executable, "-m", "cuarenta_tutor.cli"]) + list(args)


def test_a_reader_that_leaves_early_stops_the_command_quietly():
    """`bench core | head -1`: the pipe closes after the first line; no BrokenPipeError traceback, the status a
    shell gives a command a closed pipe stopped."""
    proc = subprocess.Popen(cli("bench", "core", "--positions", "400"), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.wait(timeout=HANG)
    assert first.startswith("rules")
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode == 141


def test_a_model_path_that_is_a_device_or_a_pipe_is_refused_before_a_byte_is_read(tmp_path, capsys):
    """`--model /dev/zero` hashed the endless device forever (review, bench analysis); a FIFO would block."""
    import os

    import pytest

    from cuarenta_tutor.agents.onnx_contract import ModelError
    from cuarenta_tutor.agents.onnx_policy import file_sha256, load_session
    from cuarenta_tutor.cli import main

    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)
    for path in ("/dev/zero", fifo):
        with pytest.raises(ModelError, match="not a plain file"):
            file_sha256(path)
        with pytest.raises(ModelError, match="not a plain file"):
            load_session(path)
    assert main(["bench", "analysis", "--model", "/dev/zero", "--positions", "2"]) == 2
    assert "/dev/zero is not a plain file" in capsys.readouterr().err


async def test_a_damaged_level_file_is_said_on_home_and_kept_aside(user_data):
    """level.json damaged: the home screen said nothing and showed the rung as if new; now it says so where the
    person looks, as for the other files, and the file is kept aside."""
    from helpers import settle

    from cuarenta_tutor.players import ladder_path
    from cuarenta_tutor.tui import make_app

    user_data.mkdir(parents=True, exist_ok=True)
    ladder_path().write_text('{"schema_version": 1, "rung": 99, "games": []}')
    app = make_app(agent_delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        problems = str(app.screen.query_one("#problems").render())
        assert "level file" in problems and "rung 99" in problems, problems
    assert [p.read_text() for p in user_data.glob("level.damaged-*.json")] == [
        '{"schema_version": 1, "rung": 99, "games": []}']
