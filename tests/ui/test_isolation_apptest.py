"""Two people on one server: each browser session has its own runs, threads and settings."""
from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.support.apptest import inspector_text, press

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_two_sessions_never_see_each_others_runs(monkeypatch):
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    alice = AppTest.from_file(APP, default_timeout=60).run()
    bob = AppTest.from_file(APP, default_timeout=60).run()
    alice.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(alice, "run")
    bob.run()
    assert "Result:" in inspector_text(alice)
    assert "Result:" not in inspector_text(bob) and "steps ·" not in inspector_text(bob)

    bob.text_area(key="question").set_value("What is the capital of Australia?").run()
    press(bob, "run")
    a, b = alice.session_state["debug_session"], bob.session_state["debug_session"]
    assert a.session_id != b.session_id
    threads_a = {seg.stepper.thread_id for seg in a.segments}
    threads_b = {seg.stepper.thread_id for seg in b.segments}
    assert threads_a and threads_b and not threads_a & threads_b
    assert a.result()["route"] == "answer" and b.result()["route"] == "no_knowledge"
