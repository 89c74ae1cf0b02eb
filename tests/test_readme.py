"""README.md stays true: its test command is the one CI runs."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_command(section):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(rf"## {section}\s+```bash\n(.+?)\n```", text, re.S)
    assert block, f"README has no ```bash block under '## {section}'"
    return block.group(1).strip()


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_command("Test") in ci.splitlines()


def test_readme_play_command_starts_the_console_script():
    assert readme_command("Play").endswith("cuarenta-tutor")
