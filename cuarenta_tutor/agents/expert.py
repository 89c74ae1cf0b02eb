"""Provides the expert: a rule-based player that uses what a good human uses.

For every legal move it adds what the move scores now to what the captured cards are worth for the
cartón race, and subtracts what the next player (an opponent) can expect to take back from the
table the move leaves. The threat is estimated by counting cards: for every rank, the chance the
next player holds one (four of each rank, minus those seen this hand) and the best capture it would
make with it: a caída on the trailed card (+2, +10 on our ronda rank), a limpia (+2), the cards it
would take, and an outright win. So the expert
- takes caídas and limpias first, and wins when it can;
- trails ranks already seen (three seen: no caída possible) and face cards, which make no sums;
- does not leave easy sums, pairs for a limpia, or the start of an escalera for the next player;
- on an empty table prefers to trail a card whose rank it holds twice (fewer left to match it);
- values captured cards by the cartón race toward 20, and not at all once its team is at the
  cartón cut-off (30); from 38 it plays only for a caída, and against a team at 38 it guards only
  against caídas, since that team's limpias and cartón no longer score.
Ties go to the higher rank, then the lower action id.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine import (
    ACTION_KIND,
    ACTION_RANK,
    CARDS_PER_DEAL,
    CARTON_CARDS,
    MATCH,
    TARGET_SCORE,
    TRAIL,
    GameWon,
    Played,
    State,
    below,
    capture_outcomes,
    capture_score,
    legal_actions,
    p_holds,
    play_events,
    play_points,
    unseen_counts,
)
from ..table import Decision
from .base import BasePolicy

CARD_WEIGHT = 0.35
"""Worth of one captured card while the cartón still counts (about 6 points for 20 cards)."""
THRESHOLD_BONUS = 1.5
"""Extra worth of the capture that brings the team's pile to 20 cards."""
WIN = 100.0


class ExpertPolicy(BasePolicy):
    """The rule-based expert described in the module docstring."""

    name = "expert"

    def decide(self, state: State) -> Decision:
        legal = legal_actions(state)
        if len(legal) == 1:
            return Decision(legal[0], {legal[0]: 1.0}, model_id=self.name)
        values = move_values(state)
        best = max(legal, key=lambda a: (round(values[a], 9), ACTION_RANK[a], -a))
        return Decision(best, {a: float(a == best) for a in legal}, model_id=self.name)


def move_values(state: State) -> dict[int, float]:
    """The expert's estimate, in game points, of every legal move for the seat on turn."""
    return {a: t.value for a, t in move_terms(state).items()}


@dataclass(frozen=True)
class MoveTerms:
    """The parts of the expert's estimate of one move (the network sees them too: encoding.py)."""

    points: int
    """Points the play scores now (caída, limpia, ronda-caída bonus...)."""
    cards: int
    """Cards it takes, the played card included (0 for a trail)."""
    carton: float
    """What those cards are worth in the cartón race (CARD_WEIGHT each, THRESHOLD_BONUS to reach 20)."""
    threat: float
    """What the next player can expect to take back from the table it leaves."""
    keep: float
    """A trail that keeps a card of the same rank in hand (0.1)."""
    won: bool
    """The play wins the game."""
    limpia: bool
    """The play empties the table."""
    table_left: int
    """Cards left on the table after the play."""

    @property
    def value(self) -> float:
        if self.won:
            return WIN + self.points
        return self.points + self.carton - self.threat + self.keep


