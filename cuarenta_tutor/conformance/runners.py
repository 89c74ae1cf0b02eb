"""Provides a runner for each kind of rule case (RULES.md §15): each sets the case up through the engine
(positions.py), plays or settles it there, and raises CaseError where the engine's outcome is not the case's."""

from __future__ import annotations

import json
from collections import Counter

from ..engine import (
    RANKS,
    VALUE,
    Dealer,
    Dealt,
    HandEnded,
    IllegalMove,
    Rules,
    apply,
    capture_options,
    check_action,
    is_legal,
    make_position,
    parse_rank,
    rank_of,
    settle_hand,
    trail_action,
)
from ..engine.cards import NEXT, make_card
from .positions import (
    CaseError,
    awards,
    case_rules,
    check,
    check_result,
    choice_action,
    compare,
    dealing_position,
    filler_hands,
    ranks_of,
    teams,
    written_winner,
)

SCENARIO_FIELDS = ("announcements", "steps", "final")
"""What a scenario case may expect: the first deal's announcements, each step's result, the final state."""
STRUCTURE_ALIASES = {"play_order": "play_order_one_deal", "next_dealer": "next_hand_dealer"}
"""The names RULES.md §15's table gives two structure fields, beside the ones the public cases use."""


def run_structure(case, setup, expected):
    state = Dealer(0).start(Rules())[0]  # every card is in some hand or the stock
    deck = list(state.stock) + [c for h in state.hands for c in h]
    counts = Counter(rank_of(c) for c in deck)
    got = {"deck_size": len(set(deck)), "copies_per_rank": counts[0] if len(set(counts.values())) == 1 else counts,
           "ranks_in_sequence_order": list(RANKS), "numeric_value": {RANKS[r]: (VALUE[r] or None) for r in range(10)},
           "next_in_sequence": {RANKS[r]: (RANKS[NEXT[r]] if NEXT[r] is not None else None) for r in range(10)}}
    if setup:
        got.update(_seating(case, setup))
    for alias, name in STRUCTURE_ALIASES.items():
        if name in got:
            got[alias] = got[name]
    compare("the structure", got, expected)


def _seating(case, setup) -> dict:
    """The structure of a game of `setup`'s players and dealer: teams, turn order, deals, the next dealer."""
    rules = case_rules(case, setup.get("players"))
    n = rules.players
    # Suit-major deck: every 5-card batch holds 5 distinct ranks, so no announcement ends the hand.
    deck = [make_card(r, s) for s in range(4) for r in range(10)]
    dealer = Dealer(0, [deck, deck])
    state = dealer.start(rules, setup.get("dealer", 0))[0]
    got = {"teams": {str(t): [s for s in range(n) if s % 2 == t] for t in (0, 1)},
           "first_player": state.turn,
           "cards_per_player_per_deal": len(state.hands[0]),
           "cards_dealt_per_deal": sum(len(h) for h in state.hands),
           "deal_order": [next(s for s in range(n) if deck[5 * i] in state.hands[s]) for i in range(n)],
           "table_at_start_of_hand": list(state.table)}
    order, leaders, deals = [], [state.turn], 1
    while True:  # trail every card: no captures, so the hand runs its full length
        seat = state.turn
        if len(order) < 5 * n:
            order.append(seat)
        state, events = dealer.play(state, trail_action(rank_of(state.hands[seat][0])))
        if any(isinstance(e, Dealt) for e in events):
            if state.hand_no != 0:
                break
            deals += 1
            leaders.append(state.turn)
    got.update(play_order_one_deal=order, deals_per_hand=deals, next_hand_dealer=state.dealer,
               leader_of_every_deal=leaders[0] if len(set(leaders)) == 1 else leaders)
    return got


