"""Provides GameReview: one saved game under review, as values the review screen draws.

The record is read and replayed once; the figures (accuracy per game and per hand, luck vs skill, how the game
ended) and the moves still to analyse are worked out here. `analyse` runs in the screen's worker (it reads the
game and writes only the drill deck); `store` applies its annotations to the record and saves it, on the UI
thread.
"""

from __future__ import annotations

from pathlib import Path

from .. import records
from ..analysis.parallel import default_jobs
from ..coach import game_accuracy, is_current, luck, read, review, review_settings, reviewed_seats, store
from ..coach.drills import add_drills, load_deck
from ..engine import Rules
from ..narrator import Narrator


class GameReview:
    """A saved game under review, from `seat`'s side (None: the person's, or every seat of a game without one)."""

    def __init__(self, path, seat: int | None = None):
        self.path = Path(path)
        self.record = records.load(path)
        self.seats = reviewed_seats(self.record, seat)
        self.game = records.ReplayedGame.of(self.record)
        """The record replayed once: the screen, the analysis, luck vs skill and the drills all read it."""
        self.human = self.seats[0] if seat is not None or self.record.human_seat is None else self.record.human_seat
        self.narrator = Narrator(Rules().with_options(**self.record.rules), [s.name for s in self.record.seats],
                                 self.human)
        self.notes: list = []
        self.read_notes()

    @property
    def ending(self) -> str:
        """How the game ended, in a sentence ("" while unfinished)."""
        return self.narrator.ending(self.game.events[-1], self.game.states[-1])

    def read_notes(self) -> None:
        """Each move's annotation (the reviewed seats' only), as the record holds them now."""
        self.notes = [read(m.annotation) if m.seat in self.seats else None for m in self.record.moves]

    def accuracy(self) -> float | None:
        return game_accuracy([n for n in self.notes if n])

    def hand_accuracy(self) -> list[tuple[int, float | None]]:
        """(hand number, accuracy) of every hand with an annotated move."""
        groups: dict[int, list] = {}
        for i, note in enumerate(self.notes):
            if note:
                groups.setdefault(self.game.states[i].hand_no, []).append(note)
        return [(h, game_accuracy(notes)) for h, notes in sorted(groups.items()) if notes]

    def luck(self, model, model_id: str):
        """Luck vs skill of the reviewed side's team (coach/luck.py)."""
        return luck.split(self.game, self.human % 2, model, model_id)

    def settings(self, model_path, worlds: int | None = None, fixed=None):
        """The review's analysis settings: `fixed` if given (and no deeper pass), else the one analysis's, or
        `worlds` for a deeper pass."""
        return fixed if fixed is not None and worlds is None else review_settings(self.record, model_path, worlds)

    def batches(self, settings, again: bool, model_id: str) -> list[tuple[list, str, list]]:
        """(seats, whose, plies) to analyse: the reviewed seats' moves first (they fill the move list and make
        drills), then the other side's (for luck vs skill); every decision with `again` (a deeper pass), else those
        whose annotation is not from this model and these settings, or a stored mistake with no drill yet."""
        known = {d.id for d in load_deck().drills}
        others = [s for s in range(len(self.record.seats)) if s not in self.seats]
        whose = "your" if self.human == self.record.human_seat else "the reviewed"
        found = []
        for seats, who in ((self.seats, whose), (others, "the other side's")):
            plies = [p for p in self.game.decisions(seats)
                     if again or not is_current(self.record.moves[p].annotation, model_id, settings)
                     or self.drill_missing(p, known)]
            if plies:
                found.append((seats, who, plies))
        return found

    def drill_missing(self, ply: int, known: set) -> bool:
        """Whether the person's move at `ply` is a stored mistake or blunder with no drill yet (reviewed before
        drills existed, or its drill was lost): analysing it again makes one."""
        move = self.record.moves[ply]
        note = read(move.annotation)
        return (move.seat == self.record.human_seat and note is not None and note.klass.is_mistake_or_worse
                and f"{self.record.game_id}:{ply}" not in known)

    def analyse(self, seats, plies, settings, model_path, progress=None, waiting=None) -> tuple[list, int]:
        """The annotations of `plies` (of `seats`' moves) and how many drills their mistakes added to the deck. Safe
        in a worker: it reads the game and changes nothing of it. `progress` after each position and `waiting`
        while they are analysed may raise to stop."""
        made: list = []
        annotations = review(self.game, model_path, settings, seats, plies=plies, drills=made, jobs=default_jobs(),
                             progress=progress, waiting=waiting)
        added, _ = add_drills(made)
        return annotations, added

    def store(self, annotations, seats) -> tuple[list[str], OSError | None]:
        """Put `annotations` in the record and save it: what changed, in lines, and the error that kept the file
        from being saved (None when saved; the record in memory has them either way)."""
        lines = store(self.game, annotations, seats)
        self.read_notes()
        try:
            records.save(self.record, path=self.path)
        except OSError as err:
            return lines, err
        return lines, None
