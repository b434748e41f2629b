"""The project's Python files and their module names, as the house tests (layers, import cycles, one
address per name) read them: one place, so the three checks agree on what a module is called."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from tests.support.browser import ROOT


def module_name(path: Path, root: Path = ROOT) -> str:
    """`rag/ingest/__init__.py` -> `rag.ingest`; `rag_debugger/exports/run_file.py` -> `rag_debugger.exports.run_file`."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def python_files(packages: Iterable[str], root: Path = ROOT) -> list[Path]:
    """Every `.py` file of `packages` (their bundled data folders left out), the pages and `app.py`."""
    files = [path for package in packages for path in root.joinpath(package).rglob("*.py")
             if "data" not in path.relative_to(root).parts]
    return [*files, *root.joinpath("pages").glob("*.py"), root / "app.py"]
