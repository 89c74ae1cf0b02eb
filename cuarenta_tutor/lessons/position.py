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
from ..i18n import N_, _, ngettext
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
        """The legal moves by name (in the language in use), in action order."""
        return {move_name(self.state, a): a for a in legal_actions(self.state)}

    def find(self, text: str) -> int | None:
        """The legal move a typed move name stands for (find_move), None where it names none."""
        return find_move(self.state, text)


# ---- move names as a person types them -------------------------------------------------------------------------
_RANK_WORDS = {**{r.lower(): i for i, r in enumerate(RANKS)}, "1": 0, "as": 0, "ases": 0, "ace": 0, "jota": 7,
               "reina": 8, "dama": 8, "rey": 9}
"""A rank as typed: its letter or number (any case), and the Spanish and English words for the A and the figures."""
_TAKES = {"takes", "take", "captures", "lleva", "llevas", "llevo", "coge", "coges", "cojo", "levanta", "levantas",
          "levanto", "toma", "tomas", "tomo"}
"""Words that make a move a capture: English, and the Spanish ones ("se lleva", "coge", "levanta")."""
_TRAILS = {"trails", "trail", "bota", "botas", "boto", "botar", "tira", "tiras", "tiro", "tirar"}
"""Words that make a move a trail ("botas el K", "tira el K", "K trails")."""
_RUN = {"then", "escalera", "luego", "seguidilla"}
"""Words after which the ranks typed are the escalera."""
_FILLER = {"el", "la", "los", "las", "lo", "se", "te", "me", "y", "e", "and", "the", "+", "-", "de", "del", "con",
           "with", "caida", "limpia"}
"""Words that change nothing in a move's name (articles, "y", "+", what it scores); "con" names the card played
("con el 7")."""


def plain(text: str) -> str:
    """A typed text compared without case, accents, punctuation or extra spaces; "+" kept as a word."""
    text = unicodedata.normalize("NFKD", text.lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"[,.;:!?¡¿«»\"'()]", " ", text.replace("+", " + "))
    return " ".join(text.split())


def _words(text: str) -> list[str]:
    return [w for w in plain(text).split() if w not in _FILLER or w == "con"]


def _parse(text: str):
    """(played rank, is a trail, base ranks, escalera ranks or None) of a typed move name; None where the words are
    not a move: "el 7 se lleva el 3 y el 4, y escalera J Q", "7 lleva 3+4", "botas el K", "con el 5 coges el 5"."""
    words = _words(text)
    if "caida" in plain(text).split() and not set(words) & (_TAKES | _TRAILS):  # "caída con el 5": a match
        words = [*words, "lleva", words[-1]] if words[-2:-1] == ["con"] else words
    takes = [i for i, w in enumerate(words) if w in _TAKES]
    trails = [i for i, w in enumerate(words) if w in _TRAILS]
    if len(takes) + len(trails) != 1 or any(w not in _RANK_WORDS and w not in _TAKES | _TRAILS | _RUN | {"con"}
                                            for w in words):
        return None
    verb = (takes or trails)[0]
    played = None
    if "con" in words:
        at = words.index("con")
        if at + 1 >= len(words) or words[at + 1] not in _RANK_WORDS:
            return None
        played = _RANK_WORDS[words[at + 1]]
        words = words[:at] + words[at + 2:]
        verb -= 2 if at < verb else 0
    before = [_RANK_WORDS[w] for w in words[:verb] if w in _RANK_WORDS]
    after, run, in_run = [], None, False
    for w in words[verb + 1:]:
        if w in _RUN:
            in_run, run = True, run or []
        elif w in _RANK_WORDS:
            (run if in_run else after).append(_RANK_WORDS[w])
    if played is None:
        if len(before) == 1:
            played = before[0]
        elif not before and trails and len(after) == 1:  # "botas el K"
            played, after = after[0], []
        else:
            return None
    elif before:
        return None
    if trails:
        return (played, True, (), None) if not after and run is None else None
    return (played, False, tuple(sorted(after)), tuple(run) if run is not None else None) if after else None


