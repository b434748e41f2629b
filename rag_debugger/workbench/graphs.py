"""The compiled graphs sessions step, and their drawings: shared by every session of the process
(threads keep sessions apart), from the one registry (`rag.graph.build.compiled_graph`)."""
from __future__ import annotations

import threading
from typing import Any, Optional, cast

from rag.graph.build import FANOUT_EDGES, GraphKind, compiled_graph, node_docs
from rag.i18n import _
from rag_debugger.debugger.graph_view import GraphDrawing
from rag_debugger.debugger.position import marks_after
from rag_debugger.debugger.segment_chain import Segment

_saver = None
_saver_lock = threading.Lock()


def memory_saver() -> Any:
    """The process-wide in-memory checkpointer of sessions that record nowhere."""
    global _saver
    with _saver_lock:
        if _saver is None:
            from langgraph.checkpoint.memory import InMemorySaver

            _saver = InMemorySaver()
        return _saver


def shared_graph(kind: str, checkpointer: Any = None) -> Any:
    """`kind` is "main" or "resume"; without a checkpointer, the process-wide in-memory one."""
    if kind not in ("main", "resume"):
        raise ValueError(f"no {kind!r} graph: main or resume")
    return compiled_graph(cast(GraphKind, kind), checkpointer or memory_saver())


_drawings: dict[int, Any] = {}


def _drawn(graph: Any) -> Any:
    """`graph.get_graph()`, once per compiled graph: the topology never changes after compile and
    drawing it cost ~3 ms on every rerun of the page."""
    key = id(graph)
    if key not in _drawings:
        _drawings[key] = graph.get_graph()
    return _drawings[key]


def route_decision(values: dict) -> Optional[str]:
    """What a step decided, for the timeline: the route once graded, else the complexity."""
    route = values.get("route")
    if route:
        return f"route={route} ({values.get('retrieval_status')})"
    if values.get("complexity"):
        return f"complexity={values['complexity']}"
    return None


def drawing(seg: Optional[Segment], steps: int, checkpointer: Any) -> GraphDrawing:
    """The graph `seg` ran in (main or resume), with what had run after `steps` of its steps and what
    ran next. Its topology is laid out once per graph; only the marks move."""
    kind = seg.kind if seg else "main"
    graph = seg.graph if seg and seg.graph is not None else shared_graph(kind, checkpointer)
    title = _("RAG workflow") if kind == "main" else _("HITL resume path")
    if seg is None:
        return GraphDrawing(_drawn(graph), fanout_edges=tuple(FANOUT_EDGES), title=title, docs=node_docs())
    stepper = seg.stepper
    # the head's view, except at a replay's end, where a recording cut short still knows
    # (from its last record) which node was about to run
    latest = steps == len(stepper.steps) and not (seg.replay and stepper.done)
    marks = marks_after(stepper.steps, steps, next_now=stepper.next_nodes if latest else None,
                        finished_now=stepper.done if latest else None)
    fanout = tuple((src, dst, marks.lanes or None) for src, dst in FANOUT_EDGES)
    return GraphDrawing(_drawn(graph), current=tuple(marks.current), done=tuple(sorted(marks.done)),
                        fanout_edges=fanout, title=title, docs=node_docs())
