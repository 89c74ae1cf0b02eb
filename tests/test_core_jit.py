"""The core's compiler (core/jit.py): a compiled function called by another with constants or narrow integers is
compiled once, for plain 64-bit integers and flags, and gives the plain function's results."""

import numpy as np
import pytest

from cuarenta_tutor.core.jit import available, njit

pytestmark = pytest.mark.skipif(not available(), reason="numba is not installed: the core runs as Python")


def offset(a, b):
    return a + 10 if b else a - 10


def calls(values):
    # a constant flag, a constant int, an int32 from an array, a computed flag: one compile of offset for them all
    return offset_compiled(values[0], False) + offset_compiled(3, True) + offset_compiled(values[1], values[1] > 1)


offset_compiled = offset


def test_constants_and_int32s_share_one_compile_of_the_callee(tmp_path, monkeypatch):
    import numba
    from numba.core import types

    from cuarenta_tutor.core import jit

    monkeypatch.setattr(jit, "cache_dir", lambda: tmp_path)  # compiled here, not loaded from an earlier run's cache
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    global offset_compiled
    offset_compiled = njit(offset)
    try:
        values = np.array([5, 2], dtype=np.int32)
        assert njit(calls)(values) == (5 - 10) + (3 + 10) + (2 + 10)
        assert offset_compiled.signatures == [(types.int64, types.boolean)]
    finally:
        offset_compiled = offset


PROBE = """
import os, numba
from cuarenta_tutor.core import jit
def double(x):
    return 2 * x
assert jit.njit(double)(4) == 8
print(int(numba.config.OPT), jit.cache_dir().name.rsplit("-", 1)[1], os.environ["NUMBA_OPT"])
"""


@pytest.mark.parametrize(("asked", "level"), [(None, "1"), ("2", "2")])
def test_the_core_compiles_at_level_1_unless_numba_opt_says_and_keeps_each_level_apart(tmp_path, asked, level):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"} | {"NUMBA_CACHE_DIR": str(tmp_path)}
    if asked:
        env["NUMBA_OPT"] = asked
    probe = tmp_path / "probe.py"  # a file: numba caches what it compiles beside its source's name
    probe.write_text(PROBE)
    out = subprocess.run([sys.executable, str(probe)], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [level, f"O{level}", level]  # compiled at it, cached in a folder of its own


WARM_PROBE = """
import sys
from cuarenta_tutor import core
from cuarenta_tutor.core import jit
def double(x):
    return 2 * x
compiled = jit.njit(double)
core._warm_play = lambda: compiled(4)  # the warm's parts: one small function, cached like the core's
core._warm_encode = lambda: None
core.warm()
print(core.notice() or "no notice")
"""


def test_a_damaged_compiled_cache_is_set_aside_and_compiled_again_with_one_line(tmp_path):
    """Random bytes in numba's cache files (index and code): the warm sets the folder aside, compiles again and says
    so once; the next run loads the new cache in silence."""
    import os
    import subprocess
    import sys

    cache = tmp_path / "cache"
    env = os.environ | {"NUMBA_CACHE_DIR": str(cache)}
    probe = tmp_path / "probe.py"
    probe.write_text(WARM_PROBE)
    run = lambda: subprocess.run([sys.executable, str(probe)], env=env, capture_output=True, text=True, timeout=120)
    first = run()
    assert first.returncode == 0 and first.stdout.strip() == "no notice", first.stderr
    damaged = [p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc")]
    assert damaged
    for path in damaged:
        path.write_bytes(os.urandom(200))
    second = run()
    assert second.returncode == 0, second.stderr
    assert "cache was damaged" in second.stdout and "kept aside as" in second.stdout
    assert len(list(cache.glob("core-*.damaged-*"))) == 1
    third = run()
    assert third.returncode == 0 and third.stdout.strip() == "no notice", third.stdout + third.stderr
