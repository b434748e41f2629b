"""Lay a graph out as SVG on the server, once per topology.

Why on the server: `st.graphviz_chart` lays the graph out in the browser on every rerun (~0.5 s
for the RAG graph on a 2-core machine, a Step at 8x Streamlit's floor) and draws it as a Streamlit
element of its own, below everything else. Why once: a compiled graph's topology never changes,
so its layout never does either; each Step only moves the marks (about to run, already run, the
fan-out count): `mark_svg` writes them into the cached SVG as CSS classes and a style sheet, a
string edit of well under a millisecond, and no Step lays anything out.

Which program: `graphviz-pure` first. It is a pinned PyPI wheel (Linux x86_64 / aarch64, macOS,
Windows) that `pip install -r requirements.txt` brings, a self-contained port of Graphviz's `dot`
that writes the same SVG on every platform. It installs no `dot` command, so it is looked up
beside the running Python and then on PATH. A system Graphviz `dot` is the second choice (a
platform without the wheel). With neither, callers draw the graph as HTML (`graph_list_html`).
`DEBUGGER_GRAPH_LAYOUT` = `graphviz-pure`, `dot` or `html` forces one of them (tests, benchmarks).
"""
from __future__ import annotations

import functools
import html
import logging
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Optional

from rag_debugger.debugger.html_page import esc

log = logging.getLogger(__name__)

LAYOUT_ENV = "DEBUGGER_GRAPH_LAYOUT"
PROGRAMS = ("graphviz-pure", "dot")
TIMEOUT_S = 20.0


def _find(program: str) -> Optional[str]:
    """The program's path: beside this Python's scripts first (a venv not on PATH), then PATH."""
    names = [program + ".exe", program] if os.name == "nt" else [program]
    scripts = sysconfig.get_path("scripts")
    for name in names:
        candidate = Path(scripts) / name if scripts else None
        if candidate is not None and candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(program)


@functools.lru_cache(maxsize=1)
def layout_programs() -> tuple[tuple[str, str], ...]:
    """(name, path) of the layout programs to try, in order; empty means "draw it as HTML"."""
    wanted = os.environ.get(LAYOUT_ENV, "auto").strip().lower() or "auto"
    if wanted == "html":
        return ()
    names = PROGRAMS if wanted == "auto" else tuple(p for p in PROGRAMS if p == wanted)
    if not names:
        log.warning("%s=%r is not one of auto, %s, html: using auto", LAYOUT_ENV, wanted, ", ".join(PROGRAMS))
        names = PROGRAMS
    found = []
    for name in names:
        path = _find(name)
        if path:
            found.append((name, path))
    return tuple(found)


@functools.lru_cache(maxsize=32)
def layout_svg(dot: str) -> Optional[str]:
    """The `<svg>` element for `dot`, laid out by the first program that succeeds; None when none
    is installed or all of them reject the input. Cached: callers pass the unmarked topology, so
    this runs once per graph (~10 ms), not once per Step."""
    for name, path in layout_programs():
        try:
            done = subprocess.run([path, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True,
                                  timeout=TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            log.warning("%s could not lay out the graph: %s", name, type(exc).__name__)
            continue
        if done.returncode != 0:
            log.warning("%s rejected the graph (exit %s): %s", name, done.returncode,
                        done.stderr.decode("utf-8", "replace")[:300])
            continue
        svg = inline_svg(done.stdout.decode("utf-8", errors="replace"))
        if svg:
            return svg
    return None


_SIZE = re.compile(r'\s(?:width|height)="[^"]*"')


def inline_svg(document: str) -> Optional[str]:
    """The bare `<svg>` element of an SVG document, ready to sit in HTML: no XML prolog, doctype
    or comments, and no fixed width/height (the viewBox stays, so CSS sizes it to its box)."""
    start = document.find("<svg")
    if start < 0:
        return None
    svg = re.sub(r"<!--.*?-->\n?", "", document[start:], flags=re.S)
    head_end = svg.find(">")
    return _SIZE.sub("", svg[:head_end]) + svg[head_end:]


MARK_STYLE = (
    "<style>"
    'g.node.rdi-done :is(path, polygon, ellipse):not([fill="none"]) { fill: #a5d6a7; }'
    'g.node.rdi-current :is(path, polygon, ellipse):not([fill="none"]) { fill: #ffb74d; }'
    "g.node.rdi-current :is(path, polygon, ellipse) { stroke-width: 3px; }"
    "g.node.rdi-done text, g.node.rdi-current text { fill: #000; }"
    "g.node.rdi-current text { font-weight: bold; }"
    "</style>"
)
_GROUP = re.compile(r'<g id="([^"]*)" class="(node|edge)">(\s*<title>)(.*?)(</title>)', re.S)
_EDGE_TEXT = re.compile(r"(<text\b[^>]*>)([^<]*)(</text>)")


def mark_svg(svg: str, marks: dict) -> str:
    """The laid-out `svg` with one position's marks (`GraphDrawing.marks`): nodes about to run and
    already run get a CSS class, styled by a sheet inside the SVG (so it works as an image too), and
    each fan-out edge shows its label. Graphviz names every node and edge in its group's `<title>`."""
    current = set(marks.get("current") or ())
    done = set(marks.get("done") or ())
    send = dict(marks.get("send") or {})
    out: list[str] = []
    pos = 0
    for m in _GROUP.finditer(svg):
        name = html.unescape(m.group(4))
        if m.group(2) == "node":
            mark = "rdi-current" if name in current else "rdi-done" if name in done else ""
            if mark:
                out += [svg[pos:m.start()], f'<g id="{m.group(1)}" class="node {mark}">', m.group(3), m.group(4),
                        m.group(5)]
                pos = m.end()
        elif name in send:
            end = svg.find("</g>", m.end())
            label = _EDGE_TEXT.search(svg, m.end(), end if end >= 0 else len(svg))
            if label:
                out += [svg[pos:label.start()], label.group(1), esc(send[name]), label.group(3)]
                pos = label.end()
    out.append(svg[pos:])
    marked = "".join(out)
    head_end = marked.find(">") + 1
    return marked[:head_end] + MARK_STYLE + marked[head_end:] if head_end > 0 else marked
