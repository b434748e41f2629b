"""A shared PostgreSQL history that goes down never takes the debugger with it (issue 24, finding 4).

A cluster of its own (the session's `postgres_server` stays up for the other tests), stopped and started
again under a live session: the Step that meets the outage waits at most the connection timeout and goes
on in memory, Continue and time travel keep working, the session says so once, the history comes back by
itself when the database answers (also when it was down when the app first opened it), and the run the
outage cut short is marked abandoned there, never left `running`."""
from __future__ import annotations

import time

import pytest

from rag.demo import load_demo_questions
from rag.errors import HistoryUnavailableError
from rag_debugger.ui import history_store
from rag_debugger.workbench.session import DebugSession

QUESTION = next(d for d in load_demo_questions() if d.expected_route == "answer").question
#: A Step that meets the outage waits the pool's timeout once (RAG_HISTORY_CONNECT_TIMEOUT, 3 s), never more.
MAX_STEP_S = 6.0


@pytest.fixture(scope="module")
def cluster():
    from tests.support.postgres import postgres_cluster

    with postgres_cluster() as found:
        yield found


@pytest.fixture
def shared(cluster, monkeypatch):
    """The app's history on a fresh schema of the outage cluster, retried at once after a failure."""
    monkeypatch.setenv("RAG_HISTORY_URL", cluster.new_schema())
    monkeypatch.setenv("RAG_HISTORY_RETRY_S", "0")
    history_store.close_all()
    yield cluster
    _ensure_up(cluster)
    history_store.close_all()


def _ensure_up(cluster) -> None:
    try:
        cluster.sql("SELECT 1")
    except Exception:  # noqa: BLE001 - stopped by the test: start it again
        cluster.start()


def test_a_database_that_goes_down_mid_run_leaves_the_run_going_in_memory(settings, shared):
    history = history_store.history()
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.step()
    cut = session.current.run_id
    assert history.get_run(cut).status == "running"
    shared.stop()
    try:
        t0 = time.monotonic()
        record = session.step()
        assert time.monotonic() - t0 < MAX_STEP_S
        assert record.error is None
        assert session.take_history_lost() and not session.take_history_lost()  # said once
        t0 = time.monotonic()
        session.run_to_end()  # Continue: no more waiting on the database
        assert time.monotonic() - t0 < MAX_STEP_S
        assert session.done and session.result()["route"] == "answer"
        stepper = session.current.stepper
        assert stepper.state_at(0)["question"] == QUESTION  # time travel reads the steps back
        assert stepper.state_at(len(stepper.steps) - 1)
        with pytest.raises(HistoryUnavailableError):
            history_store.history()
        session.start(QUESTION)  # a new run while it is down: in memory
        session.run_to_end()
        assert session.done and session.current.run_id is None
    finally:
        shared.start()
    back = history_store.history()  # reconnects by itself
    assert history_store.problem() is None
    assert back.get_run(cut).status == "abandoned"  # never left running
    assert session.attach_history(back)
    session.start(QUESTION)
    session.run_to_end()
    assert back.get_run(session.current.run_id).status == "done"  # recorded again


def test_a_database_down_at_start_is_used_once_it_answers(settings, shared):
    shared.stop()
    try:
        with pytest.raises(HistoryUnavailableError):
            history_store.history()
        assert history_store.problem()
        session = DebugSession(settings, history=None)
        session.start(QUESTION)
        session.step()
    finally:
        shared.start()
    back = history_store.history()
    assert history_store.problem() is None
    assert session.attach_history(back)
    session.start(QUESTION)
    session.run_to_end()
    assert back.get_run(session.current.run_id).status == "done"


def test_a_failed_database_is_not_tried_again_on_every_page(settings, shared, monkeypatch):
    monkeypatch.setenv("RAG_HISTORY_RETRY_S", "3600")
    shared.stop()
    try:
        with pytest.raises(HistoryUnavailableError):
            history_store.history()
        shared.start()
        with pytest.raises(HistoryUnavailableError):  # within the retry delay: the known problem, no new try
            history_store.history()
    finally:
        _ensure_up(shared)
