"""Provides what `bench core` and `bench engine` run on the compiled rules: random play compared ply by ply with the
Python engine (`differential`), and random-vs-random complete games in one compiled loop (`random_games`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..engine import Dealer, Rules, State, legal_actions
from ..engine.cards import DECK_SIZE
from ..engine.dealing import first_dealer
from ..engine.play import initial_state
from ..engine.rules import PLAYER_COUNTS, PRESETS
from .deal import buffers, deal, deck_known, needs_deal, new_game, set_deck
from .jit import njit
from .layout import HAND_NO, WIDTH, WINNER, events_of, from_row, rules_array, to_row
from .moves import legal
from .play import step


@dataclass
class Differential:
    """What a differential run found: plies compared, games played, and the mismatches (a line each)."""

    positions: int = 0
    games: int = 0
    mismatches: list = field(default_factory=list)
    seen: Counter = field(default_factory=Counter)
    """How often each kind of event came (the engine's), and some cases of them: a caída on a ronda with its bonus
    (caida_bonus), a hand's leftovers kept (leftover), a game won at a hand's end (won_at_hand_end) or by a deal
    (won_at_deal)."""

    def count(self, events) -> None:
        kinds = [type(e).__name__ for e in events]
        self.seen.update(kinds)
        for i, e in enumerate(events):
            if kinds[i] == "Caida" and e.ronda_bonus:
                self.seen["caida_bonus"] += 1
            elif kinds[i] == "HandEnded" and e.leftover:
                self.seen["leftover"] += 1
            elif kinds[i] == "GameWon" and i and kinds[i - 1] == "HandEnded":
                self.seen["won_at_hand_end"] += 1
            elif kinds[i] == "GameWon" and i and kinds[i - 1] in ("Ronda", "FourOfAKind"):
                self.seen["won_at_deal"] += 1


def _lane(state: State, dealer: Dealer) -> np.ndarray:
    """The lane of `state`, its stock in the order `dealer` deals it."""
    deck = dealer.deck(state.hand_no)
    return to_row(state, deck[DECK_SIZE - len(state.stock):])


def _deck(dealer: Dealer, hand_no: int) -> np.ndarray:
    return np.array(dealer.deck(hand_no), dtype=np.int32)


def stacked_deck(rng: random.Random) -> tuple:
    """A deck order that deals rondas and four of a kind often: the cards by rank (ranks and suits in a random
    order), then a few random swaps."""
    ranks = list(range(10))
    rng.shuffle(ranks)
    deck = []
    for r in ranks:
        suits = [0, 1, 2, 3]
        rng.shuffle(suits)
        deck += [r * 4 + s for s in suits]
    for _ in range(rng.randrange(2, 16)):
        i, j = rng.randrange(DECK_SIZE), rng.randrange(DECK_SIZE)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


COMBINATIONS = [(name, players, {}) for name in PRESETS for players in PLAYER_COUNTS] + [
    ("standard", players, {option: value}) for players in PLAYER_COUNTS
    for option, value in (("forced_capture", True), ("match_takes_all_same_rank", True),
                          ("leftover_table_cards", "last_capturer"))]
"""The rules `bench core` and the tests compare under: (preset, players, options): every preset, and the standard
rules with each option no preset sets."""

HANDS_STACKED = 40
"""The hands of a game that `differential` may stack (later ones come from the seed)."""


def differential(rules: Rules, positions: int, seed: int = 0, next_hand_share: float = 0.5,
                 stacked_share: float = 0.25, limit: int = 20) -> Differential:
    """Random play under `rules` for `positions` plays (new games as games end), each ply compared between the
    compiled core and the engine: the legal moves, then after the play (and the deal it makes due) the state and the
    events; deals made apart (a game's first, a hand's first when the play did not deal it) too. A play asks for the
    next hand's deal with probability `next_hand_share` (engine Dealer.play's `next_hand`); a hand is dealt from a
    `stacked_deck` with probability `stacked_share`, else from the seed (so announcements come often). After a
    mismatch the lane restarts from the engine's state; at most `limit` mismatches are described."""
    rng = random.Random(f"core-differential:{seed}")
    ra = rules_array(rules)
    events, cards = buffers()
    moves = np.zeros(64, dtype=np.int32)
    found = Differential()

    def mismatch(what: str, core, engine, state: State) -> None:
        if len(found.mismatches) < limit:
            found.mismatches.append(f"game {found.games} (seed {seed}) ply {state.plays} hand {state.hand_no}: "
                                    f"{what}: core {core!r}, engine {engine!r}; before: {state!r}")
        else:
            found.mismatches.append(what)

    def deal_both(state: State, dealer: Dealer, row: np.ndarray) -> tuple[State, np.ndarray]:
        after, want = dealer.deal(state)
        if not deck_known(row):
            set_deck(row, _deck(dealer, state.hand_no))
        count = deal(row, ra, events, cards)
        got = events_of(events, count, cards) if count >= 0 else ("no deck",)
        return after, check(state, after, row, got, want, dealer)

    def check(before: State, after: State, row: np.ndarray, got, want, dealer: Dealer) -> np.ndarray:
        found.count(want)
        if got != want:
            mismatch("events", got, want, before)
        else:
            now = from_row(row, rules)
            if now == after:
                return row
            mismatch("state", now, after, before)
        return _lane(after, dealer)

    while found.positions < positions:
        game_seed = seed * 1_000_003 + found.games
        dealer = Dealer(game_seed, {h: stacked_deck(rng) for h in range(HANDS_STACKED) if rng.random() < stacked_share})
        state = initial_state(rules, first_dealer(game_seed, rules.players))
        row = _lane(state, dealer)
        while not state.is_over and found.positions < positions:
            if state.needs_deal:
                if not needs_deal(row, ra):
                    mismatch("needs_deal", False, True, state)
                state, row = deal_both(state, dealer, row)
                continue
            want = legal_actions(state)
            count = legal(row, ra, moves)
            if tuple(moves[:count].tolist()) != want:
                mismatch("legal moves", tuple(moves[:count].tolist()), want, state)
            action = rng.choice(want)
            next_hand = rng.random() < next_hand_share
            after, want_events = dealer.play(state, action, next_hand=next_hand)
            count = step(row, ra, action, events, cards, next_hand)
            got = events_of(events, count, cards)
            if next_hand and after.hand_no != state.hand_no and not after.needs_deal and needs_deal(row, ra):
                # The engine dealt the next hand; the lane awaits that hand's deck, which Python supplies.
                if deck_known(row):
                    mismatch("deck of the next hand", "known", "unknown", state)
                set_deck(row, _deck(dealer, int(row[HAND_NO])))
                count = deal(row, ra, events, cards)
                got += events_of(events, count, cards)
            row = check(state, after, row, got, want_events, dealer)
            state = after
            found.positions += 1
        found.games += 1
    return found


