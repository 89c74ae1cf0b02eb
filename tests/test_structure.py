"""The shape of the package (issue 11): no import cycle, no reaching into another module's private names or
Textual's, one match loop, one narrator, rules numbers only in the engine, and a README layout that matches."""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cuarenta_tutor"
SOURCES = sorted(PACKAGE.rglob("*.py"))
TESTS = sorted((ROOT / "tests").glob("*.py"))


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in SOURCES}


def imports_of(name: str, path: Path) -> set[str]:
    """The package's modules that a module imports (anywhere in the file: lazy imports count)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.add(full if full in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in MODULES and m != name and not name.startswith(m + ".")}


def test_the_import_graph_has_no_cycle():
    graph = {name: imports_of(name, path) for name, path in MODULES.items()}
    assert graph["cuarenta_tutor.agents.search"] >= {"cuarenta_tutor.table"}  # the graph sees real edges
    state = dict.fromkeys(graph, 0)  # 0 new, 1 on the path, 2 done

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph[node]):
            assert state[nxt] != 1, "import cycle: " + " -> ".join(path + [node, nxt])
            if state[nxt] == 0:
                visit(nxt, path + [node])
        state[node] = 2

    for node in graph:
        if state[node] == 0:
            visit(node, [])


def test_no_module_imports_another_modules_private_name():
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                found += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")
                          and not (a.name == "_" and (node.module or "").endswith("i18n"))]  # gettext's `_`
    assert not found


PRIVATE_NAMES = ("bindings", "notifications", "compose", "nodes", "handle" + "_exception")
"""Textual internals code or tests have reached for (written apart, so this file does not match itself)."""
PRIVATE_TEXTUAL = re.compile(r"\._(" + "|".join(PRIVATE_NAMES) + r")\b")


def test_no_private_textual_names_in_code_or_tests():
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in SOURCES + TESTS
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if PRIVATE_TEXTUAL.search(line)]
    assert not hits


def test_no_test_skips_when_the_shipped_model_is_missing():
    hits = [p.name for p in TESTS if p.name != "test_structure.py"
            and re.search(r"skipif\([^)]*model", p.read_text(encoding="utf-8"))]
    assert not hits


def test_rules_numbers_are_written_only_in_the_engine():
    """No score comparison with 30, 38 or 40 (or a division by 40) outside engine/: they come from Rules."""
    hits = []
    for path in SOURCES:
        if "engine" in path.relative_to(PACKAGE).parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            numbers = []
            if isinstance(node, ast.Compare):
                numbers = [c for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)]
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and isinstance(node.right, ast.Constant):
                numbers = [node.right]
            hits += [f"{path.relative_to(ROOT)}:{node.lineno}" for c in numbers if c.value in (30, 38, 40)]
    assert not hits


def test_one_file_holds_the_match_loop():
    """observe -> decide -> apply is written once: only the table both feeds observers and asks for decisions."""
    loops = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        calls = {node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and isinstance(node.func, ast.Attribute)}
        calls |= {node.func.id for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
        if {"observe", "decide"} <= calls and calls & {"apply", "play"}:  # a wrapper policy applies no move
            loops.append(module_name(path))
    assert loops == ["cuarenta_tutor.table"]


def test_one_module_narrates_events():
    """The words for caídas, limpias and rondas live in the narrator only."""
    pattern = re.compile(r"¡Caída|¡Limpia|Limpia, but|Ronda!|(?<!cartón )no longer score")
    hits = [module_name(p) for p in SOURCES if pattern.search(p.read_text(encoding="utf-8"))]
    assert hits == ["cuarenta_tutor.narrator"]


def test_the_readme_layout_matches_the_folders():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Layout", 1)[1].split("```")[1]
    named = set(re.findall(r"cuarenta_tutor/([\w./]+)", block))
    folders = {p.name + "/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    modules = {p.name for p in PACKAGE.glob("*.py") if not p.name.startswith("_")}
    assert folders | modules == {n for n in named if not n.startswith("_")}, "the README's layout is out of date"
