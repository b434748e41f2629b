"""The answer step after the graph: recorded with the run in the history and shown from the
recording in a replay (not rebuilt)."""
from __future__ import annotations

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from ui.session import DebugSession


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
