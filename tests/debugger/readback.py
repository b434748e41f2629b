"""What a step's record looked like when the stepper read everything back with `get_state`.

The stepper now builds most records from what LangGraph streams; these helpers check a record and
the cached head against that read-back, so any difference between the two paths fails a test.
"""
from __future__ import annotations

from typing import Callable, Optional

from rag_debugger.debugger import GraphStepper, StepRecord
from rag_debugger.debugger.stepper import _checkpoint_id, _lane


def _head_view(snap) -> tuple:
    return (dict(snap.values), tuple(snap.next), _checkpoint_id(snap.config),
            tuple((t.id, t.name) for t in snap.tasks), _checkpoint_id(snap.parent_config))


def _by_id(s: GraphStepper, snap) -> dict:
    cfg = {"configurable": {"thread_id": s.thread_id, "checkpoint_id": _checkpoint_id(snap.config)}}
    return dict(s.graph.get_state(cfg).values)


def assert_head_is_read_back(s: GraphStepper) -> None:
    assert _head_view(s._snapshot()) == _head_view(s.graph.get_state(s.config))


def checked_step(s: GraphStepper, step: Optional[Callable[[], StepRecord]] = None):
    """Step once (with `step`, default `s.step`); assert the record equals the one the stepper
    built before streaming, from `get_state` alone; return it and how many `get_state` calls
    the step made (0: all streamed)."""
    g = s.graph
    live_before = g.get_state(s.config)
    calls = []
    real = g.get_state
    g.get_state = lambda *a, **k: (calls.append(a), real(*a, **k))[1]
    try:
        record = (step or s.step)()
    finally:
        del g.get_state
    before = g.get_state({"configurable": {"thread_id": s.thread_id, "checkpoint_id": record.before_checkpoint_id}})
    head = g.get_state(s.config)
    untimed = tuple(lane.model_copy(update={"started_ms": None, "ended_ms": None, "sent": None})
                    for lane in record.lanes)
    assert untimed == tuple(_lane(t) for t in before.tasks)  # timings and Send arguments exist only for what ran now
    # both read as the checkpoint holds them (by id: a failed or interrupted step's pending writes are not
    # applied), which is what time travel to the step reads too
    assert record.values_before == _by_id(s, live_before)
    assert record.values_after == _by_id(s, head)
    assert record.after_checkpoint_id == _checkpoint_id(head.config)
    assert record.next_nodes == (tuple(t.name for t in head.tasks) or tuple(head.next))
    assert_head_is_read_back(s)
    return record, len(calls)
