"""Provides the Cuarenta rules engine (standard library only): cards, rules, the action table, moves,
dealing as its own chance step, and what a seat knows.

Glossary (RULES.md §1): *caída* — matching the card the previous player just trailed (2 points);
*limpia* — a capture that empties the table (2); *ronda* — three of a kind dealt (2);
*escalera* — the run of ranks above the played card, taken with a capture; *cartón* — points for
the cards captured in a hand (20 cards = 6); *mano/data* — a hand of 4 deals (2 players) or 2 (4).
"""

from .actions import (
    ACTION_BASE,
    ACTION_KIND,
    ACTION_RANK,
    MATCH,
    N_ACTIONS,
    SUM,
    TRAIL,
    action_to_string,
    escalera,
    match_action,
    sum_action,
    trail_action,
)
from .captures import CaptureOption, capture_options, capture_outcomes
from .cards import DECK_SIZE, RANKS, SUITS, VALUE, card_str, parse_card, parse_rank, rank_of, suit_of
from .dealing import Dealer, check_deck, first_dealer, new_game, seeded_deck
from .knowledge import World, determinize, knows_every_card, p_holds, seen_counts, unseen_cards, unseen_counts
from .play import (
    CARDS_PER_DEAL,
    apply,
    cards_per_deal,
    check_action,
    choice_to_action,
    deal,
    initial_state,
    is_legal,
    legal_actions,
    play_events,
    play_points,
)
from .render import render
from .rules import (
    CAIDA_POINTS,
    CARTON_CARDS,
    CARTON_MORE_POINTS,
    LIMPIA_POINTS,
    PLAYER_COUNTS,
    PRESET_LABELS,
    PRESET_NOTES,
    PRESETS,
    TARGET_SCORE,
    Rules,
    preset,
    preset_label,
    preset_name,
    preset_note,
)
from .scoring import announcements, below, capture_score, carton_points, carton_value, settle_hand
from .state import (
    Caida,
    Dealt,
    FourOfAKind,
    GameWon,
    HandEnded,
    IllegalMove,
    Limpia,
    Played,
    Ronda,
    State,
    make_position,
)

__all__ = [
    "ACTION_BASE", "ACTION_KIND", "ACTION_RANK", "MATCH", "N_ACTIONS", "SUM", "TRAIL", "action_to_string",
    "escalera", "match_action", "sum_action", "trail_action", "CaptureOption", "capture_options",
    "capture_outcomes", "DECK_SIZE", "RANKS", "SUITS", "VALUE", "card_str", "parse_card", "parse_rank", "rank_of",
    "suit_of",
    "CARDS_PER_DEAL", "Dealer", "check_deck", "first_dealer", "new_game", "seeded_deck", "World", "determinize",
    "p_holds", "knows_every_card",
    "seen_counts", "unseen_cards", "unseen_counts", "apply", "cards_per_deal", "check_action", "choice_to_action",
    "deal", "initial_state", "is_legal", "legal_actions", "play_events", "play_points", "render", "CAIDA_POINTS",
    "CARTON_CARDS", "CARTON_MORE_POINTS", "LIMPIA_POINTS", "PLAYER_COUNTS", "PRESET_LABELS", "PRESET_NOTES", "PRESETS",
    "TARGET_SCORE", "Rules", "preset", "preset_label", "preset_name", "preset_note", "announcements", "below",
    "capture_score", "carton_points", "carton_value", "settle_hand",
    "Caida", "Dealt", "FourOfAKind", "GameWon", "HandEnded", "IllegalMove", "Limpia", "Played", "Ronda", "State",
    "make_position",
]