def english_name(state: State, action: int) -> str:
    """A move's English name with its escalera ("7 takes 3+4, then J Q"): what a lesson file names moves by, in
    any language."""
    for option in capture_options([c >> 2 for c in state.table], ACTION_RANK[action], state.rules):
        if option.action == action:
            return action_to_string(action, option.sequence)
    return action_to_string(action)


def _escalera(state: State, action: int) -> tuple:
    return next((tuple(o.sequence) for o in capture_options([c >> 2 for c in state.table], ACTION_RANK[action],
                                                            state.rules) if o.action == action), ())


def find_move(state: State, text: str) -> int | None:
    """The legal move a typed name stands for: the name the tutor shows (in the language in use), the English one
    ("5 takes 5", "7 takes 3+4, then J Q"), or the Spanish a player types ("el 7 se lleva el 3 y el 4, y escalera
    J Q", "7 coge 3+4", "botas el K", "tira K"): case, accents, articles and "y"/"+" between cards do not matter,
    and the escalera may be left out. None where it names no legal move."""
    legal = legal_actions(state)
    typed = plain(text)
    if not typed:
        return None
    for a in legal:
        if typed in (plain(move_name(state, a)), plain(english_name(state, a)), plain(action_to_string(a))):
            return a
    parsed = _parse(text)
    if parsed is None:
        return None
    played, trail, base, run = parsed
    for a in legal:
        if ACTION_RANK[a] != played or (ACTION_KIND[a] == TRAIL) != trail:
            continue
        if trail or (tuple(sorted(ACTION_BASE[a])) == base and run in (None, _escalera(state, a))):
            return a
    return None


def _problem(message: str, key: str | None = None) -> ValueError:
    """A position's problem, with the field to point the line number at."""
    return ValueError(message, key)


