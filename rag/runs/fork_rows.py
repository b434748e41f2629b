"""What a run history keeps of a what-if fork, the same for both debugger pages' recorders (the RAG session's
`rag_debugger.workbench.recorder.RunRecorder` and Your graph's `rag.runs.graph_runs.GraphRunRecorder`, both hooks of the
one session): the run it forked from, and the edit as a row's `fork` (the parent's step, 1-based, the field, its
old and new value, as the export writes them)."""
from __future__ import annotations

from typing import Any, Optional

from rag_debugger.debugger.segment_chain import Segment
from rag_debugger.debugger.state_diff import jsonable


def fork_row(seg: Segment) -> Optional[tuple[Segment, dict[str, Any]]]:
    """(the segment `seg` forked from, the edit as the history keeps it), or None when `seg` is no fork."""
    if seg.fork_of is None:
        return None
    origin, index, field, new = seg.fork_of
    steps = origin.stepper.steps
    old = steps[index].values_after.get(field) if index < len(steps) else None
    return origin, {"step": index + 1, "field": field, "old": jsonable(old), "new": jsonable(new)}


def record_origin_head(history: Any, origin: Segment) -> None:
    """Write a live parent's head before its fork starts: the fork's checkpoints join its thread as a new
    branch, so both runs keep their head to tell the branches apart."""
    if origin.run_id is not None and not origin.replay and origin.stepper.steps:
        history.record_head(origin.run_id, origin.stepper.steps[-1].after_checkpoint_id)


__all__ = ["fork_row", "record_origin_head"]
