"""Provides the narrator: the one place where game events and moves become words.

Every number it says is read from the game's `Rules` (cut-offs, points, the target) or from the event
itself, so a sentence never contradicts the preset being played: under `pagat` it never says the
cartón stops at 30, under "todo dos" it says why a caída y limpia scores 2. It covers every event of
the engine (Dealt, Ronda, FourOfAKind, Played, Caida, Limpia, HandEnded, GameWon) and the crossing of
each cut-off. The app's callouts, the coach's notes, the lessons' feedback, the play and review
screens all speak through it.

It speaks the language in use (i18n). A sentence is one message per person: the narrator knows the person's seat
(`you`) and says "You hold three of a kind" / "{name} holds three of a kind", and about a team "you", "your team",
"the other team" or its name, each its own message (in Spanish the verb changes with each: "ganaste", "tu equipo
ganó", "los rivales ganaron"). The seats' names the app gives ("The agent", "East", "Partner", "West") are said
as the language says them ("el agente", "el rival derecho", "tu compañero", "el rival izquierdo"); other names
(an arena's players) as they are. Table talk ("¡Dos por guapo!") follows a plain statement where the language has
it, never instead of it.
"""

from __future__ import annotations

import re

from .engine import (
    ACTION_BASE,
    ACTION_KIND,
    ACTION_RANK,
    CAIDA_POINTS,
    CARTON_CARDS,
    N_ACTIONS,
    RANKS,
    TRAIL,
    Caida,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    Limpia,
    Played,
    Ronda,
    Rules,
    State,
    action_to_string,
    below,
    capture_options,
    card_str,
    carton_points,
    play_events,
)
from .engine.cards import rank_name
from .i18n import N_, _, join, ngettext, number, percent, pgettext


def spoken(action: int, escalera=()) -> str:
    """A move's name as a player says it, in the language in use: "7 takes 3+4, then J Q" / "el 7 se lleva el 3 y
    el 4, y escalera J Q", "K trails" / "botas el K" (engine.action_to_string is the stable English name of files;
    in English the two are the same)."""
    if not 0 <= action < N_ACTIONS:
        raise ValueError(_("action {action} is not in the action table (0..{last})").format(action=repr(action),
                                                                                           last=N_ACTIONS - 1))
    rank = rank_name(ACTION_RANK[action])
    if ACTION_KIND[action] == TRAIL:
        return _("{rank} trails").format(rank=rank)
    taken = _taken(ACTION_BASE[action])
    if escalera:
        return _("{rank} takes {cards}, then {run}").format(rank=rank, cards=taken,
                                                            run=" ".join(RANKS[r] for r in escalera))
    return _("{rank} takes {cards}").format(rank=rank, cards=taken)


def _taken(ranks) -> str:
    """The ranks a capture takes, as a move's name says them: "3+4" / "el 3 y el 4"."""
    words = [pgettext("taken card", "{rank}").format(rank=rank_name(r)) for r in ranks]
    if len(words) == 1:
        return words[0]
    return pgettext("taken cards", "+").join(words[:-1]) + pgettext("last taken card", "+") + words[-1]


def move_name(state: State, action: int) -> str:
    """A move's readable name in a position, with the escalera it takes there ("7 takes 3+4, then J Q"), in the
    language in use (see `spoken`)."""
    return spoken(action, *_escalera(state, action))


def stable_move_name(state: State, action: int) -> str:
    """A move's name as files, JSON and kept analyses hold it, in English whatever the language ("7 takes 3+4, then
    J Q": engine.action_to_string with the escalera it takes in `state`); what a person reads is `move_name`."""
    return action_to_string(action, *_escalera(state, action))


def _escalera(state: State, action: int) -> tuple:
    """(the sequence `action` takes in `state`,), or () where it takes none there."""
    for option in capture_options([c >> 2 for c in state.table], ACTION_RANK[action], state.rules):
        if option.action == action:
            return (option.sequence,)
    return ()


def keys(n: int) -> str:
    """The card keys of a hand of `n` cards: "1-5", or "1" for the last card (never "1-1")."""
    return "1" if n == 1 else f"1-{n}"


def cards(ids) -> str:
    """Cards as "7♥ K♠", or "nothing"."""
    return " ".join(card_str(c) for c in ids) or pgettext("no cards", "nothing")


