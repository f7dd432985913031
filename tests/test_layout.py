"""The layout rules of issue 11: small modules and functions, and no import cycles between modules."""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "camlint"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_over_the_line_limit():
    long = {str(p.relative_to(PACKAGE)): n for p, _ in _modules()
            if (n := p.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_over_the_line_limit():
    long = [f"{p.relative_to(PACKAGE)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})"
            for p, tree in _modules() for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def _module_level_imports(tree: ast.Module, known: set[str]) -> set[str]:
    """camlint modules a module imports, at its top or inside a function (a lazy import for speed
    is fine, a lazy import that hides a cycle is not); annotations-only imports do not count."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            node.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("camlint"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                out.add(full if full in known else node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("camlint"))
    return out & known


def test_no_import_cycles_between_modules():
    trees = {_name(p): tree for p, tree in _modules()}
    known = set(trees)
    graph = {}
    for m, tree in trees.items():
        deps = _module_level_imports(tree, known)
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        deps |= {".".join(d.split(".")[:i]) for d in deps for i in range(2, d.count(".") + 1)}
        # a package's __init__ importing its own submodules is how packages re-export, not a cycle
        graph[m] = {d for d in deps if d != m and not d.startswith(m + ".") and not m.startswith(d + ".")}
    cycles, state = [], {}

    def visit(m, stack):
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_every_module_imports_on_its_own():
    """A cycle hidden by import order shows when a module is the first one imported."""
    import subprocess
    import sys
    names = [_name(p) for p, _ in _modules() if "verify" not in p.parts]   # verify imports torch: slow
    script = "import importlib, sys\nfor n in sys.argv[1:]:\n    importlib.import_module(n)\n"
    failed = []
    for n in names:
        r = subprocess.run([sys.executable, "-c", script, n], capture_output=True, text=True, timeout=120)
        if r.returncode:
            failed.append(f"{n}: {r.stderr.strip().splitlines()[-1]}")
    assert not failed, failed