def run_capture_options(case, setup, expected):
    rules = case_rules(case)
    played = parse_rank(setup["played"])
    table = [parse_rank(r) for r in setup["table"]]
    options = [{"kind": o.kind, "base": [RANKS[r] for r in o.base], "sequence": [RANKS[r] for r in o.sequence],
                "captured": [RANKS[r] for r in o.captured]} for o in capture_options(table, played, rules)]
    state = make_position(rules, hands=[[], [setup["played"]]], table=setup["table"], turn=1)
    want = dict(expected)
    if "options" in want:  # an unordered list, each option's rank lists multisets
        if sorted(map(_option_key, want.pop("options"))) != sorted(map(_option_key, options)):
            raise CaseError(f"options: expected {expected['options']}, engine gives {options}")
        if not want:
            return
    compare("the capture options", {"trail_allowed": is_legal(state, trail_action(played))}, want)


def _option_key(option: dict) -> str:
    return json.dumps({k: sorted(v, key=RANKS.index) if isinstance(v, list) else v for k, v in option.items()},
                      sort_keys=True)


def run_play(case, setup, expected):
    rules = case_rules(case, setup.get("players"))
    n, acting = rules.players, 1
    prev = setup.get("previous_play")
    trailed = prev["rank"] if prev and prev["kind"] == "trail" and prev["same_deal"] else None
    scores = [0, 0]
    scores[acting & 1] = setup.get("team_score", 0)
    scores[(acting - 1) & 1] = setup.get("ronda_owner_team_score", 0)
    rondas = [None] * n
    rondas[acting - 1] = setup.get("prev_player_ronda_rank")
    hands = filler_hands(n, acting, setup["played"], list(setup["table"]))
    state = make_position(rules, hands=hands, table=setup["table"], turn=acting, scores=scores,
                          trailed=trailed, rondas=rondas)
    outcome = _played(state, parse_rank(setup["played"]), setup["choice"], expected, "the play")
    if outcome is not None:
        check_result({k: v for k, v in expected.items() if k != "legal"}, *outcome, acting)


def _played(state, played: int, choice: dict, want: dict, where: str):
    """The play's (after, events), or None where it is refused as `want` expects (its `legal` false, its `reason`
    the engine's); CaseError where the engine and the case disagree on whether it is legal."""
    try:
        if state.is_over:
            check_action(state, 0)  # after a win every play is refused, whatever it is (R-WIN-2)
        outcome = apply(state, choice_action(state, played, choice))
    except IllegalMove as err:
        if want.get("legal", True):
            raise CaseError(f"{where}: expected a legal play, the engine refuses it: {err}") from None
        if "reason" in want:
            check(f"{where}: reason", err.reason, want["reason"])
        return None
    if not want.get("legal", True):
        raise CaseError(f"{where}: expected the play to be refused, the engine accepts it")
    return outcome


def run_deal_announcements(case, setup, expected):
    rules = case_rules(case, setup.get("players"))
    state, dealer = dealing_position(rules, setup.get("dealer", 0), [setup["hands"]],
                                     scores=teams(setup.get("team_scores", {})))
    state, events = dealer.deal(state)
    compare("the deal", {"awards": awards(events), **_ending(state.scores, state.winner, expected)}, expected)


def _ending(scores, winner: int, expected: dict) -> dict:
    """The fields of a game's state after a deal or a hand a case may check: scores, whether it is over, who won."""
    return {"team_scores_after": {"0": scores[0], "1": scores[1]}, "game_over": winner >= 0,
            "winner": written_winner(winner, expected.get("winner"))}


def run_carton(case, setup, expected):
    compare("the cartón", _settled(case, setup, expected), expected)


def run_end_of_hand(case, setup, expected):
    compare("the hand's end", _settled(case, setup, expected, end=True), expected)


