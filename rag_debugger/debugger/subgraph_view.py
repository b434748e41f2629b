"""Draw a graph whose nodes may be compiled graphs themselves: each subgraph is a cluster.

LangGraph's `get_graph(xray=1)` already lists a subgraph's inner nodes as `parent:inner`; this
wraps them in a Graphviz cluster labelled with the parent node, and marks the whole cluster when
the parent node is about to run or has run (the parent graph steps a subgraph as one task). Built
on `graph_view.graph_to_dot`, so every other mark (current, done, Send) is the same.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from rag_debugger.debugger.breakpoints import CompiledBreakpoints
from rag_debugger.debugger.graph_view import END_ID, SEND_LAYOUT_LABEL, START_ID, GraphDrawing, _q, graph_to_dot
from rag_debugger.debugger.i18n import _

SEP = ":"


def subgraph_names(graph: Any) -> tuple[str, ...]:
    """The nodes of `graph` that are compiled graphs (empty for a graph without subgraphs)."""
    try:
        return tuple(name for name, _ in graph.get_subgraphs())
    except Exception:  # noqa: BLE001 - an object without subgraph support has none
        return ()


def drawing(graph: Any) -> Any:
    """LangGraph's drawing of `graph`, one level into its subgraphs when it has any."""
    return graph.get_graph(xray=1) if subgraph_names(graph) else graph.get_graph()


def members(drawn: Any, name: str) -> list[str]:
    """The drawn inner nodes of subgraph `name` (its own START / END are not drawn)."""
    prefix = name + SEP
    return [n for n in drawn.nodes if n.startswith(prefix) and n.rsplit(SEP, 1)[-1] not in (START_ID, END_ID)]


def _expand(names: Iterable[str], clusters: dict[str, list[str]]) -> set[str]:
    out: set[str] = set()
    for n in names:
        out.update(clusters.get(n) or [n])
    return out


def subgraph_dot(graph: Any, drawn: Any, *, current: Iterable[str] = (), done: Iterable[str] = (),
                 **kwargs: Any) -> str:
    """`graph_to_dot` of `drawn` (see `drawing`) with one cluster per subgraph of `graph`."""
    clusters = {name: members(drawn, name) for name in subgraph_names(graph)}
    clusters = {k: v for k, v in clusters.items() if v}
    kwargs.setdefault("pauses", CompiledBreakpoints.of(graph).labels())
    dot = graph_to_dot(drawn, current=_expand(current, clusters), done=_expand(done, clusters), **kwargs)
    if not clusters:
        return dot
    for inner in clusters.values():  # inside its cluster a node needs no prefix: "search", not "research:search"
        for n in inner:
            dot = dot.replace(f"{_q(n)} [label={_q(n)}", f"{_q(n)} [label={_q(n.split(SEP, 1)[1])}", 1)
    lines = []
    for name, inner in clusters.items():
        lines.append(f"  subgraph {_q('cluster_sub_' + name)} {{")
        label = _q(_("{name} (subgraph)").format(name=name))
        lines.append(f'    label={label}; style="rounded"; color="#7e57c2"; fontcolor="#4527a0";')
        lines.extend(f"    {_q(n)};" for n in inner)
        lines.append("  }")
    body = dot.rstrip()
    assert body.endswith("}")
    return body[:-1] + "\n".join(lines) + "\n}\n"


_layouts: dict[tuple, tuple[Any, Any, str]] = {}


@dataclass(frozen=True)
class SubgraphDrawing(GraphDrawing):
    """A `GraphDrawing` whose picture draws each subgraph of `root` as a cluster: laid out once like
    any drawing, with a subgraph node's marks spread over its cluster's nodes."""

    root: Any = None

    def _clusters(self) -> dict[str, list[str]]:
        found = {name: members(self.graph, name) for name in subgraph_names(self.root)}
        return {k: v for k, v in found.items() if v}

    def dot(self) -> str:
        return subgraph_dot(self.root, self.graph, current=self.current, done=self.done,
                            fanout_edges=self.fanout_edges, title=self.title, docs=self.docs, legend=False)

    def layout_dot(self) -> str:
        """The unmarked DOT the picture is laid out from, built once per graph, fan-outs seen, title,
        docs and language (a page draws it at every Step, a file at every position)."""
        bare = tuple((str(e[0]), str(e[1])) for e in self.fanout_edges)
        docs = tuple(sorted(self.docs.items())) if isinstance(self.docs, Mapping) else self.docs
        key = (id(self.root), id(self.graph), bare, self.title, docs, _("{name} (subgraph)"))
        hit = _layouts.get(key)
        if hit is not None and hit[0] is self.root and hit[1] is self.graph:
            return hit[2]
        dot = subgraph_dot(self.root, self.graph, fanout_edges=bare, title=self.title, docs=self.docs,
                           legend=False, fanout_label=SEND_LAYOUT_LABEL)
        if len(_layouts) >= 256:
            _layouts.clear()
        _layouts[key] = (self.root, self.graph, dot)  # holds the graphs: their ids stay theirs
        return dot

    def marks(self) -> dict[str, Any]:
        clusters = self._clusters()
        current = sorted(_expand(self.current, clusters))
        done = sorted(_expand(self.done, clusters) - set(current))
        return {**super().marks(), "current": current, "done": done}


__all__ = ["SubgraphDrawing", "drawing", "members", "subgraph_dot", "subgraph_names"]
