"""A Step with a model that streams, off the page (rag_debugger/workbench/live_step.py): tokens arrive while it
runs, Stop leaves the run where it was (the thread's state too, as LangGraph keeps it), and a second
Step while one runs is refused."""
from __future__ import annotations

import time

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from rag.errors import UserInputError
from rag.models.calls import CallCancelled
from rag.settings import RagSettings
from rag_debugger.debugger.live import LaneView
from rag_debugger.workbench.live_step import LiveCallLog
from rag_debugger.workbench.session import DebugSession
from tests.support.live_fake_model import StreamingFake

QUESTION = "丹瑾和青棠分别使用什么武器？"  # the complex demo: the planner splits it into two lanes


def wait_for(predicate, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.01)


@pytest.fixture
def fake():
    return StreamingFake()


@pytest.fixture
def session(fake):
    s = DebugSession(RagSettings(model_provider="offline"), roles=fake.roles(), checkpointer=InMemorySaver())
    s.start(QUESTION)
    return s


def _head(session):
    stepper = session.current.stepper
    snap = stepper.graph.get_state(stepper.config)
    return snap.config["configurable"]["checkpoint_id"], snap.values, tuple(snap.next)


def test_a_live_step_shows_the_role_and_its_tokens_before_it_ends(session, fake):
    assert session.streams_calls()
    fake.hold.clear()
    job = session.start_live("step")
    assert fake.started.wait(10)
    view = job.view()
    assert view.state == "running" and view.node_label == "classify_complexity"
    [call] = view.calls
    assert call.role == "planner" and call.state == "running" and call.tokens == 2
    assert call.text and call.text in '{"complexity": "complex"'
    assert len(session.current.stepper.steps) == 0  # not ended yet
    fake.hold.set()
    assert job.join(20)
    ended = session.live.take_ended()
    assert ended is job and job.state == "done"
    assert job.view().calls[0].state == "done" and '"sub_questions"' in job.view().calls[0].text
    assert [r.nodes for r in session.current.stepper.steps] == [("classify_complexity",)]
    assert session.live.take_ended() is None  # its end is taken once


def test_stop_leaves_the_position_and_the_thread_as_before_the_step(session, fake):
    before = _head(session)
    fake.hold.clear()
    job = session.start_live("step")
    assert fake.started.wait(10)
    assert session.live.stop()
    assert job.join(20)
    assert job.state == "stopped"
    assert job.message.startswith("Stopped: planner call cancelled after")
    assert fake.cancelled == ["planner"]
    seg = session.current
    assert seg.stepper.steps == [] and seg.stepper.error is None
    assert session.all_steps() == []
    assert seg.stepper.next_nodes == ("classify_complexity",)
    assert _head(session) == before  # LangGraph wrote no checkpoint for the stopped superstep
    # and the run goes on from there: the step runs again, this time to its end
    fake.hold.set()
    session.live.take_ended()
    assert session.start_live("step").join(20)
    assert [r.nodes for r in seg.stepper.steps] == [("classify_complexity",)]
    assert seg.stepper.steps[0].error is None


def test_stop_inside_a_fan_out_lane_leaves_the_run_paused_before_it(session, fake):
    session.step()  # planner: two sub-questions
    session.step()  # prepare_sub_questions
    assert session.current.stepper.next_nodes == ("rag_sub_agent", "rag_sub_agent")
    before = _head(session)
    steps_before = len(session.all_steps())
    fake.hold.clear()
    fake.started.clear()
    job = session.start_live("step")
    assert fake.started.wait(20)
    wait_for(lambda: any(c.lane for c in job.view().calls))
    view = job.view()
    assert [lane.label for lane in view.lanes] == ["丹瑾是什么属性？", "寒砚用什么武器？"]
    assert {c.role for c in view.calls} == {"grader"}
    assert all(c.lane in (1, 2) for c in view.calls)
    session.live.stop()
    assert job.join(20) and job.state == "stopped"
    assert len(session.all_steps()) == steps_before
    assert session.current.stepper.next_nodes == ("rag_sub_agent", "rag_sub_agent")
    checkpoint, values, nxt = _head(session)
    assert (checkpoint, nxt) == (before[0], before[2]) and values == before[1]


def test_a_second_step_while_one_runs_is_refused(session, fake):
    fake.hold.clear()
    job = session.start_live("step")
    assert fake.started.wait(10)
    with pytest.raises(UserInputError, match="still running"):
        session.start_live("step")
    with pytest.raises(UserInputError, match="still running"):
        session.step()
    with pytest.raises(UserInputError, match="still running"):
        session.restart()
    with pytest.raises(UserInputError, match="still running"):
        session.start("What is the capital of Australia?")  # a demo or a new question
    assert session.question == QUESTION
    fake.hold.set()
    assert job.join(20)
    assert len(session.current.stepper.steps) == 1  # one click, one step


