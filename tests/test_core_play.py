"""The compiled rules steps (core/play.py) against the Python engine: every public rule case that plays or deals, and
random play under every preset and option, compared ply by ply (legal moves, next state, events)."""

import functools
import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cuarenta_tutor.conformance import positions as cf
from cuarenta_tutor.core.bench import COMBINATIONS, differential, game_decks, random_games
from cuarenta_tutor.core.deal import buffers, deal, needs_deal, new_game, set_deck
from cuarenta_tutor.core.layout import events_of, from_row, rules_array, to_row
from cuarenta_tutor.core.moves import legal
from cuarenta_tutor.core.play import apply_play, step
from cuarenta_tutor.engine import (
    Dealer,
    IllegalMove,
    Rules,
    apply,
    choice_to_action,
    initial_state,
    legal_actions,
    make_position,
    parse_rank,
    trail_action,
)
from cuarenta_tutor.engine.cards import DECK_SIZE, make_card, rank_of
from cuarenta_tutor.engine.rules import preset

CASES = json.loads((Path(__file__).parent / "rules" / "cases_public.json").read_text(encoding="utf-8"))


def cases(kind):
    found = [c for c in CASES if c["kind"] == kind]
    assert found, kind
    return found


class Lane:
    """A state played by the engine and the core side by side; every step compares them."""

    def __init__(self, state, dealer=None):
        self.state, self.dealer = state, dealer
        order = dealer.deck(state.hand_no)[DECK_SIZE - len(state.stock):] if dealer else None
        self.rules = rules_array(state.rules)
        self.row = to_row(state, order)
        self.events, self.cards = buffers()
        self.moves = np.zeros(64, dtype=np.int32)

    def legal(self):
        count = legal(self.row, self.rules, self.moves)
        assert tuple(self.moves[:count].tolist()) == legal_actions(self.state)
        return legal_actions(self.state)

    def compare(self, after, want, count):
        self.last = want
        assert events_of(self.events, count, self.cards) == want
        assert from_row(self.row, self.state.rules) == after
        self.state = after

    def apply(self, action):
        """engine.apply and the core's apply_play."""
        after, want = apply(self.state, action)
        self.compare(after, want, apply_play(self.row, self.rules, action, self.events, self.cards))

    def play(self, action):
        """Dealer.play and the core's step (the next hand's deck given when the engine dealt it)."""
        after, want = self.dealer.play(self.state, action)
        count = step(self.row, self.rules, action, self.events, self.cards, True)
        got = events_of(self.events, count, self.cards)
        if after.hand_no != self.state.hand_no and needs_deal(self.row, self.rules):
            set_deck(self.row, np.array(self.dealer.deck(after.hand_no), dtype=np.int32))
            got += events_of(self.events, deal(self.row, self.rules, self.events, self.cards), self.cards)
        assert got == want
        assert from_row(self.row, self.state.rules) == after
        self.state = after

    def deal(self):
        assert needs_deal(self.row, self.rules) == self.state.needs_deal
        after, want = self.dealer.deal(self.state)
        self.compare(after, want, deal(self.row, self.rules, self.events, self.cards))


def every_legal_play(state):
    """Each legal play of `state`, made by the engine and by the core, compared."""
    for action in Lane(state).legal():
        Lane(state).apply(action)


@pytest.mark.parametrize("case", cases("play"), ids=lambda c: c["id"])
def test_rule_case_plays_agree(case):
    # the position as conformance.run_play builds it; its legal moves, and each legal play, compared
    setup = case["setup"]
    rules = cf.case_rules(case, setup["players"])
    acting = 1
    prev = setup.get("previous_play")
    trailed = prev["rank"] if prev and prev["kind"] == "trail" and prev["same_deal"] else None
    scores = [0, 0]
    scores[acting & 1] = setup["team_score"]
    scores[(acting - 1) & 1] = setup.get("ronda_owner_team_score", 0)
    rondas = [None] * rules.players
    rondas[acting - 1] = setup.get("prev_player_ronda_rank")
    hands = cf.filler_hands(rules.players, acting, setup["played"], list(setup["table"]))
    state = make_position(rules, hands=hands, table=setup["table"], turn=acting, scores=scores, trailed=trailed,
                          rondas=rondas)
    every_legal_play(state)
    # and the position with the acting seat's last card, the others' hands empty: the play ends the hand
    hands = [[setup["played"]] if s == acting else [] for s in range(rules.players)]
    every_legal_play(make_position(rules, hands=hands, table=setup["table"], turn=acting, scores=scores,
                                   trailed=trailed, rondas=rondas, last_capturer=0))
    if case["expected"]["legal"]:
        choice = setup["choice"]
        action = choice_to_action(parse_rank(setup["played"]), choice["kind"], [parse_rank(r) for r in choice["base"]],
                                  rules)
        assert action in Lane(state).legal()