def still_scoring(rules: Rules, score: int) -> list[str]:
    """What a team on `score` can still score with, besides a caída (which always counts)."""
    out = []
    if rules.ronda_points and below(score, rules.ronda_cutoff):
        out.append(pgettext("what scores", "rondas"))
    if below(score, rules.limpia_cutoff):
        out.append(pgettext("what scores", "limpias"))
    if below(score, rules.carton_cutoff):
        out.append(pgettext("what scores", "the cartón"))
    return out


_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([¡¿(«\"]*)([^\W\d_])")


def sentence(text: str) -> str:
    """`text` with each of its sentences begun by a capital ("¡Ronda! el agente..." -> "¡Ronda! El agente..."): a
    name in the middle of a sentence is written in lower case ("reparte el agente")."""
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2) + m.group(3).upper(), text)


def _talk(text: str, said: str, english: str) -> str:
    """`text`, then the table talk `said` where the language has its own (`said` differs from its English msgid
    `english`): players' sayings season a plain statement, never replace it."""
    return f"{text} {said}" if said != english else text


def _pick(kind: str, you: str, ours: str, theirs: str, named: str) -> str:
    """The message (marked with N_) for a team or seat spoken of as "you", "your team", "the other team" or by its
    name, translated."""
    return _({"you": you, "ours": ours, "theirs": theirs, "named": named}[kind])


SEAT_WORDS = ("The agent", "East", "West", "North", "South", "Partner")
"""The names the app gives its seats, which the narrator says in the language in use."""


def seat_word(name: str) -> str:
    """A seat's name as a sentence says it: the app's names in the language in use ("The agent" -> "el agente"), any
    other name as it is."""
    if name not in SEAT_WORDS:
        return name
    words = {"The agent": pgettext("narrator", "The agent"), "East": pgettext("narrator", "East"),
             "West": pgettext("narrator", "West"), "North": pgettext("narrator", "North"),
             "South": pgettext("narrator", "South"), "Partner": pgettext("narrator", "Partner")}
    return words[name]


