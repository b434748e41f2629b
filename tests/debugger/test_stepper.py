"""The stepper drives real LangGraph graphs one superstep at a time."""
from __future__ import annotations

import pytest

from rag_debugger.debugger import GraphStepper, StepperError
from tests.debugger import toy_graphs as tg


@pytest.fixture(autouse=True)
def _reset_calls():
    tg.CALLS.clear()


def test_start_pauses_before_first_node_and_runs_nothing():
    s = GraphStepper(tg.linear_graph())
    s.start({"n": 0})
    assert s.next_nodes == ("a",)
    assert s.steps == [] and not s.done and s.error is None
    assert sum(tg.CALLS.values()) == 0
    assert s.current_values() == {"n": 0, "log": []}


def test_linear_graph_takes_one_step_per_node():
    s = GraphStepper(tg.linear_graph())
    s.start({"n": 0})
    r = s.step()
    assert (r.index, r.nodes) == (0, ("a",))
    assert r.values_before["n"] == 0 and r.values_after["n"] == 1
    assert r.next_nodes == ("b",) and s.next_nodes == ("b",)
    assert r.duration_ms >= 0 and r.before_checkpoint_id != r.after_checkpoint_id
    assert tg.CALLS == {"a": 1}
    rest = s.run_to_end()
    assert [x.nodes for x in rest] == [("b",), ("c",)]
    assert s.done and [x.index for x in s.steps] == [0, 1, 2]
    assert s.current_values() == {"n": 3, "log": ["a", "b", "c"]}
    assert s.run_to_end() == []


def test_step_misuse_raises_clear_errors():
    s = GraphStepper(tg.linear_graph())
    with pytest.raises(StepperError, match="start"):
        s.step()
    with pytest.raises(StepperError, match="start"):
        s.restart()
    assert s.next_nodes == () and s.current_values() == {} and s.checkpoints == [] and not s.done
    s.start({"n": 0})
    s.run_to_end()
    with pytest.raises(StepperError, match="finished"):
        s.step()
    with pytest.raises(ValueError):
        s.run_to_end(max_steps=0)


def test_graph_without_checkpointer_is_rejected():
    from langgraph.graph import END, START, StateGraph

    b = StateGraph(tg.CrashState)
    b.add_node("ok", tg.ok_node)
    b.add_edge(START, "ok")
    b.add_edge("ok", END)
    with pytest.raises(ValueError, match="checkpointer"):
        GraphStepper(b.compile())
    with pytest.raises(ValueError, match="thread_id"):
        GraphStepper(tg.linear_graph(), thread_id="  ")


def test_conditional_graph_follows_the_router():
    s = GraphStepper(tg.conditional_graph())
    s.start({"x": -5})
    records = s.run_to_end()
    assert [r.nodes for r in records] == [("classify",), ("negative",), ("check",)]
    assert s.done
    assert s.current_values() == {"x": -5, "route": "neg", "answer": None}


def test_send_fanout_runs_three_lanes_in_one_superstep_with_their_own_writes():
    s = GraphStepper(tg.fanout_graph())
    s.start({"question": "q"})
    s.step()  # plan
    assert s.next_nodes == ("worker", "worker", "worker")
    r = s.step()
    assert r.nodes == ("worker",)
    assert len(r.lanes) == 3
    assert len({lane.task_id for lane in r.lanes}) == 3
    assert sorted(lane.writes["results"][0] for lane in r.lanes) == ["Q-0", "Q-1", "Q-2"]
    assert all(len(lane.writes["results"]) == 1 and lane.error is None for lane in r.lanes)
    assert tg.CALLS["worker"] == 3
    assert r.values_after["results"] == ["Q-0", "Q-1", "Q-2"]
    appended = [row for row in r.diff if row.kind == "appended"]
    assert [(row.path, row.after) for row in appended] == [
        ("results[0]", "Q-0"), ("results[1]", "Q-1"), ("results[2]", "Q-2")]
    s.run_to_end()
    assert s.done and s.current_values()["final"] == "Q-0+Q-1+Q-2"


def test_failing_node_is_recorded_not_raised_and_restart_recovers():
    s = GraphStepper(tg.crashing_graph())
    s.start({})
    records = s.run_to_end()
    assert [r.nodes for r in records] == [("ok",), ("crash",)]
    bad = records[-1]
    assert bad.error == "RuntimeError: disk on fire" and not bad.ok
    assert bad.lanes[0].error == "RuntimeError: disk on fire"
    assert "Traceback" not in bad.error
    assert s.error == bad.error and not s.done
    assert s.next_nodes == ("crash",)  # nothing advanced
    assert bad.after_checkpoint_id == bad.before_checkpoint_id
    # stepping again retries the failed superstep, still recorded not raised
    again = s.step()
    assert again.error == bad.error
    old_thread = s.thread_id
    s.restart()
    assert s.thread_id != old_thread and s.error is None and s.steps == []
    assert s.next_nodes == ("ok",)


