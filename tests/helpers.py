"""Helpers shared by several test files (importable as `helpers`: pyproject puts tests/ on the path)."""

from cuarenta_tutor import coach
from cuarenta_tutor.analysis import Settings
from cuarenta_tutor.engine import unseen_cards
from cuarenta_tutor.play.session import GameSession

SMALL = Settings(worlds=16, round_worlds=16, min_worlds=16, budget_s=0)
"""Reviews in few worlds, so a whole game is analysed in seconds."""


def reshuffled(state, seat, rng):
    """The same position for `seat` with every card it cannot see dealt anew into the other hands and the
    stock (sizes kept), and the other seats' ronda ranks changed (that one was announced is public and
    stays; its rank is secret). A check of "no peeking" compares what a seat's code gives on both."""
    pool = unseen_cards(state, seat)
    rng.shuffle(pool)
    hands, i = list(state.hands), 0
    for s in range(len(hands)):
        if s != seat:
            hands[s], i = tuple(sorted(pool[i:i + len(hands[s])])), i + len(hands[s])
    rondas = tuple(r if s == seat or r < 0 else rng.randrange(10) for s, r in enumerate(state.rondas))
    return state._replace(hands=tuple(hands), stock=tuple(sorted(pool[i:])), rondas=rondas)


async def settle(pilot):
    """Let the app finish what a key started: its messages, and every worker (the agent, the analysis)."""
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def pressing(*keys):
    """A snapshot's `run_before`: settle, then each key in turn, settling after each."""
    async def before(pilot):
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
    return before


_WORST: dict[int, list[int]] = {}
"""The person's moves of each seed's worst game, found by the analysis once per test run and replayed after (the
agent's replies are the shipped network's, the same every time)."""
_REVIEWS: dict[int, list] = {}


def worst_game(seed=21):
    """A finished game in which the person always plays the move the analysis (in few worlds) likes least;
    the annotations made in play are the network's (no analysis is passed), so a review has work to do."""
    session = GameSession.new(seed=seed, dealer=1)
    session.analysis_settings = SMALL
    known, played = _WORST.get(seed), []
    while not session.over:
        if session.human_turn:
            action = known[len(played)] if known else session.analyse(session.position()).moves[-1].action
            session.play_human(action)
            played.append(action)
        else:
            session.play_agent()
    _WORST[seed] = played
    return session


def reviewed_worst_game(seed):
    """worst_game(seed) with the person's decisions reviewed in few worlds and stored in its record (the review is
    made once per test run: it gives the same annotations every time)."""
    session = worst_game(seed)
    if seed not in _REVIEWS:
        _REVIEWS[seed] = coach.review(session.record, None, SMALL)
    coach.store(session.record, _REVIEWS[seed], [0])
    return session
