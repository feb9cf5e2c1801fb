"""The house rules as a test: which floor may import which, no import cycles, short UI functions.

The floors (the house rules in STYLE.md): `app` (the composition root) may import everything;
`ui` imports `backend` and `storage`; `storage` imports `backend`; `backend` imports none of the
others and no Gradio, so the core runs without a web stack. Every import counts, the ones inside
a function or under `TYPE_CHECKING` too: a deferred import hides a cycle from the interpreter,
not from a reader. The source is read as text (`ast`), nothing is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("backend", "storage", "ui", "app")
FORBIDDEN = {
    "backend": {"storage", "ui", "app", "gradio"},
    "storage": {"ui", "app", "gradio"},
    "ui": {"app"},
    "app": set(),
}
"""What each floor must not import (a top-level package name)."""
MAX_UI_LINES = 80
"""The longest a function in `ui/` may be: longer wiring is split into named functions."""
LONG_UI_FUNCTIONS = {
    "ui/pages/start.py:wire",
}
"""Functions still over the limit, to be split; the list may only shrink (the test says when)."""


def module_files() -> dict[str, Path]:
    """Every module of the four packages by dotted name (a package by its own name)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


@dataclass(frozen=True)
class Import:
    """One import statement: what it names and where it stands."""

    names: tuple[str, ...]
    line: int


def imports(module: str, path: Path) -> Iterator[Import]:
    """Every import in a module, at any depth, as the absolute dotted names it may mean.

    `from a.b import c` yields `a.b.c`: `own_module` takes the longest module it falls in, so
    that is the module `c` when there is one (importing it, not the package's own body) and
    `a.b` otherwise.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield Import(tuple(alias.name for alias in node.names), node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*kept, *([node.module] if node.module else [])])
            yield Import(tuple(f"{base}.{alias.name}" for alias in node.names), node.lineno)


def own_module(name: str, modules: dict[str, Path]) -> str | None:
    """The longest module of ours that a dotted name falls in, or None for a third party's."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def graph() -> dict[str, set[str]]:
    """Module -> the modules of ours it imports."""
    modules = module_files()
    edges: dict[str, set[str]] = {}
    for module, path in modules.items():
        found = {
            own
            for statement in imports(module, path)
            for name in statement.names
            if (own := own_module(name, modules)) is not None and own != module
        }
        edges[module] = found
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_floor_imports_a_higher_one_and_backend_has_no_gradio() -> None:
    modules = module_files()
    wrong = []
    for module, path in modules.items():
        floor = module.split(".")[0]
        for statement in imports(module, path):
            tops = {name.split(".")[0] for name in statement.names}
            for top in sorted(tops & FORBIDDEN[floor]):
                wrong.append(f"{path.relative_to(ROOT)}:{statement.line} imports {top}")
    assert not wrong, "Imports against the floors:\n" + "\n".join(wrong)


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert not found, "Import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def long_ui_functions() -> dict[str, int]:
    """`path:name` -> lines of every function in `ui/` longer than the limit."""
    found = {}
    for path in sorted((ROOT / "ui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_UI_LINES:
                    found[f"{path.relative_to(ROOT).as_posix()}:{node.name}"] = lines
    return found


def test_no_new_ui_function_over_the_limit_and_the_list_only_shrinks() -> None:
    found = long_ui_functions()
    new = {name: lines for name, lines in found.items() if name not in LONG_UI_FUNCTIONS}
    assert not new, f"Functions in ui/ over {MAX_UI_LINES} lines (split them): {new}"
    fixed = LONG_UI_FUNCTIONS - set(found)
    assert not fixed, f"Now within {MAX_UI_LINES} lines: remove from LONG_UI_FUNCTIONS: {fixed}"
