"""Draw a compiled graph as Graphviz DOT text, with the debugger's position marked on it.

Why DOT by hand: `draw_mermaid_png` calls a web service (offline here) and `draw_png` needs
pygraphviz; DOT built from `get_graph()` nodes/edges is a pure function (~ms), is laid out by
`rag_debugger.views.svg`, and is plain text that tests can assert on. Output is deterministic: nodes in graph
order (START first, END last), edges sorted by that order.

`GraphDrawing` splits a drawing in two: the topology, laid out once per graph, and the marks of
one position (about to run, already run, the fan-out count), written into the laid-out SVG as CSS
classes (`rag_debugger.views.svg.mark_svg`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Optional, Sequence

from rag_debugger.debugger.i18n import _
from rag_debugger.debugger.prefix_fold import PrefixFold

START_ID = "__start__"
END_ID = "__end__"

COLOR_CURRENT = "#ffb74d"  # orange: about to run
COLOR_DONE = "#a5d6a7"  # green: already run
COLOR_IDLE = "#ffffff"
COLOR_FANOUT = "#1565c0"  # blue: Send fan-out
COLOR_TERMINAL = "#424242"
COLOR_PAUSE = "#c62828"  # red double border: a breakpoint compiled into the graph

FanoutEdge = Sequence[Any]  # (source, target) or (source, target, count)


def _drawable(graph: Any) -> Any:
    """Accept a compiled graph (has `get_graph`) or an already drawn `Graph`."""
    return graph.get_graph() if hasattr(graph, "get_graph") else graph


def _q(text: Any) -> str:
    """A DOT double-quoted string."""
    s = str(text).replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return f'"{s}"'


def _attrs(attrs: Mapping[str, Any]) -> str:
    return "[" + ", ".join(f"{k}={_q(v)}" for k, v in attrs.items() if v is not None) + "]"


def _node_order(g: Any) -> list[str]:
    ids = list(g.nodes.keys())
    middle = [i for i in ids if i not in (START_ID, END_ID)]
    return ([START_ID] if START_ID in ids else []) + middle + ([END_ID] if END_ID in ids else [])


def _fanout_map(fanout_edges: Iterable[FanoutEdge]) -> dict[tuple[str, str], Optional[int]]:
    out: dict[tuple[str, str], Optional[int]] = {}
    for item in fanout_edges:
        if len(item) < 2:
            raise ValueError(f"a fan-out edge is (source, target[, count]), got {item!r}")
        count = int(item[2]) if len(item) > 2 and item[2] is not None else None
        out[(str(item[0]), str(item[1]))] = count
    return out


def _short_doc(doc: Optional[str], limit: int = 600) -> Optional[str]:
    if not doc:
        return None
    text = " ".join(doc.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def graph_to_dot(
    graph: Any,
    *,
    current: Iterable[str] = (),
    done: Iterable[str] = (),
    fanout_edges: Iterable[FanoutEdge] = (),
    conditional_labels: bool = True,
    title: Optional[str] = None,
    docs: Optional[Mapping[str, str]] = None,
    legend: bool = True,
    fanout_label: Optional[str] = None,
    pauses: Optional[Mapping[str, str]] = None,
) -> str:
    """DOT source for `graph` (compiled or `get_graph()` output).

    `current`: nodes about to run (orange, bold). `done`: nodes already run (green); a node in both
    (a loop) shows as current. `fanout_edges`: `(source, target[, count])` pairs drawn as `Send`
    edges (blue, bold, "Send ×N"); LangGraph's drawing cannot tell a `Send` router from an
    ordinary one, so the caller says which (see `fanout_edges_from_steps`). Conditional edges are
    dashed, labelled with their path-map key when `conditional_labels`. `docs`: node → tooltip.
    `fanout_label` replaces every fan-out edge's label. `pauses`: node -> "before" / "after", the
    breakpoints compiled into the graph (read from a compiled `graph` when not given), drawn with a red
    double border and said in the label: they never change, so they belong to the laid-out picture.
    """
    if pauses is None:
        from rag_debugger.debugger.breakpoints import CompiledBreakpoints

        pauses = CompiledBreakpoints.of(graph).labels()
    g = _drawable(graph)
    current_set = {str(n) for n in current}
    done_set = {str(n) for n in done}
    fanout = _fanout_map(fanout_edges)
    docs = dict(docs or {})
    order = _node_order(g)
    rank = {node_id: i for i, node_id in enumerate(order)}

    lines = [
        "digraph G {",
        '  graph [rankdir="TB", fontname="Helvetica", fontsize="12", nodesep="0.35", ranksep="0.45"];',
        '  node [fontname="Helvetica", fontsize="11", shape="box", style="rounded,filled", fillcolor="#ffffff"];',
        '  edge [fontname="Helvetica", fontsize="9"];',
    ]
    if title:
        lines.append(f'  labelloc="t"; label={_q(title)};')

    for node_id in order:
        node_attrs = _node_attrs(node_id, current_set, done_set, docs)
        if node_id in pauses:
            note = _("pauses {where}").format(where=pauses[node_id])
            node_attrs.update(label=f"{node_attrs.get('label', node_id)}\n({note})", color=COLOR_PAUSE,
                              peripheries="2")
        lines.append(f"  {_q(node_id)} {_attrs(node_attrs)};")

    edges = sorted(
        g.edges,
        key=lambda e: (rank.get(e.source, len(rank)), rank.get(e.target, len(rank)), str(e.data or "")),
    )
    for e in edges:
        attrs: dict[str, Any] = {}
        key = (e.source, e.target)
        if key in fanout:
            count = fanout[key]
            attrs.update(
                style="bold",
                color=COLOR_FANOUT,
                fontcolor=COLOR_FANOUT,
                penwidth="2.5",
                label=fanout_label or send_label(count),
            )
        elif e.conditional:
            attrs["style"] = "dashed"
            if conditional_labels and e.data is not None and str(e.data) != str(e.target):
                attrs["label"] = str(e.data)
        lines.append(f"  {_q(e.source)} -> {_q(e.target)}" + (f" {_attrs(attrs)}" if attrs else "") + ";")

    if legend:
        lines.extend(_legend_lines())
    lines.append("}")
    return "\n".join(lines) + "\n"


def _node_attrs(node_id: str, current: set[str], done: set[str], docs: Mapping[str, str]) -> dict[str, Any]:
    if node_id == START_ID:
        attrs: dict[str, Any] = dict(
            label="START", shape="circle", style="filled", fillcolor=COLOR_TERMINAL, fontcolor="#ffffff",
            fixedsize="true", width="0.7",
        )
    elif node_id == END_ID:
        attrs = dict(
            label="END", shape="doublecircle", style="filled", fillcolor=COLOR_TERMINAL, fontcolor="#ffffff",
            fixedsize="true", width="0.6",
        )
    else:
        attrs = dict(label=node_id)
    if node_id in current:
        attrs.update(style="filled,bold" if node_id in (START_ID, END_ID) else "rounded,filled,bold",
                     fillcolor=COLOR_CURRENT, fontcolor="#000000", penwidth="3")
    elif node_id in done:
        attrs.update(fillcolor=COLOR_DONE, fontcolor="#000000")
    tooltip = _short_doc(docs.get(node_id))
    if tooltip:
        attrs["tooltip"] = tooltip
    return attrs


def _legend_lines() -> list[str]:
    """A cluster with one sample per mark, so the colours explain themselves."""
    return [
        "  subgraph cluster_legend {",
        '    label="Legend"; style="rounded,dashed"; color="#9e9e9e"; fontsize="10";',
        '    node [fontsize="9", shape="box", style="rounded,filled", width="0.1", height="0.25"];',
        f'    "__legend_current" [label="about to run", style="rounded,filled,bold", fillcolor="{COLOR_CURRENT}", penwidth="3"];',
        f'    "__legend_done" [label="already run", fillcolor="{COLOR_DONE}"];',
        f'    "__legend_idle" [label="not run", fillcolor="{COLOR_IDLE}"];',
        '    "__legend_a" [label="", shape="point", width="0.05"];',
        '    "__legend_b" [label="", shape="point", width="0.05"];',
        '    "__legend_c" [label="", shape="point", width="0.05"];',
        '    "__legend_d" [label="", shape="point", width="0.05"];',
        '    "__legend_a" -> "__legend_b" [style="dashed", label="conditional"];',
        f'    "__legend_c" -> "__legend_d" [style="bold", color="{COLOR_FANOUT}", fontcolor="{COLOR_FANOUT}", '
        'penwidth="2.5", label="Send fan-out"];',
        '    "__legend_current" -> "__legend_done" -> "__legend_idle" [style="invis"];',
        "  }",
    ]


def orphan_nodes(graph: Any) -> set[str]:
    """Nodes with no edge at all in LangGraph's drawing.

    A router without a `path_map` or `Literal` return type makes the nodes it reaches lose all
    their edges in `get_graph()`; this finds them so a test can insist every node is wired.
    """
    g = _drawable(graph)
    touched = {e.source for e in g.edges} | {e.target for e in g.edges}
    return {node_id for node_id in g.nodes if node_id not in touched}


def fanout_edges_from_steps(graph: Any, steps: Iterable[Any]) -> tuple[tuple[str, str, int], ...]:
    """Fan-out edges observed at run time: a superstep with several lanes of one node.

    The source is the conditional edge into that node from a node of the previous step (the router
    that returned the `Send`s). The largest lane count seen is reported, for the "Send ×N" label.
    """
    g = _drawable(graph)
    conditional_sources: dict[str, set[str]] = {}
    for e in g.edges:
        if e.conditional:
            conditional_sources.setdefault(e.target, set()).add(e.source)
    records = steps if isinstance(steps, Sequence) else list(steps)
    found: dict[tuple[str, str], int] = {}
    for node, n, previous in _fanouts(records, len(records))[0]:
        sources = conditional_sources.get(node, set())
        chosen = sorted(s for s in sources if s in previous) or sorted(sources)
        for src in chosen:
            found[(src, node)] = max(n, found.get((src, node), 0))
    return tuple((s, t, n) for (s, t), n in sorted(found.items()))


def _add_fanouts(state: tuple[tuple, tuple], step: Any) -> tuple[tuple, tuple]:
    """(every (node, lanes, the previous step's nodes) of a step with several lanes of one node, the
    last step's nodes): the graph-free part of `fanout_edges_from_steps`, folded once per step."""
    seen, previous = state
    counts: dict[str, int] = {}
    for lane in step.lanes:
        counts[lane.node] = counts.get(lane.node, 0) + 1
    more = tuple((node, n, previous) for node, n in counts.items() if n >= 2)
    return seen + more if more else seen, tuple(step.nodes)


_fanouts = PrefixFold(lambda: ((), ()), _add_fanouts)


def fanouts_along(steps: Sequence[Any]) -> Iterator[tuple]:
    """Every (node, lanes, the previous step's nodes) of a step with several lanes of one node, after
    1, 2, ... steps, in one pass: with the graph, it decides `fanout_edges_from_steps`, so it can stand for
    them in a cache key."""
    return (seen for seen, _last in _fanouts.along(steps))


def node_docs(graph: Any) -> dict[str, str]:
    """Docstrings of the node functions, for `graph_to_dot(docs=...)` tooltips (best effort)."""
    out: dict[str, str] = {}
    for node_id, node in _drawable(graph).nodes.items():
        runnable = getattr(node, "data", None)
        func = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
        doc = getattr(func, "__doc__", None)
        if doc and node_id not in (START_ID, END_ID):
            out[node_id] = doc.strip()
    return out


SEND_LABEL = "Send"
SEND_LAYOUT_LABEL = "Send xN"
"""The fan-out label the layout reserves room for; the page writes the real one ("Send ×3") in."""


def send_label(count: Optional[int]) -> str:
    return f"{SEND_LABEL} ×{count}" if count else SEND_LABEL


@dataclass(frozen=True)
class GraphDrawing:
    """One position drawn on a graph: what `graph_to_dot` draws, split into the part that never
    changes for a compiled graph (`layout_dot`, laid out once) and the part a Step changes
    (`marks`, written into the laid-out picture as CSS classes). `dot()` is the same
    drawing as one DOT text with the marks as colours, for people and tests to read."""

    graph: Any
    current: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    fanout_edges: tuple[FanoutEdge, ...] = ()
    title: Optional[str] = None
    docs: Mapping[str, str] = field(default_factory=dict)

    def dot(self) -> str:
        return graph_to_dot(self.graph, current=self.current, done=self.done, fanout_edges=self.fanout_edges,
                            title=self.title, docs=self.docs, legend=False)

    def layout_dot(self) -> str:
        """The topology only: no marks, fan-out edges with a placeholder label as wide as a
        counted one. Equal for every position on one graph, so its layout is cached on this text."""
        bare = tuple((str(e[0]), str(e[1])) for e in self.fanout_edges)
        return graph_to_dot(self.graph, fanout_edges=bare, title=self.title, docs=self.docs, legend=False,
                            fanout_label=SEND_LAYOUT_LABEL)

    def marks(self) -> dict[str, Any]:
        """What is marked on the laid-out picture: node ids about to run and already run
        (a node in both shows as about to run), and the label of each fan-out edge by its
        `source->target` name (the edge's `<title>` in Graphviz's SVG)."""
        current = sorted({str(n) for n in self.current})
        done = sorted({str(n) for n in self.done} - set(current))
        send = {f"{s}->{t}": send_label(c) for (s, t), c in _fanout_map(self.fanout_edges).items()}
        return {"current": current, "done": done, "send": send}
