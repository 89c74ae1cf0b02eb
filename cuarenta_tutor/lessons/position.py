"""Provides a lesson's positions: a [[positions]] table of a lesson file checked and made into a real engine State
with seat 0 (you) on turn and its one right answer (loader.py reads the files around them).

`build_position` raises ValueError(message, key): what is wrong and the field it is in, for the loader to name the
line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from ..engine import (
    ACTION_BASE,
    ACTION_KIND,
    ACTION_RANK,
    RANKS,
    TARGET_SCORE,
    TRAIL,
    IllegalMove,
    State,
    action_to_string,
    capture_options,
    card_str,
    choice_to_action,
    legal_actions,
    make_position,
    parse_card,
    parse_rank,
)
from ..engine.cards import DECK_SIZE
from ..i18n import N_, _
from ..narrator import move_name

_COMMON = {"id", "prompt", "hand", "table", "trailed", "scores", "captured", "pile_sizes", "stock", "ronda", "answer",
           "why", "decided_by", "reason", "feedback"}
HANDS = {2: ("hand", "opponent"), 4: ("hand", "next_opponent", "partner", "previous_opponent")}
"""Per player count, the field naming each seat's hand, seat 0 (you) first, in turn order."""
RONDAS = {2: ("ronda", "opponent_ronda"),
          4: ("ronda", "next_opponent_ronda", "partner_ronda", "previous_opponent_ronda")}
"""Per player count, the field naming each seat's ronda rank in this deal."""
SEAT_NAMES = {2: (N_("you"), N_("your opponent")),
              4: (N_("you"), N_("your next opponent"), N_("your partner"), N_("your previous opponent"))}
"""Per player count, each seat as the problems of a file name it (translated where shown)."""
_FIELDS = {n: _COMMON | set(HANDS[n]) | set(RONDAS[n]) for n in HANDS}


@dataclass(frozen=True)
class Position:
    """One exercise: find the right move for seat 0 (on turn) in `state`."""

    id: str
    prompt: str
    state: State
    answer: int
    """The right move's action id."""
    why: str
    feedback: dict = field(default_factory=dict, hash=False)
    """Hand-written text per action id; other moves get generated feedback."""
    decided_by: str = "rules"
    """"rules": the rules alone make the answer right (see `reason`); "search": it is what search plays."""
    reason: str = ""
    line: int = 0
    """The line of the position's id in its file."""

    @property
    def answer_name(self) -> str:
        return move_name(self.state, self.answer)

    def moves(self) -> dict[str, int]:
        """The legal moves by name, in action order."""
        return {move_name(self.state, a): a for a in legal_actions(self.state)}


def _problem(message: str, key: str | None = None) -> ValueError:
    """A position's problem, with the field to point the line number at."""
    return ValueError(message, key)


