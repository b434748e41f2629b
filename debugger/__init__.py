"""A generic step debugger for compiled LangGraph graphs.

Stepping (`GraphStepper`), state diffs (`diff_states`), graph drawing (`graph_to_dot`) and the
timeline (`build_timeline`). It knows nothing about RAG, so it can step any `StateGraph` compiled
with a checkpointer; domain panels sit on top of it.
"""
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
from debugger.graph_view import (
    fanout_edges_from_steps,
    graph_to_dot,
    node_docs,
    orphan_nodes,
)
from debugger.protocol import Stepper
from debugger.records import CheckpointInfo, LaneRecord, PendingInterrupt, StepRecord
from debugger.stepper import GraphStepper, StepperError, describe_error
from debugger.timeline import TimelineEntry, build_timeline, timeline_frame, timeline_rows

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
