"""The timeline lists the steps run with durations, a caller-defined decision and annotations."""
from __future__ import annotations

from rag_debugger.debugger import GraphStepper, build_timeline, timeline_frame
from tests.debugger import toy_graphs as tg


def _run(question="q", **kw):
    s = GraphStepper(tg.fanout_graph(), **kw)
    s.start({"question": question})
    s.run_to_end()
    return s


def test_entries_follow_the_steps():
    s = _run(on_step=lambda r: r.annotations.update(progress=[f"did {r.nodes[0]}"]))
    entries = build_timeline(s.steps, decision=lambda v: (v.get("trace") or {}).get("route"))
    assert [e.index for e in entries] == [0, 1, 2]
    assert [e.nodes for e in entries] == [("plan",), ("worker",), ("merge",)]
    assert [e.lane_count for e in entries] == [1, 3, 1]
    assert [e.decision for e in entries] == [None, None, "answer"]
    assert entries[1].annotations == {"progress": ["did worker"]}
    assert all(e.duration_ms >= 0 for e in entries)
    assert entries[2].after_checkpoint_id == s.steps[2].after_checkpoint_id


def test_decision_values_are_rendered_and_a_broken_decision_is_shown_not_raised():
    s = _run()
    # shown on the step that made it, not repeated on later steps that decide nothing
    assert [e.decision for e in build_timeline(s.steps, decision=lambda v: len(v.get("results", [])))] == [
        None, "3", None]
    broken = build_timeline(s.steps, decision=lambda v: v["missing"])
    assert broken[0].decision == "‹decision failed: KeyError›"
    assert [e.decision for e in build_timeline(s.steps)] == [None, None, None]


def test_timeline_frame_columns_and_errors():
    s = GraphStepper(tg.crashing_graph(), on_step=lambda r: r.annotations.update(n=len(r.lanes)))
    s.start({})
    s.run_to_end()
    df = timeline_frame(s.steps, decision=lambda v: v.get("value"))
    assert list(df.columns) == ["step", "nodes", "lanes", "duration_ms", "decision", "error", "notes"]
    assert df["step"].tolist() == [1, 2]
    assert df["nodes"].tolist() == ["ok", "crash"]
    assert df["decision"].tolist() == ["1", ""]
    assert df["error"].tolist() == ["", "RuntimeError: disk on fire"]
    assert df["notes"].tolist() == ["n: 1", "n: 1"]
    custom = timeline_frame(build_timeline(s.steps), notes=lambda a: f"{a['n']} lane")
    assert custom["notes"].tolist() == ["1 lane", "1 lane"]
    assert timeline_frame([]).empty
