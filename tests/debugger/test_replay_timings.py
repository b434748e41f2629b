"""Timings a live stepper measured, kept with a recording and put back on its replayed steps: the step's
own duration, lane start/end and timed spans, matched by the checkpoint the step ran from."""
from __future__ import annotations

from rag_debugger.debugger.records import LaneRecord, StepRecord
from rag_debugger.debugger.replay import SPANS_RECORDED, StepTiming, apply_timings, step_timings
from rag_debugger.views.waterfall import waterfall_bars


def step(i, nodes, cp, lanes=(), ms=0.0, spans=None):
    return StepRecord(index=i, nodes=nodes, before_checkpoint_id=cp, duration_ms=ms,
                      lanes=tuple(LaneRecord(task_id=t, node=nodes[0], started_ms=s, ended_ms=e) for t, s, e in lanes),
                      annotations={"spans": spans} if spans else {})


def test_live_timings_round_trip_onto_replayed_steps():
    span = {"label": "grader · m", "start_ms": 2.0, "ms": 5.0, "detail": "", "ok": True}
    live = [step(0, ("plan",), "c0", [("t0", 0.1, 9.0)], ms=10.0, spans=[span]),
            step(1, ("sub",), "c1", [("t1", 0.2, 4.0), ("t2", 0.3, 6.0)], ms=7.0)]
    kept = [StepTiming.model_validate(t.model_dump(mode="json")) for t in step_timings(live)]  # through JSON
    # a replay knows the nodes, lanes and checkpoints, but only timestamp estimates and no spans
    replay = [step(0, ("plan",), "c0", [("t0", None, None)], ms=900.0),
              step(1, ("sub",), "c1", [("t1", None, None), ("t2", None, None)], ms=3000.0)]
    assert apply_timings(replay, kept) == 2
    assert waterfall_bars(replay) == waterfall_bars(live)
    assert all(r.annotations[SPANS_RECORDED] is True for r in replay)


def test_a_timing_for_other_nodes_is_not_applied_and_no_timings_is_said():
    replay = [step(0, ("plan",), "c0", ms=900.0)]
    assert apply_timings(replay, [StepTiming(checkpoint_id="c0", nodes=("other",), duration_ms=1.0)]) == 0
    assert replay[0].duration_ms == 900.0
    old = [step(0, ("plan",), "c0", ms=900.0)]
    assert apply_timings(old, None) == 0 and old[0].annotations[SPANS_RECORDED] is False
