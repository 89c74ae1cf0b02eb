"""Strategy answers checked by the tutor's own analysis (lessons.analysis_doubts), in 1 v 1 and 2 v 2: the shipped
answers hold, and a losing move put in as the answer is caught, with the move the analysis plays.
`python -m cuarenta_tutor.lessons --analysis` checks every strategy position (3 s with the playout policy)."""

from dataclasses import replace

import pytest

from cuarenta_tutor.agents.onnx_policy import OnnxPolicy
from cuarenta_tutor.analysis.analyse import analyse
from cuarenta_tutor.analysis.calibrate import settings_for
from cuarenta_tutor.engine import legal_actions
from cuarenta_tutor.lessons import load_lessons
from cuarenta_tutor.lessons.feedback import doubts
from cuarenta_tutor.narrator import move_name

POSITIONS = {p.id: p for lesson in load_lessons() for p in lesson.positions}


@pytest.mark.parametrize("position_id, players", [("take-the-limpia", 2), ("the-fourth-q", 4)])
def test_the_analysis_finds_the_shipped_answer_best_and_a_losing_one_wrong(position_id, players):
    position = POSITIONS[position_id]
    assert position.state.rules.players == players and position.decided_by == "search"
    result = analyse(position.state, OnnxPolicy(), replace(settings_for(rules=position.state.rules), budget_s=0))
    found = {a: doubts(replace(position, answer=a), result) for a in legal_actions(position.state)}
    caught = [a for a, doubt in found.items() if doubt]
    assert caught and position.answer not in caught, "no other move is wrong by the analysis here"
    best = move_name(position.state, result.best.action)
    assert all(f"plays {best};" in found[a] and "win-% points" in found[a] for a in caught)


def test_the_check_command_runs_the_analysis_on_a_2v2_lesson(capsys):
    from cuarenta_tutor.lessons.__main__ import main
    from cuarenta_tutor.resources import data_dir

    assert main([str(data_dir("lessons") / "strategy" / "08-partner-ronda.toml"), "--analysis"]) == 0
    assert capsys.readouterr().out.startswith("1 lesson, ")
