"""Layer boundaries (ARCHITECTURE.md): each layer imported in a fresh interpreter pulls in nothing above it."""

import subprocess
import sys

import pytest

FORBIDDEN = {
    "cuarenta_tutor.engine": {"numpy", "onnxruntime", "torch", "textual"},
    "cuarenta_tutor.conformance": {"numpy", "onnxruntime", "torch", "textual"},
    "cuarenta_tutor.encoding": {"onnxruntime", "torch", "textual"},
    "cuarenta_tutor.agents": {"torch", "textual"},
    "cuarenta_tutor.table": {"numpy", "onnxruntime", "torch", "textual"},
    "cuarenta_tutor.narrator": {"numpy", "onnxruntime", "torch", "textual"},
    "cuarenta_tutor.app.session": {"torch", "textual"},
    "cuarenta_tutor.players": {"torch", "textual"},
    "cuarenta_tutor.arena": {"torch", "textual"},
    "cuarenta_tutor.coach": {"torch", "textual"},
    "cuarenta_tutor.records": {"numpy", "torch", "textual", "onnxruntime"},
    "cuarenta_tutor.lessons": {"torch", "textual"},
    "cuarenta_tutor.cli": {"numpy", "onnxruntime", "torch", "textual", "textual_serve", "aiohttp"},
    "cuarenta_tutor.tui": {"torch"},
}
EXTRAS = {"pyspiel", "open_spiel", "pettingzoo", "gymnasium", "ray"}
"""The interop extras: the app and every layer below it never import them (only cuarenta_tutor.interop does)."""
for forbidden in FORBIDDEN.values():
    forbidden |= EXTRAS


@pytest.mark.parametrize("module", list(FORBIDDEN))
def test_layer_imports_nothing_above_it(module):
    code = f"import sys, {module}; print(' '.join(sorted(m.split('.')[0] for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(out.stdout.split())
    assert not (loaded & FORBIDDEN[module]), f"{module} imports {loaded & FORBIDDEN[module]}"
