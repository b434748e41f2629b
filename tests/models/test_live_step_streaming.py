"""A live Step with the REAL OpenAI-compatible client against a slow streaming fake server: the debugger's
worker sees the planner's tokens before the step ends, files a grader's tokens under its Send lane, and
Stop closes the stream and leaves the thread as it was before the step."""
from __future__ import annotations

import json
import time

from langgraph.checkpoint.memory import InMemorySaver

from rag_debugger.workbench.session import DebugSession
from tests.support.fake_openai import SlowStream

from .conftest import GRADE

QUESTION = "丹瑾和青棠分别使用什么武器？"
PLAN = {"complexity": "complex", "complexity_reason": "two characters",
        "sub_questions": ["丹瑾用什么武器？", "青棠用什么武器？"]}


def pieces(obj: dict, size: int = 4) -> list[str]:
    text = json.dumps(obj, ensure_ascii=False)
    return [text[i:i + size] for i in range(0, len(text), size)]


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


def head(session):
    stepper = session.current.stepper
    snap = stepper.graph.get_state(stepper.config)
    return snap.config["configurable"]["checkpoint_id"], snap.values, tuple(snap.next)


def live_session(make_settings) -> DebugSession:
    session = DebugSession(make_settings(model_timeout_seconds=60, structured_output_method="json_schema"),
                           checkpointer=InMemorySaver())
    session.start(QUESTION)
    assert session.streams_calls()
    return session


def test_the_planners_tokens_arrive_before_the_step_ends_and_the_step_then_ends(fake_openai, make_settings):
    fake_openai.script(SlowStream(pieces(PLAN), interval=0.05), schema="ComplexityResult")
    session = live_session(make_settings)
    job = session.start_live("step")
    seen: list[tuple[str, int]] = []

    def tokens_seen() -> bool:
        view = job.view()
        if view.state == "running" and view.calls and view.calls[0].tokens:
            seen.append((view.calls[0].role, view.calls[0].tokens))
        return job.state != "running"
    wait_for(tokens_seen)
    assert seen and seen[0][0] == "planner"
    assert job.state == "done"
    assert job.view().calls[0].text == json.dumps(PLAN, ensure_ascii=False)
    assert [r.nodes for r in session.current.stepper.steps] == [("classify_complexity",)]


def test_stop_closes_the_stream_and_leaves_the_thread_before_the_step(fake_openai, make_settings):
    fake_openai.script(SlowStream(None, interval=0.05), schema="ComplexityResult")  # a runaway reply
    session = live_session(make_settings)
    before = head(session)
    job = session.start_live("step")
    wait_for(lambda: bool(job.view().calls) and job.view().calls[0].tokens >= 3)
    session.live.stop()
    assert job.join(20) and job.state == "stopped"
    assert job.message.startswith("Stopped: planner call cancelled after")
    wait_for(lambda: fake_openai.closed_early == 1, timeout=10)  # the server saw the client hang up
    assert session.all_steps() == [] and session.current.stepper.error is None
    assert head(session) == before


def test_stop_during_a_send_lane_leaves_the_run_paused_before_it(fake_openai, make_settings):
    fake_openai.reply(PLAN, schema="ComplexityResult")
    fake_openai.script(SlowStream(pieces(GRADE), interval=0.3), schema="EvidenceGrade")
    session = live_session(make_settings)
    session.step()
    session.step()
    assert session.current.stepper.next_nodes == ("rag_sub_agent", "rag_sub_agent")
    before = head(session)
    job = session.start_live("step")
    wait_for(lambda: any(c.tokens and c.lane for c in job.view().calls))
    view = job.view()
    assert [lane.label for lane in view.lanes] == PLAN["sub_questions"]
    assert {c.role for c in view.calls} == {"grader"} and {c.lane for c in view.calls} <= {1, 2}
    session.live.stop()
    assert job.join(20) and job.state == "stopped"
    assert len(session.all_steps()) == 2
    assert session.current.stepper.next_nodes == ("rag_sub_agent", "rag_sub_agent")
    checkpoint, values, nxt = head(session)
    assert (checkpoint, values, nxt) == before