class Narrator:
    """Words for the events of one game. `names` per seat ("You", "The agent"), `you` the person's seat; teams are
    named after their seats (2 players) or as "your team" / "the other team" around seat `you` (4 players)."""

    def __init__(self, rules: Rules, names=None, you: int | None = None):
        self.rules, self.you = rules, you
        self.names = list(names) if names else None
        """The seats' names as given (English: the app's, or a record's), or None: "Seat 0", "Seat 1"..."""

    # ---- who ---------------------------------------------------------------------------------
    def is_you(self, seat: int) -> bool:
        """Whether `seat` is the person's."""
        return seat == self.you or (self.names is not None and self.names[seat] == "You")

    def name(self, seat: int) -> str:
        """A seat's name in a sentence, third person (not the person's: sentences about the person have their own
        words)."""
        if self.names is None:
            return pgettext("narrator", "Seat {n}").format(n=seat)
        return seat_word(self.names[seat])

    def seat_kind(self, seat: int) -> str:
        return "you" if self.is_you(seat) else "named"

    def team_kind(self, team: int) -> str:
        """How a sentence speaks of a team: "you" (the person, 1 v 1), "ours", "theirs" (2 v 2 around the person)
        or "named" (its seat's name, or "Team 0 (seats 0 and 2)")."""
        if self.rules.players == 2:
            return self.seat_kind(team)
        if self.you is not None:
            return "ours" if team == self.you % 2 else "theirs"
        return "named"

    def team_name(self, team: int) -> str:
        """A team as a label, with no verb: "You", "The agent", "Your team", "The other team", "Team 0 (seats 0 and
        2)" ("tú", "el agente", "tu equipo", "los rivales"...)."""
        kind = self.team_kind(team)
        if kind == "you":
            return pgettext("narrator", "You")
        if kind == "ours":
            return pgettext("narrator", "Your team")
        if kind == "theirs":
            return pgettext("narrator", "The other team")
        if self.rules.players == 2:
            return self.name(team)
        return pgettext("narrator", "Team {n} (seats {first} and {second})").format(n=team, first=team,
                                                                                   second=team + 2)

    def who(self, seat: int) -> str:
        """A seat's name as a label, with its team in 2 v 2 ("West (the other team)")."""
        if self.is_you(seat):
            return pgettext("narrator", "You")
        if self.rules.players == 2:
            return self.name(seat)
        team = self.team_name(seat % 2)
        return f"{self.name(seat)} ({team[:1].lower()}{team[1:]})"

    # ---- one event ---------------------------------------------------------------------------
    def event(self, e, events=(), state: State | None = None) -> str | None:
        """One sentence for an event; `events` are the others of the same step (a caída beside a limpia),
        `state` the state after them (to show the cards of four of a kind). None for a plain play."""
        rules = self.rules
        if isinstance(e, Dealt):
            text = (_("Hand {hand}, deal {deal} of {deals}: You deal.") if self.is_you(e.dealer) else
                    _("Hand {hand}, deal {deal} of {deals}: {name} deals."))
            return sentence(text.format(hand=number(e.hand_no + 1), deal=number(e.deal_no + 1),
                                        deals=number(rules.deals_per_hand), name=self.name(e.dealer)))
        if isinstance(e, Ronda):
            return self._ronda(e)
        if isinstance(e, FourOfAKind):
            shown = ""
            if state is not None:
                ranks = [c >> 2 for c in state.hands[e.seat]]
                rank = next((r for r in set(ranks) if ranks.count(r) == 4), None)
                if rank is not None:
                    shown = f" ({cards(c for c in state.hands[e.seat] if c >> 2 == rank)})"
            kind = (self.seat_kind(e.seat), self.team_kind(e.team))
            text = _({
                ("you", "you"): N_("You were dealt four of a kind{cards}: You win at once!"),
                ("you", "ours"): N_("You were dealt four of a kind{cards}: Your team wins at once!"),
                ("named", "ours"): N_("{name} was dealt four of a kind{cards}: Your team wins at once!"),
                ("named", "theirs"): N_("{name} was dealt four of a kind{cards}: The other team wins at once!"),
            }.get(kind, N_("{name} was dealt four of a kind{cards}: {team} wins at once!")))
            return sentence(text.format(name=self.name(e.seat), cards=shown, team=self.team_name(e.team)))
        if isinstance(e, Caida):
            if e.ronda_bonus:
                text = _("¡Caída! {who}: +{points}, +{bonus} more for taking the rank of the ronda.")
            else:
                text = _("¡Caída! {who}: +{points}.")
            text = sentence(text.format(who=self.who(e.seat), points=number(e.points), bonus=number(e.ronda_bonus)))
            return _talk(text, pgettext("table talk", "Two for shunsho!"), "Two for shunsho!")
        if isinstance(e, Limpia):
            if e.points:
                return sentence(_("¡Limpia! {who}: +{points}.").format(who=self.who(e.seat), points=number(e.points)))
            if any(isinstance(x, Caida) for x in events) and not rules.caida_limpia_stack:
                return _("Limpia too, but under these rules (todo dos) a caída y limpia scores only the caída's "
                         "{points}.").format(points=number(CAIDA_POINTS))
            text = _pick(self.team_kind(e.team),
                         N_("Limpia, but you score nothing for it at {cutoff} or more (the {cutoff} rule)."),
                         N_("Limpia, but your team scores nothing for it at {cutoff} or more (the {cutoff} rule)."),
                         N_("Limpia, but the other team scores nothing for it at {cutoff} or more (the {cutoff} "
                            "rule)."),
                         N_("Limpia, but {name} scores nothing for it at {cutoff} or more (the {cutoff} rule)."))
            return sentence(text.format(name=self.team_name(e.team), cutoff=number(rules.limpia_cutoff)))
        if isinstance(e, HandEnded):
            return self.hand_over(e, state)
        if isinstance(e, GameWon):
            how = "four" if any(isinstance(x, FourOfAKind) for x in events) else ""
            if any(isinstance(x, HandEnded) for x in events):
                how = "carton"
            text = {
                "": (N_("You win the game, {won}-{lost}!"), N_("Your team wins the game, {won}-{lost}!"),
                     N_("The other team wins the game, {won}-{lost}!"), N_("{name} wins the game, {won}-{lost}!")),
                "carton": (N_("You win the game on the cartón, {won}-{lost}!"),
                           N_("Your team wins the game on the cartón, {won}-{lost}!"),
                           N_("The other team wins the game on the cartón, {won}-{lost}!"),
                           N_("{name} wins the game on the cartón, {won}-{lost}!")),
                "four": (N_("You win the game with four of a kind, {won}-{lost}!"),
                         N_("Your team wins the game with four of a kind, {won}-{lost}!"),
                         N_("The other team wins the game with four of a kind, {won}-{lost}!"),
                         N_("{name} wins the game with four of a kind, {won}-{lost}!")),
            }[how]
            return sentence(_pick(self.team_kind(e.team), *text).format(
                name=self.team_name(e.team), won=number(e.scores[e.team]), lost=number(e.scores[1 - e.team])))
        return None

    def _ronda(self, e: Ronda) -> str:
        you, double = self.is_you(e.seat), e.kind == "doble_ronda"
        if e.points:
            if double:
                text = (_("Doble ronda! You hold four of a kind: +{points}.") if you else
                        _("Doble ronda! {name} holds four of a kind: +{points}."))
            else:
                text = (_("Ronda! You hold three of a kind: +{points}.") if you else
                        _("Ronda! {name} holds three of a kind: +{points}."))
            text = sentence(text.format(name=self.name(e.seat), points=number(e.points)))
            if e.points == 2 and not double:
                text = _talk(text, pgettext("table talk", "Two for the handsome one!"), "Two for the handsome one!")
            return text
        rules = self.rules
        why = (_("rondas stop scoring at {cutoff}").format(cutoff=number(rules.ronda_cutoff))
               if rules.ronda_cutoff is not None else _("they are worth nothing under these rules"))
        if double:
            text = (_("Doble ronda: You hold four of a kind, no points ({why}).") if you else
                    _("Doble ronda: {name} holds four of a kind, no points ({why})."))
        else:
            text = (_("Ronda: You hold three of a kind, no points ({why}).") if you else
                    _("Ronda: {name} holds three of a kind, no points ({why})."))
        return sentence(text.format(name=self.name(e.seat), why=why))

    def ending(self, events, state: State) -> str:
        """How a finished game ended, from the events of its last step and the state after them, for a review:
        who won, the score, and what ended it ("You won 0-8 with four of a kind (J♠ J♥ J♦ J♣) dealt to you: it
        wins at once.", "Agent won 40-22, reaching 40 with a caída by Agent (+2)."); "" while it goes on."""
        won = next((e for e in events if isinstance(e, GameWon)), None)
        if not state.is_over or won is None:
            return ""
        team = won.team
        kind = self.team_kind(team)
        words = dict(team=self.team_name(team), won=number(won.scores[team]), lost=number(won.scores[1 - team]),
                     score=number(won.scores[team]))
        head = (N_("You won {won}-{lost}."), N_("Your team won {won}-{lost}."), N_("The other team won {won}-{lost}."),
                N_("{team} won {won}-{lost}."))
        dealt = max((i for i, e in enumerate(events) if isinstance(e, Dealt)), default=-1)
        if dealt >= 0:  # the deal the last play brought about ended it
            deal = events[dealt:]
            four = next((e for e in deal if isinstance(e, FourOfAKind)), None)
            if four is not None:
                ranks = [c >> 2 for c in state.hands[four.seat]]
                shown = " ".join(card_str(c) for c in state.hands[four.seat] if ranks.count(c >> 2) == 4)
                text = self._by(kind, four.seat, {
                    ("you", "you"): N_("You won {won}-{lost} with four of a kind{cards} dealt to you: it wins at "
                                       "once."),
                    ("ours", "you"): N_("Your team won {won}-{lost} with four of a kind{cards} dealt to you: it wins "
                                        "at once."),
                    ("ours", "named"): N_("Your team won {won}-{lost} with four of a kind{cards} dealt to {who}: it "
                                          "wins at once."),
                    ("theirs", "named"): N_("The other team won {won}-{lost} with four of a kind{cards} dealt to "
                                            "{who}: it wins at once."),
                    ("named", "named"): N_("{team} won {won}-{lost} with four of a kind{cards} dealt to {who}: it "
                                           "wins at once."),
                })
                return sentence(text.format(**words, who=self.name(four.seat), cards=f" ({shown})" if shown else ""))
            ronda = next((e for e in deal if isinstance(e, Ronda) and e.team == team and e.points), None)
            if ronda is not None:
                what = (pgettext("narrator", "a doble ronda") if ronda.kind == "doble_ronda"
                        else pgettext("narrator", "a ronda"))
                text = self._by(kind, ronda.seat, {
                    ("you", "you"): N_("You won {won}-{lost}, reaching {score} with {what} dealt to you "
                                       "(+{points})."),
                    ("ours", "you"): N_("Your team won {won}-{lost}, reaching {score} with {what} dealt to you "
                                        "(+{points})."),
                    ("ours", "named"): N_("Your team won {won}-{lost}, reaching {score} with {what} dealt to {who} "
                                          "(+{points})."),
                    ("theirs", "named"): N_("The other team won {won}-{lost}, reaching {score} with {what} dealt to "
                                            "{who} (+{points})."),
                    ("named", "named"): N_("{team} won {won}-{lost}, reaching {score} with {what} dealt to {who} "
                                           "(+{points})."),
                })
                return sentence(text.format(**words, who=self.name(ronda.seat), what=what,
                                            points=number(ronda.points)))
            return sentence(_pick(kind, *head).format(**words))
        hand = next((e for e in events if isinstance(e, HandEnded)), None)
        if hand is not None:
            text = _pick(kind, N_("You won {won}-{lost}, reaching {score} with the cartón of hand {hand} (+{points})."),
                         N_("Your team won {won}-{lost}, reaching {score} with the cartón of hand {hand} "
                            "(+{points})."),
                         N_("The other team won {won}-{lost}, reaching {score} with the cartón of hand {hand} "
                            "(+{points})."),
                         N_("{team} won {won}-{lost}, reaching {score} with the cartón of hand {hand} (+{points})."))
            return sentence(text.format(**words, hand=number(hand.hand_no + 1), points=number(hand.carton[team])))
        scored = [e for e in events if isinstance(e, (Caida, Limpia)) and e.team == team
                  and e.points + getattr(e, "ronda_bonus", 0)]
        if scored:
            both = len(scored) > 1
            what = (pgettext("narrator", "a caída and a limpia") if both else
                    pgettext("narrator", "a caída") if isinstance(scored[0], Caida) else
                    pgettext("narrator", "a limpia"))
            points = sum(e.points + getattr(e, "ronda_bonus", 0) for e in scored)
            text = self._by(kind, scored[0].seat, {
                ("you", "you"): N_("You won {won}-{lost}, reaching {score} with {what} by you (+{points})."),
                ("ours", "you"): N_("Your team won {won}-{lost}, reaching {score} with {what} by you (+{points})."),
                ("ours", "named"): N_("Your team won {won}-{lost}, reaching {score} with {what} by {who} "
                                      "(+{points})."),
                ("theirs", "named"): N_("The other team won {won}-{lost}, reaching {score} with {what} by {who} "
                                        "(+{points})."),
                ("named", "named"): N_("{team} won {won}-{lost}, reaching {score} with {what} by {who} (+{points})."),
            })
            return sentence(text.format(**words, who=self.name(scored[0].seat), what=what, points=number(points)))
        return sentence(_pick(kind, *head).format(**words))

    def _by(self, kind: str, seat: int, texts: dict) -> str:
        """The message of `texts` for a team spoken of as `kind` and the seat that did it (the person or a name)."""
        return _(texts.get((kind, self.seat_kind(seat)), texts["named", "named"]))

    def hand_over(self, e: HandEnded, state: State | None = None) -> str:
        """The end of a hand: cards per team, the cartón each scored and why a team scored none."""
        rules = self.rules
        parts = [ngettext("{team} {n} card (+{points})", "{team} {n} cards (+{points})", e.captured[t]).format(
            team=self.team_name(t), n=number(e.captured[t]), points=number(e.carton[t])) for t in (0, 1)]
        said = [_("Hand {hand} over. Cartón: {first}, {second}.").format(hand=number(e.hand_no + 1), first=parts[0],
                                                                        second=parts[1])]
        if e.leftover:
            said.append(ngettext("{n} card left on the table is discarded.",
                                 "{n} cards left on the table are discarded.", len(e.leftover)).format(
                n=number(len(e.leftover))))
        if state is not None and rules.carton_cutoff is not None:
            before = tuple(state.scores[t] - e.carton[t] for t in (0, 1))
            # the hand's dealer: the state's, or one seat before when the next hand has begun
            dealer_team = (state.dealer if state.is_over else state.dealer - 1) % rules.players & 1
            owed = carton_points(e.captured, dealer_team, (0, 0), rules)
            for t in (0, 1):
                if owed[t] and not e.carton[t] and not below(before[t], rules.carton_cutoff):
                    said.append(_pick(self.team_kind(t), N_("You scored no cartón: it stops counting at {cutoff}."),
                                      N_("Your team scored no cartón: it stops counting at {cutoff}."),
                                      N_("The other team scored no cartón: it stops counting at {cutoff}."),
                                      N_("{name} scored no cartón: it stops counting at {cutoff}.")).format(
                        name=self.team_name(t), cutoff=number(rules.carton_cutoff)))
        text = sentence(" ".join(said))
        for t in (0, 1):
            if e.carton[t] and e.captured[t] >= CARTON_CARDS:
                text = _talk(text, pgettext("table talk", "{cards} of cartón are {points} points!").format(
                    cards=number(e.captured[t]), points=number(e.carton[t])), "{cards} of cartón are {points} points!")
        return text

    def play(self, e: Played) -> str:
        """A play in words: "The agent trailed 7♥" / "You played 5♦ and took 2♠ 3♥"."""
        you = self.is_you(e.seat)
        if not e.captured:
            text = _("You trailed {card}.") if you else _("{name} trailed {card}.")
        else:
            text = _("You played {card} and took {cards}.") if you else _("{name} played {card} and took {cards}.")
        return sentence(text.format(name=self.name(e.seat), card=card_str(e.card), cards=cards(e.captured)))

    # ---- a step ------------------------------------------------------------------------------
    def callouts(self, events, state: State | None = None) -> list[str]:
        """Sentences for the notable events of a step (plays themselves are left to the move list)."""
        return [text for e in events if not isinstance(e, (Played, Dealt))
                and (text := self.event(e, events, state)) is not None]

    def thresholds(self, before: State, after: State) -> list[str]:
        """A team crossing a cut-off: what no longer scores for it, read from the rules."""
        rules = self.rules
        notes = []
        if after.is_over:
            return notes
        # what stops scoring at a mark, and whether its words are plural ("rondas no longer score")
        marks = ((rules.ronda_cutoff if rules.ronda_points else None, pgettext("what scores", "rondas"), True),
                 (rules.ronda_caida_cutoff if rules.ronda_caida_bonus else None,
                  pgettext("what scores", "the ronda-caída bonus"), False),
                 (rules.carton_cutoff, pgettext("what scores", "the cartón"), False),
                 (rules.limpia_cutoff, pgettext("what scores", "limpias"), True))
        for team in (0, 1):
            old, new = before.scores[team], after.scores[team]
            lost = [(what, plural) for mark, what, plural in marks if mark is not None and old < mark <= new]
            if not lost:
                continue
            plural = len(lost) > 1 or lost[0][1]
            if still_scoring(rules, new):
                change = _("{what} no longer score") if plural else _("{what} no longer scores")
            else:
                change = (_("{what} no longer score; only a caída can finish ({score} que no juega)") if plural
                          else _("{what} no longer scores; only a caída can finish ({score} que no juega)"))
            change = change.format(what=join([what for what, _plural in lost]), score=number(new))
            text = _pick(self.team_kind(team), N_("You reached {score}: {change}."),
                         N_("Your team reached {score}: {change}."), N_("The other team reached {score}: {change}."),
                         N_("{name} reached {score}: {change}."))
            notes.append(sentence(text.format(name=self.team_name(team), score=number(new), change=change)))
        return notes

    def notes(self, events) -> list[str]:
        """What a play scored, briefly, for a move list: "caída +2", "limpia +2", "cartón 6-0", "game won 40-12"."""
        out = []
        for e in events:
            if isinstance(e, Dealt):
                break  # the next deal is another step
            if isinstance(e, Caida):
                out.append(_("caída +{points}").format(points=number(e.points + e.ronda_bonus)))
            elif isinstance(e, Limpia):
                out.append(_("limpia +{points}").format(points=number(e.points)))
            elif isinstance(e, HandEnded):
                out.append(_("hand over, cartón {first}-{second}").format(first=number(e.carton[0]),
                                                                          second=number(e.carton[1])))
            elif isinstance(e, GameWon):
                out.append(_("game won {first}-{second}").format(first=number(e.scores[0]),
                                                                 second=number(e.scores[1])))
        return out

    def effect(self, events) -> list[str]:
        """What a move scores, in words a learner reads ("a caída (+2)", "a limpia, but from 38 it scores
        nothing", "and the cartón wins the game")."""
        rules = self.rules
        out = []
        for e in events:
            if isinstance(e, Caida):
                if e.ronda_bonus:
                    out.append(_("a caída (+{points}) on the rank of the ronda (+{bonus})").format(
                        points=number(e.points), bonus=number(e.ronda_bonus)))
                else:
                    out.append(_("a caída (+{points})").format(points=number(e.points)))
            elif isinstance(e, Limpia):
                if e.points:
                    out.append(_("a limpia (+{points})").format(points=number(e.points)))
                elif any(isinstance(x, Caida) for x in events) and not rules.caida_limpia_stack:
                    out.append(_("a limpia too, but a caída y limpia scores only the caída here (todo dos)"))
                else:
                    out.append(_("a limpia, but from {cutoff} it scores nothing").format(
                        cutoff=number(rules.limpia_cutoff)))
            elif isinstance(e, GameWon):
                won_by_carton = any(isinstance(x, HandEnded) for x in events)
                out.append(_("and the cartón wins the game") if won_by_carton else _("and it wins the game"))
        return out


