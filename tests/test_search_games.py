"""Expert iteration: the search's games (labels from the search, replayable per seat), their resumable shards, and
training that moves the network toward the search's choices."""

import json
from functools import cache

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.xdist_group("search-games")  # one worker plays the shared games (fast_game) once

from cuarenta_tutor.agents.onnx_policy import OnnxPolicy, default_model_path  # noqa: E402
from cuarenta_tutor.training import search_games  # noqa: E402
from cuarenta_tutor.training.search_games import Batches, SearchSettings, collect, load, search_distribution  # noqa: E402

FAST = SearchSettings(worlds=1, share=0.5)
SHORT = {2: 3, 4: 2}
"""A seed per player count whose game in FAST is short (2 v 2: 50 plays)."""


@cache
def fast_game(players: int) -> dict:
    """The search's game of SHORT's seed in FAST, played once per process: the tests below only read its arrays."""
    return search_games.play_game(default_model_path(), "standard", players, SHORT[players], FAST)


def test_the_search_distribution_favours_the_better_moves_and_sums_to_one():
    dist = search_distribution({3: 1.0, 7: 0.0, 9: -2.0}, 0.5)
    assert dist[3] > dist[7] > dist[9] and sum(dist.values()) == pytest.approx(1.0)
    assert search_distribution({3: 1.0, 7: 1.0, 9: 0.0}, 0) == {3: 0.5, 7: 0.5, 9: 0.0}


