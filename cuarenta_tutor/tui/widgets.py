"""Provides the widgets of the game screens: cards, scoreboard, table, hand, agent panel, hints.

State flows down: each widget holds a reactive attribute (the engine state, the agent's last move, the
hints) that its screen sets, and redraws itself when it changes. The words are computed each time a widget draws,
in the language in use (a screen's `retranslate` draws its widgets again)."""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from ..app import coaching
from ..engine import State, card_str, suit_of
from ..i18n import _, ngettext, number, percent, pgettext
from ..narrator import keys, move_name

RED_SUITS = (1, 2)  # hearts, diamonds


def card_text(card: int, key: str | None = None) -> Text:
    """A card as "[7♥]" (red for hearts and diamonds; the suit symbol is always shown)."""
    text = Text()
    if key:
        text.append(f"{key}:", style="bold")
    style = "bold red" if suit_of(card) in RED_SUITS else "bold"
    text.append(f"[{card_str(card)}]", style=style)
    return text


def cards_text(cards, numbered: bool = False, empty: str | None = None) -> Text:
    """Cards in a row ("[7♥] [K♠]", numbered "1:[7♥] 2:[K♠]"); `empty` (default "(empty)") where there are none."""
    if not cards:
        return Text(_("(empty)") if empty is None else empty, style="dim")
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(card_text(c, str(i + 1) if numbered else None))
    return out


