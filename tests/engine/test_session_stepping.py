"""The debugger session over the real RAG graph and the run history's SQLite checkpointer.

Each step's record is built from what LangGraph streams; it must equal what reading everything
back with `get_state` gives. A restart must start a clean run on a thread of its own.
"""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag_debugger.workbench.session import DebugSession
from tests.debugger.readback import checked_step


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


def _question(route: str) -> str:
    return next(d for d in load_demo_questions() if d.expected_route == route).question


def test_every_rag_step_is_streamed_and_equals_the_read_back(settings, history):
    session = DebugSession(settings, history=history)
    session.start(_question("complex"))
    stepper = session.current.stepper
    steps = []
    while not session.done:
        steps.append(checked_step(stepper, session.step))
    nodes = [record.nodes for record, _ in steps]
    assert nodes[:2] == [("classify_complexity",), ("prepare_sub_questions",)]
    assert ("rag_sub_agent",) in nodes
    assert [calls for _, calls in steps] == [0] * len(steps)
    run = history.get_run(session.current.run_id)
    assert run.status == "done" and run.progress
    assert [p.model_dump() for p in run.progress] == [p for record, _ in steps for p in record.annotations["progress"]]


def test_restart_runs_on_a_fresh_thread_without_the_previous_state(settings, history):
    session = DebugSession(settings, history=history)
    session.start(_question("complex"))
    session.run_to_end()
    first = session.current.stepper
    session.restart()
    assert session.current.stepper.thread_id != first.thread_id
    assert session.current.stepper.current_values()["sub_results"] == []
    session.run_to_end()
    second = session.current.stepper
    assert len(second.current_values()["sub_results"]) == len(first.current_values()["sub_results"])
    assert len(second.checkpoints) == len(first.checkpoints)  # none of the first run's
    assert len({run.thread_id for run in history.list_runs()}) == 2