@pytest.mark.parametrize("players", [2, 4])
def test_a_search_game_labels_legal_moves_and_keeps_every_seats_view(players):
    game = fast_game(players)
    n = len(game["mover"])
    assert game["obs"].shape == (n, players, OnnxPolicy(default_model_path()).width) and game["legal"].shape[0] == n
    assert sorted(game["outcome"].tolist()) == [0.0] * (players // 2) + [1.0] * (players // 2)
    assert game["outcome"][0] == game["outcome"][players - 2]  # partners (or the same seat) share the result
    labelled = game["labelled"]
    assert 0 < labelled.sum() < n  # about half the choices
    targets = game["target"].astype(np.float32)
    assert np.allclose(targets[labelled].sum(1), 1.0, atol=1e-2)
    assert not (targets[labelled] * ~game["legal"][labelled]).any()  # never an illegal move
    assert not targets[~labelled].any()
    assert (game["legal"][labelled].sum(1) > 1).all()  # only decisions with a choice are searched


def test_known_only_labels_every_choice_with_the_stock_empty_in_1v1_and_nothing_else():
    known = SearchSettings(worlds=1, share=1.0, known_only=True, temperature=0.1)
    game = search_games.play_game(default_model_path(), "standard", 2, 3, known)
    seat_view = game["obs"][np.arange(len(game["mover"])), game["mover"]].astype(np.float32)
    stock_empty = seat_view[:, 86] == 0  # encoding slot 86: cards left in the stock
    choice = game["legal"].sum(1) > 1
    assert game["labelled"].any() and (game["labelled"] == (stock_empty & choice)).all()
    four = search_games.play_game(default_model_path(), "standard", 4, 3, known)
    assert not four["labelled"].any()  # in 2 v 2 the other hands share the unseen cards: never known


def test_the_strong_teacher_labels_each_choice_by_the_strong_levels_scores(monkeypatch):
    from cuarenta_tutor.players import PRIOR, StrongPolicy

    seen, means_of = [], []  # the scores the strong level chose by at each labelled decision, and their parts
    real_scores, real_means = StrongPolicy.scores, StrongPolicy.means
    monkeypatch.setattr(StrongPolicy, "means", lambda self, state: means_of.append(real_means(self, state)) or
                        means_of[-1])
    monkeypatch.setattr(StrongPolicy, "scores", lambda self, state, probs=None: seen.append(
        (real_scores(self, state, probs), self.net.decide(state).probs, means_of[-1])) or seen[-1][0])
    settings = SearchSettings(teacher="strong", worlds=2, share=1.0, temperature=0)
    game = search_games.play_game(default_model_path(), "standard", 2, SHORT[2], settings)
    targets = game["target"].astype(np.float32)[game["labelled"]]
    assert len(seen) == len(targets) > 0
    for target, (scores, probs, means) in zip(targets, seen, strict=True):
        best = search_distribution(scores, 0)
        assert {a for a in best if best[a]} == {int(a) for a in np.flatnonzero(target)}
        assert scores == pytest.approx({a: means[a] + PRIOR * np.log(max(probs.get(a, 0.0), 1e-6)) for a in means})
    assert any(max(means, key=means.get) != max(scores, key=scores.get) for scores, _, means in seen)  # the prior
    # counts: some choice is not the search's alone


def test_collection_resumes_and_a_damaged_shard_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(search_games, "SHARD_GAMES", 1)  # shards of 1 game, not 10: the same code, less play
    paths = collect(default_model_path(), tmp_path, 1, seed=2, settings=SearchSettings(worlds=2, share=0.2))
    assert [p.name for p in paths] == ["shard-00000.npz"]
    before = paths[0].stat().st_mtime_ns
    again = collect(default_model_path(), tmp_path, 2, seed=2, settings=SearchSettings(worlds=2, share=0.2))
    assert again[0].stat().st_mtime_ns == before and again[1].exists()  # kept, and only the missing one played
    games = load(tmp_path)
    assert len(games) == 2
    again[1].write_bytes(again[1].read_bytes()[:100])
    with pytest.raises(ValueError, match="shard-00001.npz is damaged.*delete it and run search-games again"):
        load(tmp_path)
    with pytest.raises(ValueError, match="no search games in"):
        load(tmp_path / "none")


def test_batches_replay_each_seat_with_its_own_moves_labelled_and_the_same_for_the_same_key():
    games = [fast_game(p) for p in (2, 4)]
    batches = Batches(games, seed=1)
    assert len(batches.streams) == 6
    a, b = batches.sample(8, (3, 0, 1)), batches.sample(8, (3, 0, 1))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert (a["starts"][0] == 1).all() and not a["starts"][1:].any()
    labelled = a["labelled"]
    assert labelled.any() and (a["valid"][labelled] == 1).all()
    assert not (a["target"][labelled] * ~a["mask"][labelled]).any()
    steps = a["valid"].sum(0)
    assert set(steps.tolist()) <= {float(len(g["mover"])) for g in games}


def test_training_on_the_search_games_moves_the_policy_toward_the_search(tmp_path):
    from cuarenta_tutor.training.a2c import Config, build_net, distill_loss

    batches = Batches([fast_game(p) for p in (2, 4)], seed=0)  # half the decisions with a choice labelled
    # vf_coef 0: the loss is the cross-entropy toward the search's distribution alone (the critic's term falls
    # by itself and would hide a policy that does not move)
    cfg = Config(hidden=32, feature=64, strategy=32, encoding=OnnxPolicy(default_model_path()).encoding, vf_coef=0.0)
    torch.manual_seed(0)
    net = build_net(cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    batch = batches.sample(4, (0,))
    first = distill_loss(net, batch, cfg).item()
    for step in range(10):
        loss = distill_loss(net, batches.sample(4, (step,)), cfg)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert distill_loss(net, batch, cfg).item() < first - 0.15  # the target's own entropy and the outcomes' noise stay


def test_search_games_command_plays_and_train_refuses_distill_without_data(tmp_path, capsys, monkeypatch):
    from cuarenta_tutor.cli import main  # in this process: an uncaught exception would still fail the test

    monkeypatch.setattr(search_games, "SHARD_GAMES", 1)  # a shard of 1 game, not 10: the same command, less play
    assert main(["search-games", "--out", str(tmp_path / "g"), "--games", "1", "--worlds", "2", "--share",
                 "0.2"]) == 0
    assert (tmp_path / "g" / "shard-00000.npz").exists() and "distill_data" in capsys.readouterr().out
    assert main(["search-games", "--out", str(tmp_path / "h"), "--games", "10", "--share", "2"]) == 2
    assert "argument --share: must be a number from 0 to 1" in capsys.readouterr().err
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"distill_coef": 1.0}))
    assert main(["train", "--config", str(config), "--out", str(tmp_path / "run")]) == 2
    assert "distill_coef needs distill_data" in capsys.readouterr().err
