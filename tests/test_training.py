"""Training, export and the ONNX agent: GAE by hand, a tiny run end to end, parity, bad model files."""

import json
import subprocess
import sys

import numpy as np
import pytest
from helpers import HANG, core_loaded_in

torch = pytest.importorskip("torch", reason="needs the train extra")
pytest.importorskip("onnx", reason="needs the train extra")
pytestmark = pytest.mark.xdist_group("training")  # the tiny model is trained once, on one worker

from cuarenta_tutor.agents import make_policy  # noqa: E402
from cuarenta_tutor.agents.onnx_contract import ModelError  # noqa: E402
from cuarenta_tutor.agents.onnx_policy import OnnxPolicy  # noqa: E402
from cuarenta_tutor.cli import main  # noqa: E402
from cuarenta_tutor.engine import Dealer, legal_actions  # noqa: E402
from cuarenta_tutor.training.a2c import Config, gae, train  # noqa: E402
from cuarenta_tutor.training.export import check_parity, check_symbolic_batch, export, load_net  # noqa: E402


def test_gae_matches_a_hand_computed_reference():
    # One stream, three steps, the game ends at the last step with a win (reward 1).
    rewards = torch.tensor([[0.0], [0.0], [1.0]])
    values = torch.tensor([[0.5], [0.6], [0.8]])
    ended = torch.tensor([[0.0], [0.0], [1.0]])
    adv, ret = gae(rewards, values, ended, torch.tensor([0.3]), gamma=1.0, lam=0.5)
    # deltas: .6-.5=.1, .8-.6=.2, 1-.8=.2 (no bootstrap after the end)
    # A2 = .2; A1 = .2 + .5*.2 = .3; A0 = .1 + .5*.3 = .25
    assert adv[:, 0].tolist() == pytest.approx([0.25, 0.3, 0.2])
    assert ret[:, 0].tolist() == pytest.approx([0.75, 0.9, 1.0])
    # without an end the last step bootstraps from next_value
    adv, _ = gae(torch.zeros(1, 1), torch.tensor([[0.4]]), torch.zeros(1, 1), torch.tensor([0.7]), 1.0, 0.95)
    assert adv.item() == pytest.approx(0.3)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    cfg = Config(total_steps=256, num_envs=8, rollout_len=16, eval_every=0, snapshot_every=4, log_every=1, hidden=32,
                 feature=64, strategy=32, workers=1)  # two updates, the rollout in the learner's process
    ckpt = train(cfg, out, log=open("/dev/null", "w"))
    return ckpt, export(ckpt, out / "tiny.onnx")


def test_tiny_training_run_exports_and_plays_a_game(tiny_model):
    ckpt, model = tiny_model
    metrics = [json.loads(line) for line in (ckpt.parent / "metrics.jsonl").read_text().splitlines()]
    assert metrics and metrics[-1]["steps"] > 0 and "value_loss" in metrics[-1]
    assert torch.load(ckpt, weights_only=True)["progress"]["steps"] == 256
    policy = OnnxPolicy(model)
    dealer = Dealer(3)
    state, _ = dealer.start()
    policy.reset(0)
    other = make_policy("greedy")
    while not state.is_over:
        if state.turn == 0:
            d = policy.decide(state)
            assert d.action in legal_actions(state)
            assert set(d.action_values) == set(legal_actions(state))
            assert abs(sum(d.probs.values()) - 1) < 1e-4 and 0 <= d.value <= 1
            action = d.action
        else:
            action = other.decide(state).action
        state, events = dealer.play(state, action)
        policy.observe(state, events)
    assert state.winner in (0, 1)


def test_resume_continues_from_the_checkpoint(tiny_model, tmp_path):
    ckpt, _ = tiny_model
    import shutil

    shutil.copy(ckpt, tmp_path / "checkpoint.pt")
    before = torch.load(ckpt, weights_only=True)["progress"]
    cfg = Config(total_steps=before["steps"] + 2 * 128, num_envs=8, rollout_len=16, eval_every=0, snapshot_every=4,
                 hidden=32, feature=64, strategy=32, workers=1)  # two updates of 8 games x 16 plays more
    train(cfg, tmp_path, resume=True, log=open("/dev/null", "w"))
    progress = torch.load(tmp_path / "checkpoint.pt", weights_only=True)["progress"]
    assert (progress["steps"], progress["updates"]) == (before["steps"] + 256, before["updates"] + 2)


