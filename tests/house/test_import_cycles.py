"""No two modules of the project import each other, directly or round a longer circle.

Why a test: a circle works only while each side imports the other lazily or late, so it breaks on the
first innocent reordering, and it means two modules are one job split in two files (the way
`rag_debugger.views.html_view` / `rag_debugger.views.value_view` and `rag.runs.storage` / its engines were). As in the
layer test, an import inside a function counts: a lazy import is still a dependency.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import module_name, python_files
from tests.support.browser import ROOT

PACKAGES = ("rag", "rag_debugger")


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    return {module_name(path, root): path for path in python_files(PACKAGES, root) if path.exists()}


def imports_of(path: Path, module: str, known: set[str]) -> set[str]:
    """The project modules `module` names in its imports; `from pkg import sub` names `pkg.sub` when that
    is a module, else `pkg` itself."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {name for name in found if name in known and name != module}


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    known = set(modules)
    return {module: imports_of(path, module, known) for module, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # iterative, so a long import chain cannot hit the recursion limit
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
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

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


#: Circles allowed to stay (none: the test fails on any).
KNOWN_CYCLES: list[list[str]] = []


def test_no_import_cycles_inside_the_project():
    assert [found for found in cycles(import_graph(project_modules())) if found not in KNOWN_CYCLES] == []


def test_the_finder_sees_a_circle_through_a_lazy_import(tmp_path):
    package = tmp_path / "rag"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "a.py").write_text("from rag.b import thing\n", encoding="utf-8")
    (package / "b.py").write_text("def thing():\n    from rag import c\n", encoding="utf-8")
    (package / "c.py").write_text("import rag.a\n", encoding="utf-8")
    (package / "d.py").write_text("from rag.a import thing\n", encoding="utf-8")
    modules = {f"rag.{name}": package / f"{name}.py" for name in "abcd"}
    assert cycles(import_graph(modules)) == [["rag.a", "rag.b", "rag.c"]]


def test_the_finder_resolves_relative_imports_and_ignores_a_package_importing_its_own_parts(tmp_path):
    package = tmp_path / "rag"
    package.mkdir()
    (package / "__init__.py").write_text("from .a import thing\n", encoding="utf-8")
    (package / "a.py").write_text("thing = 1\n", encoding="utf-8")
    (package / "b.py").write_text("from . import a\nfrom .c import other\n", encoding="utf-8")
    (package / "c.py").write_text("from .b import a\n", encoding="utf-8")
    modules = {"rag": package / "__init__.py", **{f"rag.{name}": package / f"{name}.py" for name in "abc"}}
    assert cycles(import_graph(modules)) == [["rag.b", "rag.c"]]
