"""The public rule cases (RULES.md §15) through the conformance runner, and the runner's own behaviour."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cuarenta_tutor.conformance import run_case, run_files

CASES_FILE = Path(__file__).parent / "rules" / "cases_public.json"
CASES = json.loads(CASES_FILE.read_text(encoding="utf-8"))
AUDIT_FILE = Path(__file__).parent / "rules" / "rules_cases_audit.json"
AUDIT = json.loads(AUDIT_FILE.read_text(encoding="utf-8"))
"""Cases written by an audit of the engine against RULES.md (tests/test_rules_audit.py has its unit tests)."""


@pytest.mark.parametrize("case", CASES + AUDIT, ids=[c["id"] for c in CASES + AUDIT])
def test_rule_case_passes(case):
    assert run_case(case) is None


def test_every_case_kind_of_the_spec_is_covered():
    kinds = {c["kind"] for c in CASES}
    assert kinds == {"structure", "capture_options", "play", "deal_announcements", "carton", "carton_table",
                     "end_of_hand", "scenario"}


def first(kind):
    return copy.deepcopy(next(c for c in CASES if c["kind"] == kind))


@pytest.mark.parametrize("kind", ["structure", "capture_options", "play", "deal_announcements", "carton",
                                  "carton_table", "end_of_hand", "scenario"])
def test_a_wrong_expectation_fails(kind):
    case = next(c for c in CASES if c["kind"] == kind and c["expected"] and c["setup"] is not None
                and (kind != "structure" or c["setup"]))
    case = copy.deepcopy(case)
    expected = case["expected"]
    if kind == "structure":
        expected["first_player"] = 1 - expected["first_player"] if case["setup"]["players"] == 2 else 9
    elif kind == "capture_options":
        expected["trail_allowed"] = not expected["trail_allowed"]
    elif kind == "play":
        expected["legal"] = not expected["legal"]
    elif kind == "carton_table":
        expected["points_by_count"]["20"] += 2
    elif kind == "scenario":
        expected["final"]["team_scores"]["0"] += 2
    else:
        expected["team_scores_after"]["0"] += 2
    assert run_case(case) is not None


def test_unknown_kind_and_malformed_cases_fail():
    assert "unknown case kind" in run_case({"id": "X", "kind": "nonsense"})
    assert "malformed" in run_case({"id": "Y", "kind": "play", "setup": {}, "expected": {}})
    assert run_case(["not", "an", "object"]) is not None
    case = first("capture_options")
    case["setup"]["played"] = "9"
    assert "malformed" in run_case(case)


def test_runner_command_prints_pass_lines_and_summary(tmp_path):
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.conformance", str(CASES_FILE)],
                         capture_output=True, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0, out.stdout[-2000:]
    assert lines[-1] == f"{len(CASES)} passed, 0 failed"
    assert sum(line.startswith("PASS ") for line in lines) == len(CASES)

    broken = tmp_path / "broken.json"
    bad = first("carton")
    bad["expected"]["carton_points"]["1"] = 99
    broken.write_text(json.dumps([bad, {"id": "Z", "kind": "mystery"}]))
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.conformance", str(broken)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1
    assert out.stdout.strip().splitlines()[-1] == "0 passed, 2 failed"
    assert "FAIL Z: unknown case kind" in out.stdout

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{ not json")
    out = subprocess.run([sys.executable, "-m", "cuarenta_tutor.conformance", str(garbage)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 2 and "cannot read" in out.stderr


def test_run_files_counts(tmp_path, capsys):
    passed, failed = run_files([CASES_FILE])
    assert (passed, failed) == (len(CASES), 0)


def test_audit_cases_cover_the_rules_nothing_else_names():
    assert {"R-ANN-2", "R-ANN-3", "R-ANN-8", "R-BONUS-2", "R-CARTON-4", "R-END-1", "R-SEAT-3",
            "R-WIN-3", "R-WIN-2"} <= {c["rule"] for c in AUDIT}


# The runner: a config may name a §11 preset; the fixed options keep their one value.
def test_runner_reads_a_preset_and_refuses_changed_constants():
    case = {"id": "P", "kind": "deal_announcements", "config": {"preset": "pagat"},
            "setup": {"players": 2, "dealer": 0, "team_scores": {"0": 0, "1": 0},
                      "hands": {"1": ["5", "5", "5", "2", "K"], "0": ["A", "3", "4", "6", "7"]}},
            "expected": {"awards": [{"seat": 1, "team": 1, "type": "ronda", "points": 4}],
                         "team_scores_after": {"0": 0, "1": 4}, "game_over": False, "winner": None}}
    assert run_case(case) is None  # pagat: a ronda is worth 4
    case["config"] = {"preset": "standard"}
    assert run_case(case) is not None
    case["config"] = {"preset": "pagat", "target_score": 30}
    assert "fixed at 40" in run_case(case)


# The runner reads what §15 allows beyond the public file's habits, and never passes a field it cannot check.
def test_the_spec_tables_names_and_a_missing_players_are_read():
    case = next(c for c in map(copy.deepcopy, CASES) if c["kind"] == "structure" and c["setup"])
    expected = case["expected"]
    case["expected"] = {"play_order": expected["play_order_one_deal"], "next_dealer": expected["next_hand_dealer"],
                        "deck_size": 40}  # §15's table's names, and a deck fact beside a seating
    assert run_case(case) is None
    case["expected"]["next_dealer"] += 1
    assert "next_dealer" in run_case(case)
    announcements = copy.deepcopy(next(c for c in CASES if c["kind"] == "deal_announcements"
                                       and c["setup"]["players"] == 2 and not c.get("config")))
    del announcements["setup"]["players"], announcements["expected"]["winner"]  # 2 players by default
    assert run_case(announcements) is None


@pytest.mark.parametrize("kind", ["play", "deal_announcements", "carton", "end_of_hand", "scenario", "structure"])
def test_an_unknown_or_empty_expectation_fails(kind):
    case = copy.deepcopy(next(c for c in CASES if c["kind"] == kind and c["setup"]))
    case["expected"]["tie_breaker"] = 1
    assert "tie_breaker" in run_case(case)
    if kind != "scenario":
        case["expected"] = {}
        assert run_case(case) is not None


def test_a_refused_plays_reason_and_a_scenario_steps_capture_are_checked():
    play = copy.deepcopy(next(c for c in CASES if c["kind"] == "play" and not c["expected"]["legal"]))
    scenario = copy.deepcopy(next(c for c in CASES if c["kind"] == "scenario"
                                  and any(s.get("caida") is not None for s in c["expected"]["steps"])))
    play["expected"]["reason"] = "no_such_reason"
    assert "reason" in run_case(play)
    step = next(i for i, s in enumerate(scenario["setup"]["steps"]) if s["choice"]["kind"] != "trail")
    scenario["expected"]["steps"][step]["captured"] = ["K", "K", "K", "K"]
    assert "captured" in run_case(scenario)
