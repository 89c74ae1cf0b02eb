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
