"""The app's Streamlit settings that are there for a reason a test can see."""
from __future__ import annotations

import ast
import tomllib

from tests.support.browser import ROOT


def test_pages_compile_from_source_not_from_python_ast_objects():
    """With "magic" on, Streamlit parses every page into Python AST objects; CPython 3.11 cannot do that
    while another thread does the same (the warm-up compiling the graphs), and a page then failed with
    "SystemError: AST constructor recursion depth mismatch" (seen in CI). Magic off: pages compile from
    their source, and none of them relies on magic."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    assert config["runner"]["magicEnabled"] is False
    for page in [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]:
        body = ast.parse(page.read_text("utf-8")).body
        bare = [n.lineno for i, n in enumerate(body)
                if isinstance(n, ast.Expr) and not isinstance(n.value, ast.Call)
                and not (i == 0 and isinstance(n.value, ast.Constant))]  # a module docstring is not drawn
        assert bare == [], f"{page.name} draws by magic at lines {bare}"

