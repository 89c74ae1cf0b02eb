"""Provides the steps of a game: legal actions, check_action / is_legal / apply for plays, and `deal`
for the chance step.

One code path decides legality: `legal_actions` lists the moves, `check_action` explains a refusal,
`apply` refuses what `legal_actions` does not list and returns (new state, events). A play never
deals: after the last card of a deal the state awaits the next deal (`State.needs_deal`), and after
the last card of a hand the hand is settled (cartón) and the next hand awaits its first deal. The
cards a deal gives are a chance outcome, passed to `deal` by whoever deals (dealing.py).
"""

from __future__ import annotations

from ..i18n import _, number, pgettext
from .actions import (
    ACTION_BASE,
    ACTION_BASE_PACKED,
    ACTION_KIND,
    ACTION_RANK,
    FIELD_BITS,
    MATCH,
    N_ACTIONS,
    SUM,
    SUMS_BY_RANK,
    TRAIL,
    action_to_string,
    contains,
    count_in,
    escalera,
    pack,
    sum_action,
)
from .cards import DECK_SIZE, RANKS, VALUE, card_str, rank_name, rank_of
from .rules import TARGET_SCORE, Rules
from .scoring import announcements, capture_score, settle_hand
from .state import Caida, Dealt, GameWon, HandEnded, IllegalMove, Limpia, Played, State

CARDS_PER_DEAL = 5
_RELEVANT = tuple(((1 << (FIELD_BITS * (r + 1))) - 1) if VALUE[r] else (15 << (FIELD_BITS * r)) for r in range(10))
"""Per rank, the packed-table bits its captures depend on: its own count and, for a number card, the
counts of the ranks below it (the only ones a sum can use). The cache below is bounded by that."""
_RANK_CACHE: dict[int, tuple[int, ...]] = {}


def rank_actions(r: int, table: int, rules: Rules) -> tuple[int, ...]:
    """The legal actions that play rank r on a packed table (trail, match, sums), in id order."""
    limit = rules.sum_limit
    captures = [MATCH * 10 + r] if count_in(table, r) else []
    for a in SUMS_BY_RANK[r]:
        if len(ACTION_BASE[a]) <= limit and contains(table, ACTION_BASE_PACKED[a]):
            captures.append(a)
    return tuple(captures) if captures and rules.forced_capture else (r, *captures)


_LAST: tuple = (None, ())
"""The last state asked about and its legal actions: a player asks, then `apply` checks the same state."""


def legal_actions(state: State) -> tuple[int, ...]:
    """The legal action ids for the seat on turn, sorted; empty when the game is over or a deal is due."""
    global _LAST
    last = _LAST  # one read: another thread may replace it, never half of it
    if last[0] is state:
        return last[1]
    if state.is_over:
        return ()
    rules = state.rules
    table = state.table_packed
    key_rules = rules.legal_key
    out: list[int] = []
    last = -1
    for c in state.hands[state.turn]:  # hands are sorted, so equal ranks are adjacent
        r = c >> 2
        if r == last:
            continue
        last = r
        key = ((table & _RELEVANT[r]) << 8) | (r << 4) | key_rules
        found = _RANK_CACHE.get(key)
        if found is None:
            found = _RANK_CACHE[key] = rank_actions(r, table, rules)
        out += found
    out.sort()
    found = tuple(out)
    _LAST = (state, found)
    return found


