"""Every name a benchmark imports exists, also the imports inside its functions (where most of them are, so that
a figure's own timing pays for them). A benchmark is run by hand, not by the suite: a rename elsewhere broke
`bench.compare` for a day without any test noticing."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHES = sorted(p for p in (ROOT / "bench").glob("*.py") if p.name != "__init__.py")


def imported_names(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) for each `from module import name` anywhere in the file ("" for `import module`)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.extend((node.lineno, node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name, "") for alias in node.names)
    return out


def missing(path: Path) -> list[str]:
    found = []
    for line, module, name in imported_names(path):
        if not module.startswith(("rag", "rag_debugger", "bench", "tests")):
            continue  # third-party and the standard library: requirements-dev.txt is their check
        try:
            mod = importlib.import_module(module)
        except ImportError as exc:
            found.append(f"{path.name}:{line}: {module}: {exc}")
            continue
        if name and not hasattr(mod, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                found.append(f"{path.name}:{line}: {module} has no {name}")
    return found


@pytest.mark.parametrize("path", BENCHES, ids=[p.stem for p in BENCHES])
def test_every_name_a_benchmark_imports_exists(path):
    assert missing(path) == []


def test_the_check_finds_a_name_that_is_gone(tmp_path):
    stale = tmp_path / "stale.py"
    stale.write_text("def figure():\n    from rag_debugger.ui.graph_page import _parts\n    return _parts\n", "utf-8")
    assert missing(stale) == ["stale.py:2: rag_debugger.ui.graph_page has no _parts"]
