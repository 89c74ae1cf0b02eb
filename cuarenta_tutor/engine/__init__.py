"""Provides the Cuarenta rules engine (standard library only): cards, rules, the action table, moves.

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
from .captures import capture_options, capture_outcomes
from .cards import RANKS, SUITS, VALUE, card_str, parse_card, parse_rank, rank_of, suit_of
from .play import (
                      apply,
                      check_action,
                      choice_to_action,
                      deal_pending,
                      is_legal,
                      legal_actions,
                      new_game,
                      play_events,
                      play_points,
                      start_game,
)
from .render import render
from .rules import PRESETS, TARGET_SCORE, Rules, preset, preset_name
from .scoring import announcements, carton_points, carton_value, settle_hand
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
                      hand_deck,
                      make_position,
)

__all__ = [
    "ACTION_BASE", "ACTION_KIND", "ACTION_RANK", "MATCH", "N_ACTIONS", "SUM", "TRAIL",
    "action_to_string", "match_action", "sum_action", "trail_action", "RANKS", "SUITS",
    "VALUE", "card_str", "parse_card", "parse_rank", "rank_of", "suit_of", "apply", "capture_options",
    "capture_outcomes", "check_action", "choice_to_action", "deal_pending", "escalera", "is_legal",
    "legal_actions",
    "new_game", "play_events", "play_points", "start_game", "render", "PRESETS", "TARGET_SCORE", "Rules", "preset",
    "preset_name",
    "announcements", "carton_points", "carton_value", "settle_hand", "Caida", "Dealt", "FourOfAKind", "GameWon",
    "HandEnded",
    "IllegalMove", "Limpia", "Played", "Ronda", "State", "hand_deck", "make_position",
]
