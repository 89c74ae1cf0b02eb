"""Helpers shared by several test files (importable as `helpers`: pyproject puts tests/ on the path)."""

from cuarenta_tutor import coach
from cuarenta_tutor.analysis import Settings
from cuarenta_tutor.app.session import GameSession
from cuarenta_tutor.engine import Dealer, Rules, legal_actions, unseen_cards

HANG = 600
"""Seconds after which a test gives up waiting on a process or a screen: a guard against a hang, never a speed check
(speed is for `cuarenta-tutor bench`)."""


def core_loaded_in(pool) -> bool:
    """Whether a worker of `pool` finds the compiled core loaded when first asked (it runs a builtin on a string: no
    code of the tests' own to import there)."""
    return pool.apply(eval, ("__import__('cuarenta_tutor.core', fromlist=['core'])._WARM['done']",))


def agent_position(players: int, plies: int, seed: int):
    """A position of the shipped agent playing itself, `plies` plays in (on to one with a choice), and the memory of
    the seat on turn there."""
    from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
    from cuarenta_tutor.table import Table

    agents = [OnnxPolicy() for _ in range(players)]
    table = Table(Rules(players=players), agents, Dealer(seed))
    table.start(0)
    while table.state.plays < plies or len(legal_actions(table.state)) < 2:
        table.step()
    return table.state, agents[table.state.turn].memory


def fixed(worlds: int) -> Settings:
    """An analysis in exactly `worlds` worlds, with no time budget: the same numbers every run."""
    return Settings(worlds=worlds, round_worlds=worlds, min_worlds=worlds, budget_s=0)


SMALL = fixed(8)
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


async def steady(pilot, frames: int = 100, alike: int = 3):
    """Pause until the screen drawn is the same `alike` frames in a row, 20 ms apart: a busy machine may lay a long
    line out a frame or more late (at most `frames`, a hang's guard only)."""
    last, same = None, 0
    for _ in range(frames):
        await pilot.pause()
        await pilot.pause(0.02)
        shot = pilot.app.export_screenshot()
        same = same + 1 if shot == last else 1
        if same >= alike:
            return
        last = shot


async def drawn(pilot, text: str, frames: int = 1000):
    """Pause until `text` is drawn on the screen (at most `frames` of 20 ms, a hang's guard only), then until the
    screen is steady."""
    for _ in range(frames):
        if text.replace(" ", "&#160;") in pilot.app.export_screenshot():  # the picture's spaces are &#160;
            break
        await pilot.pause(0.02)
    else:
        raise AssertionError(f"{text!r} was never drawn")
    await steady(pilot)


def pressing(*keys):
    """A snapshot's `run_before`: settle, then each key in turn, settling after each; then a steady screen."""
    async def before(pilot):
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        await steady(pilot)
    return before


_WORST: dict = {}
"""The person's moves of each seed's worst game, found once per process and replayed after (the agent's replies are
the shipped network's, the same every time). The files that use worst games run on one xdist worker (their
xdist_group "worst-games"), so each game is found once per test run."""
_REVIEWS: dict[int, list] = {}


PICK = fixed(2)
"""The analysis that picks the person's worst moves: two worlds, at a fraction of SMALL's cost, still finds moves
that a review in SMALL calls mistakes."""


def _play(seed, moves=None, plies=None):
    """(session, the person's moves) of seed's worst game, to its end or its first `plies` moves: `moves`
    replayed, or each chosen as the move the analysis in PICK likes least."""
    session = GameSession.new(seed=seed, dealer=1)
    session.analysis_settings = PICK
    played = []
    while not session.over and (plies is None or len(session.record.moves) < plies):
        if session.human_turn:
            action = moves[len(played)] if moves else session.analyse(session.position()).moves[-1].action
            session.play_human(action)
            played.append(action)
        else:
            session.play_agent()
    return session, played


def worst_game(seed=7):
    """A finished game, saved in the user data folder, in which the person always plays the move the analysis
    (in PICK's two worlds) likes least; the annotations made in play are the network's (no analysis is passed),
    so a review has work to do. The moves are found once (_WORST) and replayed after.

    Seeds the tests use, reviewed in SMALL (worst_review; the worlds seeded from what the seat knows since one verdict
    per position; the playouts the model's playout policy's): 6, one hand of 40 moves, no mistake; 7, the shortest: 30
    moves in one hand, won 0-8 by the four of a kind dealt to the person, 24 decisions (12 the person's), a blunder;
    24, two hands of 43 moves, a mistake and two blunders, so three drills."""
    session, played = _play(seed, _WORST.get(seed))
    _WORST[seed] = played
    return session


def worst_start(seed, plies=6):
    """The first `plies` moves of seed's worst game (as worst_game's), saved unfinished: a few moves to review
    instead of a whole game. Found once per process and replayed after."""
    session, played = _play(seed, _WORST.get((seed, plies)), plies)
    _WORST[seed, plies] = played
    return session


def worst_review(seed, record) -> list:
    """coach.review of `record`, worst_game(seed)'s, in SMALL (the person's decisions), made once per process: a
    review gives the same annotations every time."""
    if seed not in _REVIEWS:
        _REVIEWS[seed] = coach.review(record, None, SMALL)
    return list(_REVIEWS[seed])


def reviewed_worst_game(seed):
    """worst_game(seed) with the person's decisions reviewed in SMALL (worst_review) and stored in its record
    (not saved again)."""
    session = worst_game(seed)
    coach.store(session.record, worst_review(seed, session.record), [0])
    return session


def a_record(plies: int = 12):
    """A record of greedy-looking play (each seat's first legal move) from Dealer(5), `plies` moves in."""
    from cuarenta_tutor import records

    dealer = Dealer(5)
    state = dealer.start(Rules(), 0)[0]
    record = records.new_record(Rules(), 5, 0, [("greedy", "A"), ("greedy", "B")])
    for _ in range(plies):
        action = legal_actions(state)[0]
        after, events = dealer.play(state, action)
        record.add_move(state.turn, action, events[0].card, after=after)
        state = after
    return record


def another_thread_loading(monkeypatch):
    """The compiled core as while another thread loads it (core.warm, from a whole cache); returns `loaded`, which
    ends that load as warm's `finally` does."""
    from cuarenta_tutor import core

    monkeypatch.setitem(core._WARM, "done", False)
    monkeypatch.setitem(core._WARM, "busy", True)
    core._WARMED.clear()

    def loaded():
        core._WARM["done"], core._WARM["busy"] = True, False
        core._WARMED.set()

    return loaded


def play_first_cards(session, until) -> None:
    """Play `session` on until `until(session)` holds: on the person's turn the first card of the hand (its first
    capture, if it has several), on an agent's its own move."""
    while not until(session):
        if session.human_turn:
            card = session.state.hands[0][0]
            session.play_human(session.options_for(card)[0].action, card)
        else:
            session.play_agent()


async def continue_and_play_first_card(pilot) -> None:
    """From home: continue the unfinished game and play card 1 (a capture's choice answered with 1)."""
    from cuarenta_tutor.tui.dialogs import CaptureChoice

    await settle(pilot)
    await pilot.press("c")
    await settle(pilot)
    await pilot.press("1")
    await settle(pilot)
    if isinstance(pilot.app.screen, CaptureChoice):
        await pilot.press("1")
        await settle(pilot)


def free_port() -> int:
    """A TCP port free on the loopback address now."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc)."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            pass  # gone meanwhile
    return found
