"""Streamlit lives in `rag_debugger/ui/` and only there: the engine, the debugger core, the views and the
exports build what the pages show without it (so a run's HTML file, the evaluation file and the tests of every
view need no Streamlit), and every module of `ui/` imports Streamlit itself: one that needs none belongs in
`rag_debugger/views/`, `rag_debugger/exports/` (or beside `cli.py`). Function-level imports count: a lazy
`import streamlit` is still Streamlit."""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import module_name, python_files
from tests.support.browser import ROOT

UI = "rag_debugger.ui"
OUTSIDE_UI_MAY_USE_STREAMLIT = {
    "rag_debugger.cli",  # the `rag-debugger` command starts `streamlit run`
    "rag.access",  # bind_address: where this process's server listens, read lazily (None outside Streamlit)
    "rag_debugger.workbench.run_owners",  # _is_active: whether Streamlit still has a browser session, read lazily
}
"""Each asks the Streamlit server a question, inside a function and with an answer for no Streamlit (the run owners
are the RAG session's, in the engine's `rag_debugger/workbench/` for now)."""


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def _streamlit(names: set[str]) -> bool:
    return any(name == "streamlit" or name.startswith("streamlit.") for name in names)


def project_modules() -> dict[str, set[str]]:
    return {module_name(path): imports(path) for path in python_files(("rag", "rag_debugger"))
            if path.is_relative_to(ROOT / "rag") or path.is_relative_to(ROOT / "rag_debugger")}


def streamlit_outside_ui(modules: dict[str, set[str]]) -> list[str]:
    return sorted(name for name, names in modules.items()
                  if _streamlit(names) and not (name == UI or name.startswith(UI + "."))
                  and name not in OUTSIDE_UI_MAY_USE_STREAMLIT)


def ui_without_streamlit(modules: dict[str, set[str]]) -> list[str]:
    """Modules of `ui/` that do not import Streamlit themselves. Reaching it only through another module of
    `ui/` does not count: such a module is pure code that a Streamlit module happens to call (a rule, a
    link's parsing, a piece of HTML) and belongs in `rag_debugger/views/` or `rag_debugger/exports/`."""
    ui = {name: names for name, names in modules.items() if name.startswith(UI + ".")}
    packages = {name for name in ui if any(other.startswith(name + ".") for other in ui)}
    return sorted(name for name, names in ui.items() if not _streamlit(names) and name not in packages)


def test_nothing_outside_ui_imports_streamlit():
    assert streamlit_outside_ui(project_modules()) == []


def test_every_module_of_ui_is_streamlit_code():
    assert ui_without_streamlit(project_modules()) == []


def test_the_checks_see_a_stray_module_on_either_side():
    modules = {"rag_debugger.views.probe": {"streamlit"}, "rag_debugger.ui.pure": {"json"},
               "rag_debugger.ui.page": {"streamlit"}, "rag_debugger.ui.panel": {"rag_debugger.ui.page"},
               "rag_debugger.cli": {"streamlit.web.cli"}}
    assert streamlit_outside_ui(modules) == ["rag_debugger.views.probe"]
    assert ui_without_streamlit(modules) == ["rag_debugger.ui.panel", "rag_debugger.ui.pure"]
