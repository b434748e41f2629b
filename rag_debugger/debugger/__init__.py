"""A generic step debugger for compiled LangGraph graphs.

Stepping (`GraphStepper`), state diffs (`diff_states`), graph drawing (`graph_to_dot`) and the
timeline (`build_timeline`). It knows nothing about RAG, so it can step any `StateGraph` compiled
with a checkpointer; domain panels sit on top of it.

The names are resolved lazily (PEP 562): `from rag_debugger.debugger.errors import ...` or `rag_debugger.debugger.lint` must
not pull in LangGraph, because the app's sidebar imports the error tree before the first paint.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "ABSENT": "rag_debugger.debugger.state_diff",
    "ABSENT_TEXT": "rag_debugger.debugger.state_diff",
    "DiffRow": "rag_debugger.debugger.state_diff",
    "changed_rows": "rag_debugger.debugger.state_diff",
    "diff_states": "rag_debugger.debugger.state_diff",
    "diff_table": "rag_debugger.debugger.state_diff",
    "format_value": "rag_debugger.debugger.state_diff",
    "reducer_fields": "rag_debugger.debugger.state_diff",
    "same_value": "rag_debugger.debugger.state_diff",
    "fanout_edges_from_steps": "rag_debugger.debugger.graph_view",
    "graph_to_dot": "rag_debugger.debugger.graph_view",
    "node_docs": "rag_debugger.debugger.graph_view",
    "orphan_nodes": "rag_debugger.debugger.graph_view",
    "Stepper": "rag_debugger.debugger.protocol",
    "CheckpointInfo": "rag_debugger.debugger.records",
    "LaneRecord": "rag_debugger.debugger.records",
    "PendingInterrupt": "rag_debugger.debugger.records",
    "StepRecord": "rag_debugger.debugger.records",
    "GraphStepper": "rag_debugger.debugger.stepper",
    "StepperError": "rag_debugger.debugger.errors",
    "describe_error": "rag_debugger.debugger.stepper",
    "TimelineEntry": "rag_debugger.debugger.timeline",
    "build_timeline": "rag_debugger.debugger.timeline",
    "timeline_frame": "rag_debugger.debugger.timeline",
    "timeline_rows": "rag_debugger.debugger.timeline",
}

__all__ = [
    "ABSENT",
    "ABSENT_TEXT",
    "CheckpointInfo",
    "DiffRow",
    "GraphStepper",
    "LaneRecord",
    "PendingInterrupt",
    "StepRecord",
    "Stepper",
    "StepperError",
    "TimelineEntry",
    "build_timeline",
    "changed_rows",
    "describe_error",
    "diff_states",
    "diff_table",
    "fanout_edges_from_steps",
    "format_value",
    "graph_to_dot",
    "node_docs",
    "orphan_nodes",
    "reducer_fields",
    "same_value",
    "timeline_frame",
    "timeline_rows",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rag_debugger.debugger' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from rag_debugger.debugger.errors import StepperError
    from rag_debugger.debugger.graph_view import (
        fanout_edges_from_steps,
        graph_to_dot,
        node_docs,
        orphan_nodes,
    )
    from rag_debugger.debugger.protocol import Stepper
    from rag_debugger.debugger.records import CheckpointInfo, LaneRecord, PendingInterrupt, StepRecord
    from rag_debugger.debugger.state_diff import (
        ABSENT,
        ABSENT_TEXT,
        DiffRow,
        changed_rows,
        diff_states,
        diff_table,
        format_value,
        reducer_fields,
        same_value,
    )
    from rag_debugger.debugger.stepper import GraphStepper, describe_error
    from rag_debugger.debugger.timeline import TimelineEntry, build_timeline, timeline_frame, timeline_rows
