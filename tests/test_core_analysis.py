"""The analysis gives the same numbers on either core (CUARENTA_TUTOR_CORE=python|fast) for the same worlds: every
horizon, 1 v 1 and 2 v 2, a hand table's leaf and the critic's, the playouts played by the network or the model's
playout policy (near the end after the network's first plies), across deals and hands."""

import random
from dataclasses import replace

import pytest
from helpers import agent_position, another_thread_loading, fixed

from cuarenta_tutor import core
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
from cuarenta_tutor.analysis.analyse import analyse
from cuarenta_tutor.analysis.values import simulate
from cuarenta_tutor.engine import Rules

AGENT = OnnxPolicy()


def both(monkeypatch, state, memory, settings):
    found = []
    for name in core.CORES:
        monkeypatch.setenv("CUARENTA_TUTOR_CORE", name)
        found.append(analyse(state, AGENT, settings, memory=memory))
    return found


@pytest.mark.parametrize("players, plies, horizon, leaf, playout", [
    (2, 3, "hand", "table", "policy"), (2, 3, "hand", "table", "network"), (2, 9, "deal", "critic", "network"),
    (2, 26, "game", "table", "network"), (2, 14, "hand", "critic", "network"), (4, 5, "hand", "table", "policy"),
    (4, 5, "hand", "table", "network"), (4, 12, "deal", "critic", "network"),
])
def test_either_core_gives_the_same_analysis(monkeypatch, players, plies, horizon, leaf, playout):
    state, memory = agent_position(players, plies, random.Random(plies).randrange(1000))
    settings = replace(fixed(6), horizon=horizon, leaf=leaf, round_worlds=3, playout=playout)
    python, fast = both(monkeypatch, state, memory, settings)
    assert core.fast()
    assert python.moves == fast.moves
    assert (python.worlds, python.leaf, python.known, python.playout) == (fast.worlds, fast.leaf, fast.known, playout)


@pytest.mark.parametrize("players, plies", [(2, 7), (4, 6)])
def test_either_core_gives_the_same_analysis_near_the_end(monkeypatch, players, plies):
    # the other team 2 points from winning: the network plays the first plies, the policy the rest (analyse.py)
    state, memory = agent_position(players, plies, plies)
    other = 1 - state.team_of(state.turn)
    state = state._replace(scores=tuple(38 if team == other else 30 for team in (0, 1)))
    python, fast = both(monkeypatch, state, memory, replace(fixed(6), round_worlds=3))
    assert python.moves == fast.moves and python.playout == fast.playout == "policy"


def test_the_hand_tables_simulation_is_the_same_on_either_core(monkeypatch):
    starts = [((0, 0), 0), ((31, 12), 1), ((36, 37), 0)]
    found = []
    for name in core.CORES:
        monkeypatch.setenv("CUARENTA_TUTOR_CORE", name)
        found.append(simulate(AGENT, Rules(), starts, 4, seed=5))
    assert found[0] == found[1]
    assert any(isinstance(outcome, int) for outcome in found[0][2])  # a hand from 36-37 often ends the game


def test_an_unknown_core_is_named_and_the_fast_one_serves(monkeypatch, capsys):
    from cuarenta_tutor.cli import main

    monkeypatch.setenv("CUARENTA_TUTOR_CORE", "turbo")
    assert core.chosen() == "fast" and core.fast()
    main(["stats", "--json"])
    assert "CUARENTA_TUTOR_CORE must be one of python, fast, not 'turbo'" in capsys.readouterr().err


def test_while_another_thread_compiles_the_core_the_python_one_serves(monkeypatch):
    monkeypatch.setattr(core, "_cached", lambda: False)  # no whole warm in the cache folder: a warm compiles
    monkeypatch.setitem(core._WARM, "done", False)
    monkeypatch.setitem(core._WARM, "busy", True)
    assert not core.fast()
    monkeypatch.setitem(core._WARM, "busy", False)
    assert core.fast() and core._WARM["done"]  # nobody warming: it warms (here from the cache) and serves


def test_while_another_thread_loads_a_whole_cache_the_load_is_waited_for(monkeypatch):
    import threading

    from cuarenta_tutor.core.jit import cache_dir

    assert (cache_dir() / core.WHOLE).exists()  # the session's warm (conftest) left the cache whole
    threading.Timer(0.2, another_thread_loading(monkeypatch)).start()
    assert core.fast()  # it waited for the load instead of serving the Python core
    another_thread_loading(monkeypatch)
    monkeypatch.setattr(core, "LOAD_WAIT_S", 0.05)
    assert not core.fast()  # a load that takes longer than the wait (a stale cache compiling): the Python core serves
    core._WARMED.set()