def check_action(state: State, action, card: int | None = None) -> None:
    """Raise IllegalMove with a reason a person can read if `action` is not legal now."""
    if state.is_over:
        raise IllegalMove(_("the game is over: team {team} has won {score}-{other}").format(
            team=state.winner, score=number(state.scores[0]), other=number(state.scores[1])), "game_over")
    if state.needs_deal:
        raise IllegalMove(_("the cards have not been dealt yet: the next step is a deal"), "deal_first")
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < N_ACTIONS:
        raise IllegalMove(_("{action} is not a move: actions are numbers 0..{last}").format(
            action=repr(action), last=N_ACTIONS - 1), "no_such_action")
    seat, r, kind = state.turn, ACTION_RANK[action], ACTION_KIND[action]
    hand = state.hands[seat]
    name = rank_name(r)
    if not any(c >> 2 == r for c in hand):
        raise IllegalMove(_("seat {seat} has no {rank} in hand").format(seat=seat, rank=name), "not_in_hand")
    if card is not None:
        if card not in hand:
            raise IllegalMove(_("that card is not in seat {seat}'s hand").format(seat=seat), "not_in_hand")
        if rank_of(card) != r:
            raise IllegalMove(_("the chosen card is not a {rank}").format(rank=name), "wrong_card")
    table = state.table_packed
    if kind == MATCH and not count_in(table, r):
        raise IllegalMove(_("{rank} cannot match: there is no {rank} on the table").format(rank=name), "no_match")
    if kind == SUM:
        base = ACTION_BASE[action]
        if len(base) > state.rules.sum_limit:
            raise IllegalMove(_("{rank} cannot take {cards}: an addition takes at most {n} cards under these "
                                "rules").format(rank=name, cards="+".join(RANKS[b] for b in base),
                                                n=state.rules.sum_max_cards), "sum_too_long")
        missing = [b for b in set(base) if count_in(table, b) < base.count(b)]
        if missing:
            need = ", ".join(f"{base.count(b)} × {RANKS[b]}" for b in sorted(missing))
            raise IllegalMove(_("{rank} cannot take {cards}: the table does not hold {need}").format(
                rank=name, cards="+".join(RANKS[b] for b in base), need=need), "not_on_table")
    if kind == TRAIL and state.rules.forced_capture and action not in legal_actions(state):
        raise IllegalMove(_("{rank} must capture: under forced capture a card that can take cannot be "
                            "trailed").format(rank=name), "forced_capture")
    if action not in legal_actions(state):  # pragma: no cover - every refusal above has a reason
        raise IllegalMove(_("{move} is not legal here").format(move=action_to_string(action)), "illegal")


def is_legal(state: State, action, card: int | None = None) -> bool:
    """Whether `action` (optionally with a particular card) is legal now."""
    try:
        check_action(state, action, card)
    except IllegalMove:
        return False
    return True


def choice_to_action(played_rank: int, kind: str, base, rules: Rules | None = None) -> int:
    """The action id of a capture described as (played rank, kind, base ranks); IllegalMove says why not.

    This is how a person or a rule case names a move; it explains what the action table rules out.
    Under match_takes_all_same_rank a match names every card of the rank it takes.
    """
    name = rank_name(played_rank)
    base = sorted(base)
    text = "+".join(RANKS[b] for b in base)
    if kind == "trail":
        if base:
            raise IllegalMove(_("a trail takes nothing; to take {cards} choose a match or a sum").format(cards=text),
                              "trail_takes")
        return played_rank
    if kind == "match":
        if base == [played_rank] or (rules is not None and rules.match_takes_all_same_rank and base
                                     and set(base) == {played_rank}):
            return 10 + played_rank
        if played_rank not in base:
            raise IllegalMove(_("{rank} cannot match {cards}: a match takes a card of the same rank").format(
                rank=name, cards=text), "bad_match")
        raise IllegalMove(_("{rank} cannot take {cards} at once: a play makes one capture, a match of one {rank} or "
                            "one addition").format(rank=name, cards=text), "one_capture")
    if kind != "sum":
        raise IllegalMove(_("{kind} is not a kind of move: use trail, match or sum").format(kind=repr(kind)),
                          "bad_kind")
    if VALUE[played_rank] == 0:
        raise IllegalMove(_("{rank} cannot capture by addition: J, Q and K have no value").format(rank=name),
                          "face_sum")
    if any(VALUE[b] == 0 for b in base):
        raise IllegalMove(_("{rank} cannot take {cards} by addition: J, Q and K have no value").format(
            rank=name, cards=text), "face_in_sum")
    if len(base) < 2:
        raise IllegalMove(_("{rank} cannot take {cards} by addition: a sum needs two or more cards").format(
            rank=name, cards=text or pgettext("no cards", "nothing")), "short_sum")
    total = sum(VALUE[b] for b in base)
    if total != VALUE[played_rank]:
        raise IllegalMove(_("{rank} cannot take {cards} by addition: they add up to {total}, not {value}").format(
            rank=name, cards=text, total=total, value=VALUE[played_rank]), "bad_sum")
    if max(base.count(b) for b in base) > 4:
        raise IllegalMove(_("there are only four cards of each rank"), "too_many")
    return sum_action(played_rank, base)


