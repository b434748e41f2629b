"""A generic step debugger for compiled LangGraph graphs.

Stepping (`GraphStepper`), state diffs (`diff_states`), graph drawing (`graph_to_dot`) and the
timeline (`build_timeline`). It knows nothing about RAG, so it can step any `StateGraph` compiled
with a checkpointer; domain panels sit on top of it.

The names are resolved lazily (PEP 562): `from debugger.errors import ...` or `debugger.lint` must
not pull in LangGraph, because the app's sidebar imports the error tree before the first paint.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "ABSENT": "debugger.diff",
    "ABSENT_TEXT": "debugger.diff",
    "DiffRow": "debugger.diff",
    "changed_rows": "debugger.diff",
    "diff_states": "debugger.diff",
    "diff_table": "debugger.diff",
    "format_value": "debugger.diff",
    "reducer_fields": "debugger.diff",
    "same_value": "debugger.diff",
    "fanout_edges_from_steps": "debugger.graph_view",
    "graph_to_dot": "debugger.graph_view",
    "node_docs": "debugger.graph_view",
    "orphan_nodes": "debugger.graph_view",
    "Stepper": "debugger.protocol",
    "CheckpointInfo": "debugger.records",
    "LaneRecord": "debugger.records",
    "PendingInterrupt": "debugger.records",
    "StepRecord": "debugger.records",
    "GraphStepper": "debugger.stepper",
    "StepperError": "debugger.errors",
    "describe_error": "debugger.stepper",
    "TimelineEntry": "debugger.timeline",
    "build_timeline": "debugger.timeline",
    "timeline_frame": "debugger.timeline",
    "timeline_rows": "debugger.timeline",
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
        raise AttributeError(f"module 'debugger' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:
    from debugger.diff import (
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
    from debugger.errors import StepperError
    from debugger.graph_view import (
        fanout_edges_from_steps,
        graph_to_dot,
        node_docs,
        orphan_nodes,
    )
    from debugger.protocol import Stepper
    from debugger.records import CheckpointInfo, LaneRecord, PendingInterrupt, StepRecord
    from debugger.stepper import GraphStepper, describe_error
    from debugger.timeline import TimelineEntry, build_timeline, timeline_frame, timeline_rows
