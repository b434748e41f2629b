"""Text that is not the app's own reaches the page one way only.

- Markdown: every markdown-reading Streamlit element (messages, captions, labels, flash, page links)
  gets either the app's own literal words, or outside text through `rag_debugger.views.markdown_text` (`as_text`, `code_span`):
  a call whose text argument is an f-string, a `+` / `%` / `.format` / `.join` built from anything but
  literals and the app's own constants fails here, naming the file and line.
- Grids: every `st.dataframe` goes through `rag_debugger.ui.grids.data_grid`, whose toolbar CSV download is
  formula-safe.
- Through local variables: a name assigned outside text (an attribute or key known to carry it, such as
  `run.provider` or `row["question"]`, or text built from something unsafe) and passed on later to one of those
  elements, unescaped, fails too (`_Scope.tainted`, a simple data-flow pass within each function).
"""
from __future__ import annotations

import ast
from pathlib import Path

from tests.house.sources import python_files
from tests.support.browser import ROOT

UI_FILES = ([p for p in python_files(["rag_debugger/ui", "rag_debugger/views", "pages"]) if p.name != "grids.py"]
            + [ROOT / "app.py"])


def _calls(path: Path):
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _is_st_attr(func: ast.expr, names: set[str]) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in names and isinstance(func.value, ast.Name) \
        and func.value.id == "st"


def test_every_grid_goes_through_data_grid():
    direct = [f"{p.relative_to(ROOT)}:{c.lineno}" for p in UI_FILES for c in _calls(p)
              if _is_st_attr(c.func, {"dataframe"})]
    assert direct == [], "use rag_debugger.ui.grids.data_grid (formula-safe CSV download) instead of st.dataframe"


#: Streamlit elements whose text (first argument, `label=`, `body=`, `help=`) is read as markdown.
MARKDOWN_ELEMENTS = {
    "markdown", "caption", "write", "info", "success", "warning", "error", "toast", "title", "header", "subheader",
    "button", "expander", "checkbox", "toggle", "radio", "selectbox", "multiselect", "page_link", "download_button",
    "status", "popover", "form_submit_button", "text_input", "text_area", "number_input", "slider", "select_slider",
    "metric", "link_button", "file_uploader", "tabs", "segmented_control", "pills", "date_input", "time_input",
    "chat_input", "progress", "spinner"}
#: Kinds of the blocks rag_debugger/views/compare_content.py builds (`out.add(kind, text)`) that a page renders as markdown.
MARKDOWN_BLOCKS = {"md", "caption", "success", "info", "warning", "error", "subheader", "fold"}
#: The app's helpers that put a message into one of those elements later (`flash(kind, message)`).
MESSAGE_HELPERS = {"flash": 1}
#: Calls whose result is safe in markdown: the escaping functions of rag_debugger/views/markdown_text.py, numbers and
#: dates the app formats, and functions that return the app's own markdown built from its constants.
SAFE_CALLS = {"as_text", "code_span", "in_code", "len", "int", "float", "round", "number", "duration_ms", "date_time",
              "fmt_rate", "used_by"}
TRANSLATE = {"_", "N_", "ngettext"}
#: Receivers of such method names that are not Streamlit (a logger's `error`, a file's `write`).
NOT_STREAMLIT = {"log", "logger", "logging", "LOG", "sys", "fh", "out", "stream", "buf", "handle", "self", "os",
                 "parser", "warnings"}


#: Attributes and keys that carry text from outside the app (a recording, an import, a set, a visitor, a
#: link): a local variable assigned from one of them is outside text wherever it goes.
OUTSIDE_FIELDS = {
    "question", "answer", "provider", "prompt_version", "run_by", "given_by", "owner", "note", "reason", "error",
    "label", "description", "set_name", "graph_spec", "spec", "case_id", "run_id", "eval_id", "group_id", "id",
    "name", "hitl_prompt", "hitl_answer", "expected_route", "source", "sources", "file_name", "filename", "query",
    "message", "detail", "kb", "tags", "node", "nodes", "route", "thread_id"}