def _settled(case, setup, expected, end: bool = False) -> dict:
    """What settling the case's hand gives (a cartón case, or the end of a hand with its table's leftover cards)."""
    rules = case_rules(case, setup.get("players"))
    last = setup.get("last_capturer_team") if end else None
    final, carton, after, winner = settle_hand(teams(setup["captured"]), len(setup.get("table_leftover", ())) if end
                                               else 0, -1 if last is None else int(last), setup["dealer_team"],
                                               teams(setup.get("team_scores", {})), rules)
    got = {"carton_points": {"0": carton[0], "1": carton[1]}, **_ending(after, winner, expected)}
    if end:
        got["final_captured"] = {"0": final[0], "1": final[1]}
    return got


def run_carton_table(case, setup, expected):
    rules = case_rules(case, setup.get("players"))
    role = setup["role"]
    if role not in ("dealer", "non_dealer"):
        raise CaseError(f"unknown role {role!r}")
    scores = setup.get("team_scores", {})
    got = {}
    for n in range(41):
        # Team 0 is the team under test; it deals when the role is "dealer".
        dealer_team = 0 if role == "dealer" else 1
        _, carton, _, _ = settle_hand((n, 40 - n), 0, -1, dealer_team,
                                      (scores.get("team", 0), scores.get("opponent", 0)), rules)
        got[str(n)] = carton[0]
    compare("the cartón table", {"points_by_count": got}, expected)


def run_scenario(case, setup, expected):
    rules = case_rules(case, setup.get("players"))
    state, dealer = dealing_position(rules, setup.get("dealer", 0), setup["deals"], setup.get("table", ()),
                                     teams(setup.get("team_scores", {})))
    unknown = sorted(set(expected) - set(SCENARIO_FIELDS))
    if unknown:
        names = ", ".join(map(repr, unknown))
        raise CaseError(f"unknown expected field of the scenario: {names}" if len(unknown) == 1 else
                        f"unknown expected fields of the scenario: {names}")
    state, events = dealer.deal(state)
    if "announcements" in expected:
        check("announcements", awards(events), expected["announcements"])
    steps_expected = expected.get("steps", [])
    ended = None  # the HandEnded of the last play, if it ended a hand
    for i, step in enumerate(setup["steps"]):
        want = steps_expected[i] if i < len(steps_expected) else {}
        where = f"step {i + 1}"
        # A deal comes before the play that needs it, so its announcements are that step's, not the previous one's.
        dealt = state.needs_deal
        if dealt:
            state, _ = dealer.deal(state)
        if step.get("new_deal_before") and not dealt and not state.is_over:  # after a win nothing is dealt
            raise CaseError(f"{where}: expected a new deal before this play, the engine dealt none")
        if not state.is_over and step["seat"] != state.turn:
            raise CaseError(f"{where}: case plays seat {step['seat']}, engine has seat {state.turn} on turn")
        outcome = _played(state, parse_rank(step["played"]), step["choice"], want, where)
        if outcome is None:
            continue
        checked = {k: v for k, v in want.items() if k != "legal"}
        if checked:
            try:
                check_result(checked, *outcome, step["seat"])
            except CaseError as err:
                raise CaseError(f"{where}: {err}") from None
        state, events = outcome
        ended = next((e for e in events if isinstance(e, HandEnded)), None)
    final = expected.get("final")
    if final:
        # After the last play of a hand the piles are those the hand ended with (cartón counted them).
        counts = ended.captured if ended else (len(state.piles[0]), len(state.piles[1]))
        ending = _ending(state.scores, state.winner, final)
        compare("the final state", {"team_scores": ending["team_scores_after"], "game_over": ending["game_over"],
                                    "winner": ending["winner"], "captured_cards": {"0": counts[0], "1": counts[1]},
                                    "table": ranks_of(state.table)}, final, multisets=("table",))


RUNNERS = {
    "structure": run_structure,
    "capture_options": run_capture_options,
    "play": run_play,
    "deal_announcements": run_deal_announcements,
    "carton": run_carton,
    "carton_table": run_carton_table,
    "end_of_hand": run_end_of_hand,
    "scenario": run_scenario,
}