@njit
def random_games(rules, dealers, decks, seed):
    """Random-vs-random complete games, game g dealt by seat dealers[g] from decks[g, hand]; numba's generator seeded
    with `seed` picks each play among the legal ones. Returns (plays, games finished, games stopped because they
    needed more hands than `decks` holds)."""
    np.random.seed(seed)
    row = np.empty(WIDTH, dtype=np.int32)
    events = np.zeros((16, 8), dtype=np.int32)
    cards = np.zeros((2, 40), dtype=np.int32)
    moves = np.zeros(64, dtype=np.int32)
    hands = decks.shape[1]
    plays = 0
    finished = 0
    stopped = 0
    for g in range(dealers.shape[0]):
        new_game(row, rules, dealers[g], decks[g, 0])
        deal(row, rules, events, cards)
        while row[WINNER] < 0:
            if needs_deal(row, rules):  # a new hand: its deck comes from the caller's
                hand = row[HAND_NO]
                if hand >= hands:
                    break
                set_deck(row, decks[g, hand])
                deal(row, rules, events, cards)
                continue
            count = legal(row, rules, moves)
            step(row, rules, moves[np.random.randint(count)], events, cards, True)
            plays += 1
        if row[WINNER] >= 0:
            finished += 1
        else:
            stopped += 1
    return plays, finished, stopped


def game_decks(seeds, players: int, hands: int) -> tuple[np.ndarray, np.ndarray]:
    """The first dealer and the first `hands` deck orders of the games of `seeds` (as Dealer(seed) deals them)."""
    from ..engine.dealing import seeded_deck

    dealers = np.array([first_dealer(s, players) for s in seeds], dtype=np.int32)
    decks = np.array([[seeded_deck(s, h) for h in range(hands)] for s in seeds], dtype=np.int32).reshape(
        len(seeds), hands, DECK_SIZE)
    return dealers, decks