def _root(expr: ast.expr) -> str | None:
    while isinstance(expr, (ast.Attribute, ast.Subscript)) or (  # `MESSAGES.get(kind, ...)` too
            isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"):
        expr = expr.func if isinstance(expr, ast.Call) else expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _constant(expr: ast.expr) -> bool:
    """A literal, or one of the app's own constants (an UPPER_CASE name, or an item or attribute of one)."""
    if isinstance(expr, ast.Constant):
        return True
    root = _root(expr)
    return root is not None and len(root) > 1 and root.isupper()


class _Scope:
    """What each local name of one function is assigned: a name is safe when every assignment is."""

    def __init__(self, function: ast.AST | None):
        self.assigned: dict[str, list[ast.expr]] = {}
        for node in ast.walk(function) if function is not None else ():
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                    and node.value is not None:
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(ast.Name(id="<loop>"))
            elif isinstance(node, ast.arg):
                self.assigned.setdefault(node.arg, []).append(ast.Name(id="<argument>"))
        self._busy: set[str] = set()

    def safe(self, expr: ast.expr) -> bool:
        if _constant(expr):
            return True
        if isinstance(expr, ast.Name):
            values = self.assigned.get(expr.id)
            if not values or expr.id in self._busy:
                return False
            self._busy.add(expr.id)
            try:
                return all(self.safe(v) for v in values)
            finally:
                self._busy.discard(expr.id)
        if isinstance(expr, ast.Call):
            func = expr.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in SAFE_CALLS:
                return True
            if name in TRANSLATE:  # the message itself: a literal or a constant (numbers for ngettext's count)
                return all(_constant(a) for a in expr.args[:2])
            if name == "format" and isinstance(func, ast.Attribute):
                return self.safe(func.value) and all(self.safe(a) for a in expr.args) \
                    and all(self.safe(k.value) for k in expr.keywords)
            if name == "join" and isinstance(func, ast.Attribute):
                return self.safe(func.value) and all(self.safe(a) for a in expr.args)
            return False
        if isinstance(expr, ast.JoinedStr):  # a format spec (`{n:,}`, `{x:.2f}`) formats a number
            return all(not isinstance(v, ast.FormattedValue) or v.format_spec is not None or self.safe(v.value)
                       for v in expr.values)
        if isinstance(expr, ast.BinOp):
            if isinstance(expr.op, (ast.Add, ast.Sub)) and any(
                    isinstance(side, ast.Constant) and isinstance(side.value, int) for side in (expr.left, expr.right)):
                return True  # arithmetic: `offset + 1`
            return self.safe(expr.left) and self.safe(expr.right)
        if isinstance(expr, ast.IfExp):
            return self.safe(expr.body) and self.safe(expr.orelse)
        if isinstance(expr, ast.BoolOp):  # `names or _("none")`
            return all(self.safe(v) for v in expr.values)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp)):
            return self.safe(expr.elt)
        if isinstance(expr, (ast.List, ast.Tuple)):
            return all(self.safe(e) for e in expr.elts)
        return False


    def tainted(self, expr: ast.expr) -> bool:
        """Whether a value passed on as it is (not built at the call) holds outside text: read from an attribute
        or key that carries it, or built (an f-string, `+`, `.format`, `.join`) from something unsafe, directly
        or through the local names it was assigned to (every assignment counts: `if` branches, loops)."""
        if _constant(expr):
            return False
        if isinstance(expr, ast.Name):
            values = self.assigned.get(expr.id) or []
            if expr.id in self._busy:
                return False
            self._busy.add(expr.id)
            try:
                return any(self.tainted(v) for v in values)
            finally:
                self._busy.discard(expr.id)
        if isinstance(expr, ast.Attribute):
            return expr.attr in OUTSIDE_FIELDS
        if isinstance(expr, ast.Subscript):
            key = expr.slice
            return isinstance(key, ast.Constant) and key.value in OUTSIDE_FIELDS
        if isinstance(expr, ast.Call):
            func = expr.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and expr.args \
                    and isinstance(expr.args[0], ast.Constant):
                return expr.args[0].value in OUTSIDE_FIELDS
            if isinstance(func, ast.Name) and func.id == "str" and expr.args:
                return self.tainted(expr.args[0])
            if isinstance(func, ast.Attribute) and func.attr in ("strip", "upper", "lower", "title", "replace"):
                return self.tainted(func.value)
            return _built(expr) and not self.safe(expr)
        if isinstance(expr, (ast.JoinedStr, ast.BinOp)):
            return not self.safe(expr)
        if isinstance(expr, ast.IfExp):
            return self.tainted(expr.body) or self.tainted(expr.orelse)
        if isinstance(expr, ast.BoolOp):
            return any(self.tainted(v) for v in expr.values)
        return False


