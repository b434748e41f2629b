"""HTML is written in one place per kind: the inspector's views (in-page fragments) in `rag_debugger/views/`, the
self-contained files in `rag_debugger/exports/`, plus the one place that escapes and lays out a page
(`rag_debugger/debugger/html_page.py`) and the engine's evaluation file (`rag/eval/report.py`, in the engine
because the engine never imports the app). Anywhere else, a string that holds an HTML tag is a view written
in the wrong place: a Streamlit page asks `views/` for its HTML and hands it to `st.html`.

Read from the source (the string constants, f-strings' literal parts included); docstrings and the strings
written as a name's documentation are not HTML that anything writes."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.house.sources import module_name, python_files

HTML_PLACES = ("rag_debugger.views", "rag_debugger.exports")
HTML_MODULES = {
    "rag_debugger.debugger.html_page",  # escaping and the page skeleton, under both kinds (and the engine's file)
    "rag.eval.report",  # the engine's evaluation file (`python -m rag.eval --html`): the engine never imports the app
}
NOT_HTML_VIEWS: dict[str, str] = {}
"""module -> why it may hold an HTML tag without being a view. None does today; an entry needs its reason."""

TAG = re.compile(r"<(?:div|section|table|thead|tbody|tr|td|th|ul|ol|li|p|span|details|summary|h[1-6]|pre|code|kbd|b|i|"
                 r"em|strong|br|hr|a|img|button|label|input|select|textarea|form|style|script|svg)[\s>/]",
                 re.IGNORECASE)


def _documentation(tree: ast.AST) -> set[int]:
    """The ids of the string constants that document (a docstring, a string standing alone as a statement)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def html_lines(path: Path) -> list[int]:
    """The lines of `path` whose string constants hold an HTML tag."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _documentation(tree)
    return sorted({node.lineno for node in ast.walk(tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                   and TAG.search(node.value)})


def may_write_html(module: str) -> bool:
    return (any(module == place or module.startswith(place + ".") for place in HTML_PLACES)
            or module in HTML_MODULES or module in NOT_HTML_VIEWS)


def html_outside_its_places(files: list[tuple[Path, str]] | None = None) -> list[str]:
    found = []
    for path, module in files if files is not None else [(p, module_name(p)) for p in python_files(("rag", "rag_debugger"))]:
        if not may_write_html(module):
            found += [f"{module}:{line}" for line in html_lines(path)]
    return found


def test_html_is_written_only_in_the_views_and_the_exports():
    assert html_outside_its_places() == []


def test_every_allowed_exception_says_why_and_still_exists():
    known = {module_name(p) for p in python_files(("rag", "rag_debugger"))}
    for module, reason in NOT_HTML_VIEWS.items():
        assert reason.strip() and module in known, module
    assert HTML_MODULES <= known


def test_the_scanner_flags_a_tag_in_a_string_and_leaves_documentation_alone(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""A module that mentions <div> in its docstring."""\n'
        'LIMIT = 3\n'
        '"""Documents LIMIT; `<b>` here is no HTML."""\n'
        'def note(text):\n'
        '    """Returns <p>."""\n'
        '    return f\'<p class="note">{text}</p>\'\n'
        'ROW = "<TR><td>" + "x"\n'
        'ARROW = "a <- b, x < y, <module:attr>, <name>"\n',
        encoding="utf-8")
    assert html_lines(probe) == [6, 7]
    assert html_outside_its_places([(probe, "rag_debugger.ui.probe")]) == ["rag_debugger.ui.probe:6",
                                                                          "rag_debugger.ui.probe:7"]
    assert html_outside_its_places([(probe, "rag_debugger.views.probe")]) == []
    assert html_outside_its_places([(probe, "rag_debugger.exports.probe")]) == []
    assert html_outside_its_places([(probe, "rag.eval.report")]) == []
    assert html_outside_its_places([(probe, "rag.eval.reports")]) != []  # a prefix is not the module