def test_one_failing_lane_keeps_the_others_results():
    s = GraphStepper(tg.fanout_graph())
    s.start({"question": "boom"})
    s.step()
    r = s.step()
    assert r.error == "ValueError: worker failed on boom-1"
    by_error = {lane.error is None: lane for lane in r.lanes}
    assert len(r.lanes) == 3
    assert [lane.error for lane in r.lanes].count(None) == 2
    assert by_error[False].writes is None
    assert sorted(x.writes["results"][0] for x in r.lanes if x.writes) == ["BOOM-0", "BOOM-2"]
    assert tg.CALLS["worker"] == 3
    retry = s.run_to_end()  # retries the superstep and stops at the error again
    assert len(retry) == 1 and retry[0].error == r.error
    assert tg.CALLS["worker"] == 4  # only the failed lane ran again: LangGraph kept the others' writes


def test_time_travel_views_old_state_and_runs_nothing():
    s = GraphStepper(tg.linear_graph())
    s.start({"n": 0})
    s.run_to_end()
    calls = dict(tg.CALLS)
    position = s.current_values()
    assert s.state_at(0) == {"n": 1, "log": ["a"]}
    assert s.state_at(1)["n"] == 2
    assert s.state_at(-1)["n"] == 3
    assert s.state_at(s.start_checkpoint_id) == {"n": 0, "log": []}
    assert s.state_at(s.steps[1].before_checkpoint_id) == s.state_at(0)
    assert dict(tg.CALLS) == calls  # nothing re-executed
    assert s.current_values() == position and s.done  # the session did not move
    with pytest.raises(StepperError, match="no step 7"):
        s.state_at(7)
    with pytest.raises(StepperError, match="unknown checkpoint"):
        s.state_at("1f000000-0000-6000-8000-000000000000")
    with pytest.raises(StepperError):
        s.state_at("")


def test_checkpoints_list_oldest_first():
    s = GraphStepper(tg.linear_graph())
    s.start({"n": 0})
    s.run_to_end()
    cps = s.checkpoints
    assert [c.step for c in cps] == [-1, 0, 1, 2, 3]
    assert cps[0].source == "input" and cps[1].checkpoint_id == s.start_checkpoint_id
    assert cps[1].next_nodes == ("a",) and cps[-1].next_nodes == ()
    assert [c.checkpoint_id for c in cps[2:]] == [r.after_checkpoint_id for r in s.steps]


def test_restart_uses_a_fresh_thread_and_keeps_the_old_one():
    s = GraphStepper(tg.linear_graph(), thread_id="mine")
    assert s.thread_id == "mine"
    s.start({"n": 10})
    s.run_to_end()
    old = s.steps[-1].after_checkpoint_id
    s.restart()
    assert s.thread_id == "mine:1" and s.steps == [] and s.current_values() == {"n": 10, "log": []}
    s.step()
    assert s.current_values()["n"] == 11
    s.restart({"n": 100})
    assert s.thread_id == "mine:2" and s.current_values()["n"] == 100
    s.start({"n": 5})  # start on a used stepper also moves on
    assert s.thread_id == "mine:3"
    # the first thread still holds its final state
    g = s.graph
    assert g.get_state({"configurable": {"thread_id": "mine", "checkpoint_id": old}}).values["n"] == 13


def test_two_steppers_on_one_graph_are_isolated():
    graph = tg.linear_graph()
    s1, s2 = GraphStepper(graph), GraphStepper(graph)
    assert s1.thread_id != s2.thread_id
    s1.start({"n": 0})
    s2.start({"n": 100})
    s1.run_to_end()
    assert s2.next_nodes == ("a",) and s2.steps == []
    assert s2.current_values() == {"n": 100, "log": []}
    s2.step()
    assert s1.current_values()["n"] == 3 and s2.current_values()["n"] == 101


def test_runtime_context_is_passed_through():
    s = GraphStepper(tg.context_graph(), context=tg.Multiplier(factor=7))
    s.start({"n": 3})
    (r,) = s.run_to_end()
    assert r.lanes[0].writes == {"n": 21} and s.current_values() == {"n": 21}


def test_on_step_hook_fills_annotations_and_a_broken_hook_does_not_lose_the_step():
    seen = []

    def hook(record):
        seen.append(record.index)
        record.annotations["progress"] = [f"ran {','.join(record.nodes)}"]

    s = GraphStepper(tg.linear_graph(), on_step=hook)
    s.start({"n": 0})
    s.run_to_end()
    assert seen == [0, 1, 2]
    assert s.steps[1].annotations == {"progress": ["ran b"]}

    def broken(record):
        raise KeyError("sink gone")

    s2 = GraphStepper(tg.linear_graph(), on_step=broken)
    s2.start({"n": 0})
    r = s2.step()
    assert r.annotations["on_step_error"] == "KeyError: 'sink gone'" and r.ok


def test_bad_input_is_recorded_on_start():
    s = GraphStepper(tg.linear_graph())
    s.start("not a dict")
    assert s.error and "Traceback" not in s.error
    assert not s.done
    with pytest.raises(StepperError, match="did not start"):
        s.step()
    assert s.run_to_end() == []
    s.restart({"n": 1})
    assert s.error is None and s.next_nodes == ("a",)


def test_nested_fields_flow_into_the_record_diff():
    s = GraphStepper(tg.fanout_graph(), nested_fields={"trace"})
    assert s.append_fields == {"results"}
    s.start({"question": "q"})
    records = s.run_to_end()
    merge = records[-1]
    kinds = {row.path: row.kind for row in merge.diff}
    assert kinds["trace.stage"] == "removed"
    assert kinds["trace.route"] == "added" and kinds["trace.count"] == "added"
    assert kinds["final"] == "added" and kinds["question"] == "unchanged"
