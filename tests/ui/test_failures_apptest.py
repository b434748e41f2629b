"""Failures a user meets in the app get a readable message and lose nothing: a model that times out,
a model that answers garbage, a knowledge base that cannot be opened."""
from __future__ import annotations

import pytest

from rag.errors import ModelCallError, SnapshotError
from tests.support.apptest import control_enabled, inspector_text, press
from tests.support.fake_openai import Delay, Malformed, Respond, closed_port_url, running_fake_openai

from .test_settings_trace_apptest import KEY, all_text, configure


def run_question(at, question="丹瑾是什么属性？"):
    at.switch_page("pages/debugger.py").run()
    at.text_area(key="question").set_value(question).run()
    press(at, "run")
    assert not at.exception


def result_text(at) -> str:
    return "\n".join(line for line in inspector_text(at).splitlines() if "Result:" in line)


def test_grader_timeout_fails_closed_with_a_visible_reason(app_test):
    with running_fake_openai() as fake:
        fake.script(Delay(5, Respond({})), schema="EvidenceGrade")
        at = app_test.run()
        configure(at, fake.base_url)  # timeout 2 s, no retries
        run_question(at)
    assert "Result: no_knowledge /" in result_text(at)
    shown = inspector_text(at)
    assert "Grader unavailable, failed closed" in shown and "timeout" in shown
    assert "evidence_grading_unavailable" in shown
    assert "the grader failed" in degraded_banner(at) and "timeout" in degraded_banner(at)
    assert KEY not in all_text(at) and KEY not in shown


def degraded_banner(at) -> str:
    text = inspector_text(at)
    start = text.find("Degraded run")
    return text[start:text.find("Result:", start)] if start >= 0 else ""


def test_an_unreachable_model_is_a_degraded_run_not_no_knowledge(app_test):
    """A dead endpoint (a closed loopback port) used to end as a plain no_knowledge under a green
    model badge: the result now says first that the grader failed and why, and the badge turns red."""
    at = app_test.run()
    configure(at, closed_port_url())  # nothing listens there
    run_question(at)
    assert "Result: no_knowledge /" in result_text(at)
    banner = degraded_banner(at)
    assert "the grader failed" in banner and "connection" in banner, banner
    assert inspector_text(at).index("Degraded run") < inspector_text(at).index("Result:")  # said first
    assert any("last call FAILED" in e.body and "grader" in e.body and "connection" in e.body for e in at.sidebar.error)
    assert not at.sidebar.success
    assert KEY not in all_text(at)


def test_a_healthy_offline_run_has_no_degraded_banner(app_test):
    at = app_test.run()
    run_question(at)
    assert "Result: answer /" in result_text(at)
    assert degraded_banner(at) == ""


def test_malformed_model_output_degrades_and_the_session_goes_on(app_test):
    with running_fake_openai() as fake:
        fake.script(Malformed(), schema="EvidenceGrade")
        at = app_test.run()
        configure(at, fake.base_url)
        run_question(at)
        assert "invalid_output" in inspector_text(at)
        press(at, "restart")  # the session is still usable
        assert not at.exception


def test_a_knowledge_base_that_cannot_be_opened_is_explained(app_test, tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_KB_DIR", str(tmp_path / "missing-folder"))
    at = app_test.run()
    run_question(at)
    assert "Result: no_knowledge /" in result_text(at)
    assert "Retrieval failed" in inspector_text(at)
    assert "the retriever failed" in degraded_banner(at) and "FileNotFoundError" in degraded_banner(at)


def test_an_unexpected_error_is_a_message_not_a_traceback(app_test, monkeypatch):
    from rag_debugger.workbench.session import DebugSession

    def boom(self):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(DebugSession, "step", boom)
    at = app_test.run()
    at.text_area(key="question").set_value("丹瑾是什么属性？").run()
    press(at, "step")
    assert not at.exception
    assert any("Something went wrong: disk on fire" in e.body for e in at.error)
    assert not any("Traceback" in e.body for e in at.error)


def test_a_page_that_crashes_while_rendering_shows_a_message(app_test, monkeypatch):
    import rag_debugger.ui.debugger_view as view

    def broken(*_args):
        raise KeyError("missing panel data")

    monkeypatch.setattr(view, "render_inspector", broken)
    at = app_test.run()
    assert not at.exception
    assert any("unexpected error" in e.body for e in at.error)


@pytest.mark.parametrize("module, name, error", [
    ("rag.answering", "answer_for", ModelCallError("connection", "the answering model could not be reached")),
    ("rag_debugger.workbench.outcome", "build_result", SnapshotError("the resume snapshot lacks the question")),
], ids=["the answering model fails", "the result cannot be built"])
def test_a_result_that_cannot_be_worked_out_leaves_restart_and_one_line(app_test, monkeypatch, module, name, error):
    """It used to leave the page with the error alone: no inspector, no graph, no Restart."""
    import importlib

    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(importlib.import_module(module), name, failing)
    at = app_test.run()
    run_question(at)
    shown = [e.body for e in at.error]
    assert shown == [f"The run finished, but its result could not be worked out: {error}. Press Restart to run "
                     "it again."]
    assert "Traceback" not in all_text(at) and "unexpected error" not in all_text(at)
    assert control_enabled(at, "restart") and control_enabled(at, "run")
    assert "finished" in inspector_text(at)  # the workbench is drawn: position, graph, timeline
    monkeypatch.undo()  # the cause is gone: Restart runs the question again and gets its result
    monkeypatch.setenv("RAG_MODEL_PROVIDER", "offline")
    press(at, "restart")
    press(at, "run")
    assert not at.error and "Result: answer /" in result_text(at)
