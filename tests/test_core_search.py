"""The search bot's playouts on the compiled core (core/search.py) against its Python ones (agents/search.py): the
same mean outcome for every move, bit for bit, under every preset, 1 v 1 and 2 v 2, with the worlds weighted by the
other seats' plays and the deal's end valued by the cartón, as the strong level searches."""

import random

import pytest

from cuarenta_tutor import core, players
from cuarenta_tutor.agents import ExpertPolicy
from cuarenta_tutor.agents.search import SearchPolicy
from cuarenta_tutor.engine import PRESETS, Dealer, legal_actions, preset

CONFIGS = [(name, n) for name in PRESETS for n in (2, 4)]
STARTS = ((0, 0), (28, 33), (37, 38))


def positions(name: str, players_: int, count: int = 12) -> list:
    """Positions with a choice from expert games (the searching seat's plays observed), at scores near the cut-offs
    and the target too, with the plays seen so far."""
    rules = preset(name, players_)
    rng = random.Random(f"{name}{players_}")
    expert, found, game = ExpertPolicy(), [], 0
    while len(found) < count:
        dealer = Dealer(rng.randrange(1 << 30))
        state, events = dealer.start(rules, scores=STARTS[game % len(STARTS)])
        seen = [(state, events)]
        game += 1
        while not state.is_over and len(found) < count:
            if len(legal_actions(state)) > 1 and rng.random() < 0.15:
                found.append((state, list(seen)))
            state, events = dealer.play(state, expert.decide(state).action)
            seen.append((state, events))
    return found


def searched(state, seen, compiled: bool, **options):
    search = SearchPolicy(8, random.Random(5), **options)
    if compiled:
        players.compiled(search)
    search.reset(state.turn)
    for s, events in seen:
        search.observe(s, events)
    return search.move_means(state)


@pytest.mark.parametrize("name, players_", CONFIGS)
def test_the_compiled_playouts_give_the_searchs_outcomes(name, players_):
    assert core.fast()
    for i, (state, seen) in enumerate(positions(name, players_)):
        options = {"infer": i % 2 == 0, "carton": i % 3 != 0}
        assert searched(state, seen, True, **options) == searched(state, seen, False, **options), (i, options)


def test_the_search_bot_and_the_strong_level_use_them_and_the_python_ones_where_the_core_does_not_serve(monkeypatch):
    assert players.make("search:8").ends is not None and players.make("strong:8").search.ends is not None
    state, seen = positions("standard", 2, 1)[0]
    python = searched(state, seen, False)
    monkeypatch.setenv("CUARENTA_TUTOR_CORE", "python")  # ends_of gives None: the Python playouts, the same means
    assert searched(state, seen, True) == python


def test_the_beliefs_move_values_compiled_are_the_experts_in_the_same_order():
    """The belief judges the other seats' plays by the expert's move values (agents/belief.py likelihood): compiled
    (core/search.py values_of), the same numbers in the same order, under every preset and player count."""
    from cuarenta_tutor.agents.expert import move_values
    from cuarenta_tutor.core.search import values_of

    assert core.fast()
    for name, players_ in CONFIGS:
        for state, _ in positions(name, players_, 6):
            assert list(values_of(state).items()) == list(move_values(state).items())