def _built(expr: ast.expr) -> bool:
    """Text built at the call (an f-string, `+`, `%`, `.format`, `.join`), rather than a value passed on."""
    if isinstance(expr, (ast.JoinedStr, ast.BinOp)):
        return True
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("format", "join"):
        return True
    return isinstance(expr, ast.IfExp) and (_built(expr.body) or _built(expr.orelse))


def _markdown_texts(call: ast.Call) -> list[ast.expr]:
    func = call.func
    if isinstance(func, ast.Name) and func.id in MESSAGE_HELPERS:
        return list(call.args[MESSAGE_HELPERS[func.id]:MESSAGE_HELPERS[func.id] + 1])
    if isinstance(func, ast.Attribute) and func.attr == "add" and len(call.args) >= 2 \
            and isinstance(call.args[0], ast.Constant) and call.args[0].value in MARKDOWN_BLOCKS:
        return [call.args[1]]  # a block a page renders later (rag_debugger/views/compare_content.py)
    if isinstance(func, ast.Attribute) and (func.attr in MARKDOWN_ELEMENTS or func.attr == "update") \
            and _root(func.value) not in NOT_STREAMLIT:
        if func.attr == "update":  # `status.update(label=...)`
            return [k.value for k in call.keywords if k.arg == "label"]
        if func.attr == "progress":  # `st.progress(value, text)`, `bar.progress(value, text=...)`
            return list(call.args[1:2]) + [k.value for k in call.keywords if k.arg == "text"]
        if func.attr == "spinner":
            return list(call.args[:1]) + [k.value for k in call.keywords if k.arg == "text"]
        return list(call.args[:1]) + [k.value for k in call.keywords if k.arg in ("label", "body", "help")]
    return []


def unescaped_markdown(source: str, filename: str = "<text>") -> list[str]:
    """`line: text` of each markdown-reading call whose text is built from something that is neither
    literal, nor the app's own constant, nor passed through rag_debugger/views/markdown_text.py."""
    tree = ast.parse(source, filename=filename)
    found = []
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    owner: dict[int, ast.AST] = {}
    for function in sorted(functions, key=lambda f: -(getattr(f, "end_lineno", 0) - f.lineno)):  # innermost wins
        for node in ast.walk(function):
            owner[id(node)] = function
    scopes: dict[int, _Scope] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        function = owner.get(id(node))
        scope = scopes.setdefault(id(function), _Scope(function))
        for text in _markdown_texts(node):
            if _built(text) and not scope.safe(text):
                found.append(f"{filename}:{node.lineno}: {ast.unparse(text)[:100]}")
            elif not _built(text) and scope.tainted(text):  # outside text reaching it through a variable
                found.append(f"{filename}:{node.lineno}: {ast.unparse(text)[:100]} (outside text, passed on)")
    return found


def test_outside_text_reaches_markdown_only_through_markdown_text():
    found = [hit for path in UI_FILES for hit in unescaped_markdown(path.read_text("utf-8"), str(path.relative_to(ROOT)))]
    assert found == [], ("pass outside text through rag_debugger.views.markdown_text.as_text "
                         "(or code_span / in_code between backticks):\n" + "\n".join(found))


