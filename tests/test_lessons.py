"""The lessons: every shipped lesson is valid and search agrees with its strategy answers; bad files
are reported with file, line and problem; feedback; progress."""

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import HANG

from cuarenta_tutor import lessons as L
from cuarenta_tutor.engine import RANKS, apply, card_str, legal_actions
from cuarenta_tutor.lessons.__main__ import main as check_lessons
from cuarenta_tutor.narrator import move_name
from cuarenta_tutor.resources import data_dir

LESSONS = L.load_lessons()
POSITIONS = [(lesson, p) for lesson in LESSONS for p in lesson.positions]
RULES_TOPICS = ["deck", "matching", "sums", "escalera", "caída", "limpia", "ronda", "cartón", "30 and 38", "first"]
STRATEGY_TOPICS = ["empty table", "counting", "safe trails", "sums and escaleras", "cartón", "endgame",
                   "leave for your partner", "partner's ronda"]


def by_id(lesson_id):
    return next(lesson for lesson in LESSONS if lesson.id == lesson_id)


def test_shipped_lessons_cover_both_tracks_in_order():
    assert len(LESSONS) >= 12
    rules = [s for s in LESSONS if s.track == "rules"]
    strategy = [s for s in LESSONS if s.track == "strategy"]
    assert LESSONS == rules + strategy  # rules track first
    assert [s.order for s in rules] == sorted(s.order for s in rules)
    assert len(rules) == len(RULES_TOPICS)
    for lesson, topic in zip(rules, RULES_TOPICS, strict=True):  # the rules track in teaching order
        assert topic in lesson.title.lower(), (lesson.title, topic)
    for topic in STRATEGY_TOPICS:
        assert any(topic in s.title.lower() for s in strategy), topic
    assert L.last_rules_lesson(LESSONS) is rules[-1]
    assert len({s.id for s in LESSONS}) == len(LESSONS)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda s: s.id)
def test_lesson_is_short_with_two_to_four_positions(lesson):
    assert 2 <= len(lesson.positions) <= 4
    wrapped = [line for para in lesson.text.strip().splitlines() for line in textwrap.wrap(para, 78) or [""]]
    assert len(wrapped) <= 44, "a lesson's text fits on an 80x24 screen in a scroll or two"
    assert lesson.path.name.startswith(f"{lesson.order:02d}-") and lesson.path.parent.name == lesson.track


@pytest.mark.parametrize(("lesson", "position"), POSITIONS, ids=lambda x: getattr(x, "id", ""))
def test_position_is_legal_and_answer_and_feedback_are_legal_moves(lesson, position):
    state = position.state
    legal = legal_actions(state)
    assert state.turn == 0 and not state.is_over and legal
    assert sum(map(len, state.hands)) + len(state.table) + sum(map(len, state.piles)) + len(state.stock) == 40
    assert position.answer in legal
    assert set(position.feedback) <= set(legal)
    assert position.decided_by in ("rules", "search")
    if position.decided_by == "rules":
        assert position.reason.strip()
    if lesson.track == "rules":
        assert position.decided_by == "rules"
    assert position.line > 0 and f'"{position.id}"' in lesson.path.read_text().splitlines()[position.line - 1]


SEARCHED = [(lesson, p) for lesson, p in POSITIONS if p.decided_by == "search"]
IN_TURN = [(lesson, p, L.SEARCH_SEEDS[i % len(L.SEARCH_SEEDS)]) for i, (lesson, p) in enumerate(SEARCHED)]
"""Each searched position with one of the search's seeds, in turn, so that every seed is checked on a third of the
positions (a seed's search takes seconds; `python -m cuarenta_tutor.lessons --search` checks every seed on each)."""


@pytest.mark.parametrize(("lesson", "position", "seed"), IN_TURN, ids=lambda x: getattr(x, "id", f"seed-{x}"))
def test_strategy_answer_is_what_search_plays(lesson, position, seed):
    del lesson
    chosen = L.search_choices(position, seeds=[seed], samples=L.SEARCH_SAMPLES)
    assert chosen == [position.answer], move_name(position.state, chosen[0])


