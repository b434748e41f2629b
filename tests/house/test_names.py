"""Names that say one thing: no two modules share a file name and no two public classes share a name, so a
name read in a traceback, a docstring or a review points at one place.

The kept repeats, each for a reason (docs/architecture.md "Names"): Python's own `__init__` / `__main__`;
`errors.py`, each package's own error tree (the debugger core may not import the engine's); `session.py`, the
one generic session (`rag_debugger/debugger/session.py`) and the RAG workflow's adapter on it
(`rag_debugger/workbench/session.py`).
"""
from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

from tests.house.sources import python_files
from tests.support.browser import ROOT

PACKAGES = ("rag", "rag_debugger")
KEPT_FILE_NAMES = {"__init__.py", "__main__.py", "errors.py", "session.py"}


def package_files() -> list[Path]:
    """The packages' modules; the pages are left out: their file names are the app's URLs (`pages/trace.py`)."""
    return [path for path in python_files(PACKAGES, ROOT) if path.relative_to(ROOT).parts[0] in PACKAGES]


def repeated_file_names(files: list[Path]) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in files:
        seen[path.name].append(path.as_posix())
    return {name: paths for name, paths in seen.items() if len(paths) > 1 and name not in KEPT_FILE_NAMES}


def repeated_class_names(files: list[Path]) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = defaultdict(list)
    for path in files:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                seen[node.name].append(path.as_posix())
    return {name: paths for name, paths in seen.items() if len(paths) > 1}


def test_no_two_modules_share_a_file_name():
    assert repeated_file_names(package_files()) == {}


def test_no_two_public_classes_share_a_name():
    assert repeated_class_names(package_files()) == {}


def test_the_checks_catch_a_repeat(tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "report.py").write_text("class RunRecorder: ...\nclass _Private: ...\n", encoding="utf-8")
        (tmp_path / folder / "errors.py").write_text("", encoding="utf-8")
    files = sorted(tmp_path.rglob("*.py"))
    assert list(repeated_file_names(files)) == ["report.py"]
    assert list(repeated_class_names(files)) == ["RunRecorder"]
