"""The generic ReplayStepper: the same records as a live GraphStepper, with no graph execution."""
from __future__ import annotations

import json
import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from rag_debugger.debugger.errors import StepperError
from rag_debugger.debugger.records import StepRecord
from rag_debugger.debugger.replay import RecordedCheckpoint, ReplayStepper, linear_path, record_thread
from rag_debugger.debugger.stepper import GraphStepper


class S(TypedDict, total=False):
    items: list[str]
    out: Annotated[list, operator.add]
    total: int


def plan(state: S) -> dict:
    return {"total": 0}


def fan(state: S) -> list[Send]:
    return [Send("work", {"items": [i]}) for i in state["items"]]


def work(state: S) -> dict:
    return {"out": [state["items"][0].upper()]}


def join(state: S) -> dict:
    return {"total": len(state["out"])}


def toy_graph():
    g = StateGraph(S)
    g.add_node("plan", plan)
    g.add_node("work", work)
    g.add_node("join", join)
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", fan, ["work"])
    g.add_edge("work", "join")
    g.add_edge("join", END)
    return g.compile(checkpointer=InMemorySaver())


def live_session():
    graph = toy_graph()
    stepper = GraphStepper(graph, thread_id="live")
    stepper.start({"items": ["a", "b", "c"], "out": []})
    stepper.run_to_end()
    return graph, stepper


def test_replay_gives_the_records_of_the_live_session():
    graph, live = live_session()
    recorded = record_thread(graph, live.config)
    replay = ReplayStepper(recorded, append_fields={"out"})
    assert replay.replay is True and replay.total_steps == len(live.steps) == 3
    assert replay.next_nodes == ("plan",)
    for expected in live.steps:
        got = replay.step()
        assert isinstance(got, StepRecord)
        assert got.index == expected.index
        assert got.nodes == expected.nodes
        assert got.values_before == expected.values_before
        assert got.values_after == expected.values_after
        assert got.next_nodes == expected.next_nodes
        assert [(x.node, x.writes) for x in got.lanes] == [(x.node, x.writes) for x in expected.lanes]
        assert got.before_checkpoint_id == expected.before_checkpoint_id
        assert got.after_checkpoint_id == expected.after_checkpoint_id
    assert replay.done and replay.current_values()["total"] == 3
    assert replay.steps[1].nodes == ("work",) and len(replay.steps[1].lanes) == 3  # parallel lanes kept
    assert [r.kind for r in replay.steps[1].diff if r.kind == "appended"] == ["appended"] * 3
    with pytest.raises(StepperError, match="ended"):
        replay.step()


def test_replay_survives_json_and_runs_no_graph(monkeypatch):
    graph, live = live_session()
    data = json.loads(json.dumps([c.model_dump(mode="json") for c in record_thread(graph, live.config)]))

    from langgraph.pregel import Pregel

    def forbidden(*_a, **_k):
        raise AssertionError("a replay must not execute the graph")

    monkeypatch.setattr(Pregel, "invoke", forbidden)
    monkeypatch.setattr(Pregel, "stream", forbidden)
    replay = ReplayStepper(data)
    replay.run_to_end()
    assert replay.current_values() == live.current_values()


def test_time_travel_restart_and_checkpoints():
    graph, live = live_session()
    replay = ReplayStepper(record_thread(graph, live.config))
    assert replay.state_at(0) == live.state_at(0)  # any recorded step, before it was replayed
    assert replay.position == 0
    assert replay.state_at(live.steps[2].after_checkpoint_id)["total"] == 3
    replay.run_to_end()
    replay.restart()
    assert replay.position == 0 and replay.steps == [] and not replay.done
    assert [c.checkpoint_id for c in replay.checkpoints] == [c.checkpoint_id for c in live.checkpoints]
    with pytest.raises(StepperError, match="no step 9"):
        replay.state_at(9)
    with pytest.raises(StepperError, match="unknown checkpoint"):
        replay.state_at("nope")
    with pytest.raises(StepperError):
        replay.state_at(True)


def test_branching_thread_replays_the_branch_of_the_head():
    graph, live = live_session()
    before = len(live.checkpoints)
    # fork: re-run from the checkpoint after `plan`, which writes a second branch into the thread
    graph.invoke(None, {"configurable": {"thread_id": "live", "checkpoint_id": live.steps[0].after_checkpoint_id}})
    recorded = record_thread(graph, live.config)
    assert len(recorded) > before
    first_branch = ReplayStepper(recorded, head=live.steps[-1].after_checkpoint_id)
    assert first_branch.total_steps == 3
    newest = ReplayStepper(recorded)
    assert newest.path[-1].checkpoint_id == recorded[-1].checkpoint_id
    assert [c.source for c in newest.path] == ["input", "loop", "loop", "fork", "loop", "loop"]
    assert [s.nodes for s in newest.all_steps] == [("plan",), ("work",), ("join",)]  # the copy is no step
    newest.run_to_end()
    assert newest.current_values()["total"] == 3
    with pytest.raises(StepperError, match="unknown checkpoint"):
        linear_path(recorded, head="missing")


def test_empty_or_cyclic_recordings_are_refused():
    with pytest.raises(StepperError, match="no checkpoints"):
        ReplayStepper([])
    a = RecordedCheckpoint(checkpoint_id="a", parent_checkpoint_id="b", next=("x",))
    b = RecordedCheckpoint(checkpoint_id="b", parent_checkpoint_id="a", next=("x",))
    with pytest.raises(StepperError, match="cycle"):
        ReplayStepper([a, b])


def test_a_recorded_failure_is_the_last_step():
    cps = [
        RecordedCheckpoint(checkpoint_id="1", next=("boom",), values={"n": 1},
                           tasks=[{"id": "t", "name": "boom", "error": "ValueError: bad"}]),
    ]
    replay = ReplayStepper(cps)
    record = replay.step()
    assert record.error == "boom: ValueError: bad" and replay.error == record.error and replay.done


def test_to_dot_needs_a_graph():
    graph, live = live_session()
    replay = ReplayStepper(record_thread(graph, live.config))
    with pytest.raises(StepperError, match="without a graph"):
        replay.to_dot()
    replay.graph = toy_graph()
    replay.step()
    assert "digraph" in replay.to_dot()
