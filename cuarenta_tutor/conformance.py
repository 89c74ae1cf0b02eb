"""Provides the conformance runner: rule cases in the format of RULES.md §15, run through the engine.

    python -m cuarenta_tutor.conformance FILE...

Prints `PASS id` or `FAIL id: why` per case and a last line `N passed, M failed`; exits 1 on any
failure, 2 when a file cannot be read. A case it cannot interpret is a failure, never a skip. The
runner only translates the case format into engine calls: the rules live in the engine.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from .engine import (
    RANKS,
    VALUE,
    Caida,
    Dealer,
    Dealt,
    FourOfAKind,
    HandEnded,
    IllegalMove,
    Limpia,
    Played,
    Ronda,
    Rules,
    State,
    apply,
    capture_options,
    check_action,
    choice_to_action,
    is_legal,
    make_position,
    parse_rank,
    play_points,
    preset,
    rank_of,
    settle_hand,
    trail_action,
)
from .engine.cards import NEXT, make_card
from .engine.rules import CAIDA_POINTS, LIMPIA_POINTS, TARGET_SCORE
from .engine.state import cards_for


class CaseError(Exception):
    """The case does not hold (or cannot be read); the message says where."""


def _ranks(cards) -> list[str]:
    return sorted((RANKS[rank_of(c)] for c in cards), key=RANKS.index)


def _same_multiset(a, b) -> bool:
    return Counter(a) == Counter(b)


def _check(field: str, got, want) -> None:
    if got != want:
        raise CaseError(f"{field}: expected {want!r}, engine gives {got!r}")


def _check_ranks(field: str, got, want) -> None:
    if not _same_multiset(got, want):
        raise CaseError(f"{field}: expected {sorted(want, key=RANKS.index)}, engine gives {got}")


def _teams(d: dict) -> tuple[int, int]:
    return int(d.get("0", 0)), int(d.get("1", 0))


_CONSTANTS = {"target_score": TARGET_SCORE, "caida_points": CAIDA_POINTS, "limpia_points": LIMPIA_POINTS}
"""Options RULES.md §11 fixes: a case may name them, but only with their one value."""


def _rules(case: dict, players: int | None = None) -> Rules:
    """The rules of a case: its config as overrides of the standard options, or of a named `preset` (§11)."""
    options = dict(case.get("config") or {})
    name = options.pop("preset", None) or "standard"
    for key, value in _CONSTANTS.items():
        if key in options and options.pop(key) != value:
            raise CaseError(f"config: {key} is fixed at {value} (RULES.md §11)")
    config_players = options.pop("players", 2)
    return preset(name, players or config_players, **options)


def run_structure(case, setup, expected):
    if not setup:
        state = Dealer(0).start(Rules())[0]  # every card is in some hand or the stock
        deck = list(state.stock) + [c for h in state.hands for c in h]
        counts = Counter(rank_of(c) for c in deck)
        _check("deck_size", len(set(deck)), expected["deck_size"])
        _check("copies_per_rank", set(counts.values()), {expected["copies_per_rank"]})
        _check("ranks_in_sequence_order", list(RANKS), expected["ranks_in_sequence_order"])
        _check("numeric_value", {RANKS[r]: (VALUE[r] or None) for r in range(10)}, expected["numeric_value"])
        _check("next_in_sequence", {RANKS[r]: (RANKS[NEXT[r]] if NEXT[r] is not None else None) for r in range(10)},
               expected["next_in_sequence"])
        return
    rules = _rules(case, setup["players"])
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
        _check(key, got[key], want)


def run_capture_options(case, setup, expected):
    rules = _rules(case)
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
    _check("trail_allowed", is_legal(state, trail_action(played)), expected["trail_allowed"])


def _filler_hands(n: int, acting: int, played: str, used_ranks: list[str]) -> list[list[str]]:
    """One spare card for every other seat, so the play does not end the deal."""
    counts = Counter(used_ranks + [played])
    spare = next(r for r in reversed(RANKS) if counts[r] + n - 1 <= 4)
    return [[played] if s == acting else [spare] for s in range(n)]


def _choice_action(state: State, played: int, choice: dict) -> int:
    """The action a case's `choice` names (§15): IllegalMove where its base is not a legal option's base, as a match
    that names one card where the rules' match takes every card of the rank (match_takes_all_same_rank)."""
    base = [parse_rank(r) for r in choice["base"]]
    action = choice_to_action(played, choice["kind"], base, state.rules)
    option = next((o for o in capture_options([rank_of(c) for c in state.table], played, state.rules)
                   if o.action == action), None)
    if option is not None and sorted(option.base) != sorted(base):
        name = RANKS[played]
        raise IllegalMove(f"{name} cannot match {'+'.join(RANKS[b] for b in sorted(base))}: under these rules a match "
                          f"takes every {name} on the table ({'+'.join(RANKS[b] for b in option.base)})", "bad_match")
    return action