def _take_newest(cards: list, rank: int) -> int:
    for i in range(len(cards) - 1, -1, -1):
        if cards[i] >> 2 == rank:
            return cards.pop(i)
    raise AssertionError("rank not on table")  # pragma: no cover - guarded by legality


def apply(state: State, action: int, card: int | None = None):
    """Play `action` for the seat on turn; returns (new state, tuple of events).

    `card` picks which physical card of the rank to play (default: the first in hand). Captures take
    the newest table card of a rank (R-CAIDA-5). The last play of a hand also settles it (leftovers,
    cartón, a win) and, unless the game is won, leaves the next hand waiting for its first deal. A
    play never deals: see `deal`.
    """
    if card is not None or type(action) is not int or action not in legal_actions(state):
        check_action(state, action, card)  # raises IllegalMove with the reason
    rules = state.rules
    seat = state.turn
    n = rules.players
    team = seat & 1
    r = ACTION_RANK[action]
    kind = ACTION_KIND[action]
    hand = state.hands[seat]
    if card is None:
        for card in hand:
            if card >> 2 == r:
                break
    new_hand = tuple(c for c in hand if c != card)
    hands = state.hands[:seat] + (new_hand,) + state.hands[seat + 1:]
    played = list(state.played)
    played[seat] += (card,)
    scores, piles, winner, last_capturer = state.scores, state.piles, -1, state.last_capturer
    if kind == TRAIL:
        table = state.table + (card,)
        packed = state.table_packed + (1 << (FIELD_BITS * r))
        trailed = r
        events = [Played(seat, card, action, ())]
    else:
        rest = list(state.table)
        packed = state.table_packed
        if kind == MATCH:
            base = [r] * (count_in(packed, r) if rules.match_takes_all_same_rank else 1)
        else:
            base = ACTION_BASE[action]
        taken = [_take_newest(rest, b) for b in base]
        packed -= pack(base)
        for run_rank in escalera(packed, r):
            taken.append(_take_newest(rest, run_rank))
            packed -= 1 << (FIELD_BITS * run_rank)
        table = tuple(rest)
        trailed = -1
        last_capturer = team
        events = [Played(seat, card, action, tuple(taken))]
        before = scores[team]
        caida = kind == MATCH and state.trailed == r
        caida_points, bonus, limpia = capture_score(rules, before, caida, state.rondas[(seat - 1) % n] == r,
                                                    not table)
        if caida:
            events.append(Caida(seat, team, caida_points, bonus))
        if not table:
            events.append(Limpia(seat, team, limpia))
        pile = piles[team] + (card,) + tuple(taken)
        piles = (pile, piles[1]) if team == 0 else (piles[0], pile)
        points = caida_points + bonus + limpia
        if points:
            scores = (before + points, scores[1]) if team == 0 else (scores[0], before + points)
            if before + points >= TARGET_SCORE:
                winner = team
                events.append(GameWon(team, scores))
    new = State(rules, state.hand_no, state.dealer, state.deal_no, (seat + 1) % n, hands, table, packed,
                state.stock, piles, scores, trailed, state.rondas, tuple(played), last_capturer, winner,
                state.discarded, state.plays + 1)
    if winner < 0 and not new_hand and not state.stock and not any(hands):
        new = _end_hand(new, events)
    return new, tuple(events)


