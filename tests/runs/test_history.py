"""Run history: rows and checkpoints in one SQLite file or PostgreSQL database (every test runs on both),
surviving restarts, deletable."""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rag.api import make_context
from rag.errors import InvalidQuestionError, UnknownRunError
from rag.runs.history import RunHistory
from rag.runs.history_writes import run_recorded
from tests.engine.fakes import FakeRoles, grade
from tests.runs.conftest import QUESTION

REPO = Path(__file__).resolve().parents[2]


def test_record_a_run_with_its_row_progress_and_checkpoints(history, ctx):
    info = run_recorded(history, QUESTION, ctx=ctx)
    assert info.status == "done" and info.kind == "main" and info.origin == "live"
    assert info.question == QUESTION
    assert info.route == "answer" and info.retrieval_status == "answerable"
    assert info.provider == "fake" and info.prompt_version == "default"
    assert info.duration_ms is not None and info.duration_ms >= 0
    assert info.settings["openai_api_key"] == "unset"
    assert [p.node for p in info.progress][:2] == ["classify_complexity", "retrieve_initial"]
    assert info.result["rag_trace"]["rewrite_method"] == "step_back"
    state = history.graph("main").get_state({"configurable": {"thread_id": info.thread_id}})
    assert state.values["route"] == "answer" and state.next == ()
    assert len(list(history.graph("main").get_state_history({"configurable": {"thread_id": info.thread_id}}))) == 8


def test_list_runs_newest_first_and_get_run(history, ctx):
    first = run_recorded(history, QUESTION, ctx=ctx)
    second = run_recorded(history, "What is the battery life of the X2?", ctx=ctx)
    assert [r.run_id for r in history.list_runs()] == [second.run_id, first.run_id]
    assert [r.run_id for r in history.list_runs(limit=1)] == [second.run_id]
    assert history.get_run(first.run_id).question == QUESTION
    with pytest.raises(UnknownRunError, match="no run 'nope'"):
        history.get_run("nope")


def test_manual_start_and_finish_as_a_stepping_ui_does(history, settings):
    info = history.record_start("q?", provider="offline-rules", prompt_version="v1", settings=settings)
    assert info.status == "running" and info.route is None and info.thread_id == info.run_id
    done = history.record_finish(info.run_id, status="error", error="ValueError: boom",
                                 progress=[{"icon": "🔎", "label": "Retrieval", "node": "retrieve_initial"}])
    assert done.status == "error" and done.error == "ValueError: boom" and done.finished_at
    assert done.progress[0].label == "Retrieval" and done.duration_ms >= 0
    with pytest.raises(ValueError, match="already exists"):
        history.record_start("again", run_id=info.run_id)
    with pytest.raises(ValueError, match="unknown run kind"):
        history.record_start("q", kind="sideways")


def test_resume_run_links_to_its_parent(history, settings, retriever):
    roles = FakeRoles(grader=grade(relevance="strong", answerability="partial", ambiguity="multiple_candidates",
                                   route="scope_select", hitl_options=["X1", "X2"])).roles()
    ctx = make_context(settings=settings, retriever=retriever, roles=roles)
    main = run_recorded(history, QUESTION, ctx=ctx)
    assert main.route == "scope_select"
    snapshot = main.result["hitl_resume_state"]
    answer_ctx = make_context(settings=settings, retriever=retriever, roles=FakeRoles().roles())
    resumed = run_recorded(history, kind="resume", snapshot=snapshot, answer="X2", parent_run_id=main.run_id,
                           ctx=answer_ctx)
    assert resumed.kind == "resume" and resumed.parent_run_id == main.run_id and resumed.route == "answer"
    assert resumed.result["rag_trace"]["hitl_resumed"] is True


def test_bad_question_records_nothing(history, ctx):
    with pytest.raises(InvalidQuestionError):
        run_recorded(history, "   ", ctx=ctx)
    assert history.list_runs() == []


def test_a_broken_progress_sink_does_not_fail_the_recorded_run(history, settings, retriever):
    def broken(_step):
        raise RuntimeError("sink broken")

    ctx = make_context(settings=settings, retriever=retriever, roles=FakeRoles().roles(), progress=broken)
    info = run_recorded(history, QUESTION, ctx=ctx)
    assert info.status == "done" and info.progress  # our tee still recorded the steps


def test_graph_failure_leaves_an_error_row(history, ctx, monkeypatch):
    graph = history.graph("main")

    def explode(*_a, **_k):
        raise RuntimeError("checkpointer on fire")

    monkeypatch.setattr(type(graph), "invoke", explode)
    with pytest.raises(RuntimeError):
        run_recorded(history, QUESTION, ctx=ctx)
    (row,) = history.list_runs()
    assert row.status == "error" and "checkpointer on fire" in row.error


def test_delete_removes_row_and_checkpoints(history, ctx):
    keep = run_recorded(history, QUESTION, ctx=ctx)
    gone = run_recorded(history, QUESTION, ctx=ctx)
    history.delete_run(gone.run_id)
    assert [r.run_id for r in history.list_runs()] == [keep.run_id]
    graph = history.graph("main")
    assert list(graph.get_state_history({"configurable": {"thread_id": gone.thread_id}})) == []
    assert list(graph.get_state_history({"configurable": {"thread_id": keep.thread_id}}))
    with pytest.raises(UnknownRunError):
        history.delete_run(gone.run_id)


def test_history_survives_a_restart_of_the_process(history_target):
    """Two separate Python processes record into one history; a third (this one) sees both."""
    db = history_target
    ids = []
    for q in ("first process question?", "second process question?"):
        out = subprocess.run(
            [sys.executable, "-m", "tests.runs._record_in_subprocess", str(db), q],
            cwd=REPO, capture_output=True, text=True, timeout=60,
        )
        assert out.returncode == 0, out.stderr
        ids.append(out.stdout.strip().splitlines()[-1])
    with RunHistory(db) as history:
        runs = history.list_runs()
        assert [r.run_id for r in runs] == list(reversed(ids))
        assert {r.question for r in runs} == {"first process question?", "second process question?"}
        for r in runs:
            state = history.graph("main").get_state({"configurable": {"thread_id": r.thread_id}})
            assert state.values["question"] == r.question and state.values["route"] == "answer"


def test_two_instances_on_one_history(history_target, ctx):
    db = history_target
    first = RunHistory(db)
    info = run_recorded(first, QUESTION, ctx=ctx)
    first.close()
    with pytest.raises(RuntimeError, match="closed"):
        first.list_runs()
    with RunHistory(db) as second:
        assert second.get_run(info.run_id).route == "answer"


def test_usable_from_other_threads(history, ctx):
    """Streamlit runs scripts on worker threads: one shared history must work from all of them."""
    errors = []

    def work():
        try:
            run_recorded(history, QUESTION, ctx=ctx)
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert errors == []
    assert len(history.list_runs()) == 4