def _cards(value, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise _problem(_("{key} must be a list of cards such as [\"5h\", \"K\"]").format(key=repr(key)), key)
    return value


PILES = {2: (N_("captured (yours)"), N_("captured (theirs)")),
         4: (N_("captured (your side's)"), N_("captured (theirs)"))}
"""Per player count, the piles of captured cards as the problems of a file name them (translated where shown)."""


def _label(group: str) -> str:
    """A group of cards as a problem names it: a field name as it is, a pile in the language in use."""
    return _(group) if group.startswith("captured") else group


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
                    raise _problem(_("{group}: {problem}").format(group=_label(group), problem=err), key) from None
                if card is None:
                    raise _problem(_("more than four cards of rank {rank} (the last in {group})").format(
                        rank=text, group=_label(group)), key)
                if card in used:
                    raise _problem(_("the card {card} appears twice (in {first} and {second})").format(
                        card=card_str(card), first=_label(used[card]), second=_label(group)), key)
                used[card], placed[group][n] = group, card
    return {g: [cards[n] for n in sorted(cards)] for g, cards in placed.items()}


def _rank(spec: dict, key: str) -> int | None:
    if spec.get(key) is None:
        return None
    try:
        if not isinstance(spec[key], str):
            raise ValueError(_("write the rank in quotes, such as \"5\", not {value}").format(value=repr(spec[key])))
        return parse_rank(spec[key])
    except ValueError as err:
        raise _problem(_("{group}: {problem}").format(group=repr(key), problem=err), key) from None


def _unknown_field(spec: dict, n: int) -> None:
    unknown = sorted(set(spec) - _FIELDS[n])
    if not unknown:
        return
    key = unknown[0]
    if n == 2 and key in _FIELDS[4]:
        raise _problem(_("{key} is a field of 2 v 2 positions: set players = 4 at the top of the file").format(
            key=repr(key)), key)
    if n == 4 and key in _FIELDS[2]:
        raise _problem(_("a 2 v 2 position has no {key}: the other hands are next_opponent (seat 1, plays right "
                         "after you), partner (seat 2) and previous_opponent (seat 3, plays just before you), their "
                         "rondas next_opponent_ronda, partner_ronda and previous_opponent_ronda").format(key=repr(key)),
                       key)
    raise _problem(_("unknown field {key} (known: {known})").format(key=repr(key), known=", ".join(sorted(_FIELDS[n]))),
                   key)


def _dealer(sizes: list[int]) -> int:
    """The dealer the hand sizes say (seat 0 is on turn); ValueError(message, field) when no deal fits them."""
    h = sizes[0]
    if not 1 <= h <= 5:
        raise _problem(_("your hand must hold 1 to 5 cards, not {count}").format(count=h), "hand")
    if len(sizes) == 2:
        if sizes[1] not in (h, h - 1):
            raise _problem(_("the opponent must hold as many cards as you ({count}: you lead this deal) "
                             "or one fewer (they lead), not {other}").format(count=h, other=sizes[1]), "opponent")
        return int(sizes[1] == h)
    # 2 v 2: the seats from the leader (the one after the dealer) round to seat 3 have played one card more than you.
    fits = {dealer: [h - (0 < (dealer + 1) % 4 <= s) for s in (1, 2, 3)] for dealer in (3, 2, 1, 0)}
    misfits = {dealer: [s for s in (1, 2, 3) if sizes[s] != want[s - 1]] for dealer, want in fits.items()}
    dealer = min(misfits, key=lambda d: len(misfits[d]))  # the closest fit names the field to fix
    if misfits[dealer]:
        seat = misfits[dealer][0]
        shown = lambda sizes: "/".join(map(str, sizes))  # noqa: E731
        raise _problem(ngettext(
            "{who} holds {count} card, which fits no deal: with your {yours}, your next opponent, partner and previous "
            "opponent hold {you_lead} (you lead this deal), {previous_led} (your previous opponent led), {partner_led} "
            "(your partner led) or {next_led} (your next opponent led: you dealt), not {sizes}",
            "{who} holds {count} cards, which fits no deal: with your {yours}, your next opponent, partner and "
            "previous opponent hold {you_lead} (you lead this deal), {previous_led} (your previous opponent led), "
            "{partner_led} (your partner led) or {next_led} (your next opponent led: you dealt), not {sizes}",
            sizes[seat]).format(
            who=_(SEAT_NAMES[4][seat]), count=sizes[seat], yours=h, you_lead=shown(fits[3]),
            previous_led=shown(fits[2]), partner_led=shown(fits[1]), next_led=shown(fits[0]), sizes=shown(sizes[1:])),
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
        who, key = _(SEAT_NAMES[n][seat]), RONDAS[n][seat]
        if max(counts) == 4 and rules.four_of_a_kind == "win":
            four = RANKS[counts.index(4)]
            raise _problem((_("you hold four {rank}s: four of a kind dealt in this deal would have won the game")
                            if seat == 0 else
                            _("{who} holds four {rank}s: four of a kind dealt in this deal would have won the game")
                            ).format(who=who, rank=four), HANDS[n][seat])
        if rank is None and max(counts) >= 3:
            r = RANKS[counts.index(max(counts))]
            message = {(True, 3): _("you hold three {rank}s, dealt in this deal: that is a ronda; set {key} = "
                                    "\"{rank}\" (and count its points in 'scores')"),
                       (True, 4): _("you hold four {rank}s, dealt in this deal: that is a ronda; set {key} = "
                                    "\"{rank}\" (and count its points in 'scores')"),
                       (False, 3): _("{who} holds three {rank}s, dealt in this deal: that is a ronda; set {key} = "
                                     "\"{rank}\" (and count its points in 'scores')"),
                       (False, 4): _("{who} holds four {rank}s, dealt in this deal: that is a ronda; set {key} = "
                                     "\"{rank}\" (and count its points in 'scores')")}[seat == 0, max(counts)]
            raise _problem(message.format(who=who, rank=r, key=key), HANDS[n][seat])
        if rank is not None and seat and counts[rank] < 3:
            held = counts[rank]
            message = _("{key} = \"{rank}\", but {who} holds no {rank}s: a ronda is three of a kind, and a position "
                        "does not say what a player played earlier in the deal (only the card just trailed), so the "
                        "three must still be in the hand") if not held else ngettext(
                "{key} = \"{rank}\", but {who} holds {count} {rank}: a ronda is three of a kind, and a position does "
                "not say what a player played earlier in the deal (only the card just trailed), so the three must "
                "still be in the hand",
                "{key} = \"{rank}\", but {who} holds {count} {rank}s: a ronda is three of a kind, and a position "
                "does not say what a player played earlier in the deal (only the card just trailed), so the three "
                "must still be in the hand", held)
            raise _problem(message.format(key=key, rank=RANKS[rank], who=who, count=held), key)


def build_position(spec, track: str, rules) -> Position:
    """A Position from one [[positions]] table; ValueError(message, field) says what is wrong."""
    if not isinstance(spec, dict):
        raise _problem(_("a position must be a table"))
    n = rules.players
    _unknown_field(spec, n)
    for key in ("id", "prompt", "why", "answer"):
        if key not in spec or key != "answer" and not (isinstance(spec[key], str) and spec[key].strip()):
            raise _problem(_("the field {key} is missing or empty").format(key=repr(key)), key)
    for seat, key in enumerate(HANDS[n]):
        if key not in spec:
            raise _problem((_("the field {key} is missing (your cards)") if not seat else
                            _("the field {key} is missing ({who}'s hand, hidden from the player)")).format(
                key=repr(key), who=_(SEAT_NAMES[n][seat])), key)
    captured = spec.get("captured", [[], []])
    if not (isinstance(captured, list) and len(captured) == 2):
        raise _problem(_("'captured' must be two lists of cards: [[yours], [your opponent's]]") if n == 2 else
                       _("'captured' must be two lists of cards: [[your side's], [the other side's]]"), "captured")
    piles_named = PILES[n]
    ids = _place({**{key: _cards(spec[key], key) for key in HANDS[n]}, "table": _cards(spec.get("table", []), "table"),
                  piles_named[0]: _cards(captured[0], "captured"), piles_named[1]: _cards(captured[1], "captured")})
    hands = [ids[key] for key in HANDS[n]]
    dealer = _dealer([len(h) for h in hands])
    placed = sum(map(len, ids.values()))
    stocks = (30, 20, 10) if n == 2 else (20,)
    stock = spec.get("stock", next((s for s in stocks if placed + s <= DECK_SIZE), 0))
    if isinstance(stock, bool) or stock not in (*stocks, 0):
        raise _problem((_("'stock' must be 0, 10, 20 or 30 (cards left to deal), not {stock}") if n == 2 else
                        _("'stock' must be 20 (the first deal of the hand) or 0 (the second and last), not {stock}")
                        ).format(stock=repr(stock)), "stock")
    fill = DECK_SIZE - placed - stock
    if fill < 0:
        raise _problem(_("too many cards: {placed} placed and {stock} in the stock make more than 40").format(
            placed=placed, stock=stock), "stock")
    piles = [ids[piles_named[0]], ids[piles_named[1]]]
    sizes, total = spec.get("pile_sizes"), fill + len(piles[0]) + len(piles[1])
    if sizes is not None and not (isinstance(sizes, list) and len(sizes) == 2 and sum(sizes) == total and all(
            type(k) is int and k >= len(p) for k, p in zip(sizes, piles, strict=True))):
        raise _problem(_("'pile_sizes' must be two counts, each at least its captured cards, adding up to {total} "
                         "(the cards that are not in the hands, on the table or in the stock)").format(total=total),
                       "pile_sizes")
    rest = sorted((c for c in range(DECK_SIZE) if all(c not in v for v in ids.values())), key=lambda c: (c & 3, c >> 2))
    for card in rest[:fill]:  # earlier captures: one of each rank in turn, to the smaller pile (yours on a tie)
        piles[(len(piles[0]) >= sizes[0]) if sizes else int(len(piles[1]) < len(piles[0]))].append(card)
    scores = spec.get("scores", [0, 0])
    if not (isinstance(scores, list) and len(scores) == 2
            and all(type(s) is int and 0 <= s < TARGET_SCORE for s in scores)):
        raise _problem((_("'scores' must be [yours, your opponent's], each 0 to {top}") if n == 2 else
                        _("'scores' must be [your side's, the other side's], each 0 to {top}")).format(
            top=TARGET_SCORE - 1), "scores")
    trailed = _rank(spec, "trailed")
    rondas = [_rank(spec, key) for key in RONDAS[n]]
    played: list[tuple] = [()] * n
    if trailed is not None:
        if trailed not in [c >> 2 for c in ids["table"]]:
            raise _problem(_("trailed = {value}, but no {rank} is on the table").format(
                value=repr(spec["trailed"]), rank=RANKS[trailed]), "trailed")
        if len(hands[-1]) == 5:
            raise _problem(_("trailed is set, but your opponent has not played in this deal") if n == 2 else
                           _("trailed is set, but your previous opponent (who plays just before you) has not played "
                             "in this deal"), "trailed")
        played[-1] = ([c for c in ids["table"] if c >> 2 == trailed][-1],)  # the newest card of that rank
    _check_rondas(hands, played, rondas, rules)
    show = lambda cards: [card_str(c, ascii_only=True) for c in cards]  # noqa: E731
    state = make_position(rules, hands=[show(h) for h in hands], table=show(ids["table"]), scores=tuple(scores),
                          dealer=dealer, piles=(show(piles[0]), show(piles[1])), stock=show(rest[fill:]),
                          trailed=trailed, rondas=rondas, deal_no=(stocks[0] - stock) // (5 * n))
    state = state._replace(played=tuple(played))  # what is known of this deal's plays: the card just trailed
    if not legal_actions(state):
        raise _problem(_("there is no legal move in this position"))
    answer = _action(state, spec["answer"], "answer")
    notes = spec.get("feedback", {})
    if not isinstance(notes, dict) or not all(isinstance(v, str) for v in notes.values()):
        raise _problem(_("'feedback' must be a table of move name = \"text\""), "feedback")
    feedback = {_action(state, key, key, "feedback key"): text for key, text in notes.items()}
    decided_by = spec.get("decided_by", "rules" if track == "rules" else None)
    if decided_by not in ("rules", "search"):
        raise _problem(_("'decided_by' must be \"search\" or \"rules\", not {value}").format(value=repr(decided_by)),
                       "decided_by")
    reason = spec.get("reason", spec["why"] if track == "rules" else "")
    if decided_by == "rules" and not (isinstance(reason, str) and reason.strip()):
        raise _problem(_("decided_by = \"rules\" needs a 'reason': why the rules alone make the answer right"),
                       "reason")
    return Position(spec["id"], spec["prompt"], state, answer, spec["why"], feedback, decided_by, reason or "")


def _norm(text: str) -> str:
    return re.sub(r"\s*\+\s*", "+", " ".join(text.lower().replace(",", " , ").split())).replace(" ,", ",")


_NOT_LEGAL = {"answer": N_("the answer {move} is not a legal move here (legal: {legal})"),
              "feedback key": N_("the feedback key {move} is not a legal move here (legal: {legal})")}
_NOT_A_NAME = {"answer": N_("the answer must be a move name such as \"5 takes 5\" or a table {{played, kind, base}}"),
               "feedback key": N_("the feedback key must be a move name such as \"5 takes 5\" or a table "
                                  "{{played, kind, base}}")}
_NOT_A_MOVE = {"answer": N_("the answer is not a move: {problem}"),
               "feedback key": N_("the feedback key is not a move: {problem}")}


def _action(state: State, spec, key: str, what: str = "answer") -> int:
    """The legal action a move name (or a {played, kind, base} table) stands for. A file names moves in English
    (english_name: "7 takes 3+4, then J Q", the escalera optional), whatever the language in use."""
    legal = legal_actions(state)
    listing = ", ".join(english_name(state, a) for a in legal)
    if isinstance(spec, str):
        for a in legal:
            if _norm(spec) in (_norm(english_name(state, a)), _norm(action_to_string(a))):
                return a
        raise _problem(_(_NOT_LEGAL[what]).format(move=repr(spec), legal=listing), key)
    if not (isinstance(spec, dict) and isinstance(spec.get("played"), str) and isinstance(spec.get("base", []), list)):
        raise _problem(_(_NOT_A_NAME[what]).format(), key)
    try:
        a = choice_to_action(parse_rank(spec["played"]), spec.get("kind", "trail"),
                             [parse_rank(b) for b in spec.get("base", [])], state.rules)
    except (IllegalMove, ValueError, TypeError, AttributeError) as err:
        raise _problem(_(_NOT_A_MOVE[what]).format(problem=err), key) from None
    if a not in legal:
        raise _problem(_(_NOT_LEGAL[what]).format(move=repr(action_to_string(a)), legal=listing), key)
    return a
