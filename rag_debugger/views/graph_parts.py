"""What the inspector shows for a graph of your own (`InspectorParts`): no RAG panels, the node
docstrings as help, a generic value tree, the page's own timeline columns and link. Its own module so
the Your graph page and a run's HTML file (rag_debugger/exports/run_file.py) draw the same parts without importing
each other."""
from __future__ import annotations

from typing import Any, Optional

from rag.i18n import N_, _
from rag_debugger.debugger.html_page import esc
from rag_debugger.views.graph_link import graph_link_for
from rag_debugger.views.html_view import code, details
from rag_debugger.views.inspector_html import InspectorParts
from rag_debugger.views.value_view import TypedValues

CONTROLS_CAPTION = N_("<b>Run</b> starts the input and runs to the end · <b>Step</b> runs exactly one superstep "
                      "(all <code>Send</code> lanes together) · <b>Continue</b> runs until a breakpoint, an "
                      "<code>interrupt()</code> or the end · <b>Restart</b> runs the same input again on a fresh "
                      "thread")


def _decision(values: dict) -> Optional[str]:
    return None  # a graph of your own has no known "decision" field; the diff shows what changed


def graph_parts(session: Any) -> InspectorParts:
    docs = session.node_docs()

    def docs_html() -> str:
        if not docs:
            return ""
        items = "".join(f"<li><b>{code(n)}</b> — {esc(d.splitlines()[0])}</li>" for n, d in sorted(docs.items()))
        return details(_("What does each node do? (docstrings)"), f"<ul>{items}</ul>", ident="node_docs")

    return InspectorParts(decision=_decision, evidence=False, node_docs=docs_html,
                          idle_hint=N_("fill in the input above, then Step or Run."), controls_caption=_(CONTROLS_CAPTION),
                          timeline_columns=timeline_columns(session), values=TypedValues(), link=graph_link_for)


def timeline_columns(session: Any) -> tuple[str, ...]:
    """The timeline's columns; with a fork (a what-if, a stored thread gone on) a "run" column names the run
    each row belongs to, so a fork's rows read as the fork's."""
    columns = ("step", "nodes", "lanes", "duration_ms", "error")
    if len(getattr(session, "segments", ()) or ()) > 1:
        return ("step", "run", *columns[1:])
    return columns