def test_continue_follows_each_step_and_stop_keeps_the_steps_already_run(session, fake):
    fake.hold.set()
    session.step()  # the planner's step, so Continue starts at a step without a model call
    fake.hold.clear()
    fake.started.clear()
    job = session.start_live("continue")
    assert fake.started.wait(20)  # a grader in a lane is streaming
    wait_for(lambda: job.view().steps_done >= 1)
    session.live.stop()
    assert job.join(20) and job.state == "stopped"
    nodes = [r.nodes for _, r in session.all_steps()]
    assert nodes == [("classify_complexity",), ("prepare_sub_questions",)]
    assert session.current.stepper.next_nodes == ("rag_sub_agent", "rag_sub_agent")


def test_the_offline_rules_step_on_the_page():
    assert not DebugSession(RagSettings(model_provider="offline")).streams_calls()
    assert DebugSession(RagSettings(model_provider="openai", openai_base_url="http://127.0.0.1:9/v1")).streams_calls()


def test_a_failing_step_says_why_and_a_call_log_places_calls_in_lanes():
    clock = iter([0.0, 1.0, 2.5, 3.0, 4.0]).__next__
    log = LiveCallLog(clock)
    log.call_started("a", "grader", "m", "t2")
    log.call_token("a", "{\"rel")
    log.call_token("a", "evance")
    log.call_ended("a", False, "cancelled")
    [view] = log.views([LaneView(task_id="t1", node="n"), LaneView(task_id="t2", node="n", label="B?")])
    assert (view.lane, view.lane_label, view.tokens, view.text, view.state, view.elapsed_s) == \
        (2, "B?", 2, '{"relevance', "cancelled", 1.0)


def test_cancelled_is_not_degraded_by_a_node():
    """A planner failure degrades to the simple chain; a Stop must not (it would look like a step)."""
    from rag.graph import nodes

    class Roles:
        class planner:  # noqa: N801
            @staticmethod
            def invoke(_inp):
                raise CallCancelled("planner")

    class Ctx:
        roles = Roles
        settings = RagSettings(model_provider="offline")

        def emit(self, *a, **k):
            pass

    class Runtime:
        context = Ctx()

    with pytest.raises(CallCancelled):
        nodes.classify_complexity({"question": QUESTION}, Runtime())  # type: ignore[arg-type]


def test_a_page_reading_the_run_while_a_step_runs_does_not_keep_the_old_position(session, fake):
    """Another page (Trace explorer) reads the session while the worker steps it: the head it reads then
    is the one before the step and must not be kept as the position after it."""
    stepper = session.current.stepper
    stepper._streamable = False  # the head after the step is then read back, not taken from the stream
    fake.hold.clear()
    job = session.start_live("step")
    assert fake.started.wait(10)
    assert stepper.next_nodes == ("classify_complexity",)  # read meanwhile, from this thread
    fake.hold.set()
    assert job.join(20) and job.state == "done"
    assert stepper.next_nodes == ("prepare_sub_questions",)
    assert stepper.steps[0].values_after.get("complexity") == "complex"


def test_a_graph_of_your_own_steps_in_the_live_worker_through_the_one_session():
    """The live worker is the generic session's (`GraphSession.start_live`): a graph of your own steps off the
    page like the workflow does, each step through the session's own Step (so its hooks record it), and a
    second Step while one runs is refused."""
    import threading
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph

    from rag_debugger.debugger.session import GraphSession, SessionHooks
    from rag_debugger.workbench.live_step import LiveStepRunner

    class State(TypedDict):
        n: int

    gate = threading.Event()

    def slow(state: State) -> dict:
        assert gate.wait(20)
        return {"n": state["n"] + 1}

    def done(state: State) -> dict:
        return {"n": state["n"] * 10}

    builder = StateGraph(State)
    builder.add_node("slow", slow)
    builder.add_node("done", done)
    builder.add_edge(START, "slow")
    builder.add_edge("slow", "done")
    builder.add_edge("done", END)

    class Notes(SessionHooks):
        def __init__(self):
            self.ended_runs = []

        def ended(self, session, seg):
            self.ended_runs.append(len(seg.stepper.steps))

    notes = Notes()
    session = GraphSession(spec="mine:graph", graph=builder.compile(checkpointer=InMemorySaver()),
                           live=LiveStepRunner(), hooks=[notes])
    session.start({"n": 1})
    assert session.streams_calls()
    job = session.start_live("step")
    assert [lane.node for lane in job.lanes] == ["slow"]
    with pytest.raises(UserInputError, match="still running"):
        session.step()
    gate.set()
    assert job.join(20) and job.state == "done"
    assert [r.nodes for r in session.current.stepper.steps] == [("slow",)]
    run = session.start_live("run")
    assert run.join(20) and run.state == "done"
    assert session.finished and session.current.stepper.current_values() == {"n": 20}
    assert notes.ended_runs == [2]  # told once, when the run the worker stepped ended