def why_better(state: State, played: int, best: int, risks: dict) -> list[str]:
    """Why `best` beats `played` in a position, in words: what the played move gives up now and what it leaves
    the next player, each said of the played move ("gives up the caída (+2 now)"). `risks` maps each of the two
    actions to its (caída risk, limpia risk), shares 0..1."""
    rules = state.rules
    now = {a: play_events(state, a) for a in (played, best)}
    reasons = []
    for kind, gives_up in ((Caida, N_("gives up the caída (+{points} now)")),
                           (Limpia, N_("gives up the limpia (+{points} now)"))):
        gained = sum(e.points + getattr(e, "ronda_bonus", 0) for e in now[best] if isinstance(e, kind))
        if gained and not any(isinstance(e, kind) for e in now[played]):
            reasons.append(_(gives_up).format(points=number(gained)))
    taken = {a: len(now[a][0].captured) for a in (played, best)}
    if taken[best] > taken[played] and below(state.scores[state.turn & 1], rules.carton_cutoff):
        fewer = taken[best] - taken[played]
        reasons.append(ngettext("takes {n} card fewer for the cartón", "takes {n} cards fewer for the cartón",
                                fewer).format(n=number(fewer)))
    caida, limpia = (risks[played][i] - risks[best][i] for i in (0, 1))
    if caida >= 0.15:
        left = now[played][0]
        share = percent(100 * risks[played][0])
        if not left.captured:
            reasons.append(_("leaves the {card} for a caída ({share} of the worlds)").format(
                card=card_str(left.card), share=share))
        else:
            reasons.append(_("leaves a card for a caída ({share} of the worlds)").format(share=share))
    if limpia >= 0.15:
        reasons.append(_("leaves the table open to a limpia ({share} of the worlds)").format(
            share=percent(100 * risks[played][1])))
    return reasons


def best_despite(state: State, best: int, safer: int, risks: dict, gain: float) -> str:
    """Why `best` is still the best move though it leaves more caída risk than `safer`, in a short line: "best
    despite its caída risk (40%): +12 win % over 7 trails, which gives up the caída (+2 now)". `risks` as for
    why_better; `gain` the win-% points `best` keeps over `safer`."""
    reasons = why_better(state, safer, best, risks)
    words = dict(risk=percent(100 * risks[best][0]), gain=number(gain), move=move_name(state, safer),
                 reasons="; ".join(reasons))
    if reasons:
        return _("best despite its caída risk ({risk}): +{gain} win % over {move}, which {reasons}").format(**words)
    return _("best despite its caída risk ({risk}): +{gain} win % over {move}").format(**words)