def run_play(case, setup, expected):
    rules = _rules(case, setup["players"])
    n, acting = rules.players, 1
    prev = setup.get("previous_play")
    trailed = prev["rank"] if prev and prev["kind"] == "trail" and prev["same_deal"] else None
    scores = [0, 0]
    scores[acting & 1] = setup["team_score"]
    scores[(acting - 1) & 1] = setup.get("ronda_owner_team_score", 0)
    rondas = [None] * n
    rondas[acting - 1] = setup.get("prev_player_ronda_rank")
    hands = _filler_hands(n, acting, setup["played"], list(setup["table"]))
    state = make_position(rules, hands=hands, table=setup["table"], turn=acting, scores=scores,
                          trailed=trailed, rondas=rondas)
    choice = setup["choice"]
    played = parse_rank(setup["played"])
    try:
        after, events = apply(state, _choice_action(state, played, choice))
    except IllegalMove as err:
        if expected["legal"]:
            raise CaseError(f"legal: expected a legal play, engine refuses it: {err}") from None
        return
    _check("legal", True, expected["legal"])
    _check_result(expected, state, after, events, acting, check_captured=True)
    want_winner = expected.get("winner")
    if want_winner is not None:
        _check("winner", after.winner == (acting & 1), want_winner == "acting_team")


def _check_result(expected, before, after, events, acting, check_captured=False):
    """Compare one play's outcome with a case's expected fields."""
    team = acting & 1
    played = next(e for e in events if isinstance(e, Played))
    caida = [e for e in events if isinstance(e, Caida)]
    limpia = [e for e in events if isinstance(e, Limpia)]
    got = {"caida": bool(caida), "limpia": bool(limpia), "ronda_caida_bonus": bool(caida and caida[0].ronda_bonus),
           "points": play_points(events),
           "game_over": after.is_over,
           "team_score_after": after.scores[team],
           "team_scores_after": {"0": after.scores[0], "1": after.scores[1]}}
    for key in ("caida", "limpia", "ronda_caida_bonus", "points", "game_over", "team_score_after",
                "team_scores_after"):
        if key in expected:
            _check(key, got[key], expected[key])
    if check_captured and "captured" in expected:
        _check_ranks("captured", _ranks(played.captured), expected["captured"])
    if "table_after" in expected:
        _check_ranks("table_after", _ranks(after.table), expected["table_after"])


def _awards(events) -> list[dict]:
    awards = []
    for e in events:
        if isinstance(e, FourOfAKind):
            awards.append({"seat": e.seat, "team": e.team, "type": "four_of_a_kind", "points": 0})
        elif isinstance(e, Ronda) and e.points:
            awards.append({"seat": e.seat, "team": e.team, "type": e.kind, "points": e.points})
    return awards


def _stacked(rules, dealer, deals, held=()) -> list[str]:
    """The ranks of one hand's deck: `deals` (a list of {seat: ranks}) in dealing order, then the cards left over
    (less `held`, the cards on the table), one of each rank in turn so that a deal the case does not list brings no
    ronda by accident."""
    n = rules.players
    ranks = []
    for deal in deals:
        for i in range(n):
            ranks.extend(deal[str((dealer + 1 + i) % n)])
    left = Counter({r: 4 for r in RANKS})
    left.subtract(list(ranks) + list(held))
    for i in range(4):
        ranks += [r for r in RANKS if left[r] > i]
    return ranks


