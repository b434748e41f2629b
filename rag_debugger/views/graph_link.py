"""The Your graph page's URL names the graph, the run and the step: `?graph=<module:attr>&run=<id>&step=<n>`.

The same rules as the RAG debugger's `?run=&step=` (rag_debugger/views/run_link.py: `step` numbers steps as the timeline
does, 0 is before the first node; the inspector's script writes the URL; the page follows a URL only when
it is neither the one it last received nor the one it last wrote), plus `graph`, which is loaded only
through the page's allow-list (rag_debugger/debugger/allowlist.py), as if typed in the Graph field. A run of the link is
replayed from the run history at that step; a run that this browser session holds travels there.

The rules are pure functions (`graph_link_for`, `parse_graph_link`); the page (rag_debugger/ui/graph_page.py) does
the opening and writes the URL (rag_debugger/ui/link_opening.py `query_string`).
"""
from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Optional

from rag.i18n import _
from rag_debugger.debugger.allowlist import well_formed
from rag_debugger.views.run_link import RUN_PARAM, STEP_PARAM, Link, link_for, parse_link

GRAPH_PARAM = "graph"
WRITTEN_KEY = "_yg_link_written"
RECEIVED_KEY = "_yg_link_received"
MAX_SPEC_CHARS = 300


class GraphLink(NamedTuple):
    spec: Optional[str]
    """None when the URL names no graph, or a text that cannot be one."""
    run: Link
    problems: tuple[str, ...] = ()


def root(session: Any) -> Any:
    """The session a link names: inside a subgraph, the parent graph's (a child run is not recorded)."""
    while getattr(session, "parent", None) is not None:
        session = session.parent
    return session


def graph_link_for(session: Any, travel: Optional[int]) -> dict[str, str]:
    """The query parameters naming what the page shows: the graph, and the recorded run and step when
    there is one."""
    top = root(session)
    params = {GRAPH_PARAM: top.spec}
    if top is session:
        params.update(link_for(session, travel))
    return params


def parse_graph_link(params: Mapping[str, Any]) -> GraphLink:
    """Read `graph`, `run` and `step`; never raises, never imports."""
    raw = str(params.get(GRAPH_PARAM) or "").strip()
    problems: list[str] = []
    spec: Optional[str] = raw or None
    if spec is not None and (len(spec) > MAX_SPEC_CHARS or not well_formed(spec)):
        shown = raw if len(raw) <= 40 else raw[:39] + "…"
        problems.append(_("“{text}” in the link is not a graph (package.module:attr).").format(text=shown))
        spec = None
    run = parse_link(params)
    return GraphLink(spec, run, tuple(problems) + run.problems)


def link_params(query: Mapping[str, Any]) -> dict[str, str]:
    """The link's own parameters out of a page's query parameters."""
    return {key: str(query.get(key, "")) for key in query.keys() if key in (GRAPH_PARAM, RUN_PARAM, STEP_PARAM)}


__all__ = ["GRAPH_PARAM", "GraphLink", "graph_link_for", "link_params", "parse_graph_link"]
