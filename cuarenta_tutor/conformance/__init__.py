"""Provides the conformance runner: rule cases in the format of RULES.md §15, run through the engine.

    python -m cuarenta_tutor.conformance FILE...

Prints `PASS id` or `FAIL id: why` per case and a last line `N passed, M failed`; exits 1 on any
failure, 2 when a file cannot be read. A case it cannot interpret is a failure, never a skip. The
runner only translates the case format into engine calls: the rules live in the engine.
"""


from __future__ import annotations

import json
import sys

from ..engine import IllegalMove
from .positions import CaseError
from .runners import RUNNERS

__all__ = ["CaseError", "RUNNERS", "main", "run_case", "run_files"]


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
