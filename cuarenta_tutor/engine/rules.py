"""Provides the rules configuration (every option of RULES.md §11) and the named presets."""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, fields, replace

from ..i18n import N_, _, ngettext

TARGET_SCORE = 40
"""The first team to reach or pass this score wins (R-WIN-1)."""
CAIDA_POINTS = 2
LIMPIA_POINTS = 2
CARTON_CARDS = 20
"""Cards a team needs in its pile for the full cartón (6 points, R-CARTON-1)."""
CARTON_MORE_POINTS = 2
"""Cartón points of the team with more cards when neither has 20 (R-CARTON-2)."""
PLAYER_COUNTS = (2, 4)
"""Seats at a game: one against one, or two teams of two (R-SEAT-1)."""


@dataclass(frozen=True)
class Rules:
    """Every configurable rule of RULES.md §11; the defaults are the `standard` preset."""

    players: int = 2
    """2 (one against one) or 4 (two teams of two, partners opposite)."""
    caida_limpia_stack: bool = True
    """A caída that is also a limpia scores both (4); False is "todo dos" (2)."""
    ronda_points: int = 2
    """Points for being dealt three of a kind."""
    ronda_cutoff: int | None = 30
    """A team at or above this score scores no ronda; None never blocks."""
    four_of_a_kind: str = "win"
    """"win": four of a kind wins the game at once; "points": it scores four_of_a_kind_points."""
    four_of_a_kind_points: int = 4
    """Points for a doble ronda when four_of_a_kind is "points"."""
    ronda_caida_bonus: int = 10
    """Extra points for a caída on the rank of the previous player's ronda."""
    ronda_caida_cutoff: int | None = 30
    """A team at or above this score gets no ronda-caída bonus."""
    carton_cutoff: int | None = 30
    """A team at or above this score scores no cartón."""
    limpia_cutoff: int | None = 38
    """A team at or above this score scores no limpia."""
    sum_max_cards: int | None = None
    """Most cards in an addition; None allows any number (two or more)."""
    match_takes_all_same_rank: bool = False
    """A match takes every table card of the played rank, not just one."""
    forced_capture: bool = False
    """A card that can capture must capture (it cannot be trailed)."""
    leftover_table_cards: str = "discard"
    """Cards left on the table at the end of a hand: "discard" or "last_capturer"."""

    def __post_init__(self) -> None:
        problems = []
        for name in ("caida_limpia_stack", "match_takes_all_same_rank", "forced_capture"):
            if not isinstance(getattr(self, name), bool):
                problems.append(_("{name} must be true or false, not {value}").format(
                    name=name, value=repr(getattr(self, name))))
        if type(self.players) is not int or self.players not in PLAYER_COUNTS:
            problems.append(_("players must be 2 or 4, not {value}").format(value=repr(self.players)))
        if self.four_of_a_kind not in ("win", "points"):
            problems.append(_("four_of_a_kind must be 'win' or 'points', not {value}").format(
                value=repr(self.four_of_a_kind)))
        if self.leftover_table_cards not in ("discard", "last_capturer"):
            problems.append(_("leftover_table_cards must be 'discard' or 'last_capturer', not {value}").format(
                value=repr(self.leftover_table_cards)))
        if self.sum_max_cards is not None and not (type(self.sum_max_cards) is int and self.sum_max_cards >= 2):
            problems.append(_("sum_max_cards must be None or an int of 2 or more, not {value}").format(
                value=repr(self.sum_max_cards)))
        for name in ("ronda_cutoff", "ronda_caida_cutoff", "carton_cutoff", "limpia_cutoff"):
            value = getattr(self, name)
            if value is not None and (type(value) is not int):
                problems.append(_("{name} must be None or an int, not {value}").format(name=name, value=repr(value)))
        for name in ("ronda_points", "four_of_a_kind_points", "ronda_caida_bonus"):
            value = getattr(self, name)
            if type(value) is not int or value < 0:
                problems.append(_("{name} must be an int of 0 or more, not {value}").format(
                    name=name, value=repr(value)))
        if problems:
            raise ValueError(_("invalid rules: {problems}").format(problems="; ".join(problems)))

    @functools.cached_property
    def sum_limit(self) -> int:
        """Most cards an addition may take under these rules (7 when unlimited: no sum needs more)."""
        return min(self.sum_max_cards or 7, 7)

    @functools.cached_property
    def legal_key(self) -> int:
        """The options that change which moves are legal, packed into a few bits (for the move caches)."""
        return self.sum_limit * 2 + self.forced_capture

    @property
    def deals_per_hand(self) -> int:
        """4 deals a hand with 2 players, 2 with 4 players (R-DEAL-3)."""
        return 40 // (5 * self.players)

    def with_options(self, **options) -> Rules:
        """A copy with some options changed; unknown names raise ValueError."""
        known = {f.name for f in fields(self)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(ngettext("unknown rules option: {names}; known: {known}",
                                      "unknown rules options: {names}; known: {known}", len(unknown)).format(
                names=", ".join(unknown), known=", ".join(sorted(known))))
        return replace(self, **options)

    def __deepcopy__(self, memo) -> Rules:
        """The rules themselves: a frozen value (and the bots key their caches on the rules they were last asked)."""
        return self

    def to_dict(self) -> dict:
        """The options as a plain dict (for records and model metadata)."""
        return asdict(self)


PRESETS: dict[str, dict] = {
    "standard": {},
    "pagat": {"ronda_points": 4, "carton_cutoff": None},
    "agent_dory": {"ronda_cutoff": 38, "ronda_caida_cutoff": 38},
    "quito_todo_dos": {
        "caida_limpia_stack": False,
        "ronda_caida_bonus": 0,
        "sum_max_cards": 2,
        "four_of_a_kind": "points",
        "four_of_a_kind_points": 2,
    },
}
"""The presets of RULES.md §11, as overrides of the defaults."""

PRESET_LABELS: dict[str, str] = {
    "standard": N_("Standard"),
    "pagat": N_("Pagat.com"),
    "agent_dory": N_("Agent Dory"),
    "quito_todo_dos": N_("Quito, todo dos"),
}
"""Each preset's name as a person reads it (the ids above stay in files and on the command line); translated where
shown: `preset_label`."""

PRESET_NOTES: dict[str, str] = {
    "standard": N_("the usual Ecuadorian rules: ronda 2, caída y limpia 4; from 30 no cartón or ronda, at 38 no "
                   "limpia"),
    "pagat": N_("pagat.com's version: ronda 4, and cartón counts at any score"),
    "agent_dory": N_("Agent Dory's version: rondas and the ronda-caída bonus count up to 38"),
    "quito_todo_dos": N_("'todo dos': a caída y limpia scores 2, no ronda-caída bonus, sums of two cards only, "
                         "four of a kind scores 2"),
}
"""One line per preset, what it changes, for the places a person chooses one (English; `preset_note` translates)."""


def preset_label(name: str) -> str:
    """A preset's readable name in the language in use ("Quito, todo dos"); an unknown id as it is."""
    label = PRESET_LABELS.get(name)
    return _(label) if label else name


def preset_note(name: str) -> str:
    """What a preset changes, in one line, in the language in use; "" for an unknown id."""
    note = PRESET_NOTES.get(name)
    return _(note) if note else ""


def preset(name: str, players: int = 2, **overrides) -> Rules:
    """The rules of a named preset, optionally for 4 players or with other overrides."""
    if name not in PRESETS:
        raise ValueError(_("unknown rules preset {name}; choose one of: {choices}").format(
            name=repr(name), choices=", ".join(PRESETS)))
    return Rules(players=players).with_options(**PRESETS[name], **overrides)


def preset_name(rules: Rules) -> str | None:
    """The preset these rules are (ignoring the player count), or None for a custom set."""
    for name in PRESETS:
        if preset(name, players=rules.players) == rules:
            return name
    return None