def perros(points: int) -> str:
    """The score as perros: a face-down card for each 10, a face-up one for each 2 (RULES.md §14)."""
    return "▮" * (points // 10) + "▯" * ((points % 10) // 2) or "·"


_FIELD = re.compile(r"\{(\w+)\}")


def styled(template: str, style: str = "", **values) -> Text:
    """A translated sentence as Text, its words in `style`, each `{name}` in it replaced by `values[name]`: a Text
    keeps its own style there (a move in bold magenta, a card in its colours), anything else takes the sentence's."""
    out = Text()
    at = 0
    for field in _FIELD.finditer(template):
        out.append(template[at:field.start()], style=style)
        value = values[field.group(1)]
        if isinstance(value, Text):
            out.append_text(value)
        else:
            out.append(str(value), style=style)
        at = field.end()
    out.append(template[at:], style=style)
    return out


def seat_word(state: State, seat: int) -> str:
    """A seat as a label after a word ("dealer agent"): "you", "agent"; in 2 v 2 "you", "East", "partner", "West"
    (Spanish: "tú", "agente", "rival der.", "compañero", "rival izq.": short, for the scoreboard's line)."""
    if state.rules.players == 2:
        return (pgettext("seat word", "you"), pgettext("seat word", "agent"))[seat]
    return (pgettext("seat word", "you"), pgettext("seat word", "East"), pgettext("seat word", "partner"),
            pgettext("seat word", "West"))[seat]


def seat_played(state: State, seat: int) -> str:
    """"{move}" played by `seat` as a sentence with a placeholder for the move ("East played {move}")."""
    if state.rules.players == 2:
        return _("Agent played {move}")
    return {1: _("East played {move}"), 2: _("Partner played {move}"), 3: _("West played {move}")}.get(
        seat, _("You played {move}"))


def side_win(state: State, seat: int, win: str) -> str:
    """The win % of `seat`'s side after its move (`win`, as shown: "53%", or "…" while the analysis comes): "agent
    win 53%", in 2 v 2 "your team win 53%" / "their team win 53%"."""
    if state.rules.players == 2:
        return _("agent win {win}").format(win=win)
    if seat % 2 == 0:
        return _("your team win {win}").format(win=win)
    return _("their team win {win}").format(win=win)


class Scoreboard(Static):
    """Scores (per team in 2 v 2), perros tally, cartón counts, hand, deal, stock and dealer."""

    state: reactive[State | None] = reactive(None, layout=False)
    opponent: reactive[tuple] = reactive((), layout=False)
    """Who the person plays against, shown at the end of the first line all game: the first of these texts that fits
    there, whole ("level strong · model cuarenta-a2c-lstm c736f1a1", then shorter ones; none where none fits)."""

    def watch_opponent(self) -> None:
        self.watch_state(self.state)

    def on_resize(self) -> None:
        self.watch_state(self.state)

    def watch_state(self, state: State | None) -> None:
        if state is None:
            return
        you, agent = state.scores
        if state.rules.players == 2:
            ours, theirs = pgettext("score", "You"), pgettext("score", "Agent")
        else:
            ours, theirs = pgettext("score", "Your team"), pgettext("score", "Their team")
        t = Text()
        t.append(f"{ours} {number(you):>2} ", style="bold")
        t.append(perros(you), style="green")
        t.append(f"   {theirs} ")
        t.append(f"{number(agent):>2} ", style="bold")
        t.append(perros(agent), style="magenta")
        room = (self.content_size.width or 78) - cell_len(t.plain) - 3
        shown = next((said for said in self.opponent if cell_len(said) <= room), "")
        if shown:
            t.append("   " + shown, style="dim")
        line = (_("Cartón: you {ours} · agent {theirs} cards   Hand {hand} · deal {deal}/{deals} · stock {stock} · "
                  "dealer {dealer}") if state.rules.players == 2 else
                _("Cartón: ours {ours} · theirs {theirs} cards   Hand {hand} · deal {deal}/{deals} · stock {stock} · "
                  "dealer {dealer}"))
        values = dict(ours=number(len(state.piles[0])), theirs=number(len(state.piles[1])),
                      hand=number(state.hand_no + 1), deal=number(state.deal_no + 1),
                      deals=number(state.rules.deals_per_hand), stock=number(len(state.stock)),
                      dealer=seat_word(state, state.dealer))
        said = line.format(**values)
        if cell_len(said) > (self.content_size.width or 78):  # whole, shorter: the cartón's counts yours first
            said = _("Cartón: {ours}-{theirs} cards   Hand {hand} · deal {deal}/{deals} · stock {stock} · dealer "
                     "{dealer}").format(**values)
        t.append("\n" + said)
        self.update(t)


class SeatsView(Static):
    """2 v 2: the other three seats around the table (partner north, East after you, West before you), their
    cards left, rondas announced this deal, and whose turn it is."""

    state: reactive[State | None] = reactive(None, layout=False)

    def watch_state(self, state: State | None) -> None:
        if state is None or state.rules.players != 4:
            return
        t = Text()
        for seat in (2, 1, 3):
            n = len(state.hands[seat])
            held = {2: ngettext("North (partner): {n} card", "North (partner): {n} cards", n),
                    1: ngettext("East: {n} card", "East: {n} cards", n),
                    3: ngettext("West: {n} card", "West: {n} cards", n)}[seat].format(n=number(n))
            turn = state.turn == seat and not state.is_over
            t.append(f"{'▶ ' if turn else ''}{held}", style="bold" if turn else "")
            if state.rondas[seat] >= 0:
                t.append(" " + _("ronda!"), style="yellow")
            t.append("   ")
        if state.turn == 0 and not state.is_over:
            t.append("▶ " + _("your turn"), style="bold green")
        self.update(t)


class TableView(Static):
    """The cards on the table, oldest first."""

    state: reactive[State | None] = reactive(None, layout=False)

    def watch_state(self, state: State | None) -> None:
        if state is None:
            return
        t = Text(_("Table:") + " ", style="bold")
        t.append_text(cards_text(state.table))
        if state.trailed >= 0 and state.table:
            rank = card_str(state.table[-1])[:-1]
            said = _("(an {rank} was just trailed)") if rank[:1] in "A8" else _("(a {rank} was just trailed)")
            t.append("   " + said.format(rank=rank), style="dim")
        self.update(t)


class HandView(Static):
    """Your cards, numbered by the key that plays them, and whose turn it is."""

    state: reactive[State | None] = reactive(None, layout=False)
    status: reactive[str] = reactive("", layout=False)
    """"yours", "thinking" (an agent's turn), "checking" (the tutor checks your move), "analysing" (your move waits
    for the analysis, the tutor off: its win % is recorded from it) or "over"."""
    notice: reactive[str] = reactive("", layout=False)
    """One line said in place of the status (a key that was not played, and why), until the status changes."""

    def render_hand(self) -> None:
        state = self.state
        if state is None:
            return
        hand = Text(_("Your hand:") + " ", style="bold")
        hand.append_text(cards_text(state.hands[0], numbered=True, empty=_("(no cards)")))
        if state.hands[0]:
            hand.append(" ")
        if self.notice:
            hand.append(f"   {self.notice}", style="bold yellow")
        elif self.status == "over":
            hand.append("   " + _("game over"), style="bold")
        elif self.status == "yours":
            hand.append("   " + _("your turn: press {keys}").format(keys=keys(len(state.hands[0]))), style="green")
        elif self.status == "checking":
            hand.append("   " + _("the tutor is checking…"), style="dim")
        elif self.status == "analysing":
            hand.append("   " + _("analysing your move…"), style="dim")
        else:
            hand.append("   " + _("agent is thinking…"), style="dim")
        self.update(hand)

    def watch_state(self) -> None:
        self.render_hand()

    def watch_status(self) -> None:
        self.render_hand()

    def watch_notice(self) -> None:
        self.render_hand()


class AgentPanel(Static):
    """After each agent move: what it played, its probability over its moves and its side's win %: the analysis's
    (the verdict of your position after it), never the network's own estimate; "…" while the analysis comes."""

    move: reactive[tuple | None] = reactive(None, layout=False)
    """(state before the move, the agent's Decision, the move's name) of its last move, or None."""
    model: reactive[str] = reactive("", layout=False)
    """The model it plays with ("cuarenta-a2c-lstm 967dfd4d"), shown until its first move."""
    verdict: reactive[float | None] = reactive(None, layout=False)
    """Your side's win % where the agent's last move left the game: the analysis of your position there (its best
    move's); shown as the side's of the seat that moved (the agent's: 100 minus it). None: not in (yet)."""
    coming: reactive[bool] = reactive(False, layout=False)
    """Whether the verdict is on its way (your turn, the analysis asked): "…" in its place meanwhile."""

    def watch_model(self) -> None:
        self.watch_move(self.move)

    def watch_verdict(self) -> None:
        self.watch_moves(self.moves)

    def watch_coming(self) -> None:
        self.watch_moves(self.moves)

    def win_of(self, before: State, seat: int) -> str:
        """The win % of `seat`'s side after the last move, as shown ("agent win 53%", "agent win …"), or "" where
        none is coming."""
        if self.verdict is not None:
            return side_win(before, seat, percent(self.verdict if seat % 2 == 0 else 100.0 - self.verdict))
        return side_win(before, seat, "…") if self.coming else ""

    moves: reactive[tuple] = reactive((), layout=False)
    """2 v 2: every agent move since yours, each (state before, Decision or None, name), one line each."""

    def on_resize(self) -> None:
        self.watch_moves(self.moves)

    def watch_moves(self, moves) -> None:
        if not moves:
            self.watch_move(self.move)
            return
        width = self.content_size.width or 78
        t = Text()
        shown = moves[-3:]
        for i, (before, decision, played) in enumerate(shown):
            line = styled(seat_played(before, before.turn), "bold", move=Text(played, style="bold magenta"))
            extras = []  # its probability of the move, its team's win % (the last move's): each where it fits
            if decision is not None and decision.probs:
                extras.append("  " + _("p {chance}").format(chance=percent(100 * decision.probs.get(decision.action,
                                                                                                     0))))
                win = self.win_of(before, before.turn) if i == len(shown) - 1 else ""
                if win:
                    extras.append(" · " + win)
            for extra in extras:
                if line.cell_len + cell_len(extra) > width:
                    break
                line.append(extra, style="dim")
            line.truncate(width, overflow="ellipsis")  # one line each: the last three moves always in sight
            t.append_text(Text("\n") + line if i else line)
        self.update(t)

    def watch_move(self, move) -> None:
        if self.moves:
            return
        if move is None:
            waiting = (_("Agent ({model}): waiting for its first move").format(model=self.model) if self.model else
                       _("Agent: waiting for its first move"))
            self.update(Text(waiting, style="dim"))
            return
        state_before, decision, played = move
        t = Text(style="bold")
        t.append_text(styled(seat_played(state_before, state_before.turn), "bold",
                             move=Text(played, style="bold magenta")))
        if decision is None:  # a resumed game: the move is in the record, its probabilities are not
            t.append("\n  " + _("(before you left; its numbers show again from its next move)"), style="dim")
            self.update(t)
            return
        win = self.win_of(state_before, state_before.turn)
        if win:
            t.append("   " + win)
        top = sorted(decision.probs.items(), key=lambda kv: -kv[1])[:4]
        shown = ""  # the likeliest moves, as many as one line holds (never a move cut in two)
        for a, p in top:
            said = _("{move} {chance}").format(move=move_name(state_before, a), chance=percent(100 * p))
            if shown and 2 + cell_len(shown + "   " + said) > (self.content_size.width or 78):
                break
            shown = f"{shown}   {said}" if shown else said
        t.append("\n  ")
        t.append(shown, style="dim")
        self.update(t)


def fit(text: str, width: int) -> str:
    """`text` in `width` cells, cut with "…" when longer (never mid-column into the next one)."""
    return text if len(text) <= width else text[:max(0, width - 1)] + "…"


def taken(does: str) -> str:
    """A hint's "what it takes" column from what the move does (coach.advice.does: "takes 3♥ 4♠, caída +2", in the
    language in use): the notes first, then the cards ("caída +2, 3♥ 4♠"); "" for a trail with no notes."""
    head, _sep, notes = does.partition(", ")
    before, _sep, after = _("takes {cards}").partition("{cards}")
    if head == _("trails"):
        head = ""
    elif head.startswith(before) and head.endswith(after):
        head = head[len(before):len(head) - len(after)]
    return ", ".join(x for x in (notes, head) if x)


def take_in(does: str, width: int) -> str:
    """A hint's "what it takes" column in `width` cells: all of it (`taken`) where it fits, else its notes alone
    ("caída +2, limpia +2": the move's name says which cards it takes), else cut with "…"."""
    whole = taken(does)
    if cell_len(whole) <= width:
        return whole
    return fit(does.partition(", ")[2], width)


def hint_rows(hints, width: int = 78) -> list[str]:
    """The hints' rows in `width` cells: key, move, win % after, risks, then what it takes, flush right in what the
    row leaves (what it scores, then its cards: `take_in`). The name, win and risk columns are each as wide as their
    longest entry; a name that does not fit is cut with "…", so no column runs into the next ("7 takes A+2+4, then J
    …", never "takes A+2+4, t takes A♥"). A hint not refined yet shows no number: "…" in its win column, and no star
    (only the analysis's numbers are a verdict)."""
    if not hints:
        return []
    wins = [coaching.hint_win(h) if h.refined else "…".rjust(len(percent(100))) for h in hints]
    risks = []
    for h in hints:
        parts = [_("caída {chance}").format(chance=percent(100 * h.caida_risk))] if h.refined and h.caida_risk else []
        parts += [_("limpia {chance}").format(chance=percent(100 * h.limpia_risk))] if h.refined and h.limpia_risk \
            else []
        risks.append(" ".join(parts))
    w_win, w_risk = max(map(len, wins)), max(map(len, risks))
    room = width - 6 - 2 - w_win - (2 + w_risk if w_risk else 0)
    w_name = min(max(len(h.name) for h in hints), room)
    rows = []
    for i, (h, win, risk) in enumerate(zip(hints, wins, risks, strict=True)):
        row = f"{'★' if i == 0 and h.refined else ' '} [{h.key}] {fit(h.name, w_name):<{w_name}}  {win:<{w_win}}"
        if risk:
            row += f"  {risk}"
        spare = width - cell_len(row) - 2
        take = take_in(h.does, spare) if taken(h.does) and spare >= 6 else ""
        rows.append(row + " " * (width - cell_len(row) - cell_len(take)) + take if take else row.rstrip())
    return rows


class HintsPanel(Static):
    """Every legal move: the key that plays it, what it does now, your win % after it and what it risks.

    The moves, their keys and what they take show at once, in the hand's order; their numbers only once the analysis
    is in ("62% ±3", marked refined; "62% ±?" where the model's error was never measured), "…" in their place
    meanwhile (the header says "thinking…"). The star marks the best by the analysis's numbers; when it is also the
    move with the highest caída risk, a last line (`note`) says why it is still best, or that it is even with a
    safer one."""

    hints: reactive[tuple] = reactive((), layout=False)
    note: str = ""
    """Why the starred move is best despite its caída risk (coaching.star_note), or ""; set before `hints`."""

    def watch_hints(self, hints) -> None:
        refined = bool(hints) and hints[0].refined
        tag = _("[thinking…]")
        if refined:
            tag = {(False, True): _("[refined]"), (True, True): _("[refined, cut short]"),
                   (False, False): _("[refined, uncalibrated: ±?]"),
                   (True, False): _("[refined, cut short, uncalibrated: ±?]")}[bool(hints[0].cut), hints[0].measured]
        width = self.content_size.width or 78
        t = Text(fit(_("Hints (h hides): move · win % after · risk next · takes") + " " + tag, width),
                 style="bold")
        for row in hint_rows(hints[:6], width):  # no blank line below the last: the play screen is short
            t.append("\n" + row)
        if self.note and refined:  # whole, on two lines where it needs them (Spanish runs longer), never cut mid-word
            import textwrap

            lines = textwrap.wrap("★ " + self.note, width, subsequent_indent="  ", max_lines=2, placeholder=" …")
            t.append("\n" + "\n".join(lines), style="italic")
        self.update(t)

    def on_resize(self) -> None:
        self.watch_hints(self.hints)


BARS = " ▁▂▃▄▅▆▇█"


def graph_rows(values, height: int, width: int, marker: int | None = None) -> list[Text]:
    """A win-% graph on a fixed 0-100 scale (a move from 48% to 52% moves its bar a little, never to full
    height): an axis labelled 100 at the top, 50 in the middle and 0 at the bottom, one column per value (the last
    ones, or every n-th where they do not fit), and the column of `marker` (the move on show) drawn with a "│" above
    its bar, in yellow."""
    cols = max(1, width - 4)
    n = len(values)
    if n > cols:  # every n-th value, the marker with its own
        picks = [round(j * (n - 1) / (cols - 1)) if cols > 1 else n - 1 for j in range(cols)]
        spot = None if marker is None else min(range(cols), key=lambda j: abs(picks[j] - marker))
        values = [values[i] for i in picks]
    else:
        spot = marker
    labels = {0: "100", height - 1: "  0"}
    if height >= 3:
        labels[(height - 1) // 2] = " 50"
    rows = []
    for r in range(height):
        low = (height - 1 - r) * 8  # eighths below this row
        t = Text(f"{labels.get(r, '   ')}┤", style="dim")
        for j, v in enumerate(values):
            level = round(max(0.0, min(100.0, v)) / 100 * height * 8)
            cell = BARS[max(0, min(8, level - low))]
            if j == spot:
                t.append("│" if cell == " " else cell, style="bold yellow")
            else:
                t.append(cell, style="green" if v >= 50 else "red")
        rows.append(t)
    return rows


class WinGraph(Static):
    """Win % after each move on a fixed 0-100 scale with a labelled axis (0/50/100) and a marker at the move on show
    (graph_rows)."""

    data: reactive[tuple] = reactive((), layout=False)
    marker: reactive[int | None] = reactive(None, layout=False)
    """The index in `data` of the move on show (None: no marker)."""

    def watch_data(self) -> None:
        self.draw()

    def watch_marker(self) -> None:
        self.draw()

    def on_resize(self) -> None:
        self.draw()

    def draw(self) -> None:
        height = self.content_size.height or 3
        width = self.content_size.width or 78
        self.update(Text("\n").join(graph_rows(list(self.data), height, width, self.marker)))


__all__ = ["AgentPanel", "HandView", "HintsPanel", "Scoreboard", "SeatsView", "TableView", "WinGraph", "card_text",
           "cards_text", "graph_rows", "hint_rows", "move_name", "perros", "seat_word", "styled", "taken"]
