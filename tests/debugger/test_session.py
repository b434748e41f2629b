"""The "Your graph" session without Streamlit: loading, launch options, context, export and replay."""
from __future__ import annotations

import json

import pytest
from langgraph.graph import END, START, StateGraph

from rag_debugger.debugger.errors import DebuggerUserError, GraphLoadError
from rag_debugger.debugger.loading import load_saved_input, with_checkpointer
from rag_debugger.debugger.session import GraphSession
from rag_debugger.launch import parse_launch


def test_launch_options_come_from_the_command_line_then_the_environment():
    opts = parse_launch(["--graph", "a.b:g", "--input", "in.json"], {"RAG_DEBUG_GRAPH": "x:y", "RAG_DEBUG_CONTEXT": "c:d"})
    assert opts.graph == "a.b:g" and opts.input == "in.json" and opts.context == "c:d"
    assert parse_launch([], {"RAG_DEBUG_GRAPH": "x:y"}).graph == "x:y"
    assert parse_launch(["-q", "--gr", "tests/x.py"], {}).graph is None  # someone else's arguments


def test_a_graph_compiled_without_a_checkpointer_gets_one_and_is_left_as_it_was():
    b = StateGraph(dict)
    b.add_node("a", lambda s: {})
    b.add_edge(START, "a")
    b.add_edge("a", END)
    plain = b.compile()
    steppable = with_checkpointer(plain)
    assert steppable.checkpointer is not None and plain.checkpointer is None


def test_a_bad_path_is_a_user_error():
    with pytest.raises(GraphLoadError, match="could not import"):
        GraphSession.open("no.such:module")


def test_a_context_factory_is_called():
    s = GraphSession.open("rag_debugger.examples.chain:graph", context_spec="collections:OrderedDict")
    assert s.context == {}


def test_a_saved_input_is_any_json_value_and_a_broken_file_is_named(tmp_path):
    listed = tmp_path / "in.json"
    listed.write_text("[1]")
    assert load_saved_input(str(listed)) == [1]  # a graph whose input is one list takes it
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(DebuggerUserError, match="not valid JSON"):
        load_saved_input(str(broken))
    with pytest.raises(DebuggerUserError, match="could not read"):
        load_saved_input(str(tmp_path / "missing.json"))


def test_a_run_exports_and_replays_with_the_same_steps():
    s = GraphSession.open("rag_debugger.examples.fanout:graph")
    s.start({"words": ["a", "bb"]})
    s.run_to_end()
    live = [(r.nodes, r.values_after) for _, r in s.all_steps()]
    data = json.loads(json.dumps(s.export_run()))
    replay = GraphSession.open("rag_debugger.examples.fanout:graph")
    replay.open_replay(data)
    replay.run_to_end()
    assert replay.replay_mode and [(r.nodes, r.values_after) for _, r in replay.all_steps()] == live
    with pytest.raises(DebuggerUserError, match="not a run exported"):
        replay.open_replay({"format": "other"})


def test_step_waits_for_the_answer_to_an_interrupt():
    s = GraphSession.open("rag_debugger.examples.approval:graph")
    s.start({"request": "r"})
    s.run_to_end()
    assert s.done and not s.finished  # the Step and Continue buttons are off until answered
    with pytest.raises(DebuggerUserError, match="waiting for your answer"):
        s.step()
    s.resume("reject")
    s.run_to_end()
    assert s.finished and s.current.stepper.current_values()["status"] == "revise"


def test_step_into_a_subgraph_runs_it_node_by_node_on_the_parents_input():
    parent = GraphSession.open("rag_debugger.examples.nested:graph")
    parent.start({"topic": " graphs "})
    assert parent.subgraphs_next() == ()
    parent.step()  # plan
    assert parent.subgraphs_next() == ("research",)
    child = parent.step_into("research")
    assert child.parent is parent and child.current.stepper.current_values()["topic"] == "graphs"
    assert child.current.stepper.next_nodes == ("search",)
    child.step()
    assert child.current.stepper.next_nodes == ("summarize",)
    child.run_to_end()
    assert child.finished and child.current.stepper.current_values()["notes"][-1] == "summary: graphs is a topic"
    assert parent.current.stepper.next_nodes == ("research",)  # the parent has not moved
    with pytest.raises(DebuggerUserError, match="not a subgraph"):
        parent.step_into("plan")


def test_the_react_example_loops_through_its_tool_until_it_answers():
    s = GraphSession.open("rag_debugger.examples.react:graph")
    assert s.lint() == []
    s.start({"question": "(3 + 4) * 2?", "numbers": [3, 4]})
    s.run_to_end()
    assert [r.nodes for _, r in s.all_steps()] == [("agent",), ("tools",), ("agent",), ("tools",), ("agent",)]
    assert s.current.stepper.current_values()["answer"] == "The answer is 14."


@pytest.mark.parametrize("spec", [f"rag_debugger.examples.{name}:graph"
                                  for name in ("chain", "fanout", "approval", "nested", "react")])
def test_every_example_lints_clean(spec):
    assert GraphSession.open(spec).lint() == []


# ----- Continue, breakpoints, what-if and the hooks: the one generic session ----------------------

def test_continue_stops_before_a_breakpoint_and_goes_past_it_when_continued_again():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a  b"})
    assert s.continue_({"shout"}).hit == "shout"
    assert s.current.stepper.next_nodes == ("shout",) and len(s.all_steps()) == 2
    assert s.continue_({"shout"}).hit is None  # from the breakpoint: one step at least, then the end
    assert s.finished and len(s.all_steps()) == 3


