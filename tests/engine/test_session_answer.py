"""The answer step after the graph: recorded with the run in the history and shown from the
recording in a replay (not rebuilt)."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag_debugger.workbench.session import DebugSession


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


def test_an_answer_route_run_records_its_extractive_answer_and_the_replay_shows_it(settings, history):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    session = DebugSession(settings, history=history)
    session.start(demo.question)
    assert session.answer() is None  # nothing before the run ends
    session.run_to_end()
    live = session.answer()
    assert live.mode == "extractive" and live.text and live.citations
    run_id = session.current.run_id
    recorded = history.get_run(run_id).result["answer"]
    assert recorded["text"] == live.text and recorded["mode"] == "extractive"

    history.record_finish(run_id, result={**history.get_run(run_id).result,
                                          "answer": {**recorded, "text": "from the recording [1]"}})
    replay = DebugSession(settings, history=history)
    replay.open_replay(history, run_id)
    replay.seek(replay.current.stepper.total_steps)
    assert replay.answer().text == "from the recording [1]"


def test_other_routes_have_no_answer(settings, history):
    demo = next(d for d in load_demo_questions() if d.expected_route == "no_knowledge")
    session = DebugSession(settings, history=history)
    session.start(demo.question)
    session.run_to_end()
    assert session.answer() is None and "answer" not in history.get_run(session.current.run_id).result


def test_a_what_if_fork_changes_the_route_and_keeps_the_original(settings):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    session = DebugSession(settings)
    session.start(demo.question)
    session.run_to_end()
    original_steps = len(session.all_steps())
    fork = session.fork(1, "docs", [])  # after retrieve_initial: what if nothing had been found?
    assert [r.nodes for r in fork.stepper.steps] == [("grade_documents",)]
    original, forked = session.fork_comparison()
    assert original["route"] == "answer" and forked["route"] == "no_knowledge"
    assert session.result()["route"] == "no_knowledge" and session.answer() is None
    assert len(session.all_steps()) == original_steps + 1  # the original steps stay in the timeline
    assert session.segments[0].stepper.state_at(2)["route"] == "answer"  # and readable by checkpoint


def test_a_fork_refuses_an_appending_field_and_a_bad_step(settings):
    from rag.errors import UserInputError

    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    session = DebugSession(settings)
    session.start(demo.question)
    session.run_to_end()
    with pytest.raises(UserInputError, match="appending reducer"):
        session.fork(0, "sub_results", [])
    with pytest.raises(UserInputError, match="pick a step"):
        session.fork(99, "route", "x")


def test_a_fork_works_on_the_resume_graph_too(settings):
    demo = next(d for d in load_demo_questions() if d.expected_route == "clarify" and d.hitl_answer)
    session = DebugSession(settings)
    session.start(demo.question)
    session.run_to_end()
    session.answer_hitl(demo.hitl_answer)
    session.run_to_end()
    pairs = session.all_steps()
    i = next(k for k, (seg, r) in enumerate(pairs) if seg.kind == "resume" and "grade_documents" in r.nodes)
    fork = session.fork(i, "route", "no_knowledge")
    assert fork.kind == "resume" and fork.stepper.done
    assert [c["route"] for c in session.fork_comparison()] == ["answer", "no_knowledge"]


def test_a_recorded_run_can_be_forked_live_from_its_recorded_state(settings, history):
    demo = next(d for d in load_demo_questions() if d.expected_route == "answer")
    live = DebugSession(settings, history=history)
    live.start(demo.question)
    live.run_to_end()
    replay = DebugSession(settings, history=history)
    replay.open_replay(history, live.current.run_id)
    replay.seek(replay.current.stepper.total_steps)
    fork = replay.fork(1, "docs", [])
    assert fork.stepper.done and not fork.replay
    assert [c["route"] for c in replay.fork_comparison()] == ["answer", "no_knowledge"]