def test_onnx_matches_pytorch_over_carried_steps_at_batch_1_and_3(tiny_model):
    ckpt, model = tiny_model
    net, cfg, _ = load_net(ckpt)
    assert check_parity(net, model, cfg.hidden, steps=50) <= 1e-5
    check_symbolic_batch(model)


def test_damaged_and_mismatched_models_are_refused_clearly(tiny_model, tmp_path):
    _, model = tiny_model
    with pytest.raises(ModelError, match="not found"):
        OnnxPolicy(tmp_path / "missing.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(model.read_bytes()[:500])
    with pytest.raises(ModelError, match="damaged or truncated"):
        OnnxPolicy(broken)
    import onnx

    m = onnx.load(str(model))
    for prop in m.metadata_props:
        if prop.key == "encoding_version":
            prop.value = "0"
    old = tmp_path / "old.onnx"
    onnx.save(m, str(old))
    with pytest.raises(ModelError, match="re-export"):
        OnnxPolicy(old)
    m = onnx.load(str(model))
    for prop in m.metadata_props:
        if prop.key == "hidden_size":
            prop.value = "100000000"  # would ask for gigabytes of memory
    huge = tmp_path / "huge.onnx"
    onnx.save(m, str(huge))
    with pytest.raises(ModelError, match="says its hidden_size is 100000000, but its graph takes"):
        OnnxPolicy(huge)
    import numpy as np
    from onnx import numpy_helper

    m = onnx.load(str(model))
    weights = next(t for t in m.graph.initializer if t.name.endswith("critic.bias"))  # the value turns NaN
    nan = numpy_helper.to_array(weights).copy()
    nan.flat[:] = np.nan
    weights.CopyFrom(numpy_helper.from_array(nan, weights.name))
    poisoned = tmp_path / "nan.onnx"
    onnx.save(m, str(poisoned))
    with pytest.raises(ModelError, match="non-finite numbers"):
        OnnxPolicy(poisoned)


def test_playing_needs_no_torch(tiny_model):
    _, model = tiny_model
    code = f"""
import sys, builtins
real = builtins.__import__
def guard(name, *a, **k):
    if name == "torch" or name.startswith("torch."):
        raise ImportError("torch is blocked in this test")
    return real(name, *a, **k)
builtins.__import__ = guard
from cuarenta_tutor.arena import run_match, summarize
r = run_match("onnx:{model}", "random", 2, seed=5)
print(summarize("onnx", "random", r).games, "torch" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2", "False"]


def test_temperature_spec_and_errors():
    with pytest.raises(ValueError, match="temp"):
        make_policy("onnx:x.onnx@heat=2")


def test_export_command_reports_a_missing_checkpoint(tmp_path, capsys):
    # in this process, as the other refusals below (a command of its own would spend seconds importing torch)
    assert main(["export", str(tmp_path / "none.pt")]) == 2
    assert "no checkpoint" in capsys.readouterr().err


def test_calibrated_export_rescales_the_value_and_keeps_parity(tiny_model, tmp_path):
    import math

    import onnxruntime as ort

    from cuarenta_tutor.encoding import N_ACTIONS, OBS_SIZE

    ckpt, model = tiny_model
    scaled = export(ckpt, tmp_path / "scaled.onnx", calibration=(0.5, -0.25))  # parity checked inside
    feeds = {"obs": np.full((2, OBS_SIZE), 0.3, np.float32), "mask": np.ones((2, N_ACTIONS), bool),
             "h": np.zeros((1, 2, 32), np.float32), "c": np.zeros((1, 2, 32), np.float32)}
    plain = ort.InferenceSession(str(model)).run(None, feeds)[1]
    after = ort.InferenceSession(str(scaled)).run(None, feeds)[1]
    for p, q in zip(plain, after, strict=True):
        assert q == pytest.approx(1 / (1 + math.exp(-(0.5 * math.log(p / (1 - p)) - 0.25))), abs=1e-5)
    meta = ort.InferenceSession(str(scaled)).get_modelmeta().custom_metadata_map
    assert meta["value_calibration"] == "0.500000,-0.250000"


@pytest.mark.parametrize("bad, says", [
    (dict(pool={"champion": 1.0}), "unknown opponent kind"), (dict(rules="chess"), "unknown rules preset"),
    (dict(workers=0), "workers must be from 1 to 256, not 0"), (dict(pool={"self": 0.0}), "pool needs"),
    (dict(num_envs=2, num_minibatches=8), "num_minibatches"), (dict(mix={"standard/3": 1.0}), "preset/4"),
    (dict(mix={"chess/4": 1.0}), "unknown rules preset"), (dict(mix={"standard": -1.0}), "mix needs"),
    (dict(lr=-1.0), "lr must be above 0 and at most 1, not -1.0"), (dict(lr=float("nan")), "lr must be above 0"),
    (dict(hidden=0), "hidden must be from 1 to 4096, not 0"), (dict(feature=-5), "feature must be from 1"),
    (dict(gamma=2.0), "gamma must be from 0 to 1"), (dict(clip_coef=0.0), "clip_coef must be above 0"),
    (dict(pool={"self": float("nan")}), "weights must be finite"), (dict(total_steps=10**12), "total_steps must be"),
])
def test_bad_training_settings_are_refused_before_training(bad, says):
    with pytest.raises(ValueError, match=says):
        Config(**bad)


def test_train_command_names_a_bad_setting_without_a_traceback(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"pool": {"champion": 1.0}}))
    # in this process: an exception the command does not turn into a line fails the test
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert "unknown opponent kind(s) in pool: champion" in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err and not (tmp_path / "run").exists()


def test_a_rollout_worker_starts_with_the_compiled_core_loaded():
    # forked from a server that loaded it once (training/preload.py), not loading it from the disk cache itself
    from cuarenta_tutor.training.rollout import worker_context

    ctx = worker_context()
    if ctx.get_start_method() != "forkserver":
        pytest.skip("no forkserver here: workers are spawned, each loading the core")
    with ctx.Pool(1) as pool:
        assert core_loaded_in(pool) is True


def test_a_rollout_worker_that_dies_is_reported():

    from cuarenta_tutor.training.a2c import build_net
    from cuarenta_tutor.training.rollout import Rollouts

    cfg = Config(num_envs=4, rollout_len=4, hidden=16, feature=16, strategy=16, workers=2)
    with Rollouts(cfg, 0) as rollouts:
        net = build_net(cfg)
        rollouts.publish(net, snapshot=True)
        wins, games = rollouts.run(0.0)  # both workers fill their half of the buffers
        assert 0 <= wins <= games
        masks = rollouts.buffers["masks"]
        assert masks.any(-1).all(), "every stream of every step has a legal action"
        rollouts.procs[1].kill()
        rollouts.procs[1].join()
        with pytest.raises(RuntimeError, match="rollout worker 1 exited"):
            rollouts.run(0.0)


def test_damaged_checkpoints_and_a_resume_of_nothing_are_refused_in_one_line(tiny_model, tmp_path, capsys):
    checkpoint, _ = tiny_model
    good = checkpoint.read_bytes()
    cases = {"cut.pt": good[: len(good) // 2], "noise.pt": bytes(range(256)) * 10, "empty.pt": b"",
             "text.pt": b"hello"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    runs = [("export", str(tmp_path / name), "--out", str(tmp_path / "x.onnx")) for name in cases]
    runs += [("export", str(tmp_path / "missing.pt"), "--out", str(tmp_path / "x.onnx")),
             ("export", str(checkpoint), "--out", str(tmp_path)),
             ("train", "--resume", "--out", str(tmp_path / "nothing"), "--steps", "10")]
    for args in runs:  # in this process: an exception the command does not turn into a line fails the test
        code = main(list(args))
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, (args, err)
    assert not (tmp_path / "x.onnx").exists() and not (tmp_path / "nothing" / "checkpoint.pt").exists()


@pytest.mark.parametrize("config,words", [
    ({"lr": "fast"}, "config field 'lr' is 'fast', not a float"),
    ({"num_envs": 2.5}, "config field 'num_envs' is 2.5, not an int"),
    ({"workers": True}, "config field 'workers' is True, not an int"),
    ({"pool": [1, 2]}, "config field 'pool' is [1, 2], not a dict"),
    ([1, 2], "is damaged (a config is a JSON object of settings, not a list); fix it, or give another --config"),
])
def test_config_values_of_the_wrong_type_are_refused_in_one_line(tmp_path, config, words, capsys):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    code = main(["train", "--config", str(path), "--out", str(tmp_path / "run"), "--steps", "10"])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()


def test_export_writes_to_the_persons_models_folder_with_a_card_and_never_the_shipped_model(tiny_model, tmp_path,
                                                                                            monkeypatch):
    import os
    import subprocess
    import sys

    from cuarenta_tutor.agents.onnx_policy import default_model_path, file_sha256

    checkpoint, _ = tiny_model
    shipped = file_sha256(default_model_path())
    env = {**os.environ, "CUARENTA_TUTOR_HOME": str(tmp_path / "home")}
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.cli", "export", str(checkpoint)], capture_output=True,
                         text=True, check=False, timeout=HANG, stdin=subprocess.DEVNULL, env=env)
    assert out.returncode == 0, out.stderr
    model = tmp_path / "home" / "models" / f"{checkpoint.parent.name}-{checkpoint.stem}.onnx"
    card = json.loads(model.with_suffix(".json").read_text())
    assert card["sha256"] == file_sha256(model) and card["file"] == model.name and card["arena"] == []
    assert file_sha256(default_model_path()) == shipped  # untouched
    monkeypatch.setenv("CUARENTA_TUTOR_HOME", str(tmp_path / "home"))
    from cuarenta_tutor.app.session import available_models

    assert model in available_models() and default_model_path() in available_models()


def test_a_mixed_rollout_plays_2_v_2_and_1_v_1_games_with_team_rewards_and_idle_streams():
    from cuarenta_tutor.training.rollout import Rollouts

    cfg = Config(num_envs=6, rollout_len=8, hidden=32, feature=64, strategy=32, workers=1, eval_every=0,
                 mix={"standard/4": 0.5, "pagat": 0.5}, pool={"self": 0.5, "expert": 0.5})
    seen, ends = {2: 0, 4: 0}, {2: 0, 4: 0}
    with Rollouts(cfg, 0) as rollouts:
        buf = rollouts.buffers
        assert buf["obs"].shape[1] == 4 * 6  # four streams a game
        for _ in range(60):  # until games of both kinds have ended twice (a ceiling of 60 rollouts)
            if min(ends.values()) >= 2:
                break
            tables = list(rollouts.local.games.tables)  # a game lasts more than 8 plays: one end at most
            rollouts.run(0.0)
            for g, table in enumerate(tables):
                n, cols = table.rules.players, slice(4 * g, 4 * g + 4)
                ended = buf["ended"][:, 4 * g].nonzero().flatten().tolist()
                until = ended[0] + 1 if ended else cfg.rollout_len
                seen[n] += 1
                if n == 2:  # its last two streams are nobody's
                    assert not buf["acting"][:until, 4 * g + 2:4 * g + 4].any()
                    assert not buf["learner"][:until, 4 * g + 2:4 * g + 4].any()
                if ended:
                    ends[n] += 1
                    rewards = buf["rewards"][ended[0], cols].tolist()
                    assert sorted(rewards[:2]) == [0.0, 1.0]  # one team won
                    assert rewards[2:] == (rewards[:2] if n == 4 else [0.0, 0.0])  # partners share it
    assert seen[2] and seen[4] and min(ends.values()) >= 2


def test_a_match_over_several_kinds_counts_each_kinds_seed_pairs_apart():
    from cuarenta_tutor.training.evaluate import match_over

    total, by_kind = match_over("expert", "random", 8, [("standard", 2), ("pagat", 4)], seed=5)
    assert total.games == 8 and total.pairs == 4 and set(by_kind) == {"standard", "pagat/4"}
    assert all(s.games == 4 for s in by_kind.values())
    assert total.a.wins == sum(s.a.wins for s in by_kind.values())


class StopAt:
    """A training log that stops the run (as Ctrl-C would) at its `n`-th progress line."""

    def __init__(self, n: int):
        self.n = n

    def write(self, text: str) -> None:
        if "steps/s" in text:
            self.n -= 1
            if self.n == 0:
                raise KeyboardInterrupt

    def flush(self) -> None:
        pass


@pytest.mark.parametrize("mix, workers", [({}, 1), ({"standard": 0.5, "pagat/4": 0.5}, 2)])
def test_a_resumed_run_gives_the_same_weights_as_an_uninterrupted_one(tmp_path, mix, workers):
    # 6 updates of 4 games x 8 plays; a checkpoint every 2 updates, a progress line after every update, the past
    # self refreshed every 3: stopped (as by Ctrl-C) at update 3, resumed from the checkpoint of update 2; the
    # rollouts in the learner's process, and in two worker processes over a mix of presets and 2 v 2. The
    # uninterrupted run and the resumed one are also two runs of one seed: their weights are the same whatever
    # the timing of the rollout processes (the result depends on the seed and the worker count only).
    cfg = Config(total_steps=6 * 32, num_envs=4, rollout_len=8, eval_every=0, snapshot_every=3, hidden=32,
                 feature=64, strategy=32, update_epochs=2, num_minibatches=2, clip_coef=0.2, workers=workers,
                 mix=mix, pool={"self": 0.4, "past": 0.3, "expert": 0.3}, checkpoint_every=2, log_every=1)
    whole = torch.load(train(cfg, tmp_path / "whole", log=open("/dev/null", "w")), weights_only=True)["model"]
    with pytest.raises(KeyboardInterrupt):
        train(cfg, tmp_path / "cut", log=StopAt(3))
    cut = torch.load(tmp_path / "cut" / "checkpoint.pt", weights_only=True)
    assert cut["progress"]["updates"] == 2 and len(cut["rollouts"]) == workers
    resumed = torch.load(train(cfg, tmp_path / "cut", resume=True, log=open("/dev/null", "w")),
                         weights_only=True)["model"]
    assert all(torch.equal(whole[k], resumed[k]) for k in whole)


def test_the_card_reproduces_each_arena_with_its_rules_and_players_and_keeps_the_generations_before():
    from cuarenta_tutor.training.card import arena_command, generations

    result = {"b": {"policy": "expert"}, "games": 1000, "seed": 1, "rules": "pagat", "players": 4}
    assert arena_command(result) == ("cuarenta-tutor arena onnx expert --games 1000 --seed 1 --jobs 2 --rules pagat "
                                     "--players 4 --json")
    assert arena_command({**result, "rules": "standard", "players": 2}).endswith("--seed 1 --jobs 2 --json")
    first = {"sha256": "a", "training": {"command": "one"}, "arena": [], "generations": []}
    second = {"sha256": "b", "training": {"command": "two"}, "arena": [], "gates": [{"accepted": True}],
              "generations": generations(first)}
    assert [g["sha256"] for g in generations(second)] == ["a", "b"]
    assert generations(second)[1]["gates"] == [{"accepted": True}] and generations(None) == []


@pytest.mark.parametrize("change, words", [
    ({"bogus": 1}, "unknown config field(s): bogus"), ({"hidden": -3}, "hidden must be from 1 to 4096, not -3"),
    ({"lr": -0.5}, "lr must be above 0"), (None, "weights that are not numbers"),
])
def test_export_refuses_a_checkpoint_with_a_bad_config_or_weights_in_one_line(tiny_model, tmp_path, change, words,
                                                                               capsys):
    checkpoint, _ = tiny_model
    ckpt = torch.load(checkpoint, weights_only=True)
    if change is None:  # a run that diverged
        next(iter(ckpt["model"].values())).fill_(float("nan"))
    else:
        ckpt["config"].update(change)
    damaged = tmp_path / "damaged.pt"
    torch.save(ckpt, damaged)
    out = tmp_path / "models" / "x.onnx"
    assert main(["export", str(damaged), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and str(damaged) in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "models").exists()


def test_a_failed_export_leaves_nothing_beside_its_file(tiny_model, tmp_path):
    checkpoint, _ = tiny_model
    out = tmp_path / "taken.onnx"
    (out / "inside").mkdir(parents=True)  # a folder in the file's place: the last step, the rename, fails
    with pytest.raises(OSError):
        export(checkpoint, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken.onnx"]


def test_train_loads_the_gates_model_before_it_trains(tmp_path, capsys):
    garbage = tmp_path / "garbage.onnx"
    garbage.write_bytes(b"not a model")
    run = tmp_path / "run"
    assert main(["train", "--steps", "64", "--workers", "1", "--out", str(run), "--gate", "2", "--gate-against",
                 str(garbage)]) == 2
    err = capsys.readouterr().err
    assert "garbage.onnx is not a usable ONNX model" in err and len(err.strip().splitlines()) == 1, err
    assert not run.exists()
