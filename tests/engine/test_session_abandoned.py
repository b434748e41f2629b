"""A debugger session never leaves a run "running" forever: a new run, a replay or the session
going away (reload, closed tab) marks its unfinished run abandoned; a finished one keeps its outcome.
On the app's next start, runs a previous process left running are marked abandoned."""
from __future__ import annotations

import gc

import pytest

from rag.demo import load_demo_questions
from rag.runs.history import RunHistory
from rag_debugger.ui import history_store
from rag_debugger.workbench import run_owners
from rag_debugger.workbench.session import DebugSession


@pytest.fixture
def history(tmp_path):
    h = RunHistory(tmp_path / "history.db")
    yield h
    h.close()


QUESTION = next(d for d in load_demo_questions() if d.expected_route == "answer").question


def test_a_new_run_abandons_the_unfinished_one_and_not_a_finished_one(settings, history):
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.step()
    unfinished = session.current.run_id
    session.start(QUESTION)  # a new question, a demo click or Restart
    info = history.get_run(unfinished)
    assert info.status == "abandoned" and info.finished_at
    session.run_to_end()
    finished = session.current.run_id
    session.restart()
    assert history.get_run(finished).status == "done"
    assert history.get_run(session.current.run_id).status == "running"


def test_opening_a_replay_abandons_the_live_run(settings, history):
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.run_to_end()
    recorded = session.current.run_id
    session.start(QUESTION)
    live = session.current.run_id
    session.open_replay(history, recorded)
    assert history.get_run(live).status == "abandoned"
    assert history.get_run(recorded).status == "done"


def test_a_session_that_goes_away_abandons_its_unfinished_run(settings, history):
    session = DebugSession(settings, history=history)
    session.start(QUESTION)
    session.step()
    run_id = session.current.run_id
    assert run_owners.sweep(history) == []  # still driven by its session
    del session
    gc.collect()  # Streamlit drops a closed tab's session; the collector finds it
    assert run_owners.sweep(history) == [run_id]
    assert history.get_run(run_id).status == "abandoned"


def test_a_disconnected_tab_leaves_its_run_behind(settings, history):
    session = DebugSession(settings, history=history)
    session.client_id = "tab-1"
    session.start(QUESTION)
    run_id = session.current.run_id
    assert run_owners.sweep(history, is_active=lambda client: True) == []
    assert run_owners.sweep(history, is_active=lambda client: client != "tab-1") == [run_id]
    assert history.get_run(run_id).status == "abandoned" and not session.open_runs


def test_the_next_start_abandons_what_a_previous_process_left_running(tmp_path):
    path = tmp_path / "shared.db"
    with RunHistory(path, server_id=history_store.server_id()) as before:  # this server, before a restart
        left = before.record_start("the server was killed here").run_id
        done = before.record_start("finished").run_id
        before.record_finish(done, status="done", duration_ms=1)
    try:
        reopened = history_store.history(path)
        assert reopened.get_run(left).status == "abandoned"
        assert reopened.get_run(done).status == "done"
        live = reopened.record_start("running in this process").run_id
        assert history_store.history(path).get_run(live).status == "running"  # only the first open sweeps
    finally:
        history_store.close_all()


def test_a_reloaded_tab_takes_over_the_session_its_page_left_behind(settings, history):
    session = DebugSession(settings, history=history)
    session.client_id, session.browser_id = "old-tab", "browser-a"
    session.start(QUESTION)
    session.step()
    run_id = session.current.run_id
    assert run_owners.adoptable(run_id, is_active=lambda client: True) is None  # a colleague's link: no
    assert run_owners.adoptable("main-unknown", is_active=lambda client: False) is None
    gone = lambda client: client != "old-tab"  # noqa: E731
    assert run_owners.adoptable(run_id, "browser-b", is_active=gone) is None  # another person's browser
    found = run_owners.adoptable(run_id, "browser-a", is_active=gone)
    assert found is session
    run_owners.hand_over(found, "new-tab")
    assert run_owners.sweep(history, is_active=lambda client: client != "old-tab") == []  # driven again
    found.step()  # goes on live
    assert len(found.current.stepper.steps) == 2 and history.get_run(run_id).status == "running"
    found.start(QUESTION)  # replaced: nobody can take the old run over any more
    assert run_owners.adoptable(run_id, is_active=lambda client: False) is None


def test_the_browser_token_is_the_same_under_every_mask():
    a = "2|b311d27a|f2b4dc2c2c63806ab08f72351bc5e31b|1796288433"
    b = "2|42ea8e42|034f8014dd98dc5241742e0dea3ebf23|1796288433"
    assert run_owners.browser_token(a) == run_owners.browser_token(b) == "41a50e569f725210039ea04fa8d43161"
    for bad in (None, "", "garbage", "2|zz|zz|1", "1|00|00|0"):
        assert run_owners.browser_token(bad) is None
