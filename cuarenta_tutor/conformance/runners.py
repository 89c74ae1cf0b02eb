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
    check_ranks,
    check_result,
    choice_action,
    dealing_position,
    filler_hands,
    ranks_of,
    teams,
)


def run_structure(case, setup, expected):
    if not setup:
        state = Dealer(0).start(Rules())[0]  # every card is in some hand or the stock
        deck = list(state.stock) + [c for h in state.hands for c in h]
        counts = Counter(rank_of(c) for c in deck)
        check("deck_size", len(set(deck)), expected["deck_size"])
        check("copies_per_rank", set(counts.values()), {expected["copies_per_rank"]})
        check("ranks_in_sequence_order", list(RANKS), expected["ranks_in_sequence_order"])
        check("numeric_value", {RANKS[r]: (VALUE[r] or None) for r in range(10)}, expected["numeric_value"])
        check("next_in_sequence", {RANKS[r]: (RANKS[NEXT[r]] if NEXT[r] is not None else None) for r in range(10)},
               expected["next_in_sequence"])
        return
    rules = case_rules(case, setup["players"])
    n = rules.players
    # Suit-major deck: every 5-card batch holds 5 distinct ranks, so no announcement ends the hand.
    deck = [make_card(r, s) for s in range(4) for r in range(10)]
    dealer = Dealer(0, [deck, deck])
    state = dealer.start(rules, setup["dealer"])[0]
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
    for key, want in expected.items():
        if key not in got:
            raise CaseError(f"unknown expected field {key!r}")
        check(key, got[key], want)


def run_capture_options(case, setup, expected):
    rules = case_rules(case)
    played = parse_rank(setup["played"])
    table = [parse_rank(r) for r in setup["table"]]
    got = [{"kind": o.kind, "base": sorted(RANKS[r] for r in o.base),
            "sequence": sorted(RANKS[r] for r in o.sequence), "captured": sorted(RANKS[r] for r in o.captured)}
           for o in capture_options(table, played, rules)]
    want = [{k: (sorted(v) if isinstance(v, list) else v) for k, v in o.items()} for o in expected["options"]]
    key = lambda o: json.dumps(o, sort_keys=True)  # noqa: E731
    if sorted(map(key, got)) != sorted(map(key, want)):
        raise CaseError(f"options: expected {want}, engine gives {got}")
    state = make_position(rules, hands=[[], [setup["played"]]], table=setup["table"], turn=1)
    check("trail_allowed", is_legal(state, trail_action(played)), expected["trail_allowed"])


def run_play(case, setup, expected):
    rules = case_rules(case, setup["players"])
    n, acting = rules.players, 1
    prev = setup.get("previous_play")
    trailed = prev["rank"] if prev and prev["kind"] == "trail" and prev["same_deal"] else None
    scores = [0, 0]
    scores[acting & 1] = setup["team_score"]
    scores[(acting - 1) & 1] = setup.get("ronda_owner_team_score", 0)
    rondas = [None] * n
    rondas[acting - 1] = setup.get("prev_player_ronda_rank")
    hands = filler_hands(n, acting, setup["played"], list(setup["table"]))
    state = make_position(rules, hands=hands, table=setup["table"], turn=acting, scores=scores,
                          trailed=trailed, rondas=rondas)
    choice = setup["choice"]
    played = parse_rank(setup["played"])
    try:
        after, events = apply(state, choice_action(state, played, choice))
    except IllegalMove as err:
        if expected["legal"]:
            raise CaseError(f"legal: expected a legal play, engine refuses it: {err}") from None
        return
    check("legal", True, expected["legal"])
    check_result(expected, state, after, events, acting, check_captured=True)
    want_winner = expected.get("winner")
    if want_winner is not None:
        check("winner", after.winner == (acting & 1), want_winner == "acting_team")


def run_deal_announcements(case, setup, expected):
    rules = case_rules(case, setup["players"])
    state, dealer = dealing_position(rules, setup["dealer"], [setup["hands"]], scores=teams(setup["team_scores"]))
    state, events = dealer.deal(state)
    check("awards", awards(events), expected["awards"])
    _check_end(expected, state)


def _check_end(expected, state):
    check("team_scores_after", {"0": state.scores[0], "1": state.scores[1]}, expected["team_scores_after"])
    check("game_over", state.is_over, expected["game_over"])
    check("winner", state.winner if state.is_over else None, expected["winner"])


def _settle(case, setup, captured, leftover=0, last_capturer=-1):
    rules = case_rules(case, setup.get("players", 2))
    return settle_hand(captured, leftover, last_capturer, setup["dealer_team"], teams(setup["team_scores"]),
                       rules)


def _check_settled(expected, carton, after, winner):
    check("carton_points", {"0": carton[0], "1": carton[1]}, expected["carton_points"])
    check("team_scores_after", {"0": after[0], "1": after[1]}, expected["team_scores_after"])
    check("game_over", winner >= 0, expected["game_over"])
    check("winner", winner if winner >= 0 else None, expected["winner"])


def run_carton(case, setup, expected):
    _, carton, after, winner = _settle(case, setup, teams(setup["captured"]))
    _check_settled(expected, carton, after, winner)


def run_end_of_hand(case, setup, expected):
    last = setup.get("last_capturer_team")
    final, carton, after, winner = _settle(case, setup, teams(setup["captured"]), len(setup["table_leftover"]),
                                           -1 if last is None else int(last))
    check("final_captured", {"0": final[0], "1": final[1]}, expected["final_captured"])
    _check_settled(expected, carton, after, winner)


def run_carton_table(case, setup, expected):
    rules = case_rules(case)
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
    check("points_by_count", got, expected["points_by_count"])


def run_scenario(case, setup, expected):
    rules = case_rules(case, setup["players"])
    state, dealer = dealing_position(rules, setup["dealer"], setup["deals"], setup.get("table", ()),
                                      teams(setup["team_scores"]))
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
        played = parse_rank(step["played"])
        choice = step["choice"]
        try:
            if state.is_over:
                check_action(state, 0)  # after a win every play is refused, whatever it is (R-WIN-2)
            after, events = apply(state, choice_action(state, played, choice))
        except IllegalMove as err:
            if want.get("legal", True):
                raise CaseError(f"{where}: the engine refuses the play: {err}") from None
            if "reason" in want:
                check(f"{where} reason", err.reason, want["reason"])
            continue
        if not want.get("legal", True):
            raise CaseError(f"{where}: expected the play to be refused, the engine accepts it")
        try:
            check_result(want, state, after, events, step["seat"])
        except CaseError as err:
            raise CaseError(f"{where}: {err}") from None
        state = after
        ended = next((e for e in events if isinstance(e, HandEnded)), None)
    final = expected.get("final")
    if final:
        check("final team_scores", {"0": state.scores[0], "1": state.scores[1]}, final["team_scores"])
        if "captured_cards" in final:
            # After the last play of a hand the piles are those the hand ended with (cartón counted them).
            counts = ended.captured if ended else (len(state.piles[0]), len(state.piles[1]))
            check("final captured_cards", {"0": counts[0], "1": counts[1]}, final["captured_cards"])
        if "table" in final:
            check_ranks("final table", ranks_of(state.table), final["table"])
        check("final game_over", state.is_over, final["game_over"])
        check("final winner", state.winner if state.is_over else None, final.get("winner"))


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