def deal(state: State, cards) -> tuple[State, tuple]:
    """The chance step: deal `cards` (5 per seat, in dealing order: the seat after the dealer first,
    the dealer last, R-DEAL-3) from the stock, then score the announcements (§5).

    Returns (new state, events). IllegalMove when no deal is due or the cards are not the stock's.
    """
    rules = state.rules
    n = rules.players
    size = CARDS_PER_DEAL * n
    stock = state.stock
    if state.is_over or any(state.hands) or not stock:
        raise IllegalMove(_("no deal is due: a seat still holds cards, the stock is empty or the game is over"),
                          "no_deal_due")
    try:
        cards = tuple(cards)
    except TypeError:
        raise IllegalMove(_("a deal is a sequence of cards, not {value}").format(value=repr(cards)),
                          "bad_deal") from None
    dealt = {c for c in cards if type(c) is int}  # a bool or a float equal to a card id is not a card
    rest = tuple([c for c in stock if c not in dealt])
    if len(cards) != min(size, len(stock)) or len(dealt) != len(cards) or len(rest) + len(cards) != len(stock):
        shown = " ".join(card_str(c) if type(c) is int and 0 <= c < DECK_SIZE else repr(c) for c in cards)
        raise IllegalMove(_("a deal gives {n} distinct cards from the stock; got {cards}").format(
            n=min(size, len(state.stock)), cards=shown or pgettext("no cards", "none")), "bad_deal")
    dealer = state.dealer
    hands = [()] * n
    for i in range(n):
        hands[(dealer + 1 + i) % n] = tuple(sorted(cards[i * CARDS_PER_DEAL:(i + 1) * CARDS_PER_DEAL]))
    # The first deal of a hand keeps the state's number (0 in a game, or a position's own); a deal after plays is
    # the next one.
    deal_no = state.deal_no + 1 if any(state.played) else state.deal_no
    events: list = [Dealt(state.hand_no, deal_no, dealer)]
    found, scores, winner, rondas = announcements(hands, dealer, state.scores, rules)
    events.extend(found)
    if winner >= 0:
        events.append(GameWon(winner, scores))
    new = State(rules, state.hand_no, dealer, deal_no, (dealer + 1) % n, tuple(hands), state.table,
                state.table_packed, rest, state.piles, scores, -1, rondas, _NOTHING_PLAYED[n], state.last_capturer,
                winner, state.discarded, state.plays)
    return new, tuple(events)


_NOTHING_PLAYED = {2: ((), ()), 4: ((), (), (), ())}


def cards_per_deal(rules: Rules) -> int:
    """How many cards one deal gives out: 5 to each seat."""
    return CARDS_PER_DEAL * rules.players


def play_events(state: State, action: int) -> tuple:
    """The events of a play, which a player may know before making it: the play, what it scores, the end
    of the hand and its cartón, a win (a play never deals, so no card it cannot see)."""
    return apply(state, action)[1]


def play_points(events) -> int:
    """Points a play scored (caída with any ronda bonus, limpia) from its events."""
    return sum(e.points + e.ronda_bonus if isinstance(e, Caida) else e.points
               for e in events if isinstance(e, (Caida, Limpia)))


def _end_hand(state: State, events: list) -> State:
    """Settle leftovers, score the cartón, then start the next hand unless someone won (R-END, R-CARTON)."""
    rules = state.rules
    piles, leftover = state.piles, state.table
    counts, carton, scores, winner = settle_hand((len(piles[0]), len(piles[1])), len(leftover),
                                                 state.last_capturer, state.dealer & 1, state.scores, rules)
    if counts[0] != len(piles[0]) or counts[1] != len(piles[1]):
        t = state.last_capturer
        piles = tuple(p + leftover if i == t else p for i, p in enumerate(piles))
        leftover = ()
    events.append(HandEnded(state.hand_no, counts, leftover, carton))
    if winner >= 0:
        events.append(GameWon(winner, scores))
        return state._replace(piles=piles, table=(), table_packed=0, scores=scores, winner=winner,
                              discarded=leftover)
    return _fresh_hand(state, state.hand_no + 1, (state.dealer + 1) % rules.players, scores)


def _fresh_hand(state: State, hand_no: int, dealer: int, scores) -> State:
    """A hand before its first deal: all 40 cards in the stock, nothing on the table or in the piles."""
    n = state.rules.players
    return state._replace(hand_no=hand_no, dealer=dealer, deal_no=0, turn=(dealer + 1) % n, hands=((),) * n,
                          table=(), table_packed=0, stock=tuple(range(DECK_SIZE)), piles=((), ()), scores=scores,
                          trailed=-1, rondas=(-1,) * n, played=((),) * n, last_capturer=-1, discarded=())


def initial_state(rules: Rules | None = None, dealer: int = 0, scores=(0, 0)) -> State:
    """A game before its first deal, `dealer` dealing the first hand (dealing.py chooses and deals)."""
    rules = rules or Rules()
    if type(dealer) is not int or not 0 <= dealer < rules.players:
        raise ValueError(_("dealer must be a seat 0..{last}").format(last=rules.players - 1))
    n = rules.players
    blank = State(rules, 0, dealer, 0, 0, ((),) * n, (), 0, (), ((), ()), tuple(scores), -1, (-1,) * n, ((),) * n,
                  -1, -1, (), 0)
    return _fresh_hand(blank, 0, dealer, tuple(scores))
