"""The engine's public surface: every public name of `rag` is in `__all__`, resolves, has its own docstring and is
listed in the API page (docs/embedding.md); nothing else is public. Checked against the package itself, not
against a copy of its list."""
from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

import rag

ROOT = Path(__file__).resolve().parents[2]
API_PAGE = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
SUBMODULES = {m.name for m in pkgutil.iter_modules(rag.__path__)}


def test_all_names_are_unique_and_resolve():
    assert len(rag.__all__) == len(set(rag.__all__))
    for name in rag.__all__:
        assert getattr(rag, name) is not None, name


def test_every_public_name_of_the_package_is_in_all_and_nothing_else_is():
    for name in rag.__all__:
        getattr(rag, name)  # resolved: now in the module's namespace
    public = {n for n in vars(rag) if not n.startswith("_") and n not in SUBMODULES and n != "annotations"}
    assert public == set(rag.__all__)
    assert public == set(rag.__all__)


def test_each_name_comes_from_where_the_package_says_and_is_documented():
    for name in rag.__all__:
        value = getattr(rag, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            module = importlib.import_module(value.__module__)
            assert getattr(module, name) is value
            own = value.__dict__.get("__doc__") if inspect.isclass(value) else value.__doc__
            assert own and own.strip(), f"{name} has no docstring of its own"
        assert f"| `{name}` |" in API_PAGE, f"{name} is not listed in docs/embedding.md"


def test_the_api_page_lists_no_name_the_package_does_not_export():
    listed = {line.split("`")[1] for line in API_PAGE.splitlines() if line.startswith("| `")}
    assert listed <= set(rag.__all__), sorted(listed - set(rag.__all__))
