"""The waterfall: steps end to end, parallel lanes side by side under their step, spans (model
calls) inside their step, failures marked, escaped."""
from __future__ import annotations

from rag_debugger.debugger import LaneRecord, StepRecord
from rag_debugger.views.waterfall import waterfall_bars, waterfall_html


def rec(i, nodes, ms, lanes=(), spans=None, error=None):
    return StepRecord(index=i, nodes=nodes, duration_ms=ms, lanes=lanes, error=error,
                      annotations={"spans": spans} if spans else {})


def test_steps_end_to_end_lanes_in_parallel_and_spans_inside():
    lanes = (LaneRecord(task_id="a", node="sub", started_ms=1.0, ended_ms=40.0),
             LaneRecord(task_id="b", node="sub", started_ms=2.0, ended_ms=30.0, error="boom"))
    records = [rec(0, ("plan",), 10.0, spans=[{"label": "planner · m", "start_ms": 2.0, "ms": 7.0, "detail": "9 → 3 tokens"}]),
               rec(1, ("sub",), 50.0, lanes=lanes)]
    bars = waterfall_bars(records)
    assert [(b.kind, b.label, b.start_ms, b.ms) for b in bars] == [
        ("step", "1. plan", 0.0, 10.0), ("span", "planner · m", 2.0, 7.0),
        ("step", "2. sub", 10.0, 50.0), ("lane", "lane 1: sub", 11.0, 39.0), ("lane", "lane 2: sub", 12.0, 28.0)]
    assert bars[-1].failed and not bars[-2].failed
    # lanes overlap in time: parallel, side by side
    assert bars[3].start_ms < bars[4].start_ms + bars[4].ms and bars[4].start_ms < bars[3].start_ms + bars[3].ms


def test_a_span_cannot_start_outside_its_step_and_html_is_escaped():
    records = [rec(0, ("<n>",), 5.0, spans=[{"label": "x<y>", "start_ms": 99.0, "ms": 1.0, "ok": False}])]
    bars = waterfall_bars(records)
    assert bars[1].start_ms == 5.0 and bars[1].failed
    html = waterfall_html(records, note="1 model calls")
    assert "<n>" not in html and "&lt;n&gt;" in html and "rdi-wf-failed" in html and "1 model calls" in html
    assert html.count('class="rdi-wf-row') == 2
    assert waterfall_html([]) == ""