def move_terms(state: State) -> dict[int, MoveTerms]:
    """The parts of the expert's estimate of every legal move for the seat on turn, from what that seat may know."""
    seat = state.turn
    if any(r >= 0 for s, r in enumerate(state.rondas) if s != seat):
        # Another seat's ronda rank is secret (R-ANN-6: only that it was announced is known): a caída on it would
        # score its bonus, which the seat on turn cannot count on.
        state = state._replace(rondas=tuple(r if s == seat else -1 for s, r in enumerate(state.rondas)))
    rules = state.rules
    n = rules.players
    team = seat & 1
    mine, theirs = state.scores[team], state.scores[1 - team]
    unseen = unseen_counts(state, seat)
    pool = sum(unseen)
    nxt = (seat + 1) % n
    my_card_weight = CARD_WEIGHT if below(mine, rules.carton_cutoff) or below(theirs, rules.carton_cutoff) else 0.0
    pile = len(state.piles[team])
    hand_ranks = [c >> 2 for c in state.hands[seat]]
    last_of_deal = len(state.hands[seat]) == 1 and all(len(h) == 0 for s, h in enumerate(state.hands) if s != seat)
    terms = {}
    packed = state.table_packed
    ends_hand = last_of_deal and not state.stock
    for a in legal_actions(state):
        r = ACTION_RANK[a]
        if ends_hand:  # the hand's last play: its settlement (leftovers, cartón) may score or win, so the engine's
            events = play_events(state, a)  # own events (never the next deal: its cards are not the expert's)
            taken = next(e for e in events if isinstance(e, Played)).captured
            cards = len(taken) + 1 if taken else 0
            points = play_points(events)
            won = any(isinstance(e, GameWon) and e.team == team for e in events)
        elif ACTION_KIND[a] == TRAIL:
            cards, points, won, table_after = 0, 0, False, packed + (1 << (4 * r))
        else:  # a capture: what it takes and leaves from the engine's cached outcomes, scored as the engine does
            taken_count, table_after = next((t, left) for b, t, left in capture_outcomes(r, packed, rules) if b == a)
            cards = taken_count + 1
            caida = ACTION_KIND[a] == MATCH and state.trailed == r
            points = sum(capture_score(rules, mine, caida, state.rondas[(seat - 1) % n] == r, not table_after))
            won = mine + points >= TARGET_SCORE
        carton = my_card_weight * cards
        if cards and pile < CARTON_CARDS <= pile + cards and below(mine, rules.carton_cutoff):
            carton += THRESHOLD_BONUS
        trailed = r if ACTION_KIND[a] == TRAIL else -1
        left = len(state.table) + 1 if ACTION_KIND[a] == TRAIL else len(state.table) - (cards - 1)
        parts = dict(points=points, cards=cards, carton=carton, won=won, limpia=cards > 0 and left == 0,
                     table_left=left)
        if won or ends_hand:  # the game or the hand ends: nothing is left to defend
            terms[a] = MoveTerms(threat=0.0, keep=0.0, **parts)
            continue
        if last_of_deal:
            next_hand, trailed = CARDS_PER_DEAL, -1  # a fresh deal, and its first play is never a caída
        else:
            next_hand = len(state.hands[nxt])
        own_left = hand_ranks.copy()
        own_left.remove(r)
        keep = 0.1 if ACTION_KIND[a] == TRAIL and r in own_left else 0.0  # the partner card may catch one later
        terms[a] = MoveTerms(threat=threat(state, team, table_after, trailed, unseen, pool, next_hand), keep=keep,
                             **parts)
    return terms


def threat(state: State, team: int, table: int, trailed: int, unseen, pool: int, hand: int) -> float:
    """Expected gain of the next player (an opponent) on `table`: the best capture it can make,
    averaged over the ranks it may hold (a greedy expectation of the maximum)."""
    rules = state.rules
    them = state.scores[1 - team]
    last = _last_gains  # read once: another thread may replace it meanwhile
    cache = last[1] if last[0] is rules else _gains_of(rules)
    my_ronda = state.rondas[state.turn]
    key = (table << 16) | (min(them, 127) << 8) | ((trailed + 1) << 4) | (my_ronda + 1)
    best = cache.get(key)
    if best is None:
        if len(cache) >= 100_000:
            cache.clear()
        best = cache[key] = tuple(best_gain(rules, them, table, p, trailed == p, my_ronda == p) for p in range(10))
    gains = [(best[p], p_holds(unseen[p], hand, pool)) for p in range(10) if unseen[p] and best[p] > 0]
    gains.sort(reverse=True)
    expected, none_before = 0.0, 1.0
    for gain, prob in gains:
        expected += gain * prob * none_before
        none_before *= 1.0 - prob
    return expected


_GAINS: dict = {}
"""best_gain's answers for each rank on a table, per rules (each cleared at 100,000 tables, about 20 MB)."""
_last_gains: tuple = (None, None)
"""The rules asked last and their answers (hashing the rules each time costs more than the lookup)."""


def _gains_of(rules) -> dict:
    global _last_gains
    cache = _GAINS.setdefault(rules, {})
    _last_gains = (rules, cache)
    return cache


def best_gain(rules, them: int, table: int, rank: int, caida: bool, on_ronda: bool) -> float:
    """The best a card of `rank` gains the team on `them` points on the packed `table`: its points, what its cards
    are worth in the cartón race, and WIN when they reach the target. `caida`: the rank was just trailed;
    `on_ronda`: it is the rank of the trailing player's ronda."""
    opp_cards = CARD_WEIGHT if below(them, rules.carton_cutoff) else 0.0
    best = 0.0
    for a, taken, left in capture_outcomes(rank, table, rules):
        pts = sum(capture_score(rules, them, caida and ACTION_KIND[a] == MATCH, on_ronda, not left))
        gain = pts + opp_cards * (taken + 1)
        if them + pts >= TARGET_SCORE:
            gain += WIN
        best = max(best, gain)
    return best