def test_strategy_track_is_mostly_decided_by_search():
    strategy = [p for lesson, p in POSITIONS if lesson.track == "strategy"]
    assert len(SEARCHED) >= len(strategy) - 2


# Bad files: every error names the file, the line and the problem.

GOOD = """\
id = "rules-05-caida"
track = "rules"
order = 5
title = "Caída"
text = "Matching the card just trailed scores 2."

[[positions]]
id = "caida-1"
prompt = "Your opponent just trailed a 5. What do you play?"
hand = ["5h", "2", "K"]
opponent = ["A", "4", "Q"]
table = ["3", "5d"]
trailed = "5"
stock = 20
answer = "5 takes 5"
why = "Matching the card just trailed is a caída: 2 points."

[positions.feedback]
"5 trails" = "Trailing it gives the caída away."
"""


def write(folder: Path, text: str, name="05-caida.toml") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def test_a_good_file_loads(tmp_path):
    lesson = L.load_lesson(write(tmp_path, GOOD))
    (position,) = lesson.positions
    assert (lesson.id, lesson.track, lesson.order, lesson.title) == ("rules-05-caida", "rules", 5, "Caída")
    assert position.answer_name == "5 takes 5" and position.line == 8
    assert list(position.moves()) == ["2 trails", "5 trails", "K trails", "5 takes 5"]
    assert L.feedback(position, position.moves()["5 trails"]) == (False, "Trailing it gives the caída away.")
    as_table = GOOD.replace('answer = "5 takes 5"', 'answer = { played = "5", kind = "match", base = ["5"] }')
    assert L.load_lesson(write(tmp_path, as_table)).positions[0].answer == position.answer
    state = position.state  # the cards the file does not place: 20 in the stock, the rest captured earlier
    assert (len(state.stock), state.deal_no, state.dealer, state.trailed) == (20, 1, 1, 4)
    assert (len(state.piles[0]), len(state.piles[1])) == (6, 6)


def test_pile_sizes_set_the_piles():
    state = by_id("rules-08-carton").positions[0].state
    assert (len(state.piles[0]), len(state.piles[1]), len(state.stock)) == (17, 16, 0)


BAD = [
    ("syntax", GOOD.replace('title = "Caída"', "title = Caída"), 'title = Caída', "TOML syntax error"),
    ("track", GOOD.replace('"rules"', '"tactics"'), 'track = ', "unknown track 'tactics'"),
    ("card twice", GOOD.replace('table = ["3", "5d"]', 'table = ["3", "5h"]'), "table = ", "appears twice"),
    ("too many", GOOD.replace('"A", "4", "Q"', '"5", "5", "5"'), "opponent = ", "more than four cards of rank 5"),
    ("illegal answer", GOOD.replace('answer = "5 takes 5"', 'answer = "5 takes 4"'), "answer = ",
     "position 'caida-1': the answer '5 takes 4' is not a legal move here (legal: 2 trails, 5 trails, K trails, "
     "5 takes 5)"),
    ("feedback key", GOOD.replace('"5 trails" =', '"K takes K" ='), '"K takes K"',
     "the feedback key 'K takes K' is not a legal move here"),
    ("missing why", GOOD.replace('why = "Matching', 'whyy = "Matching'), "whyy", "unknown field 'whyy'"),
    ("no rank on table", GOOD.replace('trailed = "5"', 'trailed = "Q"'), "trailed = ", "no Q is on the table"),
    ("hand sizes", GOOD.replace('"A", "4", "Q"', '"A"'), "opponent = ", "one fewer"),
    ("strategy without decider", GOOD.replace('track = "rules"', 'track = "strategy"'), 'id = "caida-1"',
     "'decided_by' must be"),
]


