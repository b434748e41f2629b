"""The debugger page when the shared PostgreSQL history goes down mid-run (issue 24, finding 4), under
AppTest, on a cluster of its own that the test stops and starts again: the Step that meets the outage
keeps the page and its controls, one warning says the run goes on in memory, Continue and time travel
still work, and once the database is back the history page lists the runs again, the cut one abandoned
(never `running`) and the next one recorded."""
from __future__ import annotations

import pytest

from tests.support.apptest import control_enabled, inspector_text, press, travel_to_step
from tests.ui.test_history_apptest import demo, history_page, new_app, on_debugger, problems, runs

LOST = "stopped answering"


@pytest.fixture(scope="module")
def cluster():
    from tests.support.postgres import postgres_cluster

    with postgres_cluster() as found:
        yield found


@pytest.fixture
def shared(env, cluster, monkeypatch):
    from rag_debugger.ui import history_store

    monkeypatch.setenv("RAG_HISTORY_URL", cluster.new_schema())
    monkeypatch.setenv("RAG_HISTORY_RETRY_S", "0")
    history_store.close_all()
    yield cluster
    try:
        cluster.sql("SELECT 1")
    except Exception:  # noqa: BLE001 - a failed test left it stopped
        cluster.start()
    history_store.close_all()


def lost_warnings(at) -> list[str]:
    return [w.body for w in at.warning if LOST in w.body]


def test_the_page_keeps_its_controls_when_the_database_goes_down_mid_run(shared):
    question = demo("answer")
    at = new_app().run()
    at.button(key=f"demo_{question.id}").click().run()
    press(at, "step")
    assert not problems(at) and not lost_warnings(at)
    shared.stop()
    try:
        press(on_debugger(at), "step")
        assert not problems(at)
        assert len(lost_warnings(at)) == 1  # said once
        assert control_enabled(at, "step") and control_enabled(at, "continue") and control_enabled(at, "restart")
        press(on_debugger(at), "continue")
        assert not problems(at) and not lost_warnings(at)  # not again on the next click
        assert "Result: answer" in inspector_text(at)
        travel_to_step(on_debugger(at), 0)
        assert not problems(at)
    finally:
        shared.start()
    press(on_debugger(at), "restart")  # a new run, once the database answers
    press(on_debugger(at), "continue")
    assert not problems(at) and not lost_warnings(at)
    history_page(at)
    assert not problems(at)
    statuses = sorted(runs(at)["status"])
    assert statuses == ["abandoned", "done"], statuses  # the cut run is never left running