def _cards(value, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise _problem(f"{key!r} must be a list of cards such as [\"5h\", \"K\"]", key)
    return value


def _place(groups: dict[str, list[str]]) -> dict[str, list[int]]:
    """Card ids for each group of card strings: suited cards first, then ranks alone on free suits."""
    used: dict[int, str] = {}
    placed: dict[str, dict] = {g: {} for g in groups}
    for suited in (True, False):
        for group, items in groups.items():
            key = group.split()[0]
            for n, item in enumerate(items):
                text = item.strip()
                if (len(text) >= 2 and text[-1] in "shdcSHDC♠♥♦♣") != suited:
                    continue
                try:
                    card = parse_card(text) if suited else next(
                        (parse_rank(text) * 4 + s for s in range(4) if parse_rank(text) * 4 + s not in used), None)
                except ValueError as err:
                    raise _problem(f"{group}: {err}", key) from None
                if card is None:
                    raise _problem(f"more than four cards of rank {text} (the last in {group})", key)
                if card in used:
                    raise _problem(f"the card {card_str(card)} appears twice (in {used[card]} and {group})", key)
                used[card], placed[group][n] = group, card
    return {g: [cards[n] for n in sorted(cards)] for g, cards in placed.items()}


def _rank(spec: dict, key: str) -> int | None:
    if spec.get(key) is None:
        return None
    try:
        if not isinstance(spec[key], str):
            raise ValueError(f"write the rank in quotes, such as \"5\", not {spec[key]!r}")
        return parse_rank(spec[key])
    except ValueError as err:
        raise _problem(f"{key!r}: {err}", key) from None


def _unknown_field(spec: dict, n: int) -> None:
    unknown = sorted(set(spec) - _FIELDS[n])
    if not unknown:
        return
    key = unknown[0]
    if n == 2 and key in _FIELDS[4]:
        raise _problem(f"{key!r} is a field of 2 v 2 positions: set players = 4 at the top of the file", key)
    if n == 4 and key in _FIELDS[2]:
        raise _problem(f"a 2 v 2 position has no {key!r}: the other hands are next_opponent (seat 1, plays right "
                       f"after you), partner (seat 2) and previous_opponent (seat 3, plays just before you), their "
                       f"rondas next_opponent_ronda, partner_ronda and previous_opponent_ronda", key)
    raise _problem(f"unknown field {key!r} (known: {', '.join(sorted(_FIELDS[n]))})", key)


def _dealer(sizes: list[int]) -> int:
    """The dealer the hand sizes say (seat 0 is on turn); ValueError(message, field) when no deal fits them."""
    h = sizes[0]
    if not 1 <= h <= 5:
        raise _problem(f"your hand must hold 1 to 5 cards, not {h}", "hand")
    if len(sizes) == 2:
        if sizes[1] not in (h, h - 1):
            raise _problem(f"the opponent must hold as many cards as you ({h}: you lead this deal) "
                           f"or one fewer (they lead), not {sizes[1]}", "opponent")
        return int(sizes[1] == h)
    # 2 v 2: the seats from the leader (the one after the dealer) round to seat 3 have played one card more than you.
    fits = {dealer: [h - (0 < (dealer + 1) % 4 <= s) for s in (1, 2, 3)] for dealer in (3, 2, 1, 0)}
    misfits = {dealer: [s for s in (1, 2, 3) if sizes[s] != want[s - 1]] for dealer, want in fits.items()}
    dealer = min(misfits, key=lambda d: len(misfits[d]))  # the closest fit names the field to fix
    if misfits[dealer]:
        seat = misfits[dealer][0]
        shown = lambda sizes: "/".join(map(str, sizes))  # noqa: E731
        raise _problem(f"{SEAT_NAMES[4][seat]} holds {sizes[seat]} cards, which fits no deal: with your {h}, your "
                       f"next opponent, partner and previous opponent hold {shown(fits[3])} (you lead this deal), "
                       f"{shown(fits[2])} (your previous opponent led), {shown(fits[1])} (your partner led) or "
                       f"{shown(fits[0])} (your next opponent led: you dealt), not {shown(sizes[1:])}",
                       HANDS[4][seat])
    return dealer


def _check_rondas(hands: list[list[int]], played: list[tuple], rondas: list[int | None], rules) -> None:
    """Every hand holding three of a kind announced it as a ronda, and every hidden seat's announced ronda is
    still in its hand (with the card it just trailed): search samples the hidden hands that way."""
    n = len(hands)
    for seat, (hand, rank) in enumerate(zip(hands, rondas, strict=True)):
        counts = [0] * len(RANKS)
        for c in [*hand, *played[seat]]:
            counts[c >> 2] += 1
        who, key = SEAT_NAMES[n][seat], RONDAS[n][seat]
        holds = "hold" if seat == 0 else "holds"
        if max(counts) == 4 and rules.four_of_a_kind == "win":
            raise _problem(f"{who} {holds} four {RANKS[counts.index(4)]}s: four of a kind dealt in this deal would "
                           f"have won the game", HANDS[n][seat])
        if rank is None and max(counts) >= 3:
            r, many = RANKS[counts.index(max(counts))], "three" if max(counts) == 3 else "four"
            raise _problem(f"{who} {holds} {many} {r}s, dealt in this deal: that is a ronda; set {key} = \"{r}\" "
                           f"(and count its points in 'scores')", HANDS[n][seat])
        if rank is not None and seat and counts[rank] < 3:
            raise _problem(f"{key} = \"{RANKS[rank]}\", but {who} {holds} {counts[rank] or 'no'} {RANKS[rank]}"
                           f"{'s' if counts[rank] != 1 else ''}: a ronda is three of a kind, and a position does not "
                           f"say what a player played earlier in the deal (only the card just trailed), so the "
                           f"three must still be in the hand", key)


def build_position(spec, track: str, rules) -> Position:
    """A Position from one [[positions]] table; ValueError(message, field) says what is wrong."""
    if not isinstance(spec, dict):
        raise _problem("a position must be a table")
    n = rules.players
    _unknown_field(spec, n)
    for key in ("id", "prompt", "why", "answer"):
        if key not in spec or key != "answer" and not (isinstance(spec[key], str) and spec[key].strip()):
            raise _problem(f"the field {key!r} is missing or empty", key)
    for seat, key in enumerate(HANDS[n]):
        if key not in spec:
            whose = "your cards" if not seat else f"{SEAT_NAMES[n][seat]}'s hand, hidden from the player"
            raise _problem(f"the field {key!r} is missing ({whose})", key)
    sides = "[[yours], [your opponent's]]" if n == 2 else "[[your side's], [the other side's]]"
    captured = spec.get("captured", [[], []])
    if not (isinstance(captured, list) and len(captured) == 2):
        raise _problem(f"'captured' must be two lists of cards: {sides}", "captured")
    piles_named = ("captured (yours)", "captured (theirs)") if n == 2 else (
        "captured (your side's)", "captured (theirs)")
    ids = _place({**{key: _cards(spec[key], key) for key in HANDS[n]}, "table": _cards(spec.get("table", []), "table"),
                  piles_named[0]: _cards(captured[0], "captured"), piles_named[1]: _cards(captured[1], "captured")})
    hands = [ids[key] for key in HANDS[n]]
    dealer = _dealer([len(h) for h in hands])
    placed = sum(map(len, ids.values()))
    stocks = (30, 20, 10) if n == 2 else (20,)
    stock = spec.get("stock", next((s for s in stocks if placed + s <= DECK_SIZE), 0))
    if isinstance(stock, bool) or stock not in (*stocks, 0):
        raise _problem(f"'stock' must be 0, 10, 20 or 30 (cards left to deal), not {stock!r}" if n == 2 else
                       f"'stock' must be 20 (the first deal of the hand) or 0 (the second and last), not {stock!r}",
                       "stock")
    fill = DECK_SIZE - placed - stock
    if fill < 0:
        raise _problem(f"too many cards: {placed} placed and {stock} in the stock make more than 40", "stock")
    piles = [ids[piles_named[0]], ids[piles_named[1]]]
    sizes, total = spec.get("pile_sizes"), fill + len(piles[0]) + len(piles[1])
    if sizes is not None and not (isinstance(sizes, list) and len(sizes) == 2 and sum(sizes) == total and all(
            type(k) is int and k >= len(p) for k, p in zip(sizes, piles, strict=True))):
        raise _problem(f"'pile_sizes' must be two counts, each at least its captured cards, adding up to {total} "
                       f"(the cards that are not in the hands, on the table or in the stock)", "pile_sizes")
    rest = sorted((c for c in range(DECK_SIZE) if all(c not in v for v in ids.values())), key=lambda c: (c & 3, c >> 2))
    for card in rest[:fill]:  # earlier captures: one of each rank in turn, to the smaller pile (yours on a tie)
        piles[(len(piles[0]) >= sizes[0]) if sizes else int(len(piles[1]) < len(piles[0]))].append(card)
    scores = spec.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2
            and all(type(s) is int and 0 <= s < TARGET_SCORE for s in scores)):
        whose = "[yours, your opponent's]" if n == 2 else "[your side's, the other side's]"
        raise _problem(f"'scores' must be {whose}, each 0 to {TARGET_SCORE - 1}", "scores")
    trailed = _rank(spec, "trailed")
    rondas = [_rank(spec, key) for key in RONDAS[n]]
    played: list[tuple] = [()] * n
    if trailed is not None:
        if trailed not in [c >> 2 for c in ids["table"]]:
            raise _problem(f"trailed = {spec['trailed']!r}, but no {RANKS[trailed]} is on the table", "trailed")
        if len(hands[-1]) == 5:
            raise _problem("trailed is set, but your opponent has not played in this deal" if n == 2 else
                           "trailed is set, but your previous opponent (who plays just before you) has not played "
                           "in this deal", "trailed")
        played[-1] = ([c for c in ids["table"] if c >> 2 == trailed][-1],)  # the newest card of that rank
    _check_rondas(hands, played, rondas, rules)
    show = lambda cards: [card_str(c, ascii_only=True) for c in cards]  # noqa: E731
    state = make_position(rules, hands=[show(h) for h in hands], table=show(ids["table"]), scores=tuple(scores),
                          dealer=dealer, piles=(show(piles[0]), show(piles[1])), stock=show(rest[fill:]),
                          trailed=trailed, rondas=rondas, deal_no=(stocks[0] - stock) // (5 * n))
    state = state._replace(played=tuple(played))  # what is known of this deal's plays: the card just trailed
    if not legal_actions(state):
        raise _problem("there is no legal move in this position")
    answer = _action(state, spec["answer"], "answer")
    notes = spec.get("feedback", {})
    if not isinstance(notes, dict) or not all(isinstance(v, str) for v in notes.values()):
        raise _problem("'feedback' must be a table of move name = \"text\"", "feedback")
    feedback = {_action(state, key, key, "feedback key"): text for key, text in notes.items()}
    decided_by = spec.get("decided_by", "rules" if track == "rules" else None)
    if decided_by not in ("rules", "search"):
        raise _problem(f"'decided_by' must be \"search\" or \"rules\", not {decided_by!r}", "decided_by")
    reason = spec.get("reason", spec["why"] if track == "rules" else "")
    if decided_by == "rules" and not (isinstance(reason, str) and reason.strip()):
        raise _problem("decided_by = \"rules\" needs a 'reason': why the rules alone make the answer right", "reason")
    return Position(spec["id"], spec["prompt"], state, answer, spec["why"], feedback, decided_by, reason or "")


def _norm(text: str) -> str:
    return re.sub(r"\s*\+\s*", "+", " ".join(text.lower().replace(",", " , ").split())).replace(" ,", ",")


def _action(state: State, spec, key: str, what: str = "answer") -> int:
    """The legal action a move name (or a {played, kind, base} table) stands for."""
    legal = legal_actions(state)
    listing = ", ".join(move_name(state, a) for a in legal)
    if isinstance(spec, str):
        for a in legal:
            if _norm(spec) in (_norm(move_name(state, a)), _norm(action_to_string(a))):
                return a
        raise _problem(f"the {what} {spec!r} is not a legal move here (legal: {listing})", key)
    if not (isinstance(spec, dict) and isinstance(spec.get("played"), str) and isinstance(spec.get("base", []), list)):
        raise _problem(f"the {what} must be a move name such as \"5 takes 5\" or a table {{played, kind, base}}", key)
    try:
        a = choice_to_action(parse_rank(spec["played"]), spec.get("kind", "trail"),
                             [parse_rank(b) for b in spec.get("base", [])], state.rules)
    except (IllegalMove, ValueError, TypeError, AttributeError) as err:
        raise _problem(f"the {what} is not a move: {err}", key) from None
    if a not in legal:
        raise _problem(f"the {what} {action_to_string(a)!r} is not a legal move here (legal: {listing})", key)
    return a