def _dealing_position(rules, dealer, deals, table=(), scores=(0, 0)) -> tuple[State, Dealer]:
    """A position just before the first deal, and a dealer whose decks are stacked to deal `deals` (a list of
    {seat: ranks}) in order: the first hand's deals, then the next hand's (its dealer the next seat), and so on."""
    n = rules.players
    per_hand = rules.deals_per_hand
    stock = _stacked(rules, dealer, deals[:per_hand], table)
    state = make_position(rules, hands=[[]] * n, table=table, turn=(dealer + 1) % n, dealer=dealer,
                          scores=scores, stock=stock)
    # the stacked ranks as cards of the stock, the suits the table left free (which suit goes where does not matter)
    stacked = Dealer.for_world(state, cards_for(stock, set(state.table)))
    for hand in range(1, -(-len(deals) // per_hand)):
        later = deals[hand * per_hand:(hand + 1) * per_hand]
        stacked.decks[hand] = tuple(cards_for(_stacked(rules, (dealer + hand) % n, later), set()))
    return state, stacked


def run_deal_announcements(case, setup, expected):
    rules = _rules(case, setup["players"])
    state, dealer = _dealing_position(rules, setup["dealer"], [setup["hands"]], scores=_teams(setup["team_scores"]))
    state, events = dealer.deal(state)
    _check("awards", _awards(events), expected["awards"])
    _check_end(expected, state)


def _check_end(expected, state):
    _check("team_scores_after", {"0": state.scores[0], "1": state.scores[1]}, expected["team_scores_after"])
    _check("game_over", state.is_over, expected["game_over"])
    _check("winner", state.winner if state.is_over else None, expected["winner"])


def _settle(case, setup, captured, leftover=0, last_capturer=-1):
    rules = _rules(case, setup.get("players", 2))
    return settle_hand(captured, leftover, last_capturer, setup["dealer_team"], _teams(setup["team_scores"]),
                       rules)


def _check_settled(expected, carton, after, winner):
    _check("carton_points", {"0": carton[0], "1": carton[1]}, expected["carton_points"])
    _check("team_scores_after", {"0": after[0], "1": after[1]}, expected["team_scores_after"])
    _check("game_over", winner >= 0, expected["game_over"])
    _check("winner", winner if winner >= 0 else None, expected["winner"])


def run_carton(case, setup, expected):
    _, carton, after, winner = _settle(case, setup, _teams(setup["captured"]))
    _check_settled(expected, carton, after, winner)


def run_end_of_hand(case, setup, expected):
    last = setup.get("last_capturer_team")
    final, carton, after, winner = _settle(case, setup, _teams(setup["captured"]), len(setup["table_leftover"]),
                                           -1 if last is None else int(last))
    _check("final_captured", {"0": final[0], "1": final[1]}, expected["final_captured"])
    _check_settled(expected, carton, after, winner)


def run_carton_table(case, setup, expected):
    rules = _rules(case)
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
    _check("points_by_count", got, expected["points_by_count"])


def run_scenario(case, setup, expected):
    rules = _rules(case, setup["players"])
    state, dealer = _dealing_position(rules, setup["dealer"], setup["deals"], setup.get("table", ()),
                                      _teams(setup["team_scores"]))
    state, events = dealer.deal(state)
    if "announcements" in expected:
        _check("announcements", _awards(events), expected["announcements"])
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
            after, events = apply(state, _choice_action(state, played, choice))
        except IllegalMove as err:
            if want.get("legal", True):
                raise CaseError(f"{where}: the engine refuses the play: {err}") from None
            if "reason" in want:
                _check(f"{where} reason", err.reason, want["reason"])
            continue
        if not want.get("legal", True):
            raise CaseError(f"{where}: expected the play to be refused, the engine accepts it")
        try:
            _check_result(want, state, after, events, step["seat"])
        except CaseError as err:
            raise CaseError(f"{where}: {err}") from None
        state = after
        ended = next((e for e in events if isinstance(e, HandEnded)), None)
    final = expected.get("final")
    if final:
        _check("final team_scores", {"0": state.scores[0], "1": state.scores[1]}, final["team_scores"])
        if "captured_cards" in final:
            # After the last play of a hand the piles are those the hand ended with (cartón counted them).
            counts = ended.captured if ended else (len(state.piles[0]), len(state.piles[1]))
            _check("final captured_cards", {"0": counts[0], "1": counts[1]}, final["captured_cards"])
        if "table" in final:
            _check_ranks("final table", _ranks(state.table), final["table"])
        _check("final game_over", state.is_over, final["game_over"])
        _check("final winner", state.winner if state.is_over else None, final.get("winner"))


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


def run_case(case) -> str | None:
    """Run one case; None when it passes, else why it fails."""
    if not isinstance(case, dict):
        return f"a case must be a JSON object, got {type(case).__name__}"
    kind = case.get("kind")
    runner = RUNNERS.get(kind)
    if runner is None:
        return f"unknown case kind {kind!r} (known: {', '.join(RUNNERS)})"
    try:
        runner(case, case.get("setup") or {}, case.get("expected") or {})
    except CaseError as err:
        return str(err)
    except IllegalMove as err:
        return f"the engine refused a move the case needs: {err}"
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, StopIteration) as err:
        return f"malformed case ({type(err).__name__}: {err})"
    return None


def run_files(paths, out=sys.stdout) -> tuple[int, int]:
    """Run every case of every file; returns (passed, failed)."""
    passed = failed = 0
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            cases = json.load(fh)
        if not isinstance(cases, list):
            raise ValueError(f"{path}: a case file must hold a JSON list of cases")
        for i, case in enumerate(cases):
            case_id = case.get("id", f"{path}#{i}") if isinstance(case, dict) else f"{path}#{i}"
            why = run_case(case)
            if why is None:
                passed += 1
                print(f"PASS {case_id}", file=out)
            else:
                failed += 1
                print(f"FAIL {case_id}: {why}", file=out)
    print(f"{passed} passed, {failed} failed", file=out)
    return passed, failed


def main(argv=None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m cuarenta_tutor.conformance FILE...", file=sys.stderr)
        return 2
    try:
        _, failed = run_files(paths)
    except (OSError, ValueError) as err:  # json.JSONDecodeError is a ValueError
        print(f"error: cannot read the cases: {err}", file=sys.stderr)
        return 2
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
