"""Provides the narrator: the one place where game events and moves become words.

Every number it says is read from the game's `Rules` (cut-offs, points, the target) or from the event
itself, so a sentence never contradicts the preset being played: under `pagat` it never says the
cartón stops at 30, under "todo dos" it says why a caída y limpia scores 2. It covers every event of
the engine (Dealt, Ronda, FourOfAKind, Played, Caida, Limpia, HandEnded, GameWon) and the crossing of
each cut-off. The app's callouts, the coach's notes, the lessons' feedback, the play and review
screens all speak through it.
"""

from __future__ import annotations

from .engine import (
    ACTION_RANK,
    CAIDA_POINTS,
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


def move_name(state: State, action: int) -> str:
    """A move's readable name in a position, with the escalera it takes there ("7 takes 3+4, then J Q")."""
    for option in capture_options([c >> 2 for c in state.table], ACTION_RANK[action], state.rules):
        if option.action == action:
            return action_to_string(action, option.sequence)
    return action_to_string(action)


def article(word: str) -> str:
    """`word` with its indefinite article: "an A", "an other", "a 7", "a missed caída"."""
    return ("an " if word[:1].lower() in "aeiou8" else "a ") + word


def keys(n: int) -> str:
    """The card keys of a hand of `n` cards: "1-5", or "1" for the last card (never "1-1")."""
    return "1" if n == 1 else f"1-{n}"


def cards(ids) -> str:
    """Cards as "7♥ K♠", or "nothing"."""
    return " ".join(card_str(c) for c in ids) or "nothing"


def still_scoring(rules: Rules, score: int) -> list[str]:
    """What a team on `score` can still score with, besides a caída (which always counts)."""
    out = []
    if rules.ronda_points and below(score, rules.ronda_cutoff):
        out.append("rondas")
    if below(score, rules.limpia_cutoff):
        out.append("limpias")
    if below(score, rules.carton_cutoff):
        out.append("the cartón")
    return out


class Narrator:
    """Words for the events of one game. `names` per seat ("You", "The agent"); teams are named after
    their seats (2 players) or as "your team" / "the other team" around seat `you` (4 players)."""

    def __init__(self, rules: Rules, names=None, you: int | None = None):
        self.rules, self.you = rules, you
        n = rules.players
        self.names = list(names) if names else [f"Seat {s}" for s in range(n)]
        if n == 2:
            self.teams = self.names[:2]
        elif you is not None:
            ours = "Your team"
            self.teams = [ours, "The other team"] if you % 2 == 0 else ["The other team", ours]
        else:
            self.teams = ["Team 0 (seats 0 and 2)", "Team 1 (seats 1 and 3)"]

    def who(self, seat: int) -> str:
        """A seat's name, with its team in 2 v 2 ("West (the other team)")."""
        if self.rules.players == 2 or seat == self.you:
            return self.names[seat]
        return f"{self.names[seat]} ({self.teams[seat % 2][0].lower()}{self.teams[seat % 2][1:]})"

    # ---- one event ---------------------------------------------------------------------------
    def event(self, e, events=(), state: State | None = None) -> str | None:
        """One sentence for an event; `events` are the others of the same step (a caída beside a limpia),
        `state` the state after them (to show the cards of four of a kind). None for a plain play."""
        rules = self.rules
        if isinstance(e, Dealt):
            return (f"Hand {e.hand_no + 1}, deal {e.deal_no + 1} of {rules.deals_per_hand}: "
                    f"{self.names[e.dealer]} deals.")
        if isinstance(e, Ronda):
            kind = "Doble ronda" if e.kind == "doble_ronda" else "Ronda"
            held = "four" if e.kind == "doble_ronda" else "three"
            if e.points:
                return f"{kind}! {self.names[e.seat]} holds {held} of a kind: +{e.points}."
            why = (f"rondas stop scoring at {rules.ronda_cutoff}" if rules.ronda_cutoff is not None
                   else "they are worth nothing under these rules")
            return f"{kind}: {self.names[e.seat]} holds {held} of a kind, no points ({why})."
        if isinstance(e, FourOfAKind):
            shown = ""
            if state is not None:
                ranks = [c >> 2 for c in state.hands[e.seat]]
                rank = next((r for r in set(ranks) if ranks.count(r) == 4), None)
                if rank is not None:
                    shown = f" ({cards(c for c in state.hands[e.seat] if c >> 2 == rank)})"
            dealt = "were" if self.names[e.seat] == "You" else "was"
            return (f"{self.names[e.seat]} {dealt} dealt four of a kind{shown}: {_says(self.teams[e.team], 'win')} at "
                    f"once!")
        if isinstance(e, Caida):
            text = f"¡Caída! {self.who(e.seat)}: +{e.points}"
            if e.ronda_bonus:
                text += f", +{e.ronda_bonus} more for taking the rank of the ronda"
            return text + "."
        if isinstance(e, Limpia):
            who = self.who(e.seat)
            if e.points:
                return f"¡Limpia! {who}: +{e.points}."
            if any(isinstance(x, Caida) for x in events) and not rules.caida_limpia_stack:
                return (f"Limpia too, but under these rules (todo dos) a caída y limpia scores only the caída's "
                        f"{CAIDA_POINTS}.")
            return (f"Limpia, but {self.teams[e.team]} at {rules.limpia_cutoff} or more score nothing for it "
                    f"(the {rules.limpia_cutoff} rule).")
        if isinstance(e, HandEnded):
            return self.hand_over(e, state)
        if isinstance(e, GameWon):
            how = ""
            if any(isinstance(x, HandEnded) for x in events):
                how = " on the cartón"
            elif any(isinstance(x, FourOfAKind) for x in events):
                how = " with four of a kind"
            return f"{_says(self.teams[e.team], 'win')} the game{how}, {e.scores[e.team]}-{e.scores[1 - e.team]}!"
        return None

    def ending(self, events, state: State) -> str:
        """How a finished game ended, from the events of its last step and the state after them, for a review:
        who won, the score, and what ended it ("You won 0-8 with four of a kind (J♠ J♥ J♦ J♣) dealt to you: it
        wins at once.", "Agent won 40-22, reaching 40 with a caída by Agent (+2)."); "" while it goes on."""
        won = next((e for e in events if isinstance(e, GameWon)), None)
        if not state.is_over or won is None:
            return ""
        team = won.team
        score = f"{won.scores[team]}-{won.scores[1 - team]}"
        head = f"{self.teams[team]} won {score}"
        dealt = max((i for i, e in enumerate(events) if isinstance(e, Dealt)), default=-1)
        if dealt >= 0:  # the deal the last play brought about ended it
            deal = events[dealt:]
            four = next((e for e in deal if isinstance(e, FourOfAKind)), None)
            if four is not None:
                ranks = [c >> 2 for c in state.hands[four.seat]]
                shown = " ".join(card_str(c) for c in state.hands[four.seat] if ranks.count(c >> 2) == 4)
                return (f"{head} with four of a kind{f' ({shown})' if shown else ''} dealt to "
                        f"{_them(self.names[four.seat])}: it wins at once.")
            ronda = next((e for e in deal if isinstance(e, Ronda) and e.team == team and e.points), None)
            if ronda is not None:
                kind = "doble ronda" if ronda.kind == "doble_ronda" else "ronda"
                return (f"{head}, reaching {won.scores[team]} with a {kind} dealt to {_them(self.names[ronda.seat])} "
                        f"(+{ronda.points}).")
            return head + "."
        hand = next((e for e in events if isinstance(e, HandEnded)), None)
        if hand is not None:
            return (f"{head}, reaching {won.scores[team]} with the cartón of hand {hand.hand_no + 1} "
                    f"(+{hand.carton[team]}).")
        scored = [e for e in events if isinstance(e, (Caida, Limpia)) and e.team == team
                  and e.points + getattr(e, "ronda_bonus", 0)]
        if scored:
            what = " and a ".join("caída" if isinstance(e, Caida) else "limpia" for e in scored)
            points = sum(e.points + getattr(e, "ronda_bonus", 0) for e in scored)
            who = _them(self.names[scored[0].seat])
            return f"{head}, reaching {won.scores[team]} with a {what} by {who} (+{points})."
        return head + "."

    def hand_over(self, e: HandEnded, state: State | None = None) -> str:
        """The end of a hand: cards per team, the cartón each scored and why a team scored none."""
        rules = self.rules
        parts = [f"{self.teams[t]} {e.captured[t]} cards (+{e.carton[t]})" for t in (0, 1)]
        text = f"Hand {e.hand_no + 1} over. Cartón: " + ", ".join(parts) + "."
        if e.leftover:
            text += f" {len(e.leftover)} card(s) left on the table are discarded."
        if state is not None and rules.carton_cutoff is not None:
            before = tuple(state.scores[t] - e.carton[t] for t in (0, 1))
            # the hand's dealer: the state's, or one seat before when the next hand has begun
            dealer_team = (state.dealer if state.is_over else state.dealer - 1) % rules.players & 1
            owed = carton_points(e.captured, dealer_team, (0, 0), rules)
            for t in (0, 1):
                if owed[t] and not e.carton[t] and not below(before[t], rules.carton_cutoff):
                    text += (f" {self.teams[t]} scored no cartón: it stops counting at {rules.carton_cutoff}.")
        return text

    def play(self, e: Played) -> str:
        """A play in words: "The agent trailed 7♥" / "You played 5♦ and took 2♠ 3♥"."""
        who = self.names[e.seat]
        if not e.captured:
            return f"{who} trailed {card_str(e.card)}."
        return f"{who} played {card_str(e.card)} and took {cards(e.captured)}."

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
        marks = {"rondas": rules.ronda_cutoff if rules.ronda_points else None,
                 "the ronda-caída bonus": rules.ronda_caida_cutoff if rules.ronda_caida_bonus else None,
                 "the cartón": rules.carton_cutoff, "limpias": rules.limpia_cutoff}
        for team in (0, 1):
            old, new = before.scores[team], after.scores[team]
            lost = [what for what, mark in marks.items() if mark is not None and old < mark <= new]
            if not lost:
                continue
            verb = "score" if len(lost) > 1 or lost[0] in ("rondas", "limpias") else "scores"
            text = f"{self.teams[team]} reached {new}: {_join(lost)} no longer {verb}"
            if not still_scoring(rules, new):
                text += f"; only a caída can finish ({new} que no juega)"
            notes.append(text + ".")
        return notes

    def notes(self, events) -> list[str]:
        """What a play scored, briefly, for a move list: "caída +2", "limpia +2", "cartón 6-0", "game won 40-12"."""
        out = []
        for e in events:
            if isinstance(e, Dealt):
                break  # the next deal is another step
            if isinstance(e, Caida):
                out.append(f"caída +{e.points + e.ronda_bonus}")
            elif isinstance(e, Limpia):
                out.append(f"limpia +{e.points}")
            elif isinstance(e, HandEnded):
                out.append(f"hand over, cartón {e.carton[0]}-{e.carton[1]}")
            elif isinstance(e, GameWon):
                out.append(f"game won {e.scores[0]}-{e.scores[1]}")
        return out

    def effect(self, events) -> list[str]:
        """What a move scores, in words a learner reads ("a caída (+2)", "a limpia, but from 38 it scores
        nothing", "and the cartón wins the game")."""
        rules = self.rules
        out = []
        for e in events:
            if isinstance(e, Caida):
                out.append(f"a caída (+{e.points})" + (f" on the rank of the ronda (+{e.ronda_bonus})"
                                                        if e.ronda_bonus else ""))
            elif isinstance(e, Limpia):
                if e.points:
                    out.append(f"a limpia (+{e.points})")
                elif any(isinstance(x, Caida) for x in events) and not rules.caida_limpia_stack:
                    out.append("a limpia too, but a caída y limpia scores only the caída here (todo dos)")
                else:
                    out.append(f"a limpia, but from {rules.limpia_cutoff} it scores nothing")
            elif isinstance(e, GameWon):
                won_by_carton = any(isinstance(x, HandEnded) for x in events)
                out.append("and the cartón wins the game" if won_by_carton else "and it wins the game")
        return out


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _them(who: str) -> str:
    """A seat's name as an object: "you" for "You", any other name as it is."""
    return "you" if who == "You" else who


def _says(who: str, verb: str) -> str:
    """"You win", "The agent wins"."""
    return f"{who} {verb}" if who == "You" else f"{who} {verb}s"


def why_better(state: State, played: int, best: int, risks: dict) -> list[str]:
    """Why `best` beats `played` in a position, in words: what the played move gives up now and what it leaves
    the next player. `risks` maps each of the two actions to its (caída risk, limpia risk), shares 0..1."""
    rules = state.rules
    now = {a: play_events(state, a) for a in (played, best)}
    reasons = []
    for kind, word in ((Caida, "caída"), (Limpia, "limpia")):
        gained = sum(e.points + getattr(e, "ronda_bonus", 0) for e in now[best] if isinstance(e, kind))
        if gained and not any(isinstance(e, kind) for e in now[played]):
            reasons.append(f"gives up the {word} (+{gained} now)")
    taken = {a: len(now[a][0].captured) for a in (played, best)}
    if taken[best] > taken[played] and below(state.scores[state.turn & 1], rules.carton_cutoff):
        reasons.append(f"takes {taken[best] - taken[played]} card(s) fewer for the cartón")
    caida, limpia = (risks[played][i] - risks[best][i] for i in (0, 1))
    if caida >= 0.15:
        left = now[played][0]
        what = f"the {card_str(left.card)}" if not left.captured else "a card"
        reasons.append(f"leaves {what} for a caída ({100 * risks[played][0]:.0f}% of the worlds)")
    if limpia >= 0.15:
        reasons.append(f"leaves the table open to a limpia ({100 * risks[played][1]:.0f}% of the worlds)")
    return reasons


def best_despite(state: State, best: int, safer: int, risks: dict, gain: float) -> str:
    """Why `best` is still the best move though it leaves more caída risk than `safer`, in a short line: "best
    despite its caída risk (40%): +12 win % over 7 trails, which gives up the caída (+2 now)". `risks` as for
    why_better; `gain` the win-% points `best` keeps over `safer`."""
    text = (f"best despite its caída risk ({100 * risks[best][0]:.0f}%): +{gain:.0f} win % over "
            f"{move_name(state, safer)}")
    reasons = why_better(state, safer, best, risks)
    return text + (", which " + "; ".join(reasons) if reasons else "")
