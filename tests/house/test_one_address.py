"""Every name has one address: callers import a name from the module that defines it, and no module
hands on names it only imported (a re-export kept "for old callers").

Why: with two addresses a name's home is a guess, a move leaves a shim behind, and an import circle can
hide behind the shim. The two package roots are the exception on purpose: `rag` and `debugger` are the
libraries' documented public surface (`from rag import run_rag_graph`, `from debugger import
GraphStepper`), resolved lazily, and nothing inside the project imports through them.
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import module_name, python_files
from tests.support.browser import ROOT

TOPS = ("rag", "rag_debugger", "tests", "bench")
PUBLIC_ROOTS = {"rag", "rag_debugger.debugger"}

#: (file, module, name) imports allowed from a module that does not define the name (none).
KNOWN: set[tuple[str, str, str]] = set()


def source_files(root: Path = ROOT) -> list[Path]:
    return python_files(TOPS, root)


def module_file(module: str, root: Path = ROOT) -> Path | None:
    base = root.joinpath(*module.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.exists():
            return candidate
    return None


def borrowed_names(path: Path) -> dict[str, str]:
    """Names a module binds at its top level by `from <project module> import name`: name -> source."""
    out = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.split(".")[0] in TOPS:
            out.update({alias.asname or alias.name: node.module for alias in node.names})
    return out


def second_addresses(root: Path = ROOT) -> list[str]:
    """`file:line from M import N` wherever M only imported N from its home."""
    borrowed: dict[str, dict[str, str]] = {}
    found = []
    for path in source_files(root):
        rel = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                    and node.module.split(".")[0] in TOPS and node.module not in PUBLIC_ROOTS):
                continue
            source = module_file(node.module, root)
            if source is None:
                continue
            names = borrowed.setdefault(node.module, borrowed_names(source))
            for alias in node.names:
                submodule = module_file(f"{node.module}.{alias.name}", root) is not None
                if alias.name in names and not submodule and (rel, node.module, alias.name) not in KNOWN:
                    found.append(f"{rel}:{node.lineno} from {node.module} import {alias.name} "
                                 f"(defined in {names[alias.name]})")
    return found


def handed_on(root: Path = ROOT) -> list[str]:
    """Names in a module's `__all__` that it imported rather than defined."""
    found = []
    for path in source_files(root):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        borrowed = borrowed_names(path)
        for node in tree.body:
            if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                    and isinstance(node.value, (ast.List, ast.Tuple))):
                listed = [item.value for item in node.value.elts if isinstance(item, ast.Constant)]
                if module_name(path, root) not in PUBLIC_ROOTS:
                    rel = path.relative_to(root).as_posix()
                    found += [f"{rel}: __all__ hands on {name} from {borrowed[name]}" for name in listed if name in borrowed]
    return found


def test_callers_import_each_name_from_its_home():
    assert second_addresses() == []


def test_no_module_hands_on_a_name_it_imported():
    assert handed_on() == []


def test_the_checks_catch_a_shim_and_its_caller(tmp_path):
    package = tmp_path / "rag"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "home.py").write_text("class Thing: ...\n", encoding="utf-8")
    (package / "old.py").write_text('from rag.home import Thing\n\n__all__ = ["Thing"]\n', encoding="utf-8")
    (package / "caller.py").write_text("from rag.old import Thing\nfrom rag.home import Thing as Same\n",
                                       encoding="utf-8")
    (tmp_path / "app.py").write_text("from rag import home\n", encoding="utf-8")
    assert second_addresses(tmp_path) == ["rag/caller.py:1 from rag.old import Thing (defined in rag.home)"]
    assert handed_on(tmp_path) == ["rag/old.py: __all__ hands on Thing from rag.home"]
