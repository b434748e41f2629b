"""Helpers for AppTest tests of the app's pages.

The debugger's inspector is one custom component (rag_debugger/ui/panels/inspector.py): AppTest sees it as an
element whose data is the HTML the browser shows, so these helpers read that HTML back as text
and tables, the way a person reads the page."""
from __future__ import annotations

import base64
import html
import json
import re

import pandas as pd

from rag_debugger.ui.panels.controls import PENDING_ACTION_KEY
from rag_debugger.ui.panels.inspector import COMPONENT_NAME, OPENED_KEY
from rag_debugger.ui.panels.time_travel import TRAVEL_KEY
from rag_debugger.views.debugger_controls import ACTIONS
from rag_debugger.views.inspector_html import SECTIONS, join_sections
from tests.support.html_reader import read_html


def inspector_data(at) -> dict:
    """The data the debugger's inspector received ({} when the page has none)."""
    for element in at.main:
        proto = getattr(element, "proto", None)
        if getattr(proto, "component_name", None) == COMPONENT_NAME:
            return json.loads(proto.json)
    return {}


def inspector_html(at) -> str:
    """The HTML of the debugger's inspector ("" when the page has none)."""
    data = inspector_data(at)
    return join_sections(data) if data else ""


def inspector_sections(at) -> dict:
    return {name: html for name, html in inspector_data(at).items() if name in SECTIONS}


def graph_svg(section_html: str) -> str:
    """The SVG of the graph picture (an image with a data URL) in the inspector's graph section."""
    m = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', section_html)
    return base64.b64decode(m.group(1)).decode("utf-8") if m else ""


def svg_marks(svg: str) -> dict:
    """{current, done}: the nodes the picture marks as about to run / already run, and {send}:
    the fan-out edges' labels, read from Graphviz's <title>s the way a person reads the colours."""
    marks: dict = {"current": [], "done": [], "send": {}}
    for m in re.finditer(r'<g id="[^"]*" class="node (rdi-current|rdi-done)">\s*<title>(.*?)</title>', svg, re.S):
        marks["current" if m.group(1) == "rdi-current" else "done"].append(html.unescape(m.group(2)))
    for m in re.finditer(r'class="edge">\s*<title>([^<]*)</title>((?:(?!</g>).)*?)<text[^>]*>(Send[^<]*)</text>', svg, re.S):
        marks["send"][html.unescape(m.group(1))] = html.unescape(m.group(3))
    return {k: sorted(v) if isinstance(v, list) else v for k, v in marks.items()}


def list_marks(section_html: str) -> dict:
    """The same marks on the node list drawn when no layout program is installed."""
    found = re.findall(r'<li data-node="([^"]+)"(?: class="(rdi-current|rdi-done)")?>', section_html)
    return {"current": sorted(n for n, c in found if c == "rdi-current"),
            "done": sorted(n for n, c in found if c == "rdi-done")}


def inspector_marks(at) -> dict:
    """The graph's marks as drawn: nodes about to run, nodes already run, fan-out labels."""
    section = inspector_sections(at).get("graph", "")
    svg = graph_svg(section)
    return svg_marks(svg) if svg else list_marks(section)


def inspector_text(at) -> str:
    return "".join(read_html(inspector_html(at)).text)


def inspector_table(at, table_id: str, *, include_hidden: bool = False) -> pd.DataFrame:
    """A table of the inspector as shown; diff rows of unchanged fields are hidden until the user
    turns them on, so they are left out unless `include_hidden`."""
    table = read_html(inspector_html(at)).tables.get(table_id)
    if table is None:
        raise AssertionError(f"the inspector shows no table {table_id!r}")
    rows = [r for r, c in zip(table["rows"], table["classes"], strict=False) if include_hidden or "rdi-kind-unchanged" not in c]
    return pd.DataFrame(rows, columns=table["head"])


def inspector_dot(at) -> str:
    return read_html(inspector_html(at)).pre.get("rdi-dot", "")


def travel_to_step(at, index: int):
    """What clicking timeline row `index` (0-based) does: the component's trigger sets this key."""
    at.session_state[TRAVEL_KEY] = index
    return at.run()


def controls_shown(html: str) -> dict[str, bool]:
    """{action: whether it can be clicked} for each Run / Step / Continue / Restart button in `html`."""
    return {m.group(1): " disabled" not in m.group(0)
            for m in re.finditer(r'<button[^>]*data-action="(\w+)"[^>]*>', html)}


def control_enabled(at, action: str) -> bool:
    """Whether the inspector's Run / Step / Continue / Restart button `action` can be clicked."""
    assert action in ACTIONS, action
    shown = controls_shown(inspector_html(at))
    if action not in shown:
        raise AssertionError(f"the inspector shows no {action!r} button")
    return shown[action]


def open_folded(at, *idents: str):
    """Open the inspector's folded parts `idents` (the waterfall...): the browser reports the open
    ones and the page builds only those (rag_debugger/views/inspector_html.py `lazy_details`)."""
    at.session_state[OPENED_KEY] = list(idents)
    return at.run()


def press(at, action: str, *, wait: bool = True):
    """Click the inspector's `action` button: what its trigger queues (AppTest cannot click inside
    a custom component; the browser tests click the real buttons). Refuses a disabled button, as the
    browser would. With a live model the step runs off the page (rag_debugger/workbench/live_step.py): `wait`
    waits for it to end and draws the page again, as the page's polling would."""
    if not control_enabled(at, action):
        raise AssertionError(f"the {action!r} button is disabled")
    at.session_state[PENDING_ACTION_KEY] = action
    at.run()
    if wait:
        finish_live_step(at)
    return at


def live_job(at, *, ended: bool = False):
    """The session's running job, or None; `ended`: also one that ended and the page has not drawn yet."""
    session = at.session_state["debug_session"] if "debug_session" in at.session_state else None
    live = getattr(session, "live", None)
    if live is None or live.job is None:
        return None
    return live.job if ended or live.running else None


def finish_live_step(at, timeout: float = 120.0):
    """Wait for the step running off the page, then draw the page (its end, the new position)."""
    job = live_job(at, ended=True)
    if job is not None:
        if not job.join(timeout):
            raise AssertionError(f"the live step did not end within {timeout} s")
        at.run()
    return at
