"""The Ray backends (interop/distributed.py, the distributed extra): an arena's games as Ray tasks and training's
rollouts as Ray actors give the local backend's numbers; without ray the command names the extra to install."""

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import HANG

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")  # one worker runs the module: one local Ray instance, not one per worker

from cuarenta_tutor.arena import run_match  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray instance of 2 CPUs for the whole module: the backends use it instead of starting their own."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    yield
    ray.shutdown()


def cli(*args, flags=()):
    return subprocess.run([sys.executable, *flags, "-m", "cuarenta_tutor.cli", *args], capture_output=True,
                          text=True, check=False, timeout=HANG, stdin=subprocess.DEVNULL, cwd=ROOT)


def untimed(results):
    """Results without the time spent deciding (the one figure that may differ between runs)."""
    return [dataclasses.replace(r, a=dataclasses.replace(r.a, seconds=0.0), b=dataclasses.replace(r.b, seconds=0.0))
            for r in results]


def test_an_arena_on_ray_gives_the_local_results_in_the_same_order():
    local = run_match("greedy", "expert", 20, jobs=2, seed=4)
    seen = []
    on_ray = run_match("greedy", "expert", 20, jobs=2, seed=4, backend="ray",
                       progress=lambda done, total: seen.append((done, total)))
    assert untimed(on_ray) == untimed(local)
    assert [(r.pair, r.swapped) for r in on_ray] == [(p, s) for p in range(10) for s in (False, True)]
    assert len({(r.a.points, r.b.points) for r in local}) > 1  # the games differ: the comparison means something
    assert seen and seen[-1] == (20, 20) and all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))


def untimed_summary(out: str) -> dict:
    """The JSON summary the arena command prints last, without its decision times."""
    summary = json.loads(out.strip().splitlines()[-1])
    for key in ("a", "b"):
        summary[key].pop("decision_ms")
    return {k: v for k, v in summary.items() if not k.startswith("decision_ms")}


def test_the_arena_command_on_ray_prints_the_local_summary(capsys):
    # the command in this process, on the module's Ray instance (a command of its own would start a Ray of its own)
    from cuarenta_tutor.cli import main

    args = ["arena", "random", "greedy", "--games", "8", "--jobs", "2", "--seed", "3", "--json"]
    assert main(args) == 0
    local = capsys.readouterr().out
    assert main([*args, "--backend", "ray"]) == 0
    on_ray = capsys.readouterr()
    assert untimed_summary(on_ray.out) == untimed_summary(local)
    assert "Traceback" not in on_ray.err


def test_training_on_ray_actors_matches_the_local_workers(tmp_path):
    workers = 2  # each actor plays its share of the games, as each local worker process does
    torch = pytest.importorskip("torch", reason="needs the train extra")
    from cuarenta_tutor.training.a2c import Config, train

    cfg = Config(total_steps=3 * 4 * 8, num_envs=4, rollout_len=8, eval_every=0, snapshot_every=2, hidden=16,
                 feature=16, strategy=16, workers=workers)  # three updates, a past snapshot after the second
    quiet = open("/dev/null", "w")
    local = torch.load(train(cfg, tmp_path / "local", log=quiet), weights_only=True)
    on_ray = torch.load(train(cfg, tmp_path / "ray", log=quiet, backend="ray"), weights_only=True)
    assert on_ray["progress"]["steps"] == local["progress"]["steps"] == 96
    for name, weights in local["model"].items():
        assert torch.allclose(on_ray["model"][name], weights, rtol=0, atol=1e-6), name
    moments = [(s["exp_avg"], s["exp_avg_sq"]) for s in local["optimizer"]["state"].values()]
    ray_moments = [(s["exp_avg"], s["exp_avg_sq"]) for s in on_ray["optimizer"]["state"].values()]
    assert all(torch.allclose(a, b, rtol=0, atol=1e-6) for m, n in zip(moments, ray_moments, strict=True)
               for a, b in zip(m, n, strict=True))
    assert any(not torch.equal(w, torch.zeros_like(w)) for w in local["model"].values())


def test_bench_train_on_ray_reports_the_backend_and_steps_per_second(monkeypatch):
    pytest.importorskip("torch", reason="needs the train extra")
    from cuarenta_tutor.bench import bench_train
    from cuarenta_tutor.interop import distributed

    made = []  # the actors' shares: the rollouts were played on Ray (one actor: two are the training test's)
    real = distributed.Actors.__init__
    monkeypatch.setattr(distributed.Actors, "__init__", lambda self, make, shares, *a, **k: (
        made.append(len(shares)), real(self, make, shares, *a, **k))[-1])
    result = bench_train(128, {"num_envs": 4, "rollout_len": 8, "hidden": 16, "feature": 16, "strategy": 16,
                               "workers": 1, "threads": 1, "log_every": 2}, backend="ray")
    assert made == [1]
    assert result["backend"] == "ray" and result["workers"] == 1 and result["steps"] >= 128
    assert result["steps_per_second"] > 0 and result["rollout_s"] > 0 and result["update_s"] > 0


def test_more_rollout_actors_than_the_cluster_has_cpus_are_refused():
    pytest.importorskip("torch", reason="needs the train extra")
    from cuarenta_tutor.training.a2c import Config
    from cuarenta_tutor.training.rollout import Rollouts

    cfg = Config(num_envs=4, rollout_len=4, hidden=16, feature=16, strategy=16, workers=3)
    with pytest.raises(RuntimeError, match="2 CPUs, too few for 3"):  # never a wait for a CPU that never comes
        Rollouts(cfg, 0, backend="ray")


def test_the_command_names_the_extra_when_ray_is_not_installed():
    # -S: a Python without site-packages, so without ray (the package itself is found from the working folder)
    for args in (("arena", "random", "random", "--backend", "ray"), ("train", "--backend", "ray"),
                 ("bench", "train", "--backend", "ray")):
        out = cli(*args, flags=("-S",))
        assert out.returncode == 2, out.stderr
        assert "the ray backend needs the distributed extra: pip install -e '.[distributed]'" in out.stderr
        assert "Traceback" not in out.stderr


def test_an_address_without_the_ray_backend_is_refused():
    out = cli("arena", "random", "random", "--address", "127.0.0.1:6379")
    assert out.returncode == 2 and "--address needs --backend ray" in out.stderr