def test_the_check_catches_what_the_review_found():
    """The check itself, on the shapes of the second review's findings: each fails, each fixed form passes."""
    attacks = [
        'st.caption(_("provider {provider}").format(provider=info.provider))',
        'flash("warning", f"“{text}” is not a run id")',
        'st.markdown(f"Run `{run_id}`")',
        'st.error("Regressed: " + ", ".join(c.id for c in regressed))',
        'def f(info):\n    label = info.label\n    st.button(f"Open {label}")',
        'st.button(label=_("Compare {case}").format(case=case_id))',
    ]
    fixed = [
        'st.caption(_("provider {provider}").format(provider=as_text(info.provider)))',
        'flash("warning", f"“{as_text(text)}” is not a run id")',
        'st.markdown(f"Run {code_span(run_id)}")',
        'st.error("Regressed: " + as_text(", ".join(c.id for c in regressed)))',
        'def f(info):\n    label = as_text(info.label)\n    st.button(f"Open {label}")',
        'st.caption(f"{MATERIAL[\'x\']} " + _("Title") + f" {len(rows)} · {score:.2f} · {offset + 1}")',
        'st.markdown(plain_variable)',  # a value passed on, not built here: the callee's own concern
    ]
    assert all(unescaped_markdown(code) for code in attacks), [c for c in attacks if not unescaped_markdown(c)]
    assert [c for c in fixed if unescaped_markdown(c)] == []


def test_the_check_follows_outside_text_through_local_variables():
    """The data-flow pass: outside text (an attribute or key that carries it, or text built from something
    unsafe) assigned to a local name and passed on later is caught; the same flows through an escape pass."""
    flagged = [
        'def f(run):\n    name = run.provider\n    st.markdown(f"Provider {name}")',
        'def f(run):\n    name = run.provider\n    st.markdown(name)',
        'def f(run):\n    msg = f"Provider {run.provider}"\n    st.markdown(msg)',
        'def f(run):\n    name = run.provider\n    msg = "Provider: " + name\n    st.caption(body=msg)',
        'def f(info):\n    text = _("Saved.")\n    if info.note:\n        text += " " + info.note\n    flash("success", text)',
        'def f(info):\n    text = _("Saved {label}").format(label=info.label)\n    st.success(text)',
        'def f(row):\n    q = row["question"]\n    st.info(q)',
        'def f(row):\n    q = row.get("question", "")\n    st.toast(str(q).strip())',
        'def f(job):\n    said = job.message if job.failed else _("Done")\n    st.warning(said)',
        'def f(a):\n    first = a.route\n    second = first\n    st.expander(second)',
        'def f(bar, res):\n    bar.progress(0.5, text=f"last: {res.id}")',
        'def f(res):\n    st.progress(0.5, _("last: {case}").format(case=res.id))',
    ]
    passing = [
        'def f(run):\n    name = as_text(run.provider)\n    msg = f"Provider {name}"\n    st.markdown(msg)',
        'def f(run):\n    msg = _("Provider {p}").format(p=code_span(run.provider))\n    st.caption(msg)',
        'def f(rows):\n    msg = ngettext("{n} run", "{n} runs", len(rows)).format(n=len(rows))\n    st.info(msg)',
        'def f(info):\n    text = _("Saved.")\n    if info.note:\n'
        '        text += " " + as_text(info.note)\n    flash("success", text)',
        'def f(block):\n    st.markdown(block.body)',  # not a field known to carry outside text
        'def f(text):\n    st.markdown(text)',  # an argument: its callers' concern
        'def f(run):\n    name = run.provider\n    st.code(name)',  # not markdown
        'def f(run):\n    name = run.provider\n    log.error(name)',  # not Streamlit
        'def f(res):\n    st.progress(0.5, text=as_text(res.id))',
    ]
    assert [c for c in flagged if not unescaped_markdown(c)] == []
    assert [c for c in passing if unescaped_markdown(c)] == []