@pytest.mark.parametrize("case", cases("capture_options"), ids=lambda c: c["id"])
def test_rule_case_capture_options_agree(case):
    # conformance.run_capture_options's position: the acting seat's last card, so every play also ends the hand
    setup = case["setup"]
    state = make_position(cf.case_rules(case), hands=[[], [setup["played"]]], table=setup["table"], turn=1)
    every_legal_play(state)


@pytest.mark.parametrize("case", cases("deal_announcements"), ids=lambda c: c["id"])
def test_rule_case_deals_agree(case):
    setup = case["setup"]
    rules = cf.case_rules(case, setup["players"])
    state, dealer = cf.dealing_position(rules, setup["dealer"], [setup["hands"]],
                                         scores=cf.teams(setup["team_scores"]))
    lane = Lane(state, dealer)
    lane.deal()
    if not lane.state.is_over:
        lane.legal()


@pytest.mark.parametrize("case", cases("scenario"), ids=lambda c: c["id"])
def test_rule_case_scenarios_agree(case):
    setup = case["setup"]
    rules = cf.case_rules(case, setup["players"])
    state, dealer = cf.dealing_position(rules, setup["dealer"], setup["deals"], setup.get("table", ()),
                                         cf.teams(setup["team_scores"]))
    lane = Lane(state, dealer)
    lane.deal()
    played = 0
    for step_ in setup["steps"]:
        if lane.state.is_over:
            break
        choice = step_["choice"]
        try:
            action = choice_to_action(parse_rank(step_["played"]), choice["kind"],
                                      [parse_rank(r) for r in choice["base"]], rules)
        except IllegalMove:
            continue
        if action in lane.legal():
            lane.play(action)
            played += 1
    assert played


@pytest.mark.parametrize("case", [c for c in cases("structure") if c.get("setup")], ids=lambda c: c["id"])
def test_rule_case_structure_hands_agree(case):
    # conformance.run_structure: every card trailed through the first hand and into the second
    setup = case["setup"]
    rules = cf.case_rules(case, setup["players"])
    deck = [make_card(r, s) for s in range(4) for r in range(10)]
    dealer = Dealer(0, [deck, deck])
    lane = Lane(initial_state(rules, setup["dealer"]), dealer)
    lane.deal()
    while lane.state.hand_no == 0:
        lane.legal()
        lane.play(trail_action(rank_of(lane.state.hands[lane.state.turn][0])))
    assert lane.state.hand_no == 1 and not lane.state.needs_deal





@functools.cache
def random_play(i):
    """500 plies of random play under combination i, compared (kept: the test of the kinds of events reads it)."""
    name, players, options = COMBINATIONS[i]
    return differential(preset(name, players, **options), 500, seed=i)


@pytest.mark.parametrize("i", range(len(COMBINATIONS)),
                         ids=[f"{n}-{p}-{'-'.join(o) or 'plain'}" for n, p, o in COMBINATIONS])
def test_random_play_agrees(i):
    found = random_play(i)
    assert not found.mismatches, found.mismatches[0]
    assert found.positions == 500 and found.seen["HandEnded"] >= 3


def test_random_play_reaches_every_kind_of_event():
    # the combinations above together: a caída with its ronda bonus, a four of a kind, a doble ronda, games won
    # at a play, at a hand's end and at a deal, leftovers kept and leftovers taken by the last capturer
    seen = Counter()
    for i in range(len(COMBINATIONS)):
        seen.update(random_play(i).seen)
    for kind in ("Dealt", "Played", "Caida", "Limpia", "Ronda", "FourOfAKind", "HandEnded", "GameWon",
                 "caida_bonus", "leftover", "won_at_hand_end", "won_at_deal"):
        assert seen[kind], kind


def test_leftovers_go_to_the_last_capturer_and_doble_ronda_scores():
    rules = Rules(leftover_table_cards="last_capturer", four_of_a_kind="points")
    found = differential(rules, 500, seed=99, stacked_share=0.5)
    assert not found.mismatches, found.mismatches[0]
    assert found.seen["Ronda"] > 5