@pytest.mark.parametrize(("text", "needle", "problem"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_file_names_file_line_and_problem(tmp_path, text, needle, problem):
    path = write(tmp_path, text)
    with pytest.raises(L.LessonError) as caught:
        L.load_lesson(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, line {line_of(text, needle)}: "), message
    assert problem in message
    assert caught.value.line == line_of(text, needle)


def test_wrong_folder_and_duplicate_ids_are_reported(tmp_path):
    (tmp_path / "strategy").mkdir()
    path = write(tmp_path / "strategy", GOOD)
    with pytest.raises(L.LessonError, match=r"line 2: track 'rules', but the file is in the 'strategy' folder"):
        L.load_lesson(path)
    path.unlink()
    (tmp_path / "rules").mkdir()
    write(tmp_path / "rules", GOOD)
    write(tmp_path / "rules", GOOD, "06-again.toml")
    with pytest.raises(L.LessonError, match=r"06-again.toml, line 1: lesson id 'rules-05-caida' is used by .*05-caida"):
        L.load_lessons(tmp_path)


def test_readme_example_is_a_valid_lesson(tmp_path):
    readme = (data_dir("lessons") / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", readme, re.S).group(1)
    lesson = L.load_lesson(write(tmp_path, example))
    assert lesson.positions[0].answer_name == "5 takes 5"


# Feedback

def test_feedback_on_the_answer_is_why():
    position = by_id("rules-05-caida").positions[0]
    assert L.feedback(position, position.answer) == (True, position.why)


def test_generated_feedback_says_what_a_wrong_move_does_and_gives_away():
    position = by_id("rules-05-caida").positions[0]  # your opponent trailed a 5; you hold 5 2 K
    right, text = L.feedback(position, position.moves()["K trails"])
    assert not right
    assert text.startswith("K trails: it captures nothing.")
    assert 'Your opponent could answer "K takes K" with any K' in text and "a caída (+2)" in text
    assert "Another move scores 2 points now." in text
    position = by_id("rules-06-limpia").positions[2]  # the 5 taking 2+3 instead of a caída y limpia
    right, text = L.feedback(position, position.moves()["5 takes 2+3"])
    assert not right and "it takes" in text and "scores nothing" in text and "Another move scores 4 points" in text
    assert "a limpia (+2)" in text  # the lone 4 left behind


def test_file_feedback_wins_over_generated():
    position = by_id("strategy-04-no-openings").positions[0]
    right, text = L.feedback(position, position.moves()["5 trails"])
    assert not right and text == position.feedback[position.moves()["5 trails"]]


# Progress

def test_progress_round_trip(user_data):
    lesson = by_id("rules-05-caida")
    progress = L.load_progress()
    assert progress.solved == {} and progress.problem is None
    assert progress.fraction(lesson) == 0 and not progress.done(lesson)
    for position in lesson.positions[:2]:
        progress.mark(lesson.id, position.id)
    progress.mark(lesson.id, lesson.positions[0].id)  # twice counts once
    path = L.save_progress(progress)
    assert path == user_data / "lessons.json"
    assert json.loads(path.read_text())["solved"] == {lesson.id: sorted(p.id for p in lesson.positions[:2])}
    again = L.load_progress()
    assert again.fraction(lesson) == pytest.approx(2 / len(lesson.positions))
    for position in lesson.positions:
        again.mark(lesson.id, position.id)
    L.save_progress(again)
    assert L.load_progress().done(lesson)
    assert not list(user_data.glob(".lessons.*"))  # no temp file left behind


@pytest.mark.parametrize("content", ["{not json", '{"schema_version": 1, "solved": []}', "[]", '"x"',
                                     '{"schema_version": 2, "solved": {}}'])
def test_damaged_progress_is_reported_and_treated_as_empty(user_data, content):
    user_data.mkdir(parents=True, exist_ok=True)
    (user_data / "lessons.json").write_text(content)
    progress = L.load_progress()
    assert progress.solved == {} and "damaged" in progress.problem and "lessons.json" in progress.problem
    progress.mark("rules-01-deck-and-deal", "figures")
    L.save_progress(progress)
    assert L.load_progress().is_solved("rules-01-deck-and-deal", "figures")


# 2 v 2 positions: players = 4, the other three hands, per-side scores and piles, the deal from the hand sizes.

GOOD4 = """\
id = "rules-11-two-v-two"
track = "rules"
order = 11
title = "2 v 2"
players = 4
text = "Partners share a score and a pile."

[[positions]]
id = "catch-theirs"
prompt = "Your previous opponent just trailed a 5. What do you play?"
hand = ["5h", "2", "K"]
next_opponent = ["A", "4", "Q"]
partner = ["3", "6", "J"]
previous_opponent = ["7", "J"]
table = ["3", "5d"]
trailed = "5"
scores = [10, 12]
stock = 20
answer = "5 takes 5"
why = "Matching the card the previous opponent just trailed is a caída: 2 points for your side."
"""


def test_a_good_two_v_two_file_loads(tmp_path):
    lesson = L.load_lesson(write(tmp_path, GOOD4))
    (position,) = lesson.positions
    state = position.state
    assert lesson.players == 4 and state.rules.players == 4 and state.turn == 0
    assert [len(h) for h in state.hands] == [3, 3, 3, 2]
    assert (state.dealer, state.deal_no, len(state.stock), state.trailed) == (2, 0, 20, 4)  # the previous one led
    assert [card_str(c, ascii_only=True) for c in state.played[3]] == ["5d"]  # the trailed card is seat 3's play
    assert state.scores == (10, 12) and len(state.piles[0]) + len(state.piles[1]) == 7
    assert position.answer_name == "5 takes 5" and position.line == 9
    assert apply(state, position.answer)[0].scores == (12, 12)  # the caída scores for your side
    right, text = L.feedback(position, position.moves()["K trails"])
    assert not right and 'Your next opponent could answer "K takes K"' in text
    assert L.seat_lines(state) == ["Score: your side (you and your partner) 10, the other side 12",
                                   "Cards in hand: next opponent 3, partner 3, previous opponent 2"]
    assert L.seat_lines(by_id("rules-05-caida").positions[0].state) == ["Score: you 0, opponent 0"]
    ronda = GOOD4.replace('partner = ["3", "6", "J"]', 'partner = ["6", "6", "6"]\npartner_ronda = "6"')
    state = L.load_lesson(write(tmp_path, ronda)).positions[0].state
    assert state.rondas == (-1, -1, RANKS.index("6"), -1)
    assert "Ronda announced this deal by: your partner" in L.seat_lines(state)


@pytest.mark.parametrize(("sizes", "dealer"), [((3, 3, 3), 3), ((3, 3, 2), 2), ((3, 2, 2), 1), ((2, 2, 2), 0)])
def test_two_v_two_hand_sizes_give_the_dealer(tmp_path, sizes, dealer):
    cards = {"next_opponent": ["A", "4", "Q"], "partner": ["3", "6", "J"], "previous_opponent": ["7", "J", "A"]}
    text = GOOD4.replace('trailed = "5"\n', "")
    for (key, hand), size in zip(cards.items(), sizes, strict=True):
        text = re.sub(rf"^{key} = .*$", f"{key} = {json.dumps(hand[:size])}", text, flags=re.M)
    state = L.load_lesson(write(tmp_path, text)).positions[0].state
    assert state.dealer == dealer and [len(h) for h in state.hands] == [3, *sizes]


FULL_HANDS = """hand = ["5h", "2", "K", "7", "7"]
next_opponent = ["A", "4", "Q", "2", "2"]
partner = ["3", "6", "J", "A", "A"]
previous_opponent = ["7", "J", "4", "4", "Q"]"""
BAD4 = [
    ("hand sizes", GOOD4.replace('next_opponent = ["A", "4", "Q"]', 'next_opponent = ["A", "4"]'), "next_opponent = ",
     "position 'catch-theirs': your next opponent holds 2 cards, which fits no deal: with your 3, your next opponent, "
     "partner and previous opponent hold 3/3/3 (you lead this deal), 3/3/2 (your previous opponent led), 3/2/2 (your "
     "partner led) or 2/2/2 (your next opponent led: you dealt), not 2/3/2"),
    ("too many for the partner", GOOD4.replace('partner = ["3", "6", "J"]', 'partner = ["3", "6", "J", "2"]'),
     "partner = ", "your partner holds 4 cards, which fits no deal"),
    ("partner in 1 v 1", GOOD.replace('opponent = ["A", "4", "Q"]', 'opponent = ["A", "4", "Q"]\npartner = ["J"]'),
     "partner = ", "'partner' is a field of 2 v 2 positions: set players = 4 at the top of the file"),
    ("opponent in 2 v 2", GOOD4.replace("stock = 20", 'stock = 20\nopponent = ["K"]'), 'opponent = ["K"]',
     "a 2 v 2 position has no 'opponent': the other hands are next_opponent (seat 1"),
    ("missing partner", GOOD4.replace('partner = ["3", "6", "J"]\n', ""), 'id = "catch-theirs"',
     "the field 'partner' is missing (your partner's hand, hidden from the player)"),
    ("players", GOOD4.replace("players = 4", "players = 3"), "players = ", "'players' must be 2 (1 v 1) or 4"),
    ("stock", GOOD4.replace("stock = 20", "stock = 10"), "stock = ",
     "'stock' must be 20 (the first deal of the hand) or 0 (the second and last), not 10"),
    ("trailed before playing", re.sub(r'hand = .*\n.*\n.*\n.*\n', FULL_HANDS + "\n", GOOD4).replace(
        "stock = 20", "stock = 0"), "trailed = ",
     "trailed is set, but your previous opponent (who plays just before you) has not played in this deal"),
    ("three of a kind unannounced", GOOD4.replace('partner = ["3", "6", "J"]', 'partner = ["6", "6", "6"]'),
     "partner = ", "your partner holds three 6s, dealt in this deal: that is a ronda; set partner_ronda = \"6\""),
    ("ronda not in hand", GOOD4.replace("stock = 20", 'stock = 20\npartner_ronda = "K"'), "partner_ronda = ",
     "partner_ronda = \"K\", but your partner holds no Ks"),
]


@pytest.mark.parametrize(("text", "needle", "problem"), [b[1:] for b in BAD4], ids=[b[0] for b in BAD4])
def test_bad_two_v_two_file_names_file_line_and_problem(tmp_path, text, needle, problem):
    path = write(tmp_path, text)
    with pytest.raises(L.LessonError) as caught:
        L.load_lesson(path)
    message = str(caught.value)
    assert message.startswith(f"{path}, line {line_of(text, needle)}: "), message
    assert problem in message, message


def test_two_v_two_lessons_ship():
    leave, ronda = by_id("strategy-07-partner-leave"), by_id("strategy-08-partner-ronda")
    assert leave.players == ronda.players == 4 and (leave.order, ronda.order) == (7, 8)
    for position in leave.positions + ronda.positions:
        assert position.state.rules.players == 4 and len(position.state.hands) == 4
    fourth_q = ronda.positions[0].state
    assert fourth_q.rondas[2] == RANKS.index("Q") and fourth_q.stock == ()  # the partner's ronda, last deal
    caida = next(p for p in ronda.positions if p.decided_by == "rules")
    after = apply(caida.state, caida.answer)[0]
    assert after.winner == 0 and after.scores[0] == 40  # 28 + caída 2 + ronda bonus 10


def test_check_command(tmp_path, capsys):
    assert check_lessons([]) == 0
    assert capsys.readouterr().out.startswith(f"{len(LESSONS)} lessons, {len(POSITIONS)} positions: ok")
    bad = write(tmp_path, GOOD.replace('answer = "5 takes 5"', 'answer = "Q takes Q"'))
    assert check_lessons([str(bad)]) == 1
    assert "the answer 'Q takes Q' is not a legal move" in capsys.readouterr().err


def test_check_command_runs_as_a_module(tmp_path):
    done = subprocess.run([sys.executable, "-m", "cuarenta_tutor.lessons"], capture_output=True, text=True,
                          timeout=HANG)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{len(LESSONS)} lessons, {len(POSITIONS)} positions: ok")
    bad = write(tmp_path, GOOD.replace('answer = "5 takes 5"', 'answer = "Q takes Q"'))
    done = subprocess.run([sys.executable, "-m", "cuarenta_tutor.lessons", str(bad)], capture_output=True, text=True,
                          timeout=HANG)
    assert done.returncode == 1 and "the answer 'Q takes Q' is not a legal move" in done.stderr
