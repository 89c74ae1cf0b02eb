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


def test_every_local_link_and_file_the_readme_names_exists():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#:]+)\)", text)
    assert "docs/RULES.md" in links
    for link in links:
        assert (ROOT / link).exists(), link
    for mentioned in re.findall(r"`((?:models|docs|tests|artifacts)/[\w./-]+\.\w+)`", text):
        assert (ROOT / mentioned).exists(), mentioned


def test_the_rules_document_has_the_rule_case_format_and_every_preset():
    from cuarenta_tutor.engine import PRESETS

    rules = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    assert "## 15." in rules and all(f"`{name}`" in rules for name in PRESETS)


def test_the_measured_section_is_one_short_table():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Measured\n(.+?)(?=^## |\Z)", text, re.S | re.M).group(1).strip()
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the header and its rule
    assert 0 < len(rows) <= 20 and len(section.splitlines()) <= 40 and len(section) <= 8000
    assert "docs/MEASURED.md" in section  # the history is there