def test_continue_without_breakpoints_runs_to_the_end_and_streams_each_step():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "x"})
    seen = []
    assert s.continue_((), on_step=lambda r: seen.append(r.nodes)).hit is None
    assert seen == [("clean",), ("count",), ("shout",)] and s.finished


def test_continue_stops_at_an_interrupt_and_a_breakpoint_on_a_fanned_out_node_pauses_before_all_lanes():
    s = GraphSession.open("rag_debugger.examples.approval:graph")
    s.start({"request": "r"})
    assert s.continue_(()).hit is None and s.pending_interrupts() and not s.finished
    f = GraphSession.open("rag_debugger.examples.fanout:graph")
    f.start({"words": ["a", "bb", "ccc"]})
    assert f.continue_({"measure"}).hit == "measure"
    assert f.current.stepper.next_nodes == ("measure",) * 3  # before all three lanes, none has run


def test_a_fork_runs_forward_from_an_edited_step_and_compares_with_the_original():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "one two three"})
    s.run_to_end()
    fork = s.fork(0, "text", "just two")  # after clean
    assert fork.fork_of[1] == 0 and fork.fork_of[2] == "text" and fork.stepper.done
    assert [seg.label for seg in s.segments] == ["run", "what-if #1"]
    original, forked = s.fork_comparison()
    assert original["words"] == 3 and forked["words"] == 2 and forked["shouted"] == "JUST TWO"
    assert len(s.all_steps()) == 5  # the original's 3 steps stay in the timeline, then count and shout
    assert s.segments[0].stepper.current_values()["shouted"] == "ONE TWO THREE"  # the original branch is intact


def test_a_fork_refuses_an_appending_field_and_a_step_out_of_range():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a"})
    s.run_to_end()
    with pytest.raises(DebuggerUserError, match="appending reducer"):
        s.fork(0, "log", ["x"])
    with pytest.raises(DebuggerUserError, match="pick a step from 1 to 3"):
        s.fork(7, "text", "b")


def test_a_recorded_run_forks_live_onto_a_new_thread():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a b"})
    s.run_to_end()
    replay = GraphSession.open("rag_debugger.examples.chain:graph")
    replay.open_replay(json.loads(json.dumps(s.export_run())))
    replay.run_to_end()
    fork = replay.fork(1, "text", "x y z")  # after count: shout runs on the edit
    assert not replay.replay_mode and fork.stepper.current_values()["shouted"] == "X Y Z"
    assert replay.fork_comparison()[0]["shouted"] == "A B"


class Notes:
    def __init__(self):
        self.events = []

    def started(self, session, seg):
        self.events.append(("started", seg.label))

    def ended(self, session, seg):
        self.events.append(("ended", seg.label, len(seg.stepper.steps), seg.stepper.error))

    def dropped(self, session, seg):
        self.events.append(("dropped", seg.label))

    def paused(self, session, seg):
        self.events.append(("paused", seg.label, len(seg.stepper.steps)))


class Broken:
    def started(self, session, seg):
        raise RuntimeError("the history is down")

    ended = dropped = paused = started


def test_hooks_hear_each_run_start_end_once_and_a_replaced_run_dropped_and_a_failing_hook_breaks_nothing():
    notes = Notes()
    s = GraphSession.open("rag_debugger.examples.chain:graph", hooks=[Broken(), notes])
    s.start({"text": "a"})
    s.step()
    s.start({"text": "b"})  # the first run never ended: dropped
    s.run_to_end()
    s.run_to_end()  # nothing moved: not told twice
    s.fork(0, "text", "c")
    assert notes.events == [("started", "run"), ("dropped", "run"), ("started", "run"), ("ended", "run", 3, None),
                            ("started", "what-if #1"), ("ended", "what-if #1", 2, None)]


def test_hooks_hear_once_that_a_run_waits_for_an_answer_and_then_that_it_ended():
    notes = Notes()
    s = GraphSession.open("rag_debugger.examples.approval:graph", hooks=[notes])
    s.start({"request": "r"})
    s.continue_(())
    s.continue_(())  # still waiting: not told twice
    s.resume("reject")
    s.run_to_end()
    assert [e[0] for e in notes.events] == ["started", "paused", "ended"]


def test_seek_puts_a_recording_at_a_step_and_refuses_one_past_its_end():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a"})
    s.run_to_end()
    replay = GraphSession.open("rag_debugger.examples.chain:graph")
    replay.open_replay(s.export_run())
    replay.seek(2)
    assert len(replay.all_steps()) == 2 and replay.current.stepper.next_nodes == ("shout",)
    with pytest.raises(DebuggerUserError, match="has 3 steps"):
        replay.seek(4)


def test_the_session_fits_the_protocol_the_inspector_reads():
    from rag_debugger.debugger.protocol import InspectedSession

    assert isinstance(GraphSession.open("rag_debugger.examples.chain:graph"), InspectedSession)


def test_time_travel_draws_the_segment_the_step_belongs_to():
    s = GraphSession.open("rag_debugger.examples.chain:graph")
    s.start({"text": "a"})
    s.run_to_end()
    s.fork(0, "text", "b")
    assert s.viewed(1) == (s.segments[0], 2)  # the original's second step
    assert s.viewed(3) == (s.segments[1], 1)  # the fork's first
    assert "count" in s.drawing(0).current