@pytest.mark.parametrize("scores", [(28, 0), (36, 10), (0, 37)])
def test_two_rondas_of_a_team_in_one_deal_read_the_score_before_it(scores):
    # 2 v 2: seats 0 and 2 (team 0) and seat 3 (team 1) are dealt rondas; each cut-off (30) and the win (40) read
    # the scores before the deal, however the first ronda moved them
    hands = {"1": ["A", "2", "3", "4", "6"], "2": ["5", "5", "5", "7", "J"], "3": ["Q", "Q", "Q", "2", "3"],
             "0": ["K", "K", "K", "4", "6"]}
    for rules in (preset("standard", 4), preset("agent_dory", 4)):
        state, dealer = cf.dealing_position(rules, 0, [hands], scores=scores)
        lane = Lane(state, dealer)
        lane.deal()
        assert sum(type(e).__name__ == "Ronda" for e in lane.last) == 3


def test_new_game_is_the_engines_initial_state():
    rules = preset("pagat", 4)
    deck = np.array(Dealer(3).deck(0), dtype=np.int32)
    row = np.zeros(len(to_row(initial_state(rules, 2), deck)), dtype=np.int32)
    new_game(row, rules_array(rules), 2, deck)
    assert (row == to_row(initial_state(rules, 2), deck)).all()


def test_a_new_hand_waits_for_its_deck():
    # the last play of a hand starts the next with its deck unknown: step does not deal it, deal refuses (-1)
    state = make_position(Rules(), hands=[["K"], []], table=["3"], turn=0)
    lane = Lane(state)
    count = step(lane.row, lane.rules, trail_action(9), lane.events, lane.cards, True)
    assert [type(e).__name__ for e in events_of(lane.events, count, lane.cards)] == ["Played", "HandEnded"]
    assert needs_deal(lane.row, lane.rules) and deal(lane.row, lane.rules, lane.events, lane.cards) == -1


def test_random_games_finish():
    seeds = [7, 8, 9]
    dealers, decks = game_decks(seeds, 2, 30)
    plays, finished, stopped = random_games(rules_array(Rules()), dealers, decks, 1)
    assert finished == 3 and stopped == 0 and 3 * 20 < plays < 3 * 2000
    _, finished, stopped = random_games(rules_array(Rules()), dealers, decks[:, :1], 1)
    assert finished + stopped == 3 and stopped >= 1


def test_no_legal_moves_once_the_game_is_won():
    state = make_position(Rules(), hands=[["5", "7"], ["2", "K"]], table=["5"], turn=0, scores=(38, 0), trailed="5")
    lane = Lane(state)
    lane.apply(14)  # the caída wins the game with a card still in hand
    assert lane.state.is_over
    lane.legal()


def test_bench_engine_times_both_cores_on_the_same_games(monkeypatch):
    from cuarenta_tutor.bench import bench_engine

    result = bench_engine(3, 5)
    assert result["core"] == "fast" and result["games"] == 3 and result["games_stopped"] == 0
    for key in ("plays_per_second", "python_plays_per_second", "speedup"):
        assert result[key] > 0, key
    assert result["cold_first_call_s"] >= 0  # 0.0 once an earlier test has made the first call
    monkeypatch.setenv("CUARENTA_TUTOR_CORE", "python")
    result = bench_engine(3, 5)
    assert result["core"] == "python" and result["plays_per_second"] == result["python_plays_per_second"]
    assert "speedup" not in result


def test_bench_core_counts_positions_and_exits_1_on_a_mismatch(monkeypatch, capsys):
    import cuarenta_tutor.bench as bench
    from cuarenta_tutor.cli import bench as cli_bench

    result = bench.bench_core(50, 3)
    assert result["mismatches"] == 0 and result["positions"] == 50 * len(COMBINATIONS)
    row = {"rules": "standard", "players": 2, "positions": 5, "games": 1, "mismatches": 1, "seconds": 0.0,
           "first_mismatch": "game 0 ply 3: state: ..."}
    monkeypatch.setattr(bench, "bench_core", lambda positions, seed, on_row=None: {
        "positions": 5, "mismatches": 1, "seconds": 0.0, "combinations": [row]})

    class Args:
        positions, seed, json = 5, 0, False

    assert cli_bench.bench_core(Args) == 1
    assert "first mismatch: game 0 ply 3" in capsys.readouterr().out
